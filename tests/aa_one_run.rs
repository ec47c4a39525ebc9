//! One run per side on real A/A pairs (docs/significance.md#what-one-run-per-side-can-and-cannot-tell):
//! `fixtures/aa_cpu/{fused,attention}` are two processes of one program each, recorded on a
//! loaded 2-core machine with `scripts/record_scenarios.py --same` (operators and annotations
//! kept, Python frames and arguments dropped). Their rows scatter by ×2.2 and ×1.4 between the
//! processes, single operations by up to ×9; no row may be marked, where the steps' noise alone
//! marks 7 and 1 (10 and 10 before the change of medians and the rows' scatter were judged).

use crate::common;
use common::json;

fn marked(v: &serde_json::Value) -> usize {
    v["rows"]
        .as_array()
        .expect("rows")
        .iter()
        .filter(|r| r["significant"] == true)
        .count()
}

fn pair(command: &str, set: &str, extra: &[&str]) -> serde_json::Value {
    let (c, t) = (
        format!("fixtures/aa_cpu/{set}/control"),
        format!("fixtures/aa_cpu/{set}/test"),
    );
    let mut args = vec![command, c.as_str(), t.as_str(), "--iteration", "all"];
    args.extend(extra);
    json(&args)
}

#[test]
fn two_processes_of_one_program_mark_no_row() {
    for (set, rows, plain) in [("fused", 109, 7), ("attention", 99, 1)] {
        let v = pair("compare", set, &[]);
        assert_eq!(v["rows"].as_array().map(Vec::len), Some(rows), "{set}");
        assert_eq!(marked(&v), 0, "{set}: {v:#}");
        assert_eq!(marked(&pair("operators", set, &[])), 0, "{set}");
        // Judged against the steps' noise alone, rows stand out: the scatter is what clears them.
        assert_eq!(marked(&pair("compare", set, &["--no-run-shift"])), plain, "{set}");
    }
}
