//! Finding the trace files of one side (docs/semantics.md#finding-traces).

use crate::error::io_reason;
use crate::error::{Error, Result};
use std::path::{Path, PathBuf};

/// The names of the files a directory contributes as traces, as messages and help give them:
/// every input the tool reads by its name (Kineto JSON and rocprofv3's JSON, plain or gzip,
/// and Nsight Systems SQLite exports; see [`is_trace_file_name`]).
pub const TRACE_FILE_PATTERNS: &str = "Kineto or rocprofv3 *.json, *.json.gz; Nsight *.sqlite";

/// Whether a file name looks like a trace: `.json` or `.json.gz` (which covers
/// `.pt.trace.json` and `.pt.trace.json.gz`), or `.sqlite` (an Nsight Systems export).
pub fn is_trace_name(name: &str) -> bool {
    is_trace_file_name(std::ffi::OsStr::new(name))
}

/// [`is_trace_name`] on the name's bytes, so that a name that is not valid UTF-8 (possible on
/// Unix) is judged by its ending like any other, never skipped.
pub fn is_trace_file_name(name: &std::ffi::OsStr) -> bool {
    let bytes = name.as_encoded_bytes();
    bytes.ends_with(b".json") || bytes.ends_with(b".json.gz") || bytes.ends_with(b".sqlite")
}

/// Whether a file name looks like a summary (`tracediff summarize`): `.parquet`. Whether it is
/// one is decided by its content when it is read.
pub fn is_summary_file_name(name: &std::ffi::OsStr) -> bool {
    name.as_encoded_bytes().ends_with(b".parquet")
}

/// The prefix of a run's directory in a summary dataset (`run=<label>/rank=<r>.parquet`, Hive
/// partitioning; docs/summaries.md#datasets).
pub const RUN_DIR_PREFIX: &str = "run=";

/// Whether a directory name is a run of a summary dataset (`run=<label>`).
pub fn is_run_dir_name(name: &std::ffi::OsStr) -> bool {
    name.as_encoded_bytes().starts_with(RUN_DIR_PREFIX.as_bytes())
}

/// Whether `dir` directly holds a trace or summary file.
fn holds_files(dir: &Path) -> bool {
    std::fs::read_dir(dir).is_ok_and(|entries| {
        entries.flatten().any(|e| {
            let name = e.file_name();
            (is_trace_file_name(&name) || is_summary_file_name(&name)) && e.path().is_file()
        })
    })
}

/// The one run of a summary dataset given as a side: `path` is a directory that holds no trace
/// or summary file of its own, and of its subdirectories exactly one holds such files and is
/// named `run=<label>`. `None` otherwise (a dataset of several runs is a set of runs).
pub fn single_dataset_run(path: &Path) -> Option<PathBuf> {
    if !path.is_dir() || holds_files(path) {
        return None;
    }
    let mut holding = std::fs::read_dir(path)
        .ok()?
        .flatten()
        .filter(|e| e.path().is_dir() && holds_files(&e.path()));
    let only = holding.next()?;
    (holding.next().is_none() && is_run_dir_name(&only.file_name())).then(|| only.path())
}

/// The files a side is made of: `path` itself when it is a file, else the trace and summary
/// files directly inside the directory `path` (not recursive), in sorted order. A summary
/// dataset of one run given as its directory ([`single_dataset_run`]) is the files of that run.
pub fn discover(path: &Path) -> Result<Vec<PathBuf>> {
    discover_with_notes(path).map(|(files, _)| files)
}

