//! The error of the tracediff library: the trace crate's errors (a usage error, an input that
//! cannot be read), which this crate raises too, and what only this crate does (writing its
//! output, reading a saved comparison, drawing a chart).

use std::io;
use std::path::PathBuf;

pub(crate) use tracediff_trace::error::{Location, io_reason};

/// Everything that can go wrong. Each variant renders as the one line that follows
/// `tracediff: ` on stderr: `<what> (<which file>[: <where in it>])`; the command line maps each
/// kind to its exit code. New kinds may be added: match with a `_` arm.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A usage error, or an input file or directory that is missing, unreadable or not a valid
    /// trace or summary (the trace crate's error, worded as it words it).
    #[error(transparent)]
    Trace(#[from] tracediff_trace::Error),

    /// Writing output failed.
    #[error("cannot write {}: {}", path.display(), io_reason(source))]
    Output {
        /// The file written to (`<stdout>` for standard output).
        path: PathBuf,
        /// Why the write failed.
        #[source]
        source: io::Error,
    },

    /// A saved comparison is missing or unreadable.
    #[error("{0}")]
    State(String),

    /// A chart could not be drawn.
    #[error("cannot draw the chart: {0}")]
    Render(String),
}

impl Error {
    /// An input error with no place inside the file.
    pub fn input(path: impl Into<PathBuf>, what: impl Into<String>) -> Self {
        Error::Trace(tracediff_trace::Error::input(path, what))
    }

    /// An input error at a place inside the file.
    pub fn input_at(path: impl Into<PathBuf>, what: impl Into<String>, location: Location) -> Self {
        Error::Trace(tracediff_trace::Error::input_at(path, what, location))
    }

    /// A usage error: the message is the whole line.
    pub fn usage(msg: impl Into<String>) -> Self {
        Error::Trace(tracediff_trace::Error::usage(msg))
    }

    /// The trace crate's error, for work handed to its loader (a summary read as one file of
    /// a side). Reading raises only the trace crate's kinds; any other keeps its line, as a
    /// usage error does, so the message and the exit code stay the same.
    pub(crate) fn into_trace(self) -> tracediff_trace::Error {
        match self {
            Error::Trace(e) => e,
            other => tracediff_trace::Error::usage(other.to_string()),
        }
    }
}

/// A result whose error is [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_kind_reads_as_before() {
        let e = Error::input_at("a/b.json", "invalid JSON: expected ':'", Location::Byte(17));
        assert_eq!(e.to_string(), "invalid JSON: expected ':' (a/b.json: byte 17)");
        assert_eq!(Error::usage("no such rank").to_string(), "no such rank");
        let denied = Error::Output {
            path: "out.csv".into(),
            source: io::Error::from(io::ErrorKind::PermissionDenied),
        };
        assert_eq!(denied.to_string(), "cannot write out.csv: permission denied");
        assert_eq!(
            Error::State("no saved comparison".into()).to_string(),
            "no saved comparison"
        );
        assert_eq!(
            Error::Render("no font".into()).to_string(),
            "cannot draw the chart: no font"
        );
    }
}
