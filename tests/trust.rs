//! Regression tests for the defects a new user hit (issue 9): each runs the binary and checks
//! exact output, and each failed before its fix.

use crate::common;

use common::{Run, fails, run, run_in};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};
use tempfile::TempDir;

/// A trace with one 1 µs `cpu_op` event per name, one after the other.
fn write_trace(path: &Path, names: &[String]) {
    let mut text = String::from("{\"traceEvents\":[\n");
    for (i, n) in names.iter().enumerate() {
        let sep = if i == 0 { "" } else { "," };
        text.push_str(&format!(
            "{sep}{{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":{},\"pid\":1,\"tid\":1,\"ts\":{},\"dur\":1}}\n",
            serde_json::to_string(n).unwrap(),
            i * 2
        ));
    }
    text.push_str("]}\n");
    std::fs::write(path, text).unwrap();
}

fn bin() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_tracediff"))
}

/// Runs `command` under a pseudo-terminal (util-linux `script`; a test that calls this carries
/// the `tracediff_no_script` mark). Fails the test when the command has not exited after `limit`.
fn under_pty(command: &str, limit: Duration) -> (i32, String) {
    let out = tempfile::NamedTempFile::new().unwrap();
    let mut child = std::process::Command::new("script")
        .args(["-qec", command])
        .arg(out.path())
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let start = Instant::now();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            let text = String::from_utf8_lossy(&std::fs::read(out.path()).unwrap()).into_owned();
            return (status.code().unwrap_or(-1), text);
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            panic!("`{command}` did not exit within {limit:?} on a terminal (hang)");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Defect 1: a run longer than a second with stderr on a terminal printed its output and never
/// exited (the progress thread waited for the stderr lock that main held while joining it).
/// Here the run lasts over a second because its reader only starts after two.
#[cfg_attr(
    tracediff_no_script,
    ignore = "needs util-linux's `script` (a pseudo-terminal), absent when the tests were built: install util-linux (Debian: bsdutils)"
)]
#[test]
fn a_long_run_on_a_terminal_shows_progress_and_exits() {
    let dir = TempDir::new().unwrap();
    let names: Vec<String> = (0..4000).map(|i| format!("aten::op_{i:05}")).collect();
    write_trace(&dir.path().join("a.json"), &names);
    let command = format!(
        "cd '{}' && '{}' compare a.json a.json --no-save --format csv | (sleep 2; wc -l)",
        dir.path().display(),
        bin().display()
    );
    let (code, text) = under_pty(&command, Duration::from_secs(30));
    assert_eq!(code, 0, "{text}");
    assert!(text.contains("tracediff: reading traces…"), "{text}");
    assert!(text.contains("4001"), "every row arrived: {text}");
}