/// [`discover`], with a note for each entry that is named like a trace or a summary but left
/// out: a symbolic link that points nowhere (a file that was moved or not copied along).
pub fn discover_with_notes(path: &Path) -> Result<(Vec<PathBuf>, Vec<String>)> {
    let meta = std::fs::metadata(path).map_err(|e| Error::input(path, format!("cannot open: {}", io_reason(&e))))?;
    if meta.is_file() {
        return Ok((vec![path.to_path_buf()], Vec::new()));
    }
    if !meta.is_dir() {
        return Err(Error::input(path, "not a file or a directory"));
    }
    if let Some(run) = single_dataset_run(path) {
        return discover_with_notes(&run);
    }
    let entries = std::fs::read_dir(path).map_err(|e| Error::input(path, format!("cannot list: {}", io_reason(&e))))?;
    let mut files = Vec::new();
    let mut dangling = Vec::new();
    let mut other = 0usize;
    for entry in entries {
        let entry = entry.map_err(|e| Error::input(path, format!("cannot list: {}", io_reason(&e))))?;
        let file_path = entry.path();
        let name = entry.file_name();
        let wanted = is_trace_file_name(&name) || is_summary_file_name(&name);
        match std::fs::metadata(&file_path) {
            Ok(m) if m.is_file() && wanted => files.push(file_path),
            // metadata follows links; a link whose target is missing fails where the link is seen.
            Err(_) if wanted && std::fs::symlink_metadata(&file_path).is_ok_and(|m| m.is_symlink()) => {
                dangling.push(file_path);
                other += 1;
            }
            _ => other += 1,
        }
    }
    dangling.sort();
    let notes: Vec<String> = dangling
        .iter()
        .map(|p| format!("skipped {}: a symbolic link to a file that does not exist", p.display()))
        .collect();
    if files.is_empty() {
        let what = if other == 0 {
            "empty directory: no trace files".to_string()
        } else {
            let among = if other == 1 {
                "in the only entry".to_string()
            } else {
                format!("among the {other} entries")
            };
            format!(
                "no trace files ({TRACE_FILE_PATTERNS}) or summaries (*.parquet) {among} of this directory{}",
                subdirectory_hint(path)
            )
        };
        let what = match dangling.len() {
            0 => what,
            1 => format!(
                "{what} ({} is a symbolic link to a file that does not exist)",
                dangling[0].display()
            ),
            n => format!("{what} ({n} are symbolic links to files that do not exist)"),
        };
        return Err(Error::input(path, what));
    }
    files.sort();
    Ok((files, notes))
}

/// Subdirectories named in a hint, at most.
const HINT_DIRS: usize = 3;

