//! Allocated memory inside the step windows (docs/semantics.md#overview), from `[memory]` instants.
//!
//! Per device (Device Type, Device Id): the allocated level at time t is the `Total Allocated` of
//! the last event at or before t (before the device's first event, that event's
//! `Total Allocated` − `Bytes`). Peak = its maximum inside the windows; average = time-weighted
//! over them. The device with the largest peak (over the selected ranks) is reported.
//!
//! Old traces (2021) write only `Bytes`, the change of each event, and no `Total Allocated`:
//! the level is then known only up to what was allocated before the profiler started. Such a
//! device's level is the sum of the changes, and its peak and average are the rise above each
//! window's start ([`Levels::relative`]), said so in a note; never an absolute figure made up.

use crate::model::store::TraceFile;
use std::collections::BTreeMap;

/// One device's allocation events, in time order: (ts, level after the event).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Levels {
    /// The level before the first event.
    pub initial: i64,
    /// Whether the levels are the sums of `Bytes` changes (no `Total Allocated` in the trace):
    /// known up to a constant, so each window's figures are measured from its start.
    pub relative: bool,
    /// (ts in ns, bytes allocated after the event), in time order.
    pub events: Vec<(i64, i64)>,
}

/// Peak, ∫ level dt and Σ window length over `windows`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct WindowStats {
    /// The highest level inside the windows, in bytes.
    pub peak: i64,
    /// The level integrated over the windows, in bytes × ns.
    pub integral: i128,
    /// The windows' lengths summed, in ns.
    pub length: i64,
}

impl WindowStats {
    /// The mean level over the windows, in bytes (`integral / length`); `None` when they have no
    /// length.
    pub(crate) fn average(&self) -> Option<i64> {
        (self.length > 0).then(|| (self.integral / i128::from(self.length)) as i64)
    }
}

impl Levels {
    /// The level at `t`: the last event at or before `t`.
    fn at(&self, t: i64) -> i64 {
        let k = self.events.partition_point(|&(ts, _)| ts <= t);
        if k == 0 { self.initial } else { self.events[k - 1].1 }
    }

    /// `None` without windows of positive length.
    pub(crate) fn stats(&self, windows: &[(i64, i64)]) -> Option<WindowStats> {
        let mut out: Option<WindowStats> = None;
        for &(ws, we) in windows.iter().filter(|(s, e)| e > s) {
            let base = if self.relative { self.at(ws) } else { 0 };
            let mut level = self.at(ws) - base;
            let (mut peak, mut integral, mut from) = (level, 0i128, ws);
            let first = self.events.partition_point(|&(ts, _)| ts <= ws);
            for &(ts, l) in self.events[first..].iter().take_while(|(ts, _)| *ts < we) {
                integral += i128::from(level) * i128::from(ts - from);
                level = l - base;
                from = ts;
                peak = peak.max(level);
            }
            integral += i128::from(level) * i128::from(we - from);
            let s = out.get_or_insert(WindowStats {
                peak,
                integral: 0,
                length: 0,
            });
            s.peak = s.peak.max(peak);
            s.integral += integral;
            s.length += we - ws;
        }
        out
    }
}

/// The name PyTorch gives a `Device Type` number (c10::DeviceType).
pub(crate) fn device_type_name(t: i64) -> String {
    const NAMES: [&str; 21] = [
        "cpu",
        "cuda",
        "mkldnn",
        "opengl",
        "opencl",
        "ideep",
        "hip",
        "fpga",
        "maia",
        "xla",
        "vulkan",
        "metal",
        "xpu",
        "mps",
        "meta",
        "hpu",
        "ve",
        "lazy",
        "ipu",
        "mtia",
        "privateuseone",
    ];
    usize::try_from(t)
        .ok()
        .and_then(|k| NAMES.get(k))
        .map_or_else(|| format!("device type {t}"), |n| n.to_string())
}

/// A device as PyTorch prints it: `cuda:0`, or `cpu` where the id is none (Kineto writes the
/// CPU's `Device Id` as -1, and `cpu:-1` reads as a broken index).
pub(crate) fn device_name(t: i64, id: i64) -> String {
    let kind = device_type_name(t);
    if id < 0 { kind } else { format!("{kind}:{id}") }
}

