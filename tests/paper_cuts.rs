//! Paper cuts a new user meets first: `ops-diff --top` by size, `--quiet`, flag suggestions
//! that fit what was typed, Markdown's `sig` column and one escaper, "not JSON" named as such,
//! colour at a terminal only.

use crate::common;
use std::path::Path;
use tempfile::TempDir;

/// A pair whose rows all changed beyond noise (test 40% slower on the host).
const SHIFTED: [&str; 7] = [
    "compare",
    "fixtures/shift/base",
    "fixtures/shift/slow",
    "--iteration",
    "all",
    "--no-save",
    "--no-run-shift",
];

#[test]
fn ops_diff_top_takes_the_largest_changes_with_their_sizes() {
    let out = common::ok(&[
        "ops-diff",
        "fixtures/views/control",
        "fixtures/views/test",
        "--category",
        "deleted",
        "--top",
        "2",
    ]);
    // By name, `Memcpy HtoD …` came first; by |Δ| the step's GPU row and aten::relu do.
    assert_eq!(
        out,
        "deleted (5, showing 2):\n  -700 µs  1 → 0 calls  ProfilerStep#* (GPU)\n  -100 µs  1 → 0 calls  aten::relu\n"
    );
    let md = common::ok(&[
        "ops-diff",
        "fixtures/views/control",
        "fixtures/views/test",
        "--category",
        "deleted",
        "--top",
        "1",
        "--format",
        "markdown",
    ]);
    assert_eq!(
        md,
        "### deleted (5, showing 1)\n\n| Δ time | calls | name |\n|---:|---:|---|\n| -700 µs | 1 → 0 | `ProfilerStep#* (GPU)` |\n\n"
    );
}

#[test]
fn quiet_silences_the_notes_of_every_command() {
    let pair = ["fixtures/shift/base", "fixtures/shift/slow"];
    for args in [
        &SHIFTED[..],
        &["kernels", pair[0], pair[1]],
        &["operators", pair[0], pair[1], "--iteration", "all"],
        &["overview", pair[0], pair[1]],
        &["modules", pair[0], pair[1]],
        &["explain", pair[0], pair[1]],
        &["gate", pair[0], pair[1], "--max-op-regression", "10%"],
    ] {
        let loud = common::run(args);
        let mut quiet = args.to_vec();
        quiet.push("--quiet");
        let r = common::run(&quiet);
        assert_eq!(r.code, loud.code, "{args:?}: {}", r.stderr);
        assert_eq!(r.stderr, "", "{args:?}");
        assert_eq!(r.stdout, loud.stdout, "{args:?}");
    }
}

#[test]
fn a_mistyped_flag_gets_the_command_s_nearest_flag() {
    for (args, flag) in [
        (&["compare", "a", "b", "--tpo", "5"][..], "--top"),
        (&["kernels", "a", "b", "--sotr", "x"], "--sort"),
        (&["gate", "a", "b", "--max-op-regresion", "5%"], "--max-op-regression"),
        (&["history", "show", "s", "--tpo", "3"], "--top"),
        (&["compare", "a", "b", "--full-name"], "--full-names"),
    ] {
        let r = common::run(args);
        assert_eq!(r.code, 2, "{args:?}");
        assert!(
            r.stderr.contains(&format!("a similar argument exists: '{flag}'")),
            "{args:?}:\n{}",
            r.stderr
        );
        assert!(!r.stderr.contains("'--output'"), "{args:?}:\n{}", r.stderr);
    }
    // Nothing near: no tip, and the usage line is the command's, not one built around a guess.
    let r = common::run(&["compare", "a", "b", "--zebra"]);
    assert_eq!(r.code, 2);
    assert!(!r.stderr.contains("similar argument"), "{}", r.stderr);
    assert!(r.stderr.contains("Usage: tracediff compare [OPTIONS]"), "{}", r.stderr);
}

/// Copies of `fixtures/shift`'s pair under a folder whose name holds `_`.
fn underscored(dir: &Path) -> [String; 2] {
    ["base", "slow"].map(|side| {
        let to = dir.join("my_runs").join(side);
        std::fs::create_dir_all(&to).unwrap();
        let from = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/shift").join(side);
        for entry in std::fs::read_dir(from).unwrap() {
            let entry = entry.unwrap();
            std::fs::copy(entry.path(), to.join(entry.file_name())).unwrap();
        }
        to.to_str().unwrap().to_string()
    })
}

