//! The measures of the operator and kernel views: what a column counts, in which unit, and
//! where the work ran.

use serde::Serialize;
use std::fmt;

/// One column of the operator and kernel views. Its [`key`](Measure::key) names it in CSV and
/// JSON (`control_device_total`, …), in `--sort` keys (with `-` for `_`) and in the notes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Measure {
    /// How many times it ran.
    Calls,
    /// Host time of the operator itself, its children's left out.
    HostSelf,
    /// Host time of the operator and everything under it.
    HostTotal,
    /// Device time launched by the operator itself.
    DeviceSelf,
    /// Device time launched by the operator or anything under it; a kernel's summed duration.
    DeviceTotal,
    /// A kernel's mean duration.
    DeviceMean,
    /// A kernel's shortest duration.
    DeviceMin,
    /// A kernel's longest duration.
    DeviceMax,
}

/// What a measure's values are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unit {
    /// A number of calls.
    Count,
    /// A duration in nanoseconds.
    Nanoseconds,
}

/// Where the work a time measures ran.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Processor {
    /// On the host (CPU threads).
    Host,
    /// On the device (GPU streams).
    Device,
}

impl Measure {
    /// Its name in output: `calls`, `host_self`, `device_total`, ….
    pub const fn key(self) -> &'static str {
        match self {
            Measure::Calls => "calls",
            Measure::HostSelf => "host_self",
            Measure::HostTotal => "host_total",
            Measure::DeviceSelf => "device_self",
            Measure::DeviceTotal => "device_total",
            Measure::DeviceMean => "device_mean",
            Measure::DeviceMin => "device_min",
            Measure::DeviceMax => "device_max",
        }
    }

    /// What its values are.
    pub const fn unit(self) -> Unit {
        match self {
            Measure::Calls => Unit::Count,
            _ => Unit::Nanoseconds,
        }
    }

    /// Where the work it times ran; `None` for the calls.
    pub const fn processor(self) -> Option<Processor> {
        match self {
            Measure::Calls => None,
            Measure::HostSelf | Measure::HostTotal => Some(Processor::Host),
            _ => Some(Processor::Device),
        }
    }

    /// Whether it is a count (the calls).
    pub const fn is_count(self) -> bool {
        matches!(self.unit(), Unit::Count)
    }

    /// Whether it is time of the host.
    pub const fn is_host(self) -> bool {
        matches!(self.processor(), Some(Processor::Host))
    }

    /// Whether it is one statistic of a kernel's durations (mean, shortest, longest), which no
    /// sum of rows or of steps makes.
    pub const fn is_statistic(self) -> bool {
        matches!(self, Measure::DeviceMean | Measure::DeviceMin | Measure::DeviceMax)
    }
}

impl fmt::Display for Measure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.key())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_measure_reads_as_its_key_in_text_and_json() {
        let all = [
            Measure::Calls,
            Measure::HostSelf,
            Measure::HostTotal,
            Measure::DeviceSelf,
            Measure::DeviceTotal,
            Measure::DeviceMean,
            Measure::DeviceMin,
            Measure::DeviceMax,
        ];
        for m in all {
            assert_eq!(m.to_string(), m.key());
            assert_eq!(serde_json::to_value(m).unwrap(), m.key());
            assert_eq!(m.is_count(), m == Measure::Calls);
            assert_eq!(m.is_host(), m.key().starts_with("host"));
        }
    }
}
