//! `tracediff flamegraph` (docs/flamegraph.md): folded stacks on the module fixtures (exact), the
//! SVG as well-formed XML whatever the names hold, and on real traces the stacks summing to the
//! module view's step totals, host and device.

use crate::common;

use common::{fails, json, ok, run};
use std::path::Path;

const C: &str = "fixtures/modules/control";
const T: &str = "fixtures/modules/test";

#[test]
fn folded_differential_stacks() {
    insta::assert_snapshot!(ok(&["flamegraph", C, T, "--folded"]));
}

#[test]
fn folded_stacks_of_one_side_with_kernels() {
    insta::assert_snapshot!(ok(&[
        "flamegraph",
        C,
        T,
        "--folded",
        "--side",
        "test",
        "--time",
        "device"
    ]));
}

/// Per side, the sum of the folded weights.
fn folded_sums(folded: &str) -> [i64; 2] {
    let mut sums = [0i64; 2];
    for line in folded.lines() {
        let mut counts = line.rsplit(' ');
        let t: i64 = counts.next().unwrap().parse().unwrap();
        let c: i64 = counts.next().unwrap().parse().unwrap();
        sums[0] += c;
        sums[1] += t;
    }
    sums
}

/// The module view's step totals in ns: [[control host, test host], [control device, test device]].
fn module_totals(c: &str, t: &str, extra: &[&str]) -> [[i64; 2]; 2] {
    let mut args = vec!["modules", c, t, "--depth", "0"];
    args.extend(extra);
    let root = json(&args);
    let ns = |side: &str, key: &str| (root[side][key].as_f64().unwrap_or(0.0) * 1000.0).round() as i64;
    [
        [ns("control", "host_total_us"), ns("test", "host_total_us")],
        [ns("control", "device_total_us"), ns("test", "device_total_us")],
    ]
}

/// Checks that both sides' stacks sum to the module view's step totals, host and device.
fn assert_sums_match(c: &str, t: &str, extra: &[&str]) {
    let totals = module_totals(c, t, extra);
    for (time, expected) in [("host", totals[0]), ("device", totals[1])] {
        let mut args = vec!["flamegraph", c, t, "--folded", "--time", time];
        args.extend(extra);
        let sums = folded_sums(&ok(&args));
        assert_eq!(
            sums, expected,
            "{c} vs {t} {extra:?}: {time} stacks against the step totals"
        );
    }
}

#[test]
fn stacks_sum_to_the_step_totals_on_the_fixtures() {
    assert_sums_match(C, T, &[]);
    assert_sums_match(C, "fixtures/modules/plain", &[]);
}

#[test]
fn stacks_sum_to_the_step_totals_on_real_traces() {
    let Some(traces) = common::traces("flame graph sums on real traces") else {
        return;
    };
    let pairs = [
        "gpu_h100/resnet",
        "gpu_h100/attention",
        "gpu_h100/precision",
        "gpu_h100/nomodules",
        "gpu_h100/vit_precision",
        "torch_cpu/fused_op",
        "torch_cpu/linear_dims",
        "torch_cpu/loss_fn",
        "torch_cpu/precision",
    ];
    for pair in pairs {
        let dir = traces.join(pair);
        if !dir.is_dir() {
            eprintln!("SKIPPED {pair}: not in {}", traces.display());
            continue;
        }
        let (c, t) = (dir.join("control"), dir.join("test"));
        let (c, t) = (c.to_str().unwrap(), t.to_str().unwrap());
        assert_sums_match(c, t, &[]);
        if pair == "gpu_h100/vit_precision" {
            assert_sums_match(c, t, &["--iteration", "all"]);
        }
    }
}

/// Parses an SVG file as XML and returns its text.
fn parsed_svg(path: &Path) -> String {
    let text = std::fs::read_to_string(path).unwrap();
    let options = roxmltree::ParsingOptions {
        allow_dtd: true,
        ..Default::default()
    };
    roxmltree::Document::parse_with_options(&text, options).expect("the SVG is well-formed XML");
    text
}

