//! Whether the folders given as sides are laid out as sides (docs/sides.md): a directory of
//! runs holds runs of one side, never the two sides of a pair, nor the other side's data.
//!
//! A directory that holds no trace of its own but subdirectories that do is read as a side of
//! runs, one per subdirectory ([`crate::analysis::load::runs::runs_of`]). That rule alone reads
//! a scenario folder (`pair/control`, `pair/test`) given as one side as two runs of that side:
//! the test data mixed into the baseline, with exit 0. These checks refuse such a side and name
//! the folder to pass instead.

use crate::analysis::load::runs::runs_of;
use crate::error::{Error, Result};
use crate::request::side::{PerSide, SideId, SidePaths};
use std::path::{Path, PathBuf};

/// The names a subdirectory of a pair's folder takes for one side: a directory of runs with a
/// run of one of these names is a pair's folder, not one side's runs.
pub(crate) const SIDE_FOLDER_NAMES: [&str; 4] = ["control", "test", "baseline", "candidate"];

/// Checks the sides of a command (`None` where a command reads one side alone); `names` names
/// each side in messages (`CONTROL`, `BASELINE`, ...). A side that is a directory of runs is
/// refused where one of its runs is a side's folder (`control/`, `test/`, ...) or where it
/// holds the other side (the other side's path lies inside it).
pub fn check_side_folders(sides: PerSide<Option<&SidePaths>>, names: PerSide<&str>) -> Result<()> {
    for id in SideId::BOTH {
        let Some(SidePaths::Path(path)) = sides[id] else {
            continue;
        };
        let Some(runs) = runs_of(path) else {
            continue;
        };
        let other = sides[id.other()];
        if let Some(inner) = other.and_then(|o| held_path(path, o)) {
            return Err(holds_other_side(path, &inner, id, names));
        }
        if let Some(message) = pair_folder(path, &runs, id, names) {
            return Err(Error::usage(message));
        }
    }
    Ok(())
}

/// The other side's path that lies inside `dir` (not `dir` itself: a side viewed alone repeats
/// itself), where one does.
fn held_path(dir: &Path, other: &SidePaths) -> Option<PathBuf> {
    let dir = absolute(dir);
    other
        .paths()
        .iter()
        .find(|p| {
            let p = absolute(p);
            p != dir && p.starts_with(&dir)
        })
        .cloned()
}

/// The path made absolute and without `.` parts, for comparing two paths given differently
/// (`pair/` and `pair/./test`); the path as given where the working directory is unknown.
fn absolute(path: &Path) -> PathBuf {
    let full = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    full.components()
        .filter(|c| !matches!(c, std::path::Component::CurDir))
        .collect()
}

/// The error for side `id`'s directory `dir` that holds the other side's `inner`.
fn holds_other_side(dir: &Path, inner: &Path, id: SideId, names: PerSide<&str>) -> Error {
    let own = side_folder(dir, id);
    let pass = own.map_or_else(
        || format!("a folder that holds only the {} runs", names[id]),
        |p| p.display().to_string(),
    );
    Error::usage(format!(
        "{}: {} holds the {} side ({}) and would read it as a run of {}: pass {pass} as {}",
        names[id],
        dir.display(),
        names[id.other()],
        inner.display(),
        names[id],
        names[id]
    ))
}

/// The message for side `id`'s directory `dir` whose runs include a side's folder
/// (`control/`, `test/`, ...), where they do.
fn pair_folder(dir: &Path, runs: &[PathBuf], id: SideId, names: PerSide<&str>) -> Option<String> {
    let sides: Vec<String> = runs
        .iter()
        .filter_map(|r| r.file_name()?.to_str())
        .filter(|n| SIDE_FOLDER_NAMES.contains(&n.to_ascii_lowercase().as_str()))
        .map(|n| format!("{n}/"))
        .collect();
    if sides.is_empty() {
        return None;
    }
    let pass = side_folder(dir, id).map_or_else(
        || format!("the folder of the {} side's runs", names[id]),
        |p| p.display().to_string(),
    );
    Some(format!(
        "{}: {} holds {}, a pair's folders, not runs of one side: pass {pass} as {}",
        names[id],
        dir.display(),
        sides.join(" and "),
        names[id]
    ))
}

/// The subdirectory of `dir` named for side `id` (`control`/`baseline`, `test`/`candidate`),
/// where there is one.
fn side_folder(dir: &Path, id: SideId) -> Option<PathBuf> {
    let names: &[&str] = match id {
        SideId::Control => &["control", "baseline"],
        SideId::Test => &["test", "candidate"],
    };
    names.iter().map(|n| dir.join(n)).find(|p| p.is_dir())
}

#[cfg(test)]
mod tests {
    use super::*;

    const NAMES: PerSide<&str> = PerSide {
        control: "CONTROL",
        test: "TEST",
    };

    fn pair_dir(tag: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("tracediff-layout-{tag}-{}", std::process::id()));
        for side in ["control", "test"] {
            std::fs::create_dir_all(dir.join(side)).unwrap();
            std::fs::write(dir.join(side).join("trace.json"), "{}").unwrap();
        }
        dir
    }

    #[test]
    fn a_pair_folder_given_as_a_side_is_refused_naming_its_side_folder() {
        let dir = pair_dir("pair");
        let (c, t) = (SidePaths::from(dir.clone()), SidePaths::from(dir.join("test")));
        let e = check_side_folders(PerSide::new(Some(&c), Some(&t)), NAMES)
            .unwrap_err()
            .to_string();
        assert!(e.contains("holds the TEST side"), "{e}");
        assert!(
            e.contains(&format!("pass {} as CONTROL", dir.join("control").display())),
            "{e}"
        );
        // Alone (a view of one side), the side folders are named.
        let e = check_side_folders(PerSide::new(Some(&c), None), NAMES)
            .unwrap_err()
            .to_string();
        assert!(e.contains("holds control/ and test/"), "{e}");
        // The two side folders themselves pass, and so does a side viewed against itself.
        let c = SidePaths::from(dir.join("control"));
        assert!(check_side_folders(PerSide::new(Some(&c), Some(&t)), NAMES).is_ok());
        assert!(check_side_folders(PerSide::new(Some(&c), Some(&c)), NAMES).is_ok());
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn a_directory_of_runs_passes() {
        let dir = std::env::temp_dir().join(format!("tracediff-layout-runs-{}", std::process::id()));
        for run in ["run1", "run2"] {
            std::fs::create_dir_all(dir.join(run)).unwrap();
            std::fs::write(dir.join(run).join("trace.json"), "{}").unwrap();
        }
        let c = SidePaths::from(dir.clone());
        let t = SidePaths::from(dir.join("run1"));
        // A run of the side given as the other side lies inside it: refused too.
        assert!(check_side_folders(PerSide::new(Some(&c), Some(&t)), NAMES).is_err());
        assert!(check_side_folders(PerSide::new(Some(&c), None), NAMES).is_ok());
        std::fs::remove_dir_all(dir).unwrap();
    }
}
