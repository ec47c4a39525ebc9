//! One side of a request (docs/significance.md#several-runs-per-side): which side it is
//! ([`SideId`]), where its traces are ([`SidePaths`]: one path, or runs given one by one), and
//! the whole of it as a request holds it ([`Side`]: paths, selection, label, capture).

use crate::error::{Error, Result};
use crate::model::pick::SideSelection;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// Which side of a request: the baseline (control) or the run compared with it (test).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum SideId {
    /// The baseline.
    Control,
    /// The run compared with it.
    Test,
}

impl SideId {
    /// Both sides, control first.
    pub const BOTH: [SideId; 2] = [SideId::Control, SideId::Test];

    /// The other side.
    pub fn other(self) -> SideId {
        match self {
            SideId::Control => SideId::Test,
            SideId::Test => SideId::Control,
        }
    }
}

/// Where one side's traces are. Saved as a path (one path) or a list of paths (runs given one
/// by one), so that a request saved before runs could be listed reads as it did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum SidePaths {
    /// One path: a run (a trace file, a directory of traces or summaries), or a directory of
    /// runs (subdirectories that hold traces, one run each).
    Path(PathBuf),
    /// Runs given one by one (two or more, in the order given), each a run as a path is.
    Runs(Vec<PathBuf>),
}

impl SidePaths {
    /// The side of the runs `paths` given one by one: one path is that path ([`SidePaths::Path`]);
    /// none is refused (`label` names the side in the message).
    pub fn runs(paths: Vec<PathBuf>, label: &str) -> Result<SidePaths> {
        match paths.len() {
            0 => Err(Error::usage(format!("{label}: no run given (an empty list of runs)"))),
            1 => Ok(SidePaths::Path(paths.into_iter().next().unwrap_or_default())),
            _ => Ok(SidePaths::Runs(paths)),
        }
    }

    /// Every path given, in order (one for [`SidePaths::Path`]).
    pub fn paths(&self) -> &[PathBuf] {
        match self {
            SidePaths::Path(p) => std::slice::from_ref(p),
            SidePaths::Runs(v) => v,
        }
    }

    /// The one path of a side given as one path; a side of runs given one by one is refused
    /// with the reason (`command` reads one run per side, or a directory of runs).
    pub fn single(&self, command: &str) -> Result<&Path> {
        match self {
            SidePaths::Path(p) => Ok(p),
            SidePaths::Runs(v) => Err(Error::usage(format!(
                "{command} reads one path per side here, and {} runs were given one by one ({})",
                v.len(),
                self.shown()
            ))),
        }
    }

    /// The side as headers name it: the path, or the runs' paths separated by commas.
    pub fn shown(&self) -> String {
        let names: Vec<String> = self.paths().iter().map(|p| p.display().to_string()).collect();
        names.join(", ")
    }

    /// The same side with every path rewritten by `f` (made absolute before saving).
    pub fn map(&self, f: impl Fn(&Path) -> PathBuf) -> SidePaths {
        match self {
            SidePaths::Path(p) => SidePaths::Path(f(p)),
            SidePaths::Runs(v) => SidePaths::Runs(v.iter().map(|p| f(p)).collect()),
        }
    }

    /// Whether the side is runs given one by one.
    pub fn is_runs(&self) -> bool {
        matches!(self, SidePaths::Runs(_))
    }
}

impl From<PathBuf> for SidePaths {
    fn from(p: PathBuf) -> SidePaths {
        SidePaths::Path(p)
    }
}

impl From<&Path> for SidePaths {
    fn from(p: &Path) -> SidePaths {
        SidePaths::Path(p.to_path_buf())
    }
}

impl From<&PathBuf> for SidePaths {
    fn from(p: &PathBuf) -> SidePaths {
        SidePaths::Path(p.clone())
    }
}

impl From<&str> for SidePaths {
    fn from(p: &str) -> SidePaths {
        SidePaths::Path(PathBuf::from(p))
    }
}

impl From<&String> for SidePaths {
    fn from(p: &String) -> SidePaths {
        SidePaths::Path(PathBuf::from(p))
    }
}

impl From<String> for SidePaths {
    fn from(p: String) -> SidePaths {
        SidePaths::Path(PathBuf::from(p))
    }
}

/// One side of a request as a whole: where its traces are, which ranks and steps it uses, its
/// name in outputs and its graph captures (a view of a [`crate::request::CompareRequest`],
/// which keeps them as its saved layout has them).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Side<'a> {
    /// Which side.
    pub id: SideId,
    /// Its path, or its runs given one by one.
    pub paths: &'a SidePaths,
    /// Its ranks and steps.
    pub selection: &'a SideSelection,
    /// Its name in outputs.
    pub label: &'a str,
    /// Its graph replays' captures, where given.
    pub capture: Option<&'a Path>,
}

/// A value per side, control and test: what `[T; 2]` held by place, held by name. Indexed by
/// [`SideId`]; saved and written as the two-element array `[control, test]` it replaces, so the
/// bytes of a saved or JSON shape stay the same.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Hash)]
pub struct PerSide<T> {
    /// The control side's value.
    pub control: T,
    /// The test side's value.
    pub test: T,
}