#[test]
fn markdown_has_the_sig_column_and_one_escaper() {
    let dir = TempDir::new().unwrap();
    let [c, t] = underscored(dir.path());
    for args in [
        &["compare", &c, &t, "--iteration", "all", "--no-save", "--no-run-shift"][..],
        &["operators", &c, &t, "--iteration", "all", "--no-run-shift"],
    ] {
        let mut md = args.to_vec();
        md.extend(["--format", "markdown"]);
        let out = common::ok(&md);
        let header = out.lines().find(|l| l.starts_with("| ")).unwrap();
        assert!(header.ends_with("| sig |"), "{args:?}:\n{out}");
        // Aligned as every command aligns it (right, as its neighbours).
        let rule = out.lines().find(|l| l.starts_with("|---")).unwrap();
        assert!(rule.ends_with("|---:|"), "{args:?}:\n{out}");
        assert!(out.contains(" | \\* |\n"), "{args:?}:\n{out}");
        assert!(out.contains("my\\_runs"), "{args:?}:\n{out}");
        assert!(!out.contains("my_runs"), "{args:?}:\n{out}");
    }
    let out = common::ok(&["overview", &c, &t, "--format", "markdown"]);
    assert!(out.contains("my\\_runs") && !out.contains("my_runs"), "{out}");
}

#[test]
fn text_that_is_not_json_is_named_so() {
    let dir = TempDir::new().unwrap();
    for (text, shown) in [("null garbage", "null garbage"), ("not json at all", "not")] {
        let path = dir.path().join("trace.json");
        std::fs::write(&path, text).unwrap();
        let p = path.to_str().unwrap();
        let r = common::run(&["compare", p, p, "--no-save"]);
        assert_eq!(r.code, 2, "{}", r.stderr);
        assert!(
            r.stderr
                .contains(&format!("the file is not JSON (it starts with '{shown}')")),
            "{}",
            r.stderr
        );
        assert!(r.stderr.contains(p), "{}", r.stderr);
        assert!(!r.stderr.contains("the JSON text is"), "{}", r.stderr);
    }
}

/// Runs `command` on a pseudo-terminal of 100 columns (util-linux's `script`) and gives what
/// it wrote there.
fn on_a_terminal(command: &str) -> String {
    let bin = assert_cmd::cargo::cargo_bin("tracediff");
    let inner = format!("stty rows 24 cols 100; {command} 2>/dev/null");
    let inner = inner.replace("tracediff ", &format!("{} ", bin.display()));
    let out = std::process::Command::new("script")
        .args(["-qec", &inner, "/dev/null"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env_remove("COLUMNS")
        .env_remove("NO_COLOR")
        .env("TERM", "xterm")
        .output()
        .unwrap();
    String::from_utf8_lossy(&out.stdout).replace('\r', "")
}

/// Significant rows stand out at a terminal (bold red slower, green faster), never in a pipe;
/// `--color never` and `NO_COLOR` turn it off, `--color always` on in a pipe too.
#[cfg_attr(
    tracediff_no_script,
    ignore = "needs util-linux's `script` (a pseudo-terminal), absent when the tests were built: install util-linux (Debian: bsdutils)"
)]
#[test]
fn colour_at_a_terminal_only() {
    const RED: &str = "\x1b[1;31m";
    let run = format!("tracediff {}", SHIFTED.join(" "));
    let text = on_a_terminal(&run);
    let red: Vec<&str> = text.lines().filter(|l| l.starts_with(RED)).collect();
    assert!(red.len() >= 3, "{text}");
    assert!(red.iter().all(|l| l.ends_with("*\x1b[0m")), "{text}");
    // The header and the lines around the table are plain.
    assert!(
        text.lines()
            .filter(|l| l.contains("control"))
            .all(|l| !l.contains('\x1b')),
        "{text}"
    );
    for off in [format!("{run} --color never"), format!("NO_COLOR=1 {run}")] {
        let text = on_a_terminal(&off);
        assert!(
            text.contains("aten::conv2d") && !text.contains('\x1b'),
            "{off}:\n{text}"
        );
    }
    let piped = common::run(&SHIFTED);
    assert!(!piped.stdout.contains('\x1b'), "{}", piped.stdout);
    let mut always = SHIFTED.to_vec();
    always.extend(["--color", "always"]);
    let forced = common::run(&always);
    assert!(forced.stdout.contains(RED), "{}", forced.stdout);
    // Never into a file.
    let dir = TempDir::new().unwrap();
    let file = dir.path().join("t.txt");
    always.extend(["-o", file.to_str().unwrap()]);
    assert_eq!(common::run(&always).code, 0);
    assert!(!std::fs::read_to_string(&file).unwrap().contains('\x1b'));
}

