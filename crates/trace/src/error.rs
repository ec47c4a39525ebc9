//! The error of the trace crate: a usage error or an input that cannot be read. (The
//! tracediff crate wraps it in its own error, beside what only it raises.)

use std::fmt;
use std::io;
use std::path::{Path, PathBuf};

/// Where in an input file a problem was found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Location {
    /// Byte offset in the (decompressed) JSON text.
    Byte(u64),
    /// Free-form position, e.g. `traceEvents[12]`.
    Text(String),
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Location::Byte(b) => write!(f, "byte {b}"),
            Location::Text(t) => f.write_str(t),
        }
    }
}

/// Everything that can go wrong. Each variant renders as the one line that follows
/// `tracediff: ` on stderr: `<what> (<which file>[: <where in it>])`. New kinds may be added:
/// match with a `_` arm.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The command line or configuration asks for something impossible.
    #[error("{0}")]
    Usage(String),

    /// An input file or directory is missing, unreadable or not a valid trace.
    #[error("{}", fmt_input(what, path, location.as_ref()))]
    Input {
        /// What is wrong, e.g. `invalid JSON: unexpected end of text`.
        what: String,
        /// The file or directory it is wrong in.
        path: PathBuf,
        /// Where in the file, when known.
        location: Option<Location>,
    },
}

fn fmt_input(what: &str, path: &Path, location: Option<&Location>) -> String {
    match location {
        Some(loc) => format!("{what} ({}: {loc})", path.display()),
        None => format!("{what} ({})", path.display()),
    }
}

impl Error {
    /// An input error with no place inside the file.
    pub fn input(path: impl Into<PathBuf>, what: impl Into<String>) -> Self {
        Error::Input {
            what: what.into(),
            path: path.into(),
            location: None,
        }
    }

    /// An input error at a place inside the file.
    pub fn input_at(path: impl Into<PathBuf>, what: impl Into<String>, location: Location) -> Self {
        Error::Input {
            what: what.into(),
            path: path.into(),
            location: Some(location),
        }
    }

    /// A usage error: the message is the whole line.
    pub fn usage(msg: impl Into<String>) -> Self {
        Error::Usage(msg.into())
    }
}

/// The reason of an I/O error without the "(os error N)" noise.
pub fn io_reason(e: &io::Error) -> String {
    match e.kind() {
        io::ErrorKind::NotFound => "no such file or directory".to_string(),
        io::ErrorKind::PermissionDenied => "permission denied".to_string(),
        _ => {
            let s = e.to_string();
            let reason = match s.find(" (os error") {
                Some(i) => &s[..i],
                None => &s,
            };
            lowercase_first(reason)
        }
    }
}

/// `reason` with a capital first letter lowered: the system's messages are capitalised (`Not a
/// directory`), while a reason stands in the middle of a line (`cannot open: not a directory`).
fn lowercase_first(reason: &str) -> String {
    let mut chars = reason.chars();
    match chars.next() {
        Some(first) if first.is_ascii_uppercase() => first.to_ascii_lowercase().to_string() + chars.as_str(),
        _ => reason.to_string(),
    }
}

/// A result whose error is [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn input_error_names_file_and_place() {
        let e = Error::input_at("a/b.json", "invalid JSON: expected ':'", Location::Byte(17));
        assert_eq!(e.to_string(), "invalid JSON: expected ':' (a/b.json: byte 17)");
        let e = Error::input("dir", "no trace files");
        assert_eq!(e.to_string(), "no trace files (dir)");
    }

    #[test]
    fn io_reasons_read_as_the_middle_of_a_line() {
        let e = io::Error::from(io::ErrorKind::NotADirectory);
        assert_eq!(io_reason(&e), "not a directory");
        let e = io::Error::from_raw_os_error(20);
        assert_eq!(io_reason(&e), "not a directory");
        assert_eq!(io_reason(&io::Error::other("X11 said no")), "x11 said no");
        assert_eq!(lowercase_first("éclair"), "éclair");
    }
}