/// Defect 2: `--max-step-time-regression 5` was read as 500% and passed a 79% regression.
/// Percentages need their % sign and durations their unit, on the command line and in the
/// TOML file alike.
#[test]
fn gate_thresholds_without_their_unit_are_refused() {
    let gate = |extra: &[&str]| {
        let mut args = vec!["gate", "fixtures/gate/base", "fixtures/gate/kernel2x"];
        args.extend_from_slice(extra);
        fails(&args)
    };
    assert_eq!(
        gate(&["--max-step-time-regression", "5"]),
        "invalid --max-step-time-regression '5': a percentage needs its % sign: write 5% for 5 percent \
         (a bare number is refused; 5 could mean either 5% or 500%)"
    );
    for flag in ["--max-op-regression", "--max-gpu-busy-regression"] {
        let e = gate(&[flag, "0.05"]);
        assert!(
            e.starts_with(&format!("invalid {flag} '0.05': a percentage needs its % sign")),
            "{e}"
        );
    }
    assert_eq!(
        gate(&["--max-op-regression", "5%", "--min-op-time", "200"]),
        "invalid --min-op-time '200': a duration needs its unit: write e.g. 200us, 200ms or 200s (a bare number is refused)"
    );
    let e = gate(&["--max-count-increase=-3"]);
    assert!(e.starts_with("invalid --max-count-increase '-3'"), "{e}");
    let dir = TempDir::new().unwrap();
    for (body, want) in [
        (
            "max_step_time_regression = 5",
            "max_step_time_regression (line 2) '5': a percentage needs its % sign",
        ),
        (
            "max_op_regression = \"0.05\"",
            "max_op_regression (line 2) '0.05': a percentage needs its % sign",
        ),
        (
            "max_gpu_busy_regression = 0.05",
            "max_gpu_busy_regression (line 2) '0.05': a percentage needs its % sign",
        ),
        (
            "max_op_regression = \"5%\"\nmin_op_time = 7",
            "min_op_time (line 3) '7': a duration needs its unit",
        ),
    ] {
        let path = dir.path().join("gate.toml");
        std::fs::write(&path, format!("[gate]\n{body}\n")).unwrap();
        let e = gate(&["--config", path.to_str().unwrap()]);
        assert!(e.starts_with(&format!("invalid gate config: {want}")), "{e}");
        assert!(e.ends_with(&format!("({})", path.display())), "{e}");
    }
    // Each names the line of its key. With its sign, 5% fails the 79% regression (exit 1); a TOML number is a count limit.
    let r = run(&[
        "gate",
        "fixtures/gate/base",
        "fixtures/gate/kernel2x",
        "--max-step-time-regression",
        "5%",
    ]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    let path = dir.path().join("count.toml");
    std::fs::write(&path, "[gate]\nmax_count_increase = 2\n").unwrap();
    let r = run(&[
        "gate",
        "fixtures/gate/base",
        "fixtures/gate/base",
        "--config",
        path.to_str().unwrap(),
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
}

/// Defect 3: when the state could not be saved, `compare` printed nothing and exited 2. The
/// result is printed, one warning says how to fix it, and the exit status is 0.
#[test]
fn a_state_that_cannot_be_saved_does_not_lose_the_result() {
    let dir = TempDir::new().unwrap();
    let blocker = dir.path().join("a-file");
    std::fs::write(&blocker, b"").unwrap();
    // A directory under a regular file cannot be created, even by root.
    let state = blocker.join("state");
    let args = [
        "compare",
        "fixtures/basic/control",
        "fixtures/basic/test",
        "--format",
        "csv",
    ];
    let r = run_in(&state, &args);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(r.stdout, run(&[&args[..], &["--no-save"]].concat()).stdout);
    assert!(r.stdout.starts_with("name,control_count,"), "{}", r.stdout);
    let warnings: Vec<&str> = r
        .stderr
        .lines()
        .filter(|l| !l.starts_with("tracediff: note:"))
        .collect();
    assert_eq!(
        warnings,
        [format!(
            "tracediff: warning: this comparison was not saved for `ops-diff` and `plot` without paths \
             (cannot write {}: not a directory); pass --no-save, or set TRACEDIFF_STATE_DIR to a writable directory",
            state.display()
        )]
    );
}

/// Defect 7 (second half): a trace file whose name is not UTF-8 was skipped silently inside a
/// directory. It is read like any other (and named, lossily, in messages).
#[cfg(unix)]
#[test]
fn a_trace_whose_name_is_not_utf8_is_read_not_skipped() {
    use std::os::unix::ffi::OsStrExt;
    let dir = TempDir::new().unwrap();
    let odd = dir.path().join(std::ffi::OsStr::from_bytes(b"rank\xff.json"));
    std::fs::copy("fixtures/basic/control/trace.json", &odd).unwrap();
    let side = dir.path().to_str().unwrap();
    let csv = |control: &str| {
        let r = run(&[
            "compare",
            control,
            "fixtures/basic/test",
            "--format",
            "csv",
            "--no-save",
        ]);
        assert_eq!(r.code, 0, "{}", r.stderr);
        r.stdout
    };
    assert_eq!(csv(side), csv("fixtures/basic/control"));
    // Beside another rank-0 file, both are named in the duplicate-rank error.
    std::fs::copy("fixtures/basic/control/trace.json", dir.path().join("a.json")).unwrap();
    let e = fails(&["compare", side, "fixtures/basic/test", "--no-save"]);
    assert_eq!(
        e,
        format!(
            "two trace files with rank 0: {side}/a.json and {side}/rank\u{fffd}.json (pass one file to compare it alone) ({side})"
        )
    );
}

/// Defect 8: `plot --width 40000 --height 40000` panicked (plotters' buffer size overflowed).
/// Sizes outside the allowed range, and more rows than a chart can hold, are usage errors
/// that say what fits.
#[test]
fn plot_sizes_out_of_range_are_clear_errors() {
    let dir = TempDir::new().unwrap();
    let out = dir.path().join("chart.png");
    let plot = |extra: &[&str]| {
        let mut args = vec![
            "plot",
            "fixtures/basic/control",
            "fixtures/basic/test",
            "--hta",
            "-o",
            out.to_str().unwrap(),
        ];
        args.extend_from_slice(extra);
        fails(&args)
    };
    for (w, h) in [
        ("40000", "40000"),
        ("4294967295", "900"),
        ("1600", "8193"),
        ("399", "900"),
    ] {
        assert_eq!(
            plot(&["--width", w, "--height", h]),
            format!("a chart is 400×300 to 8192×8192 pixels, not {w}×{h} (--width, --height)")
        );
    }
    assert_eq!(
        plot(&["--top", "19", "--height", "300"]),
        "15 rows do not fit a 1600×300 chart (each needs 24 pixels of height): give at least --height 590, or a \
         smaller --top"
    );
    assert!(!out.exists());
    // The largest size draws (an SVG, to keep the test light).
    let svg = dir.path().join("big.svg");
    let r = run(&[
        "plot",
        "fixtures/basic/control",
        "fixtures/basic/test",
        "--metric",
        "counts",
        "--width",
        "8192",
        "--height",
        "8192",
        "-o",
        svg.to_str().unwrap(),
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(std::fs::read_to_string(&svg).unwrap().contains("width=\"8192\""));
}

/// Defect 9: output that lied. `compare -o diff.png` wrote a text table into a .png; `gate
/// --format csv` printed a table; `ops-diff --labels` and an unused `--arg-spec` were accepted
/// and ignored.
#[test]
fn outputs_are_what_they_say_or_refused() {
    let dir = TempDir::new().unwrap();
    let path = |name: &str| dir.path().join(name).to_str().unwrap().to_string();
    let (png, xlsx, events_png) = (path("diff.png"), path("gate.xlsx"), path("events.png"));
    assert_eq!(
        fails(&["compare", "fixtures/basic/control", "fixtures/basic/test", "-o", &png]),
        format!(
            "cannot tell the output format of {png} from its extension .png: use .csv, .json, .md or .txt, or give --format"
        )
    );
    assert_eq!(
        fails(&["ops-diff", "fixtures/basic/control", "fixtures/basic/test", "-o", &png]),
        format!(
            "cannot tell the output format of {png} from its extension .png: use .csv, .json, .md or .txt, or give --format"
        )
    );
    let gate = [
        "gate",
        "fixtures/gate/base",
        "fixtures/gate/kernel2x",
        "--max-step-time-regression",
        "5%",
    ];
    assert_eq!(
        fails(&[&gate[..], &["-o", &xlsx]].concat()),
        format!(
            "cannot tell the output format of {xlsx} from its extension .xlsx: use .csv, .json, .md or .txt, or give --format"
        )
    );
    assert_eq!(
        fails(&["events", "fixtures/basic/control", "-o", &events_png]),
        format!(
            "cannot tell the output format of {events_png} from its extension .png: use .csv, .jsonl, .json, .txt or .parquet, or give --format"
        )
    );
    assert!(!Path::new(&png).exists() && !Path::new(&xlsx).exists() && !Path::new(&events_png).exists());
    // --format overrides the extension; no extension means the default.
    let r = run(&[
        "compare",
        "fixtures/basic/control",
        "fixtures/basic/test",
        "-o",
        &png,
        "--format",
        "csv",
        "--no-save",
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        std::fs::read_to_string(&png)
            .unwrap()
            .starts_with("name,control_count,")
    );
    let r = run(&["events", "fixtures/basic/control", "-o", &path("events")]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        std::fs::read_to_string(path("events"))
            .unwrap()
            .starts_with("index,rank,name,cat,")
    );

    let r = run(&[
        &gate[..],
        &[
            "--max-op-regression",
            "10%",
            "--format",
            "csv",
            "--no-run-shift",
            "--device",
            "all",
        ],
    ]
    .concat());
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert_eq!(
        r.stdout,
        "rule,subject,unit,baseline,candidate,relative_change,threshold,threshold_on,noise,verdict,note\n\
         step time,median of steps,us,1522,2723,0.7890932982917214,0.05,relative_change,25.553987965768602,fail,\n\
         op time,1 of 4 ops regressed,count,0,1,,0.1,relative_change,,fail,4 ops checked: at least 15.2 µs per step (1.0% of the baseline's mean step)\n\
         op time,void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_64x64_16x6_nn_align4>(cutlass_80_tensorop_s1688gemm_64x64_16x6_nn_align4::Params),\
         us,1207,2408,0.9950289975144988,0.1,relative_change,24.187607778742944,fail,\n"
    );
    // The floor on an op's change is named where one is set, and left out at 0 (issue 51:
    // "changed by at least 0 ns" said nothing).
    let floored = [
        &gate[..],
        &["--max-op-regression", "10%", "--min-op-time", "20us", "--format", "csv"],
    ]
    .concat();
    let r = run(&floored);
    assert!(
        r.stdout
            .contains("(1.0% of the baseline's mean step), changed by at least 20.0 µs"),
        "{}",
        r.stdout
    );
    assert!(!r.stdout.contains("at least 0 ns"), "{}", r.stdout);

    let r = run(&[
        "ops-diff",
        "fixtures/basic/control",
        "fixtures/basic/test",
        "--labels",
        "a,b",
    ]);
    assert_eq!(r.code, 2);
    assert!(
        r.stderr.starts_with("error: unexpected argument '--labels' found"),
        "{}",
        r.stderr
    );
    assert!(!run(&["ops-diff", "--help"]).stdout.contains("--labels"));
    assert_eq!(
        fails(&[
            "compare",
            "fixtures/basic/control",
            "fixtures/basic/test",
            "--arg-spec",
            "module=Module Hierarchy:string"
        ]),
        "--arg-spec defines 'module' but no --group-by names it (here --arg-spec only serves --group-by)"
    );
}

/// A trace of `aten::addmm` events whose `Input Dims` differ only in the middle, as in the issue.
fn addmm_trace(path: &Path, dims: &[&str]) {
    let mut text = String::from("{\"traceEvents\":[\n");
    for (i, d) in dims.iter().enumerate() {
        let sep = if i == 0 { "" } else { "," };
        text.push_str(&format!(
            "{sep}{{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::addmm\",\"pid\":1,\"tid\":1,\"ts\":{},\"dur\":{},\
             \"args\":{{\"Input Dims\":{d}}}}}\n",
            i * 100,
            10 + i
        ));
    }
    text.push_str("]}\n");
    std::fs::write(path, text).unwrap();
}

const ADDMM_DIMS: [&str; 4] = [
    "[[4096], [1024, 4096], [4096, 4096], [], []]",
    "[[4096], [1024, 1024], [1024, 4096], [], []]",
    "[[1024], [1024, 4096], [4096, 1024], [], []]",
    "[[4096], [2048, 4096], [4096, 4096], [], []]",
];

/// Defect 10: the terminal table cut long names in the middle, so distinct `aten::addmm
/// [input_dims=…]` rows looked identical; `--include '^aten::addmm$' --group-by input_dims`
/// matched nothing because the pattern saw the group values too.
#[test]
fn distinct_rows_stay_distinct_and_filters_match_the_operator() {
    let dir = TempDir::new().unwrap();
    let trace = dir.path().join("t.json");
    addmm_trace(&trace, &ADDMM_DIMS);
    let t = trace.to_str().unwrap();
    let args = [
        "compare",
        t,
        t,
        "--no-save",
        "--group-by",
        "input_dims",
        "--include",
        "^aten::addmm$",
    ];
    let table = run(&args);
    assert_eq!(table.code, 0, "{}", table.stderr);
    let names: Vec<&str> = common::table_rows(&table.stdout)
        .take_while(|l| l.starts_with(" aten"))
        .map(|l| l[1..].split("   ").next().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "aten::addmm [input_dims=[[1024],[10…",
            "aten::addmm …6],[1024,1024],[1024,4…",
            "aten::addmm …6],[1024,4096],[4096,4…",
            "aten::addmm [input_dims=[[4096],[20…",
        ],
        "{}",
        table.stdout
    );
    // --full-names: whole names, whatever the width.
    let full = run(&[&args[..], &["--full-names"]].concat());
    for d in ADDMM_DIMS {
        let d: String = d.chars().filter(|c| *c != ' ').collect();
        assert!(
            full.stdout.contains(&format!(" aten::addmm [input_dims={d}] ")),
            "{d}\n{}",
            full.stdout
        );
    }
    // --exclude sees the operator's name too.
    let none = run(&[
        "compare",
        t,
        t,
        "--no-save",
        "--group-by",
        "input_dims",
        "--exclude",
        "^aten::addmm$",
        "--format",
        "csv",
    ]);
    assert_eq!(none.stdout.lines().count(), 1, "{}", none.stdout);
}

/// The `no rows`/`no events` note of a run's stderr.
fn why_empty(r: &Run) -> Vec<&str> {
    assert_eq!(r.code, 0, "{}", r.stderr);
    r.stderr
        .lines()
        .filter(|l| l.contains(": no rows:") || l.contains(": no events:"))
        .collect()
}

/// Defect 11: a selection or filter that left no rows exited 0 with "(no rows)" and no reason.
/// A note on stderr says which option removed what.
#[test]
fn empty_results_say_which_filter_emptied_them() {
    let compare = |extra: &[&str]| {
        let mut args = vec!["compare", "fixtures/basic/control", "fixtures/basic/test", "--no-save"];
        args.extend_from_slice(extra);
        run(&args)
    };
    let r = compare(&["--include", "^nomatch$"]);
    assert!(r.stdout.contains("(no rows)"), "{}", r.stdout);
    assert_eq!(
        why_empty(&r),
        ["tracediff: note: no rows: --include '^nomatch$' matched none of the 17 row names"]
    );
    assert_eq!(
        why_empty(&compare(&["--include", "aten", "--exclude", "aten", "--format", "csv"])),
        ["tracediff: note: no rows: --exclude 'aten' removed all 6 rows left by --include 'aten'"]
    );
    assert_eq!(
        why_empty(&compare(&["--exclude", "."])),
        ["tracediff: note: no rows: --exclude '.' removed all 17 rows"]
    );
    assert!(why_empty(&compare(&["--include", "aten"])).is_empty());
    let dir = TempDir::new().unwrap();
    let cpu = dir.path().join("cpu.json");
    write_trace(&cpu, &["aten::mm".to_string(), "aten::add".to_string()]);
    let cpu = cpu.to_str().unwrap();
    assert_eq!(
        why_empty(&run(&["ops-diff", cpu, cpu, "--device", "gpu"])),
        [
            "tracediff: note: no rows: --device gpu removed every event of the selected ranks and iterations of both sides (2 names of other events)"
        ]
    );
    let events = |extra: &[&str]| {
        let mut args = vec!["events", cpu];
        args.extend_from_slice(extra);
        run(&args)
    };
    assert_eq!(
        why_empty(&events(&["--device", "gpu"])),
        ["tracediff: note: no events: --device gpu removed all 2 events of the selected ranks and iterations"]
    );
    assert_eq!(
        why_empty(&events(&["--cat", "kernel"])),
        ["tracediff: note: no events: --cat 'kernel' matched none of the 2 events left"]
    );
    assert_eq!(
        why_empty(&events(&["--name", "^conv"])),
        ["tracediff: note: no events: --name '^conv' matched none of the 2 events left"]
    );
}

/// Defect 13: noise and papercuts. The rank-0 note came for every single-file side on every
/// command; "1 rows", "1 rules", "1 ops"; a saved state from a newer layout was called "older";
/// regex errors of --name and --fail-on-added took four lines.
#[test]
fn notes_once_where_they_matter_plurals_and_one_line_errors() {
    let r = run(&[
        "compare",
        "fixtures/basic/control",
        "fixtures/basic/test",
        "--no-save",
        "--include",
        "^aten::mm$",
        "--hta",
    ]);
    assert_eq!(r.code, 0);
    assert_eq!(r.stderr, "", "no note for sides of one file");
    assert!(
        r.stdout
            .contains("\n1 row: 0 added, 0 deleted, 0 increased, 0 decreased, 1 unchanged\n"),
        "{}",
        r.stdout
    );
    // A side of several files: the rank matters, and the note names the file.
    let dir = TempDir::new().unwrap();
    std::fs::copy("fixtures/basic/control/trace.json", dir.path().join("a.json")).unwrap();
    std::fs::write(
        dir.path().join("b.json"),
        "{\"distributedInfo\":{\"rank\":1},\"traceEvents\":[{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"x\",\"ts\":0,\"dur\":1}]}",
    )
    .unwrap();
    let side = dir.path().to_str().unwrap();
    let r = run(&["compare", side, side, "--no-save", "--hta"]);
    assert_eq!(
        r.stderr,
        format!("tracediff: note: no distributedInfo.rank in {side}/a.json; taking it as rank 0\n")
    );

    let (code, out) = {
        let r = run(&[
            "gate",
            "fixtures/gate/base",
            "fixtures/gate/base",
            "--max-step-time-regression",
            "5%",
        ]);
        (r.code, r.stdout)
    };
    assert_eq!(code, 0);
    assert!(out.ends_with("gate: PASS (1 rule checked)\n"), "{out}");

    let state = TempDir::new().unwrap();
    std::fs::write(
        state.path().join("last-comparison.json"),
        "{\"format_version\":99,\"tool_version\":\"9.0.0\",\"request\":null,\"comparison\":null}",
    )
    .unwrap();
    let r = run_in(state.path(), &["ops-diff"]);
    assert_eq!(r.code, 2);
    assert_eq!(
        r.stderr,
        format!(
            "tracediff: the saved comparison was written by tracediff 9.0.0 in a newer layout (version 99; \
             this tracediff reads version 1); run `tracediff compare` again ({})\n",
            state.path().join("last-comparison.json").display()
        )
    );

    assert_eq!(
        fails(&["events", "fixtures/basic/control", "--name", "("]),
        "invalid --name pattern '(': unclosed group"
    );
    assert_eq!(
        fails(&[
            "gate",
            "fixtures/gate/base",
            "fixtures/gate/base",
            "--fail-on-added",
            "[a"
        ]),
        "invalid --fail-on-added pattern '[a': unclosed character class"
    );
}

/// Counts in notes and footers are grouped by thousands (`matched none of the 74936 events
/// left` on the HTA demo trace): a trace of 1,200 operators, 1,200 names.
#[test]
fn counts_in_notes_and_footers_are_grouped_by_thousands() {
    let dir = TempDir::new().unwrap();
    let events: Vec<String> = (0..1200)
        .map(|i| {
            format!(
                r#"{{"ph": "X", "cat": "cpu_op", "name": "aten::op_{i}", "pid": 1, "tid": 1, "ts": {}, "dur": 1}}"#,
                i * 2
            )
        })
        .collect();
    let trace = dir.path().join("big.json");
    std::fs::write(&trace, format!(r#"{{"traceEvents": [{}]}}"#, events.join(", "))).unwrap();
    let trace = trace.to_str().unwrap();
    assert_eq!(
        why_empty(&run(&["events", trace, "--cat", "kernel"])),
        ["tracediff: note: no events: --cat 'kernel' matched none of the 1,200 events left"]
    );
    assert_eq!(
        why_empty(&run(&["compare", trace, trace, "--no-save", "--include", "^nomatch$"])),
        ["tracediff: note: no rows: --include '^nomatch$' matched none of the 1,200 row names"]
    );
    let r = run(&["compare", trace, trace, "--no-save", "--top", "3"]);
    assert!(
        r.stdout.replace("\n  ", " ").contains(
            "1,200 rows (showing 3 by abs-diff-duration): 0 added, 0 deleted, 0 increased, 0 decreased, 1,200 unchanged"
        ),
        "{}",
        r.stdout
    );
    // A side without ProfilerStep says so as the overview does (no parentheses in parentheses:
    // `(rank 0, whole trace (no ProfilerStep))`).
    assert!(
        r.stdout.contains("(rank 0, no ProfilerStep: the whole trace)\n"),
        "{}",
        r.stdout
    );
    let r = run(&["operators", trace, trace, "--top", "3"]);
    assert!(r.stdout.contains("1,200 operators (showing 3 by"), "{}", r.stdout);
}