#[test]
fn gate_markdown_marks_changes_beyond_their_noise_band() {
    let run = common::run(&[
        "gate",
        "fixtures/shift/base",
        "fixtures/shift/slow",
        "--max-step-time-regression",
        "10%",
        "--no-run-shift",
        "--quiet",
        "--format",
        "markdown",
    ]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    let out = run.stdout;
    let table: Vec<&str> = out.lines().skip(6).take(5).collect();
    assert_eq!(
        table,
        [
            "| rule | subject | baseline | candidate | change | threshold | noise (k×MAD) | sig | verdict |",
            "|---|---|---:|---:|---:|---|---:|---:|---|",
            "| step time | `median of steps` | 2.63 ms | 3.66 ms | +39.2% | > 10.0% | ±11.0 µs | \\* | **FAIL** |",
            "",
            "sig \\*: the change is larger than its noise band, either way (a pass below its threshold can be)  ",
        ],
        "{out}"
    );
    // Beyond the run-wide shift the step moved as the whole run did: within the band, no mark.
    let out = common::ok(&[
        "gate",
        "fixtures/shift/base",
        "fixtures/shift/slow",
        "--max-step-time-regression",
        "10%",
        "--quiet",
        "--format",
        "markdown",
    ]);
    assert!(
        out.contains("| step time | `median of steps` | 2.63 ms | 3.66 ms | -0.8% | > 10.0% | ±46.5 µs |  | pass |\n"),
        "{out}"
    );
}

#[test]
fn modules_markdown_has_the_sig_column_and_says_what_it_marks() {
    let out = common::ok(&[
        "modules",
        "fixtures/shift/base",
        "fixtures/shift/slow",
        "--no-run-shift",
        "--zoom",
        "Optimizer.step#SGD.step[0]",
        "--quiet",
        "--format",
        "markdown",
    ]);
    let expected = "\
| module | status | control host | test host | Δ host | Δ % host | sig |
|---|---:|---:|---:|---:|---:|---:|
| Optimizer.step#SGD.step\\[0\\] | matched | 184 µs | 260 µs | +75.6 µs | +41.0% | \\* |
| ├─\u{a0}aten::add\\_\\[2\\] | matched | 39.4 µs | 56.4 µs | +17.0 µs | +43.1% |  |
| ├─\u{a0}aten::add\\_\\[1\\] | matched | 40.2 µs | 57.0 µs | +16.8 µs | +41.8% |  |
| ├─\u{a0}aten::add\\_\\[3\\] | matched | 39.8 µs | 56.2 µs | +16.4 µs | +41.2% |  |
| ├─\u{a0}aten::add\\_\\[0\\] | matched | 39.8 µs | 55.2 µs | +15.4 µs | +38.7% |  |
| └─\u{a0}(unknown)\\[0\\] | unknown | 25.0 µs | 35.0 µs | +10.0 µs | +40.0% |  |

4 matched, 0 added, 0 deleted below Optimizer.step#SGD.step\\[0\\]; zoom with --zoom PATH (see --format json for paths)  
1 of 6 nodes (sig \\*) changed their host time beyond run-to-run noise and 1% of the step (docs/significance.md)  
";
    // The tree's drawing keeps its indent in Markdown with no-break spaces.
    let table = &out[out.find("| module").unwrap()..];
    assert_eq!(table, expected, "{out}");
}