/// Where the traces are when a directory holds none but its subdirectories do (a run's folder
/// of per-job folders, a copy one level too high): `; nest/sub holds 2 traces: pass it`, or
/// nothing. Only the directories directly inside `path` are looked at (not recursive, as
/// discovery), in sorted order; an unreadable one counts as holding none.
fn subdirectory_hint(path: &Path) -> String {
    let Ok(entries) = std::fs::read_dir(path) else {
        return String::new();
    };
    let mut dirs: Vec<PathBuf> = entries.flatten().map(|e| e.path()).filter(|p| p.is_dir()).collect();
    dirs.sort();
    let holding: Vec<(PathBuf, usize)> = dirs
        .into_iter()
        .filter_map(|dir| {
            let n = std::fs::read_dir(&dir)
                .ok()?
                .flatten()
                .filter(|e| {
                    let name = e.file_name();
                    (is_trace_file_name(&name) || is_summary_file_name(&name)) && e.path().is_file()
                })
                .count();
            (n > 0).then_some((dir, n))
        })
        .collect();
    let traces = |n: usize| {
        if n == 1 {
            "1 trace".to_string()
        } else {
            format!("{n} traces")
        }
    };
    match holding.as_slice() {
        [] => String::new(),
        [(dir, n)] => format!("; {} holds {}: pass it", dir.display(), traces(*n)),
        [(dir, n), rest @ ..] => {
            let mut named: Vec<String> = vec![format!("{} holds {}", dir.display(), traces(*n))];
            named.extend(
                rest.iter()
                    .take(HINT_DIRS - 1)
                    .map(|(d, n)| format!("{} {}", d.display(), traces(*n))),
            );
            let more = match holding.len().saturating_sub(HINT_DIRS) {
                0 => String::new(),
                1 => " and 1 more directory".to_string(),
                k => format!(" and {k} more directories"),
            };
            format!("; {}{more}: pass one of them", named.join(", "))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_json_and_gz_sorted_not_recursive() {
        let dir = tempfile::tempdir().unwrap();
        for name in ["b.pt.trace.json.gz", "a.json", "notes.txt", "c.json.bak"] {
            std::fs::write(dir.path().join(name), b"{}").unwrap();
        }
        std::fs::create_dir(dir.path().join("sub.json")).unwrap();
        let found: Vec<String> = discover(dir.path())
            .unwrap()
            .iter()
            .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
            .collect();
        assert_eq!(found, vec!["a.json", "b.pt.trace.json.gz"]);
    }

    #[test]
    fn the_named_patterns_are_the_names_read() {
        // Every pattern the messages name is a name a directory contributes, and every ending
        // a directory contributes is named.
        let named: Vec<&str> = TRACE_FILE_PATTERNS
            .split([' ', ',', ';'])
            .filter_map(|p| p.strip_prefix('*'))
            .collect();
        assert_eq!(named, [".json", ".json.gz", ".sqlite"]);
        for ending in &named {
            assert!(is_trace_name(&format!("run{ending}")), "{ending}");
        }
        assert!(!is_trace_name("run.parquet") && !is_trace_name("run.nsys-rep"));
    }

    #[test]
    fn empty_and_traceless_directories_are_errors() {
        let dir = tempfile::tempdir().unwrap();
        let e = discover(dir.path()).unwrap_err().to_string();
        assert!(e.starts_with("empty directory: no trace files ("), "{e}");
        std::fs::write(dir.path().join("x.txt"), b"").unwrap();
        let e = discover(dir.path()).unwrap_err().to_string();
        assert!(
            e.starts_with(
                "no trace files (Kineto or rocprofv3 *.json, *.json.gz; Nsight *.sqlite) or summaries (*.parquet) in the only entry of this directory"
            ),
            "{e}"
        );
    }

    #[cfg(unix)]
    #[test]
    fn names_that_are_not_utf8_are_found_like_any_other() {
        use std::os::unix::ffi::OsStrExt;
        let dir = tempfile::tempdir().unwrap();
        let odd = std::ffi::OsStr::from_bytes(b"rank\xff.json");
        std::fs::write(dir.path().join(odd), b"{}").unwrap();
        std::fs::write(dir.path().join(std::ffi::OsStr::from_bytes(b"notes\xff.txt")), b"").unwrap();
        assert_eq!(discover(dir.path()).unwrap(), vec![dir.path().join(odd)]);
    }

    #[cfg(unix)]
    #[test]
    fn a_dangling_trace_link_is_noted_not_silently_skipped() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.json"), b"{}").unwrap();
        std::os::unix::fs::symlink(dir.path().join("moved.json"), dir.path().join("b.json")).unwrap();
        std::os::unix::fs::symlink(dir.path().join("gone"), dir.path().join("notes.txt")).unwrap();
        let (files, notes) = discover_with_notes(dir.path()).unwrap();
        assert_eq!(files, vec![dir.path().join("a.json")]);
        assert_eq!(
            notes,
            vec![format!(
                "skipped {}: a symbolic link to a file that does not exist",
                dir.path().join("b.json").display()
            )]
        );
        std::fs::remove_file(dir.path().join("a.json")).unwrap();
        let e = discover(dir.path()).unwrap_err().to_string();
        assert!(
            e.contains("b.json is a symbolic link to a file that does not exist"),
            "{e}"
        );
    }

    #[test]
    fn a_directory_of_directories_names_the_one_holding_traces() {
        let dir = tempfile::tempdir().unwrap();
        let nest = dir.path().join("nest");
        std::fs::create_dir_all(nest.join("sub")).unwrap();
        for name in ["control.json", "test.json.gz"] {
            std::fs::write(nest.join("sub").join(name), b"{}").unwrap();
        }
        let e = discover(&nest).unwrap_err().to_string();
        assert_eq!(
            e,
            format!(
                "no trace files (Kineto or rocprofv3 *.json, *.json.gz; Nsight *.sqlite) or summaries (*.parquet) in the only entry of this directory; {} holds 2 traces: pass it ({})",
                nest.join("sub").display(),
                nest.display()
            )
        );
        // Several: each named with its count, then how many more; one without traces is not.
        for (sub, n) in [("a", 1), ("b", 3), ("c", 1), ("d", 2)] {
            std::fs::create_dir(nest.join(sub)).unwrap();
            for k in 0..n {
                std::fs::write(nest.join(sub).join(format!("r{k}.json")), b"{}").unwrap();
            }
        }
        std::fs::create_dir(nest.join("empty")).unwrap();
        let e = discover(&nest).unwrap_err().to_string();
        let p = |s: &str| nest.join(s).display().to_string();
        assert!(
            e.ends_with(&format!(
                "among the 6 entries of this directory; {} holds 1 trace, {} 3 traces, {} 1 trace and 2 more directories: pass one of them ({})",
                p("a"),
                p("b"),
                p("c"),
                nest.display()
            )),
            "{e}"
        );
    }

    #[test]
    fn a_file_is_its_own_side() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("whatever.bin");
        std::fs::write(&p, b"{}").unwrap();
        assert_eq!(discover(&p).unwrap(), vec![p]);
    }
}
