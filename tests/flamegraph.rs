//! `tracediff flamegraph` (docs/flamegraph.md): folded stacks on the module fixtures (exact), the
//! differential SVG's colours and tooltips, the report's two still pictures, the
//! SVG as well-formed XML whatever the names hold, and on real traces the stacks summing to the
//! module view's step totals, host and device.

use crate::common;

use common::{fails, json, ok, run};
use std::path::Path;

const C: &str = "fixtures/modules/control";
const T: &str = "fixtures/modules/test";

#[test]
fn folded_differential_stacks() {
    insta::assert_snapshot!(ok(&["flamegraph", C, T, "--folded", "--time", "host"]));
}

/// Without `--time`: device time on a pair with kernels (as the report), host time otherwise.
#[test]
fn the_default_time_is_device_on_a_pair_with_kernels() {
    let folded = |c: &str, t: &str, time: &[&str]| {
        let mut args = vec!["flamegraph", c, t, "--folded"];
        args.extend_from_slice(time);
        ok(&args)
    };
    assert_eq!(folded(C, T, &[]), folded(C, T, &["--time", "device"]));
    assert_ne!(folded(C, T, &[]), folded(C, T, &["--time", "host"]));
    let (cc, ct) = ("fixtures/views/cpu/control", "fixtures/views/cpu/test");
    assert_eq!(folded(cc, ct, &[]), folded(cc, ct, &["--time", "host"]));
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
    let mut args = vec!["modules", c, t, "--depth", "0", "--totals"];
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
        let mut args = vec!["flamegraph", c, t, "--folded", "--time", time, "--totals"];
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

#[cfg_attr(
    tracediff_no_shared,
    ignore = "needs ../shared (real traces, HTA's output), absent when the tests were built: put it beside the repository or set TRACEDIFF_SHARED"
)]
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
        let [c, t] = common::sides(&dir);
        assert_sums_match(&c, &t, &[]);
        if pair == "gpu_h100/vit_precision" {
            assert_sums_match(&c, &t, &["--iteration", "all"]);
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
    // Standard output is not a terminal here: the SVG goes there, ending in one newline (a
    // prompt ran on after `</svg>`), as `-o -` and a file do.
    for args in [&[][..], &["-o", "-"], &["--side", "test", "-o", "-"]] {
        let mut all = vec!["flamegraph", C, T];
        all.extend_from_slice(args);
        let out = ok(&all);
        assert!(out.starts_with("<?xml"), "{args:?}");
        assert!(
            out.ends_with("</svg>\n") && !out.ends_with("\n\n"),
            "{args:?}: {:?}",
            &out[out.len() - 20..]
        );
    }
    assert!(std::fs::read_to_string(&svg).unwrap().ends_with("</svg>\n"));
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

/// The report's flame graph pictures: (id, the SVG's text) of each `data:` image in its section.
fn report_flame_svgs(c: &str, t: &str, dir: &Path) -> (String, Vec<(String, String)>) {
    let page = dir.join("report.html");
    ok(&["report", c, t, "-o", page.to_str().unwrap()]);
    let html = std::fs::read_to_string(&page).unwrap();
    let start = html.find(r#"<section id="flamegraph""#).expect("a flame graph section");
    let section = &html[start..start + html[start..].find("</section>").unwrap()];
    let mut svgs = Vec::new();
    for figure in section.split("<figure").skip(1) {
        let id = figure.split('"').nth(3).unwrap().to_string();
        let prefix = r#"src="data:image/svg+xml,"#;
        let from = figure.find(prefix).expect("the SVG as a data: URL") + prefix.len();
        let url = &figure[from..from + figure[from..].find('"').unwrap()];
        // Percent-decoding: the page writes %25, %23, %26, %22 and line breaks so.
        let bytes = url.as_bytes();
        let mut out = Vec::new();
        let mut i = 0;
        while i < bytes.len() {
            if bytes[i] == b'%' {
                out.push(u8::from_str_radix(&url[i + 1..i + 3], 16).unwrap());
                i += 3;
            } else {
                out.push(bytes[i]);
                i += 1;
            }
        }
        svgs.push((id, String::from_utf8(out).unwrap()));
    }
    (section.to_string(), svgs)
}

#[test]
fn the_report_embeds_both_pictures_as_still_images() {
    let dir = tempfile::tempdir().unwrap();
    // The module fixtures have kernels: device time, as the module chart.
    let (section, svgs) = report_flame_svgs(C, T, dir.path());
    assert!(section.contains("Differential flame graph (device time)"), "{section}");
    assert!(section.contains("Width: test's device time"), "{section}");
    let ids: Vec<&str> = svgs.iter().map(|(id, _)| id.as_str()).collect();
    assert_eq!(ids, ["flame-figure", "flame-figure-control"]);
    for (id, svg) in &svgs {
        let path = dir.path().join(format!("{id}.svg"));
        std::fs::write(&path, svg).unwrap();
        let text = parsed_svg(&path);
        // Still pictures: no script, no tooltips.
        assert!(!text.contains("<script") && !text.contains("<title>"), "{id}");
        assert!(text.contains("drawn: device time"), "{id}");
        assert!(text.contains(r#"<g id="legend">"#), "{id}");
    }
    // Test widths draw what only test has (Norm), control widths what only control has.
    assert!(svgs[0].1.contains(">Norm<") && !svgs[0].1.contains(">Head<"));
    assert!(svgs[1].1.contains(">Head<") && !svgs[1].1.contains(">Norm<"));
    // A pair without device events: host self time.
    let (section, svgs) = report_flame_svgs("fixtures/views/cpu/control", "fixtures/views/cpu/test", dir.path());
    assert!(
        section.contains("Differential flame graph (host self time)"),
        "{section}"
    );
    assert!(svgs[0].1.contains("drawn: host self time"));
    // Nothing from the network, and the page's policy is unchanged.
    let html = std::fs::read_to_string(dir.path().join("report.html")).unwrap();
    assert!(html.contains("default-src 'none'"));
    assert!(!html.contains("src=\"http"));
}

/// Each frame of the differential SVG: (tooltip, fill).
fn frames_of(svg: &str) -> Vec<(String, String)> {
    let options = roxmltree::ParsingOptions {
        allow_dtd: true,
        ..Default::default()
    };
    let doc = roxmltree::Document::parse_with_options(svg, options).unwrap();
    doc.descendants()
        .filter(|n| n.has_tag_name("g"))
        .filter_map(|g| {
            let title = g.children().find(|n| n.has_tag_name("title"))?.text()?.to_string();
            let fill = g
                .children()
                .find(|n| n.has_tag_name("rect"))?
                .attribute("fill")?
                .to_string();
            Some((title, fill))
        })
        .collect()
}

#[test]
fn frames_are_coloured_by_the_change_of_their_own_time() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("diff.svg");
    let r = run(&["flamegraph", C, T, "--time", "host", "-o", path.to_str().unwrap()]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    // Written files are named on standard error, as the report's.
    let size = std::fs::metadata(&path).unwrap().len().div_ceil(1024);
    assert_eq!(r.stderr, format!("tracediff: wrote {} ({size} KiB)\n", path.display()));
    let frames = frames_of(&std::fs::read_to_string(&path).unwrap());
    let find = |name: &str| {
        frames
            .iter()
            .find(|(t, _)| t.starts_with(&format!("{name} (")))
            .unwrap_or_else(|| panic!("no frame {name}"))
    };
    // The sums of the folded stacks.
    assert_eq!(
        find("all").0,
        "all (1.22 ms, 100.0% of test; control 990 µs; +230 µs, +23.2%)"
    );
    // A module whose own time held (20 µs) while two blocks were added under it is white; the
    // new blocks are red, and the largest own change (Net's own time, +60 µs) is full red.
    assert_eq!(
        find("Sequential").0,
        "Sequential (520 µs, 42.6% of test; control 320 µs; +200 µs, +62.5%; own 20.0 µs → 20.0 µs, 0 ns)"
    );
    assert_eq!(find("Sequential").1, "rgb(250,250,250)");
    assert_eq!(find("Block[3]").1, "rgb(255,100,100)");
    assert_eq!(find("Net").1, "rgb(255,100,100)");
    assert_eq!(find("all").1, "rgb(250,250,250)");
    assert_eq!(find("Embedding").1, "rgb(250,250,250)");
}

/// A pair in which only `aten::mm`'s own time grew (100 µs → 200 µs): its module `Net` took
/// those 100 µs more and the step 100 µs more, but their own times held. The kernel it
/// launched ran as long on both sides.
fn own_growth_pair(dir: &Path) -> [String; 2] {
    let side = |name: &str, mm: u64| {
        let net = 400 + mm;
        let events = [
            format!(r#"{{"ph":"X","cat":"user_annotation","name":"ProfilerStep#1","pid":1,"tid":1,"ts":0,"dur":{}}}"#, net + 500),
            format!(r#"{{"ph":"X","cat":"python_function","name":"nn.Module: Net_0","pid":1,"tid":1,"ts":10,"dur":{net}}}"#),
            format!(r#"{{"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":1,"ts":20,"dur":{mm}}}"#),
            r#"{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":21,"dur":3,"args":{"correlation":1}}"#.to_string(),
            r#"{"ph":"X","cat":"kernel","name":"gemm","pid":0,"tid":7,"ts":30,"dur":40,"args":{"correlation":1,"stream":7,"device":0}}"#.to_string(),
        ];
        let folder = dir.join(name);
        std::fs::create_dir_all(&folder).unwrap();
        let path = folder.join("trace.json");
        std::fs::write(&path, format!(r#"{{"traceEvents":[{}]}}"#, events.join(","))).unwrap();
        path.display().to_string()
    };
    [side("control", 100), side("test", 200)]
}

/// The issue's finding: colours were cumulative, so the step was the reddest frame and the
/// frame that changed pale. Now the child whose own time grew is the red one, its parent and
/// the step are white, the title gives the step's change on host and device and says which
/// time is drawn, and the legend is in the picture.
#[test]
fn the_frame_whose_own_time_grew_is_the_red_one() {
    let dir = tempfile::tempdir().unwrap();
    let [c, t] = own_growth_pair(dir.path());
    let path = dir.path().join("diff.svg");
    ok(&["flamegraph", &c, &t, "--time", "host", "-o", path.to_str().unwrap()]);
    let svg = parsed_svg(&path);
    let frames = frames_of(&svg);
    let fill = |name: &str| {
        let frame = frames.iter().find(|(t, _)| t.starts_with(&format!("{name} (")));
        frame
            .unwrap_or_else(|| panic!("no frame {name} in {frames:?}"))
            .1
            .as_str()
    };
    assert_eq!(fill("aten::mm"), "rgb(255,100,100)");
    assert_eq!(fill("Net"), "rgb(250,250,250)");
    assert_eq!(fill("ProfilerStep"), "rgb(250,250,250)");
    assert!(
        svg.contains("test vs control · step time 1.00 ms → 1.10 ms (+10.0%), device 40.0 µs → 40.0 µs (0%)<")
            && svg.contains(">drawn: host self time · width: test time"),
        "{svg}"
    );
    assert!(svg.contains(r#"<g id="legend">"#), "{svg}");
    assert!(svg.contains("colour: own time, test − control:"), "{svg}");
    assert!(svg.contains("≥ +100 µs"), "{svg}");
}

#[test]
fn control_widths_draw_what_test_lacks() {
    let dir = tempfile::tempdir().unwrap();
    let test_widths = dir.path().join("test.svg");
    let control_widths = dir.path().join("control.svg");
    ok(&[
        "flamegraph",
        C,
        T,
        "--time",
        "host",
        "-o",
        test_widths.to_str().unwrap(),
    ]);
    ok(&[
        "flamegraph",
        C,
        T,
        "--time",
        "host",
        "--widths",
        "control",
        "-o",
        control_widths.to_str().unwrap(),
    ]);
    let test_widths = parsed_svg(&test_widths);
    let control_widths = parsed_svg(&control_widths);
    // Head and ManualNorm (and their backward nodes) ran in control only: 170 µs.
    assert!(!test_widths.contains("ManualNorm"));
    assert!(test_widths.contains("not drawn: 170 µs only control has (--widths control)"));
    assert!(control_widths.contains("width: control time"));
    assert!(control_widths.contains("not drawn: 335 µs only test has (--widths test)"));
    let frames = frames_of(&control_widths);
    let head = frames.iter().find(|(t, _)| t.starts_with("Head (")).unwrap();
    assert_eq!(
        head.0,
        "Head (60.0 µs, 6.1% of control; gone, test has none; own 10.0 µs → 0 ns, -10.0 µs)"
    );
    assert!(head.1.ends_with(",255)"), "blue: {}", head.1);
    // --widths draws the differential picture only.
    assert_eq!(run(&["flamegraph", C, T, "--folded", "--widths", "control"]).code, 2);
    assert_eq!(
        run(&["flamegraph", C, T, "--side", "test", "--widths", "control"]).code,
        2
    );
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

/// The ViT (fp32 → bf16, device time down 82%). Colours by the change with all above it made
/// the step and the root modules the deepest blue and the kernels that changed pale; colours by
/// inferno's self change were scaled to nothing of the step's. Now the step and the modules
/// (no own time) are white, the title says the step is faster on both host and device, the
/// new bf16 kernels are red and control's widths draw the fp32 kernels that vanished in blue,
/// the largest of them at full colour.
#[cfg_attr(
    tracediff_no_shared,
    ignore = "needs ../shared (real traces, HTA's output), absent when the tests were built: put it beside the repository or set TRACEDIFF_SHARED"
)]
#[test]
fn a_replacement_of_every_kernel_colours_the_kernels() {
    let Some(traces) = common::traces("the ViT fp32 → bf16 flame graph") else {
        return;
    };
    let [c, t] = common::sides(&traces.join("gpu_h100/vit_precision"));
    let out = tempfile::tempdir().unwrap();
    let draw = |widths: &str| {
        let path = out.path().join(format!("{widths}.svg"));
        let args = [
            "flamegraph",
            &c,
            &t,
            "--time",
            "device",
            "--labels",
            "fp32,bf16",
            "--widths",
            widths,
            "--iteration",
            "2",
            "-o",
            path.to_str().unwrap(),
        ];
        ok(&args);
        let svg = parsed_svg(&path);
        (frames_of(&svg), svg)
    };
    let is_blue = |fill: &str| fill.ends_with(",255)") && !fill.starts_with("rgb(255,");
    let is_red = |fill: &str| fill.starts_with("rgb(255,") && !fill.ends_with(",255)");
    let white = "rgb(250,250,250)";
    for widths in ["test", "control"] {
        let (frames, svg) = draw(widths);
        assert!(svg.contains("bf16 vs fp32 · step time "), "{svg}");
        assert!(svg.contains(">drawn: device time · "), "{svg}");
        let step = frames.iter().find(|(t, _)| t.starts_with("ProfilerStep (")).unwrap();
        assert!(step.0.ends_with("-75.0 ms, -81.6%)"), "{}", step.0);
        assert_eq!(step.1, white, "{widths}: {step:?}");
        for module in ["VisionTransformer (", "backward ("] {
            let frame = frames.iter().find(|(t, _)| t.starts_with(module)).unwrap();
            assert_eq!(frame.1, white, "{widths}: {frame:?}");
        }
        if widths == "test" {
            // What is new is red where it has own time (the kernels), white where it has none
            // (the operators above them); never blue.
            let new: Vec<_> = frames
                .iter()
                .filter(|(t, _)| t.contains("new, fp32 has none"))
                .collect();
            assert!(new.iter().any(|(_, fill)| is_red(fill)), "no red kernel");
            assert!(
                new.iter().all(|(_, fill)| is_red(fill) || fill == white),
                "a new frame is blue"
            );
        } else {
            let gone: Vec<_> = frames
                .iter()
                .filter(|(t, _)| t.contains("gone, bf16 has none"))
                .collect();
            // What vanished is blue where it had own time (the kernels), white above them.
            assert!(
                gone.iter().all(|(_, fill)| is_blue(fill) || fill == white),
                "a gone frame is red"
            );
            // The largest own change is full colour: not every frame is pale.
            assert!(
                gone.iter().any(|(_, fill)| fill == "rgb(100,100,255)"),
                "no frame at full colour"
            );
            // The fp32 GEMMs and the bf16 GEMMs in their place share frames by class and
            // position (docs/kernel-classes.md#in-the-flame-graph), and read as faster.
            let gemms: Vec<_> = frames.iter().filter(|(t, _)| t.starts_with("gemm #")).collect();
            assert!(
                !gemms.is_empty() && gemms.iter().all(|(t, _)| !t.contains("has none")),
                "{gemms:?}"
            );
            assert!(gemms.iter().any(|(_, fill)| is_blue(fill)), "{gemms:?}");
        }
    }
}
