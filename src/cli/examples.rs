//! The `Examples:` that end each command's `--help`: real commands on the traces shipped in
//! `fixtures/`, as typed in the repository's root (a test runs every one of them there). Each command's
//! own help text stays beside its arguments; [`after_help`] appends these to it.

/// `tracediff compare`.
pub const COMPARE: &[&str] = &[
    "tracediff compare fixtures/basic/control fixtures/basic/test",
    "tracediff compare fixtures/basic/control fixtures/basic/test --device gpu --short-names --top 5",
    "tracediff compare fixtures/basic/control fixtures/basic/test --format csv -o diff.csv",
    "tracediff compare fixtures/ranks/control fixtures/ranks/test --rank all --iteration all",
    "tracediff compare fixtures/ranks/control fixtures/ranks/control --control-rank 0 --test-rank 1",
];

/// `tracediff ops-diff` (the first one uses the comparison that `compare` saved).
pub const OPS_DIFF: &[&str] = &[
    "tracediff ops-diff --category added",
    "tracediff ops-diff fixtures/basic/control fixtures/basic/test --category all --format json",
];

/// `tracediff plot`.
pub const PLOT: &[&str] = &[
    "tracediff plot fixtures/basic/control fixtures/basic/test -o chart.png",
    "tracediff plot fixtures/basic/control fixtures/basic/test --metric duration -o duration.svg",
    "tracediff plot fixtures/breakdown/control fixtures/breakdown/test --metric breakdown -o why.png",
];

/// `tracediff events`.
pub const EVENTS: &[&str] = &[
    "tracediff events fixtures/basic/control --format csv",
    "tracediff events fixtures/basic/control --arg input_dims --name 'aten::mm' --format csv",
    "tracediff events fixtures/basic/control --args all --format parquet -o events.parquet",
];

/// `tracediff summarize`.
pub const SUMMARIZE: &[&str] = &[
    "tracediff summarize fixtures/ranks/control/rank1.json -o rank1.parquet",
    "tracediff compare rank1.parquet fixtures/ranks/test/rank1.pt.trace.json",
    "tracediff summarize fixtures/ranks/control -o summaries",
    "tracediff summarize fixtures/ranks/test -o summaries",
    "tracediff compare summaries/run=control summaries/run=test --rank all",
];

/// `tracediff gate`.
pub const GATE: &[&str] = &[
    "tracediff gate fixtures/gate/base fixtures/gate/noise --max-step-time-regression 5%",
    "tracediff gate fixtures/gate/base fixtures/gate/added --fail-on-added 'aten::copy_|Memcpy'",
    "tracediff gate fixtures/gate/base fixtures/gate/kernel2x --config examples/tracediff-gate.toml",
    "tracediff gate fixtures/gate/base fixtures/gate/kernel2x --max-op-regression 10% --format json",
    "tracediff gate fixtures/replicates/aa/control fixtures/replicates/aa/test --max-op-regression 5%",
];

/// `tracediff history`.
pub const HISTORY: &[&str] = &[
    "tracediff history add hist fixtures/history/runs/c01 --label c01 --branch main",
    "tracediff history add hist fixtures/history/runs/c02 --label c02 --meta host=ci-1",
    "tracediff history add hist fixtures/history/runs/c03 --label c03",
    "tracediff history show hist --top 3",
    "tracediff gate --history hist fixtures/history/aa/a1 --max-op-regression 10% --min-history 3",
];

/// `tracediff operators`.
pub const OPERATORS: &[&str] = &[
    "tracediff operators fixtures/views/control fixtures/views/test",
    "tracediff operators fixtures/views/control fixtures/views/test --time host-self --format csv",
    "tracediff operators fixtures/modules/control fixtures/modules/test --zoom 'Net/Sequential'",
];

/// `tracediff explain`.
pub const EXPLAIN: &[&str] = &[
    "tracediff explain fixtures/explain/control fixtures/explain/test",
    "tracediff explain fixtures/explain/control fixtures/explain/test --top 3 --format json",
];

/// `tracediff kernels`.
pub const KERNELS: &[&str] = &[
    "tracediff kernels fixtures/views/control fixtures/views/test",
    "tracediff kernels fixtures/views/control fixtures/views/test --by-operator --time mean",
    "tracediff kernels fixtures/classes/h100 fixtures/classes/mi300 --by-class",
    "tracediff kernels fixtures/classes/h100 fixtures/classes/mi300 --aligned --format csv",
];

/// `tracediff overview`.
pub const OVERVIEW: &[&str] = &[
    "tracediff overview fixtures/views/control fixtures/views/test",
    "tracediff overview fixtures/gate/base fixtures/gate/uniform --iteration 1 --format json",
    "tracediff overview fixtures/breakdown/control fixtures/breakdown/test --per-step",
    "tracediff overview fixtures/ranks/control fixtures/ranks/test --rank all",
];

/// `tracediff modules`.
pub const MODULES: &[&str] = &[
    "tracediff modules fixtures/modules/control fixtures/modules/test --depth 2",
    "tracediff modules fixtures/modules/control fixtures/modules/test --zoom Net/Sequential",
    "tracediff modules fixtures/scenarios/resnet/control fixtures/scenarios/resnet/test -o m.json",
    "tracediff modules fixtures/replicates/fused/control fixtures/replicates/fused/test",
];

/// `tracediff report`.
pub const REPORT: &[&str] = &[
    "tracediff report fixtures/modules/control fixtures/modules/test -o report.html",
    "tracediff report fixtures/scenarios/resnet/control fixtures/scenarios/resnet/test -o r.html",
];

/// `tracediff flamegraph`.
pub const FLAMEGRAPH: &[&str] = &[
    "tracediff flamegraph fixtures/modules/control fixtures/modules/test -o diff.svg",
    "tracediff flamegraph fixtures/modules/control fixtures/modules/test --time device -o dev.svg",
    "tracediff flamegraph fixtures/modules/control fixtures/modules/test --folded",
    "tracediff flamegraph fixtures/modules/control fixtures/modules/test --folded --side test",
];

/// `tracediff completions`.
pub const COMPLETIONS: &[&str] = &["tracediff completions bash", "tracediff completions zsh"];

/// `tracediff man`.
pub const MAN: &[&str] = &["tracediff man", "tracediff man -o tracediff.1"];

/// Every command's examples, by command name, for the test that runs them.
pub const ALL: &[(&str, &[&str])] = &[
    ("compare", COMPARE),
    ("ops-diff", OPS_DIFF),
    ("plot", PLOT),
    ("events", EVENTS),
    ("summarize", SUMMARIZE),
    ("gate", GATE),
    ("history", HISTORY),
    ("explain", EXPLAIN),
    ("operators", OPERATORS),
    ("kernels", KERNELS),
    ("overview", OVERVIEW),
    ("modules", MODULES),
    ("report", REPORT),
    ("flamegraph", FLAMEGRAPH),
    ("completions", COMPLETIONS),
    ("man", MAN),
];

/// A command's help text followed by its examples, as the text after its options.
pub fn after_help(help: &str, examples: &[&str]) -> String {
    let mut text = help.trim_end().to_string();
    if !text.is_empty() {
        text.push_str("\n\n");
    }
    text.push_str("Examples:");
    for example in examples {
        text.push_str("\n  ");
        text.push_str(example);
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The help wraps at 100 columns; an example must stay on its line to be copied whole.
    #[test]
    fn every_example_fits_on_one_help_line() {
        for (command, examples) in ALL {
            for example in *examples {
                assert!(example.len() <= 96, "{command}: {example} ({} columns)", example.len());
            }
        }
    }
}
