//! What a request picks of each side and how it keys rows: the device whose events count
//! ([`Device`]) and how an event becomes a row ([`Naming`], [`Keying`]). Plain data; what they
//! do to events is the analysis' (`Device::admits` here, `Keying`'s names in `aggregate`).

use crate::model::place::Place;
use serde::{Deserialize, Serialize};
use std::fmt;

/// Which events count by where they ran.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
#[serde(rename_all = "lowercase")]
pub enum Device {
    /// Host events only: operators, runtime calls, CPU annotations.
    Cpu,
    /// Device events only: kernels, memory copies and sets, GPU annotations.
    Gpu,
    /// Both.
    #[default]
    All,
}

impl fmt::Display for Device {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Device::Cpu => "cpu",
            Device::Gpu => "gpu",
            Device::All => "all",
        })
    }
}

impl Device {
    /// Whether an event that ran at `place` is selected (docs/semantics.md#host-and-device-events, [`crate::model::place`]).
    #[inline]
    pub fn admits(self, place: Place) -> bool {
        match self {
            Device::All => true,
            Device::Gpu => place.on_device(),
            Device::Cpu => !place.on_device(),
        }
    }
}

/// How rows are keyed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum Naming {
    /// The name as recorded.
    #[default]
    Name,
    /// HTA's short name (docs/semantics.md#short-names).
    ShortName,
}

impl Naming {
    /// The name column's header in outputs: `name` or `short_name`.
    pub fn column(self) -> &'static str {
        match self {
            Naming::Name => "name",
            Naming::ShortName => "short_name",
        }
    }
}

/// How events become rows: by name (or short name), maybe normalized, maybe split by attributes.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Keying {
    /// The name or HTA's short name.
    pub naming: Naming,
    /// Rewrite run-specific noise out of names (ids, addresses, hashes: `--normalize`) before
    /// grouping.
    pub normalize: bool,
    /// Attribute columns whose values become part of the row key (`stream` and `correlation`
    /// are the core columns).
    pub group_by: Vec<String>,
    /// Leave `python_function` events (the Python call stack) out of the rows: they are the
    /// context of the operations, and nested frames would count the same time many times.
    #[serde(default)]
    pub skip_python_frames: bool,
    /// Give a `gpu_user_annotation` (the GPU-side span of a `record_function` or ProfilerStep
    /// annotation) its own row, `NAME (GPU)`, rather than adding it to the host annotation of
    /// the same name: one step of 94.6 ms read as 2 calls and 125 ms (host span + GPU span).
    /// Off in HTA's table, which sums by name.
    #[serde(default)]
    pub gpu_annotations_apart: bool,
}