#[test]
fn the_svg_is_xml_whatever_the_names_hold() {
    let dir = tempfile::tempdir().unwrap();
    // A test side whose operator names hold a control character and XML's special characters.
    let trace = std::fs::read_to_string(Path::new(T).join("trace.json")).unwrap();
    let odd = trace.replace("\"aten::conv2d\"", "\"aten::conv2d\\u0001<&>\\\"x;y\\n\"");
    assert_ne!(odd, trace);
    let test_dir = dir.path().join("test");
    std::fs::create_dir(&test_dir).unwrap();
    std::fs::write(test_dir.join("trace.json"), odd).unwrap();
    let svg = dir.path().join("diff.svg");
    ok(&[
        "flamegraph",
        C,
        test_dir.to_str().unwrap(),
        "--labels",
        "base,<new>",
        "-o",
        svg.to_str().unwrap(),
    ]);
    let text = parsed_svg(&svg);
    assert!(text.contains("aten::conv2d\u{2401}&lt;&amp;&gt;"), "escaped name");
    assert!(text.contains("&lt;new&gt; vs base"), "the title names both sides");
    assert!(text.contains("Sequential") && text.contains("Block[4]"));
    // The same input gives the same bytes (no random colours).
    let again = dir.path().join("again.svg");
    ok(&[
        "flamegraph",
        C,
        test_dir.to_str().unwrap(),
        "--labels",
        "base,<new>",
        "-o",
        again.to_str().unwrap(),
    ]);
    assert_eq!(std::fs::read(&svg).unwrap(), std::fs::read(&again).unwrap());
}

#[test]
fn one_side_svg_and_svg_on_a_pipe() {
    let dir = tempfile::tempdir().unwrap();
    let svg = dir.path().join("control.svg");
    ok(&["flamegraph", C, T, "--side", "control", "-o", svg.to_str().unwrap()]);
    assert!(parsed_svg(&svg).contains("ManualNorm"));
    // Standard output is not a terminal here: the SVG goes there.
    assert!(ok(&["flamegraph", C, T]).starts_with("<?xml"));
}

#[test]
fn outputs_that_do_not_fit_are_refused() {
    assert_eq!(
        fails(&["flamegraph", C, T, "-o", "diff.png"]),
        "-o diff.png: the flame graph is an SVG (name the file .svg), or give --folded for text"
    );
    assert_eq!(
        fails(&["flamegraph", C, T, "--folded", "-o", "diff.svg"]),
        "--folded writes text, not an SVG: name the file other than diff.svg"
    );
    assert_eq!(
        fails(&[
            "flamegraph",
            "fixtures/views/cpu/control",
            "fixtures/views/cpu/test",
            "--time",
            "device",
            "-o",
            "x.svg"
        ]),
        "no device time on either side to draw (no device events): use --time host"
    );
    let r = run(&["flamegraph", C, "fixtures/modules/none"]);
    assert_eq!(r.code, 2, "{}", r.stderr);
}

#[test]
fn the_report_embeds_the_flame_graph_as_an_image() {
    use base64::Engine;
    let dir = tempfile::tempdir().unwrap();
    let page = dir.path().join("report.html");
    ok(&["report", C, T, "-o", page.to_str().unwrap()]);
    let html = std::fs::read_to_string(&page).unwrap();
    let section = &html[html.find(r#"<section id="flamegraph""#).expect("a flame graph section")..];
    let prefix = "data:image/svg+xml;base64,";
    let start = section.find(prefix).expect("the SVG as a data: URL") + prefix.len();
    let end = start + section[start..].find('"').unwrap();
    let svg = base64::engine::general_purpose::STANDARD
        .decode(&section[start..end])
        .unwrap();
    let svg_path = dir.path().join("embedded.svg");
    std::fs::write(&svg_path, svg).unwrap();
    assert!(parsed_svg(&svg_path).contains("Block[4]"));
    // Nothing from the network, and the page's policy is unchanged.
    assert!(html.contains("default-src 'none'"));
    assert!(!html.contains("src=\"http"));
}

/// Module nodes deeper than 256 levels fold into their ancestor at level 256 (docs/flamegraph.md):
/// the stacks of a model 300 modules deep stop there and still sum to the step's totals.
#[test]
fn stacks_stop_at_256_module_levels() {
    let dir = tempfile::TempDir::new().unwrap();
    let deep = crate::modules::nested_trace(dir.path(), "deep.json", 300);
    let folded = ok(&["flamegraph", &deep, &deep, "--folded"]);
    let frames = folded.lines().map(|l| l.split(';').count()).max().unwrap();
    // The step, 256 module levels, no operator frame (the deepest node's own operator is folded
    // with the modules below it).
    assert_eq!(frames, 1 + 256, "{}", folded.lines().last().unwrap());
    assert_sums_match(&deep, &deep, &[]);
}
