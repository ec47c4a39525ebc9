//! A side's folder holds the runs of one side (docs/sides.md): a pair's folder given as one side,
//! or a side that holds the other, is refused naming the folder to pass — never read as runs.

use crate::common;
use common::{fails, ok};

#[test]
fn a_pair_folder_given_as_control_is_refused_naming_its_control_folder() {
    // Before: exit 0, `control/` and `test/` read as two runs of the control.
    assert_eq!(
        fails(&["compare", "fixtures/basic", "fixtures/basic/test"]),
        "CONTROL: fixtures/basic holds the TEST side (fixtures/basic/test) and would read it as a run of \
         CONTROL: pass fixtures/basic/control as CONTROL"
    );
    assert_eq!(
        fails(&["compare", "fixtures/basic/control", "fixtures/basic"]),
        "TEST: fixtures/basic holds the CONTROL side (fixtures/basic/control) and would read it as a run of \
         TEST: pass fixtures/basic/test as TEST"
    );
}

#[test]
fn a_pair_folder_viewed_alone_or_gated_is_refused() {
    assert_eq!(
        fails(&["operators", "fixtures/basic"]),
        "CONTROL: fixtures/basic holds control/ and test/, a pair's folders, not runs of one side: pass \
         fixtures/basic/control as CONTROL"
    );
    assert_eq!(
        fails(&["gate", "fixtures/scenarios/precision", "fixtures/basic/test"]),
        "BASELINE: fixtures/scenarios/precision holds control/ and test/, a pair's folders, not runs of one \
         side: pass fixtures/scenarios/precision/control as BASELINE"
    );
}

#[test]
fn directories_of_runs_and_a_side_against_itself_still_read() {
    let pair = ok(&[
        "compare",
        "fixtures/replicates/aa/control",
        "fixtures/replicates/aa/test",
    ]);
    assert!(
        pair.starts_with("control: fixtures/replicates/aa/control (3 runs"),
        "{pair}"
    );
    let alone = ok(&["operators", "fixtures/replicates/aa/control"]);
    assert!(alone.contains("3 runs"), "{alone}");
    ok(&["compare", "fixtures/basic/control", "fixtures/basic/control"]);
}
