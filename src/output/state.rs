//! The comparison that the last `compare` saved, so that `ops-diff` and `plot` can reuse it.

use crate::analysis::diff::Comparison;
use crate::error::io_reason;
use crate::error::{Error, Result};
use crate::request::CompareRequest;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// Environment variable that moves the state directory.
pub(crate) const STATE_DIR_ENV: &str = "TRACEDIFF_STATE_DIR";
const DEFAULT_DIR: &str = ".tracediff";
const FILE_NAME: &str = "last-comparison.json";
/// Bumped whenever the saved layout changes; older files are refused with a clear message.
const FORMAT_VERSION: u32 = 1;

/// The last comparison, as `compare` saves it for `plot`, `ops-diff` and the other commands run
/// without CONTROL and TEST.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct Saved {
    /// The layout version it was written with; another one is refused on reading.
    pub format_version: u32,
    /// The version of tracediff that wrote it.
    pub tool_version: String,
    /// The request with absolute paths, so the state works from any directory.
    pub request: CompareRequest,
    /// The comparison's rows and both sides' descriptions.
    pub comparison: Comparison,
}

/// [`Saved`] with borrowed contents, for writing.
#[derive(Serialize)]
struct SavedRef<'a> {
    format_version: u32,
    tool_version: &'static str,
    request: &'a CompareRequest,
    comparison: &'a Comparison,
}

/// The state directory: `$TRACEDIFF_STATE_DIR`, else `.tracediff` in the current directory.
pub(crate) fn state_dir(env_value: Option<&str>) -> PathBuf {
    match env_value {
        Some(v) if !v.is_empty() => PathBuf::from(v),
        _ => PathBuf::from(DEFAULT_DIR),
    }
}

/// The saved comparison's file inside the state directory `dir`.
pub(crate) fn state_file(dir: &Path) -> PathBuf {
    dir.join(FILE_NAME)
}

/// Writes the comparison atomically (temp file + rename); returns the file written.
pub(crate) fn save(dir: &Path, request: &CompareRequest, comparison: &Comparison) -> Result<PathBuf> {
    std::fs::create_dir_all(dir).map_err(|e| Error::Output {
        path: dir.to_path_buf(),
        source: e,
    })?;
    let saved = SavedRef {
        format_version: FORMAT_VERSION,
        tool_version: env!("CARGO_PKG_VERSION"),
        request,
        comparison,
    };
    let path = state_file(dir);
    // Streamed to the file: no copy of the comparison, in memory or as text.
    crate::atomic::write_atomically(&path, |w| {
        serde_json::to_writer(&mut *w, &saved)?;
        Ok(())
    })?;
    Ok(path)
}

/// Reads the saved comparison, or says to run `tracediff compare` first.
pub(crate) fn load(dir: &Path) -> Result<(Saved, PathBuf)> {
    let path = state_file(dir);
    let text = match std::fs::read(&path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(Error::State(format!(
                "no saved comparison in {}: run `tracediff compare CONTROL TEST` first, or pass CONTROL and TEST",
                dir.display()
            )));
        }
        Err(e) => {
            return Err(Error::input(
                &path,
                format!("cannot read the saved comparison: {}", io_reason(&e)),
            ));
        }
    };
    // The version first, so that a file of another layout is named as such, not as unreadable.
    #[derive(Deserialize)]
    struct Version {
        format_version: u32,
        tool_version: String,
    }
    let unreadable = |e: serde_json::Error| {
        Error::input(
            &path,
            format!("the saved comparison is unreadable ({e}); run `tracediff compare` again"),
        )
    };
    let version: Version = serde_json::from_slice(&text).map_err(unreadable)?;
    if version.format_version != FORMAT_VERSION {
        let age = if version.format_version > FORMAT_VERSION {
            "a newer"
        } else {
            "an older"
        };
        return Err(Error::input(
            &path,
            format!(
                "the saved comparison was written by tracediff {} in {age} layout (version {}; this tracediff reads version {FORMAT_VERSION}); run `tracediff compare` again",
                version.tool_version, version.format_version
            ),
        ));
    }
    let saved: Saved = serde_json::from_slice(&text).map_err(unreadable)?;
    Ok((saved, path))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::aggregate::{Naming, Totals};
    use crate::analysis::diff::{Row, SideInfo};
    use crate::analysis::select::{Device, Resolved};

    fn comparison() -> Comparison {
        let side = |label: &str| SideInfo {
            label: label.into(),
            path: format!("/x/{label}"),
            files: vec![format!("/x/{label}/a.json")],
            resolved: Resolved {
                ranks: vec![0],
                iterations: Some(vec![3]),
            },
            steps_available: 1,
            ranks_available: 1,
            run_steps: vec![],
        };
        Comparison {
            control: side("control"),
            test: side("test"),
            device: Device::Gpu,
            naming: Naming::ShortName,
            normalize_names: false,
            python_frames: true,
            group_by: vec![],
            include: vec![],
            exclude: vec!["ProfilerStep".into()],
            significance: false,
            shift: Default::default(),
            step_ns: None,
            rows: vec![Row {
                name: "aten::mm".into(),
                control: Totals { count: 1, dur_ns: 1500 },
                test: Totals { count: 2, dur_ns: 2500 },
                significant: None,
                per_step: None,
            }],
            why: None,
        }
    }

    #[test]
    fn saves_and_loads_the_same_comparison() {
        let dir = tempfile::tempdir().unwrap();
        let state = dir.path().join("nested/state");
        let req = CompareRequest::new("/x/control", "/x/test");
        let written = save(&state, &req, &comparison()).unwrap();
        assert_eq!(written, state.join(FILE_NAME));
        let (saved, path) = load(&state).unwrap();
        assert_eq!(path, written);
        assert_eq!(saved.request, req);
        assert_eq!(saved.comparison, comparison());
    }

    #[test]
    fn missing_state_says_what_to_do() {
        let dir = tempfile::tempdir().unwrap();
        let e = load(dir.path()).unwrap_err().to_string();
        assert!(e.contains("run `tracediff compare CONTROL TEST` first"), "{e}");
        std::fs::write(state_file(dir.path()), b"{not json").unwrap();
        let e = load(dir.path()).unwrap_err().to_string();
        assert!(e.contains("the saved comparison is unreadable"), "{e}");
    }

    #[test]
    fn env_var_moves_the_directory() {
        assert_eq!(state_dir(Some("/tmp/s")), PathBuf::from("/tmp/s"));
        assert_eq!(state_dir(Some("")), PathBuf::from(".tracediff"));
        assert_eq!(state_dir(None), PathBuf::from(".tracediff"));
    }
}
