//! What parsing one trace file gives, and how it fails: shared by the walk of the top-level
//! object ([`crate::input::json::parse`]) and the parallel reading of `traceEvents` that it drives
//! (`pipeline`), both of which sit above this module.

use crate::error::{Error, Location};
use crate::input::attrs::AttrTable;
use crate::input::json::event;
use crate::input::read::{Compression, describe_read_error};
use crate::model::store::{DeviceProperties, EventTable, FlowEvents, MemoryEvents, StringTable};
use serde::de::IgnoredAny;
use std::io;
use std::path::Path;

/// What the parser extracts from one trace file.
#[derive(Debug, Default)]
pub struct ParsedTrace {
    /// `distributedInfo.rank`, when the file declares one.
    pub declared_rank: Option<i64>,
    /// `distributedInfo.world_size`, when the file declares one.
    pub declared_world_size: Option<i64>,
    /// The names, categories and threads the events' columns refer to by id.
    pub strings: StringTable,
    /// The kept events, in file order.
    pub events: EventTable,
    /// The `args` attributes asked for, one row per kept event.
    pub attrs: AttrTable,
    /// Number of entries in `traceEvents`, kept or not.
    pub total_events: u64,
    /// Begin and end events (`ph` `B`, `E`, `b`, `e`) left out.
    pub begin_end_events: u64,
    /// Bytes of JSON text read.
    pub json_bytes: u64,
    /// Step numbers seen by a [`crate::input::json::parse::scan_header`] that asked for them, sorted
    /// and unique.
    pub scanned_steps: Vec<i64>,
    /// `[memory]` instant events, in file order.
    pub memory: MemoryEvents,
    /// `fwdbwd` flow events, in file order.
    pub flows: FlowEvents,
    /// `deviceProperties`, in file order.
    pub devices: Vec<DeviceProperties>,
    /// `args.device` value → number of kept events carrying it, sorted by device id.
    pub device_use: Vec<(i64, u64)>,
}

/// A problem found while reading, before it is given the file's name.
#[derive(Debug)]
pub(crate) enum Fail {
    /// At this byte of the JSON text.
    At(u64, String),
    /// Of the file as a whole.
    Whole(String),
    /// Reading (or decompressing) failed after this many bytes of JSON.
    Io(io::Error, u64),
}

impl Fail {
    /// The error the user sees, naming `path`.
    pub(crate) fn into_error(self, path: &Path, compression: Compression) -> Error {
        match self {
            Fail::At(at, msg) => Error::input_at(path, msg, Location::Byte(at)),
            Fail::Whole(msg) => Error::input(path, msg),
            Fail::Io(e, at) => Error::input_at(
                path,
                describe_read_error(&e, compression),
                Location::Text(format!("after {at} bytes of JSON")),
            ),
        }
    }
}

/// The text ends at `end` where more was expected.
pub(crate) fn truncated_at(end: u64) -> Fail {
    Fail::At(
        end,
        "invalid JSON: unexpected end of text (truncated file?)".to_string(),
    )
}

/// Checks that `s` is one valid JSON value.
pub(crate) fn check_value(s: &[u8]) -> Result<(), event::Failure> {
    let text = event::utf8(s)?;
    event::deserialize(text, |de| serde::Deserialize::deserialize(de).map(|_: IgnoredAny| ()))
}