impl<T> PerSide<T> {
    /// The pair of `control` and `test`.
    pub fn new(control: T, test: T) -> Self {
        PerSide { control, test }
    }

    /// The pair of `f(side)` for each side, control first.
    pub fn from_fn(mut f: impl FnMut(SideId) -> T) -> Self {
        let control = f(SideId::Control);
        PerSide {
            control,
            test: f(SideId::Test),
        }
    }

    /// Each value through `f`, control first.
    pub fn map<U>(self, mut f: impl FnMut(T) -> U) -> PerSide<U> {
        let control = f(self.control);
        PerSide {
            control,
            test: f(self.test),
        }
    }

    /// Each value through `f`, which is told its side; control first.
    pub fn map_sides<U>(self, mut f: impl FnMut(SideId, T) -> U) -> PerSide<U> {
        let control = f(SideId::Control, self.control);
        PerSide {
            control,
            test: f(SideId::Test, self.test),
        }
    }

    /// Each value through `f`, control first, stopping at the first error.
    pub fn try_map<U, E>(
        self,
        mut f: impl FnMut(SideId, T) -> std::result::Result<U, E>,
    ) -> std::result::Result<PerSide<U>, E> {
        let control = f(SideId::Control, self.control)?;
        Ok(PerSide {
            control,
            test: f(SideId::Test, self.test)?,
        })
    }

    /// The pair of references.
    pub fn as_ref(&self) -> PerSide<&T> {
        PerSide {
            control: &self.control,
            test: &self.test,
        }
    }

    /// The pair of mutable references.
    pub fn as_mut(&mut self) -> PerSide<&mut T> {
        PerSide {
            control: &mut self.control,
            test: &mut self.test,
        }
    }

    /// Each side with its value, control first.
    pub fn iter(&self) -> impl Iterator<Item = (SideId, &T)> {
        [(SideId::Control, &self.control), (SideId::Test, &self.test)].into_iter()
    }

    /// The values by place, `[control, test]`.
    pub fn into_array(self) -> [T; 2] {
        [self.control, self.test]
    }
}

impl<T> std::ops::Index<SideId> for PerSide<T> {
    type Output = T;

    fn index(&self, id: SideId) -> &T {
        match id {
            SideId::Control => &self.control,
            SideId::Test => &self.test,
        }
    }
}

impl<T> std::ops::IndexMut<SideId> for PerSide<T> {
    fn index_mut(&mut self, id: SideId) -> &mut T {
        match id {
            SideId::Control => &mut self.control,
            SideId::Test => &mut self.test,
        }
    }
}

impl<T> From<[T; 2]> for PerSide<T> {
    fn from([control, test]: [T; 2]) -> Self {
        PerSide { control, test }
    }
}

impl<T: Serialize> Serialize for PerSide<T> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> std::result::Result<S::Ok, S::Error> {
        [&self.control, &self.test].serialize(serializer)
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for PerSide<T> {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> std::result::Result<Self, D::Error> {
        <[T; 2]>::deserialize(deserializer).map(PerSide::from)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_side_reads_as_a_path_or_a_list() {
        let one: SidePaths = serde_json::from_str("\"/x/control\"").unwrap();
        assert_eq!(one, SidePaths::Path(PathBuf::from("/x/control")));
        let runs = SidePaths::runs(vec!["a".into(), "b".into()], "control").unwrap();
        let text = serde_json::to_string(&runs).unwrap();
        assert_eq!(text, r#"["a","b"]"#);
        assert_eq!(serde_json::from_str::<SidePaths>(&text).unwrap(), runs);
        assert_eq!(runs.shown(), "a, b");
        assert!(
            runs.single("report")
                .unwrap_err()
                .to_string()
                .contains("2 runs were given")
        );
        // One run given is that path; none is refused.
        assert_eq!(
            SidePaths::runs(vec!["a".into()], "control").unwrap(),
            SidePaths::from("a")
        );
        assert!(SidePaths::runs(Vec::new(), "test").is_err());
    }

    #[test]
    fn side_ids_index_pairs() {
        assert_eq!(SideId::Control.other(), SideId::Test);
        let mut pair = PerSide::from_fn(|id| id == SideId::Test);
        assert_eq!(pair, PerSide::new(false, true));
        pair[SideId::Control] = true;
        assert_eq!(pair.iter().filter(|(_, v)| **v).count(), 2);
        assert_eq!(pair.map(u8::from).into_array(), [1, 1]);
        let sum = PerSide::new(1, 2).try_map(|id, n| if id == SideId::Test { Err(n) } else { Ok(n) });
        assert_eq!(sum, Err(2));
    }

    #[test]
    fn a_pair_is_saved_as_the_array_it_replaces() {
        let pair = PerSide::new("c".to_string(), "t".to_string());
        let text = serde_json::to_string(&pair).unwrap();
        assert_eq!(text, serde_json::to_string(&["c", "t"]).unwrap());
        assert_eq!(serde_json::from_str::<PerSide<String>>(&text).unwrap(), pair);
    }
}
