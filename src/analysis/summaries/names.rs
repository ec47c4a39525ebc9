//! The names of a side, each text once: the files of a side loaded together share their names
//! and categories. A thousand ranks of one job run the same few thousand names, often long
//! (templated kernel names run to hundreds of bytes); kept once per file they were most of
//! the memory of `--rank all` over a thousand summaries (docs/performance.md).

use crate::model::summary::FileSummary;
use std::collections::HashSet;
use std::sync::{Arc, Mutex, PoisonError};

/// One copy of each text of the files it has seen. Files are read on several threads at once:
/// the set sits behind a lock, taken once per file.
#[derive(Debug, Default)]
pub(crate) struct SideNames {
    seen: Mutex<HashSet<Arc<str>>>,
}

impl SideNames {
    /// Points `summary`'s strings at this side's copy of each text, adding the texts not seen
    /// yet. The ids, and so the rows, do not change.
    pub(crate) fn share(&self, summary: &mut FileSummary) {
        let mut seen = self.seen.lock().unwrap_or_else(PoisonError::into_inner);
        for s in &mut summary.strings {
            match seen.get(&**s) {
                Some(shared) => *s = Arc::clone(shared),
                None => {
                    seen.insert(Arc::clone(s));
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_of_a_side_share_one_copy_of_each_text() {
        let trace = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/ranks/control/rank0.json");
        let file = crate::input::load::load_file(&trace, &Default::default()).unwrap();
        let (mut a, mut b) = (
            crate::analysis::summaries::summarize::summarize(&file, &trace),
            crate::analysis::summaries::summarize::summarize(&file, &trace),
        );
        let before = a.clone();
        let names = SideNames::default();
        names.share(&mut a);
        names.share(&mut b);
        assert_eq!(a, before);
        assert!(!a.strings.is_empty());
        for (x, y) in a.strings.iter().zip(&b.strings) {
            assert!(Arc::ptr_eq(x, y), "{x}");
        }
    }

    #[test]
    fn a_side_loaded_from_summaries_and_traces_holds_each_name_once() {
        use crate::model::pick::Pick;
        let fixtures = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/ranks/control");
        let dir = tempfile::tempdir().unwrap();
        // Rank 0 as a summary file, rank 1 as its trace: one side, mixed.
        let trace = crate::input::load::load_file(&fixtures.join("rank0.json"), &Default::default()).unwrap();
        let summary = crate::analysis::summaries::summarize::summarize(&trace, &fixtures.join("rank0.json"));
        crate::analysis::summaries::write::save_summary(&summary, &dir.path().join("rank0.parquet")).unwrap();
        std::fs::copy(fixtures.join("rank1.json"), dir.path().join("rank1.json")).unwrap();
        let side = crate::analysis::summaries::load::load_summary_side_marked(
            &Default::default(),
            dir.path(),
            &[&Pick::All],
            false,
            None,
            &crate::analysis::summaries::summarize::summarize,
        )
        .unwrap();
        let [a, b] = [&side.files[0], &side.files[1]];
        let mut shared = 0;
        for x in &a.strings {
            if let Ok(k) = b.strings.binary_search(x) {
                assert!(Arc::ptr_eq(x, &b.strings[k]), "{x} held twice");
                shared += 1;
            }
        }
        assert!(shared > 3, "{shared} names in common");
    }
}