/// Per (device type, device id) of one file: its allocation levels, in time order. A device
/// none of whose events has `Total Allocated` gets the sums of its `Bytes` changes, from 0
/// ([`Levels::relative`]).
pub(crate) fn levels_of(file: &TraceFile) -> BTreeMap<(i32, i32), Levels> {
    let m = &file.memory;
    let mut rows: Vec<usize> = (0..m.ts_ns.len()).collect();
    rows.sort_by_key(|&k| (m.device_type[k], m.device_id[k], m.ts_ns[k], k));
    let with_totals: std::collections::BTreeSet<(i32, i32)> = rows
        .iter()
        .filter(|&&k| m.total_allocated[k].is_some())
        .map(|&k| (m.device_type[k], m.device_id[k]))
        .collect();
    let mut out: BTreeMap<(i32, i32), Levels> = BTreeMap::new();
    for k in rows {
        let device = (m.device_type[k], m.device_id[k]);
        let absolute = with_totals.contains(&device);
        let Some(total) = (if absolute {
            m.total_allocated[k]
        } else {
            let before = out.get(&device).and_then(|l| l.events.last()).map_or(0, |e| e.1);
            Some(before.saturating_add(m.bytes[k]))
        }) else {
            continue;
        };
        let l = out.entry(device).or_insert_with(|| Levels {
            // Never below zero: a first allocation larger than the total (which PyTorch never
            // writes) starts from nothing.
            initial: if absolute {
                total.saturating_sub(m.bytes[k]).max(0)
            } else {
                0
            },
            relative: !absolute,
            events: Vec::new(),
        });
        l.events.push((m.ts_ns[k], total));
    }
    out
}

/// The name and memory of the device the kernels ran on (the most used `args.device` of the
/// first file that has one), from `deviceProperties`. A trace that describes one device while its
/// events name another id (the MI300 trace of `../shared/traces/tracelens_bert_small` describes
/// device 0 and runs its kernels on device 2) is taken to mean the one it describes, with a note.
pub(crate) fn device_properties(files: &[&TraceFile]) -> (Option<String>, Option<u64>, Option<String>) {
    for f in files {
        let used = f
            .device_use
            .iter()
            .max_by_key(|(id, n)| (*n, std::cmp::Reverse(*id)))
            .map(|(id, _)| *id);
        let only = (f.devices.len() == 1).then(|| &f.devices[0]);
        let (props, note) = match used {
            Some(id) => match f.devices.iter().find(|d| d.id == id) {
                Some(d) => (Some(d), None),
                None => (
                    only,
                    only.map(|d| {
                        format!(
                            "the device events name device {id}, which deviceProperties does not describe; \
                             naming it after the one device described ({}: {})",
                            d.id, d.name
                        )
                    }),
                ),
            },
            None => (only, None),
        };
        if let Some(d) = props {
            return (Some(d.name.clone()), d.total_global_mem, note);
        }
    }
    (None, None, None)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn peak_and_time_weighted_average_inside_windows() {
        let l = Levels {
            initial: 100,
            relative: false,
            events: vec![(10, 300), (20, 200), (50, 900)],
        };
        // [0, 40): 100 for 10, 300 for 10, 200 for 20 → 1000 + 3000 + 4000.
        let s = l.stats(&[(0, 40)]).unwrap();
        assert_eq!((s.peak, s.integral, s.length), (300, 8000, 40));
        assert_eq!(s.average(), Some(200));
        // The level at a window's start counts; an event at its end does not.
        let s = l.stats(&[(20, 50)]).unwrap();
        assert_eq!((s.peak, s.average()), (200, Some(200)));
        let s = l.stats(&[(0, 10), (50, 60)]).unwrap();
        assert_eq!((s.peak, s.integral, s.length), (900, 1000 + 9000, 20));
        assert_eq!(l.stats(&[]), None);
    }

    #[test]
    fn levels_from_bytes_alone_are_the_rise_above_each_window_start() {
        // Sums of `Bytes` changes: 0 → 300 → 200 → 900 (known up to a constant).
        let l = Levels {
            initial: 0,
            relative: true,
            events: vec![(10, 300), (20, 200), (50, 900)],
        };
        // [20, 60): 200 at the start, then 900 from 50: the rise is 0 for 30 and 700 for 10.
        let s = l.stats(&[(20, 60)]).unwrap();
        assert_eq!((s.peak, s.integral, s.length), (700, 7000, 40));
        // A window that only frees rises by nothing.
        assert_eq!(l.stats(&[(15, 40)]).unwrap().peak, 0);
    }

    #[test]
    fn device_type_names() {
        assert_eq!(device_type_name(1), "cuda");
        assert_eq!(device_type_name(0), "cpu");
        assert_eq!(device_type_name(99), "device type 99");
        assert_eq!(device_name(1, 0), "cuda:0");
        assert_eq!(device_name(0, -1), "cpu");
    }
}
