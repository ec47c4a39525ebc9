//! Allocated memory inside the step windows (design §4.3), from `[memory]` instants.
//!
//! Per device (Device Type, Device Id): the allocated level at time t is the `Total Allocated` of
//! the last event at or before t (before the device's first event, that event's
//! `Total Allocated` − `Bytes`). Peak = its maximum inside the windows; average = time-weighted
//! over them. The device with the largest peak (over the selected ranks) is reported.

/// One device's allocation events, in time order: (ts, level after the event).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Levels {
    /// The level before the first event.
    pub initial: i64,
    pub events: Vec<(i64, i64)>,
}

/// Peak, ∫ level dt and Σ window length over `windows`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WindowStats {
    pub peak: i64,
    pub integral: i128,
    pub length: i64,
}

impl WindowStats {
    pub fn average(&self) -> Option<i64> {
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
    pub fn stats(&self, windows: &[(i64, i64)]) -> Option<WindowStats> {
        let mut out: Option<WindowStats> = None;
        for &(ws, we) in windows.iter().filter(|(s, e)| e > s) {
            let mut level = self.at(ws);
            let (mut peak, mut integral, mut from) = (level, 0i128, ws);
            let first = self.events.partition_point(|&(ts, _)| ts <= ws);
            for &(ts, l) in self.events[first..].iter().take_while(|(ts, _)| *ts < we) {
                integral += i128::from(level) * i128::from(ts - from);
                level = l;
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
pub fn device_type_name(t: i64) -> String {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn peak_and_time_weighted_average_inside_windows() {
        let l = Levels {
            initial: 100,
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
    fn device_type_names() {
        assert_eq!(device_type_name(1), "cuda");
        assert_eq!(device_type_name(0), "cpu");
        assert_eq!(device_type_name(99), "device type 99");
    }
}
