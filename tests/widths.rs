//! Every line of a terminal table fits the terminal's width, whatever the names (long Triton,
//! cutlass and cuDNN kernels, deep module keys); a pipe keeps the full names.

use crate::common;
use std::path::Path;
use tempfile::TempDir;
use unicode_width::UnicodeWidthStr;

const TRITON: &str = "triton_poi_fused__native_batch_norm_legit_functional_add_convolution_relu_threshold_backward_0";
const TRITON_RED: &str =
    "triton_red_fused__native_batch_norm_legit_functional_add_convolution_relu_threshold_backward_1";
const CUTLASS: &str = "void cutlass::Kernel2<cutlass_80_tensorop_s1688gemm_64x64_32x6_nt_align4>(cutlass_80_tensorop_s1688gemm_64x64_32x6_nt_align4::Params)";
const CUDNN: &str = "void cudnn::detail::dgrad2d_alg1_1<float, 0, 6, 6, 5, 4, 4, false, true>(int, int, int, float const*, int, float const*, int, float*, kernel_grad_params, unsigned long long, int, unsigned long long, int, float, int, int)";
const MODULE_SEQUENTIAL: &str =
    "nn.Module: TransformerEncoderLayerWithRotaryPositionEmbeddingsAndGroupedQueryAttention_";
const MODULE_BLOCK: &str =
    "nn.Module: TransformerEncoderLayerWithRotaryPositionEmbeddingsAndGroupedQueryAttentionBlock_";

/// Copies of a fixture pair with its kernels (and modules) renamed to long real-world names.
fn long_named(pair: &str, dir: &Path) -> (String, String) {
    renamed(pair, dir, &LONG_NAMES)
}

/// Real kernels of the H100 ResNet pair whose names differ far from their start.
const SOFTMAX_FORWARD: &str = "void (anonymous namespace)::softmax_warp_forward<float, float, float, 4, true, false>(float*, float const*, int, int, int, bool const*, int, bool)";
const SOFTMAX_BACKWARD: &str = "void (anonymous namespace)::softmax_warp_backward<float, float, float, 4, true, false>(float*, float const*, float const*, int, int, int, bool const*)";
const SOFTMAX_FORWARD_7: &str = "void (anonymous namespace)::softmax_warp_forward<float, float, float, 7, true, false>(float*, float const*, int, int, int, bool const*, int, bool)";

/// Copies of a fixture pair with names replaced (`"name"` in quotes: whole event names).
fn renamed(pair: &str, dir: &Path, renames: &[(&str, &str)]) -> (String, String) {
    let side = |name: &str| {
        let from = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join(pair)
            .join(name)
            .join("trace.json");
        let mut text = std::fs::read_to_string(from).unwrap();
        for (short, long) in renames {
            let long = if short.starts_with('"') {
                format!("\"{long}\"")
            } else {
                long.to_string()
            };
            text = text.replace(short, &long);
        }
        let to = dir.join(name);
        std::fs::create_dir_all(&to).unwrap();
        std::fs::write(to.join("trace.json"), text).unwrap();
        to.to_str().unwrap().to_string()
    };
    (side("control"), side("test"))
}

const LONG_NAMES: [(&str, &str); 8] = [
    ("\"gemm_kernel\"", CUTLASS),
    ("\"triton_copy\"", TRITON),
    ("\"aten::conv2d_kernel\"", CUDNN),
    ("\"aten::linear_kernel\"", CUTLASS),
    ("\"aten::add_kernel\"", TRITON),
    ("\"aten::mul_kernel\"", TRITON_RED),
    ("nn.Module: Sequential_", MODULE_SEQUENTIAL),
    ("nn.Module: Block_", MODULE_BLOCK),
];

/// Runs `args` with `COLUMNS` = each of 80 and 100 and checks every line of standard output.
fn fits(args: &[&str]) {
    for columns in [80, 100] {
        let state = TempDir::new().unwrap();
        let r = common::run_with(state.path(), args, Some(&columns.to_string()));
        // The gate exits 1 when it fails: the report is written all the same.
        assert!(
            r.code == 0 || r.code == 1 && args[0] == "gate",
            "{args:?}: {}",
            r.stderr
        );
        for line in r.stdout.lines() {
            assert!(
                line.width() <= columns,
                "{args:?} at {columns} columns: a line of {}:\n{line}\n\n{}",
                line.width(),
                r.stdout
            );
        }
    }
}

#[test]
fn compare_operators_kernels_and_events_fit_80_and_100_columns() {
    let dir = TempDir::new().unwrap();
    let (c, t) = long_named("fixtures/views", dir.path());
    fits(&["compare", &c, &t, "--no-save"]);
    fits(&["compare", &c, &t, "--no-save", "--device", "gpu", "--python-frames"]);
    fits(&["operators", &c, &t]);
    fits(&["kernels", &c, &t]);
    fits(&["kernels", &c, &t, "--by-operator"]);
    fits(&["events", &c, "--format", "table"]);
    fits(&["overview", &c, &t]);
    fits(&["overview", "fixtures/idle/control", "fixtures/idle/test", "--per-step"]);
}

#[test]
fn modules_fit_80_and_100_columns() {
    let dir = TempDir::new().unwrap();
    let (c, t) = long_named("fixtures/modules", dir.path());
    fits(&["modules", &c, &t]);
    fits(&["modules", &c, &t, "--time", "host"]);
    fits(&["compare", &c, &t, "--no-save"]);
}

#[test]
fn gate_and_overview_of_ranks_fit_80_and_100_columns() {
    fits(&[
        "gate",
        "--config",
        "examples/tracediff-gate.toml",
        "fixtures/gate/base",
        "fixtures/gate/kernel2x",
    ]);
    fits(&[
        "gate",
        "fixtures/gate/base",
        "fixtures/gate/uniform",
        "--max-op-regression",
        "1%",
    ]);
    fits(&[
        "overview",
        "--rank",
        "all",
        "fixtures/ranks/control",
        "fixtures/ranks/test",
    ]);
    let cpu = ["fixtures/cpuranks/control", "fixtures/cpuranks/test"];
    fits(&["overview", "--rank", "all", "--per-step", cpu[0], cpu[1]]);
    // The per-step and per-rank tables are fitted (headers on two lines), not wrapped: each row
    // is whole on its line (they were 89 columns wide, wrapped as prose at 80).
    let state = TempDir::new().unwrap();
    let args = [
        "overview",
        "--rank",
        "all",
        "--per-step",
        "fixtures/ranks/control",
        "fixtures/ranks/test",
    ];
    let r = common::run_with(state.path(), &args, Some("80"));
    let tables = &r.stdout[r.stdout.find("\nPer step\n").unwrap()..];
    assert!(
        tables.starts_with(
            "
Per step
                           step   compute   exposed   exposed      GPU
                           time                comm    memory     idle
───────────────────────────────────────────────────────────────────────
 control rank 0 step 5   500 µs   80.0 µs    120 µs      0 ns   300 µs
"
        ),
        "{tables}"
    );
    assert!(
        tables.contains("\n test rank 1          2   500 µs    120 µs    100 µs      0 ns   280 µs\n"),
        "{tables}"
    );
    // At 60, exposed memory copies and exposed communication are left out; the names stay whole.
    let r = common::run_with(state.path(), &args, Some("60"));
    let tables = &r.stdout[r.stdout.find("\nPer rank").unwrap()..];
    assert!(tables.lines().all(|l| l.width() <= 60), "{tables}");
    assert!(
        tables.contains("\n test rank 1          2   500 µs    120 µs   280 µs\n"),
        "{tables}"
    );
}

/// A pipe fits 160 columns (names were never cut there: lines of 582–1,557 characters);
/// `--full-names` keeps them whole.
#[test]
fn a_pipe_fits_160_columns_and_full_names_keeps_them_whole() {
    let dir = TempDir::new().unwrap();
    let (c, t) = long_named("fixtures/views", dir.path());
    let state = TempDir::new().unwrap();
    for args in [
        &["compare", &c, &t, "--no-save"][..],
        &["kernels", &c, &t],
        &["events", &c, "--format", "table"],
    ] {
        let r = common::run_with(state.path(), args, None);
        assert_eq!(r.code, 0, "{}", r.stderr);
        assert!(r.stdout.lines().all(|l| l.width() <= 160), "{args:?}:\n{}", r.stdout);
        let mut whole = args.to_vec();
        whole.push("--full-names");
        let r = common::run_with(state.path(), &whole, None);
        assert!(r.stdout.contains(CUTLASS), "{args:?}:\n{}", r.stdout);
        assert!(!r.stdout.contains('…'), "{args:?}:\n{}", r.stdout);
    }
}

/// On a real terminal (a pseudo-terminal of 80 columns, through util-linux's `script`), the
/// width comes from the terminal itself.
#[cfg_attr(
    tracediff_no_script,
    ignore = "needs util-linux's `script` (a pseudo-terminal), absent when the tests were built: install util-linux (Debian: bsdutils)"
)]
#[test]
fn a_terminal_gets_its_own_width() {
    let dir = TempDir::new().unwrap();
    let (c, t) = long_named("fixtures/views", dir.path());
    let bin = assert_cmd::cargo::cargo_bin("tracediff");
    let inner = format!("stty cols 80; {} kernels {c} {t} 2>/dev/null", bin.display());
    let out = std::process::Command::new("script")
        .args(["-qec", &inner, "/dev/null"])
        .env_remove("COLUMNS")
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout).replace('\r', "");
    assert!(text.contains("triton_poi_fused"), "{text}");
    for line in text.lines() {
        assert!(line.width() <= 80, "a line of {}:\n{line}\n\n{text}", line.width());
    }
}

/// Rows whose full names differ never show the same cut text, at any width: two softmax
/// kernels that differ only after 41 characters (`forward`/`backward`) and a third that differs
/// from one of them only in a template argument.
#[test]
fn rows_of_different_names_show_different_text_at_every_width() {
    let dir = TempDir::new().unwrap();
    let renames = [
        ("\"gemm_kernel\"", SOFTMAX_FORWARD),
        ("\"gelu_kernel\"", SOFTMAX_BACKWARD),
        ("\"triton_copy\"", SOFTMAX_FORWARD_7),
    ];
    let (c, t) = renamed("fixtures/views", dir.path(), &renames);
    let state = TempDir::new().unwrap();
    for columns in [40, 60, 80, 100, 120] {
        for args in [
            &["kernels", &c, &t][..],
            &["compare", &c, &t, "--no-save", "--device", "gpu"],
        ] {
            let r = common::run_with(state.path(), args, Some(&columns.to_string()));
            assert_eq!(r.code, 0, "{}", r.stderr);
            let rows: Vec<&str> = common::table_rows(&r.stdout)
                .map(|l| l[1..].split("  ").next().unwrap())
                .collect();
            assert!(rows.len() >= 4, "{args:?} at {columns}:\n{}", r.stdout);
            for (i, a) in rows.iter().enumerate() {
                assert!(
                    !rows[i + 1..].contains(a),
                    "{args:?} at {columns}: {a:?} twice:\n{}",
                    r.stdout
                );
            }
            if columns >= 80 {
                let shown = rows.join("\n");
                assert!(
                    shown.contains("forw") && shown.contains("backw"),
                    "{args:?} at {columns}:\n{}",
                    r.stdout
                );
            }
        }
    }
}

/// At 100 columns the gate keeps its threshold and noise columns and cuts the subject instead
/// (the notes below the table name it in full); at 80 they go, the subject stays readable.
#[test]
fn the_gate_cuts_its_subject_before_its_threshold_and_noise_at_100_columns() {
    let args = [
        "gate",
        "--config",
        "examples/tracediff-gate.toml",
        "fixtures/gate/base",
        "fixtures/gate/kernel2x",
    ];
    let state = TempDir::new().unwrap();
    let r = common::run_with(state.path(), &args, Some("100"));
    let header = r.stdout.lines().find(|l| l.starts_with(" rule")).unwrap();
    for column in [
        "subject",
        "baseline",
        "candidate",
        "change",
        "threshold",
        "noise",
        "verdict",
    ] {
        assert!(header.contains(column), "no {column}:\n{}", r.stdout);
    }
    // A kernel keeps its own name (`Kernel<cutlass_…`, not `void cutlass::Ke…`).
    assert!(r.stdout.contains(" Kernel<cutlass_"), "{}", r.stdout);
    for line in r.stdout.lines() {
        assert!(line.width() <= 100, "{line}\n\n{}", r.stdout);
    }
    let r = common::run_with(state.path(), &args, Some("80"));
    assert!(r.stdout.contains(" Kernel<cutlass_80…"), "{}", r.stdout);
}

/// A header that wraps keeps `step 1` together (it wrapped as `step` / `  2 of 3)`), at every
/// width where the side line is too long for one line.
#[test]
fn a_wrapped_header_keeps_a_step_with_its_number() {
    let dir = TempDir::new().unwrap();
    let long = dir
        .path()
        .join("a_directory_with_a_rather_long_name_for_the_side_lines");
    let (c, t) = renamed("fixtures/views", &long, &[]);
    let state = TempDir::new().unwrap();
    for columns in 60..=140 {
        let r = common::run_with(
            state.path(),
            &["compare", &c, &t, "--no-save"],
            Some(&columns.to_string()),
        );
        assert_eq!(r.code, 0, "{}", r.stderr);
        let head: Vec<&str> = r.stdout.lines().take_while(|l| !l.starts_with("device:")).collect();
        for line in &head {
            let last = line.trim_end().rsplit(' ').next().unwrap_or("");
            assert!(
                !matches!(last.trim_start_matches('('), "step" | "steps" | "rank" | "ranks" | "of"),
                "at {columns} columns:\n{}",
                head.join("\n")
            );
        }
    }
}

/// One device name on both sides of the overview reads the same at every width: it was cut to
/// `NVIDIA H1…HBM3` on one side and `NVIDIA …HBM3` (later `H100 80GB HBM3` and `H100 80GB H…`)
/// on the other at 80 columns.
#[test]
fn the_overview_cuts_one_device_name_one_way() {
    let dir = TempDir::new().unwrap();
    let (c, t) = renamed(
        "fixtures/views",
        dir.path(),
        &[("\"Fake GPU 80GB\"", "NVIDIA H100 80GB HBM3")],
    );
    let state = TempDir::new().unwrap();
    let mut cut = false;
    for columns in 60..=100 {
        let r = common::run_with(state.path(), &["overview", &c, &t], Some(&columns.to_string()));
        assert_eq!(r.code, 0, "{}", r.stderr);
        let line = r
            .stdout
            .lines()
            .find(|l| l.trim_start().starts_with("device "))
            .unwrap();
        let cells: Vec<&str> = line.split("  ").map(str::trim).filter(|s| !s.is_empty()).collect();
        assert_eq!(cells.len(), 3, "{line}");
        assert_eq!(cells[1], cells[2], "at {columns} columns: {line}");
        assert!(line.width() <= columns, "{line}");
        cut |= cells[1] != "NVIDIA H100 80GB HBM3";
    }
    assert!(cut, "some width must cut the name");
}

/// The run that prints the run-wide shift's note (500 characters).
const SHIFTED: [&str; 6] = [
    "compare",
    "fixtures/shift/base",
    "fixtures/shift/slow",
    "--iteration",
    "all",
    "--no-save",
];

/// Notes on standard error piped stay one line each for grep, whatever `COLUMNS` says. The
/// run-wide shift's note is 500 characters.
#[test]
fn notes_are_one_line_when_piped() {
    let state = TempDir::new().unwrap();
    let args = SHIFTED;
    for columns in [None, Some("80")] {
        let piped = common::run_with(state.path(), &args, columns);
        let one: Vec<&str> = piped
            .stderr
            .lines()
            .filter(|l| l.contains("the whole run moved"))
            .collect();
        assert_eq!(one.len(), 1, "{}", piped.stderr);
        assert!(one[0].width() > 400, "{}", one[0]);
    }
}

/// Notes on standard error fit one line each where it is a terminal (`COLUMNS`, else the
/// terminal's width): cut after a clause or a word, `…` after, the start of the piped note.
/// They were wrapped into paragraphs of 1–3 notes before every table.
#[cfg_attr(
    tracediff_no_script,
    ignore = "needs util-linux's `script` (a pseudo-terminal), absent when the tests were built: install util-linux (Debian: bsdutils)"
)]
#[test]
fn notes_fit_one_line_each_on_a_terminal() {
    let state = TempDir::new().unwrap();
    let args = SHIFTED;
    let piped = common::run_with(state.path(), &args, None).stderr;
    let note = piped.lines().find(|l| l.contains("the whole run moved")).unwrap();
    let bin = assert_cmd::cargo::cargo_bin("tracediff");
    // The terminal's own width, then `COLUMNS` over it.
    for (columns, width) in [("", 72), ("COLUMNS=60 ", 60)] {
        let inner = format!(
            "stty rows 24 cols 72; {columns}{} {} >/dev/null",
            bin.display(),
            args.join(" ")
        );
        let out = std::process::Command::new("script")
            .args(["-qec", &inner, "/dev/null"])
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .env_remove("COLUMNS")
            .env("TRACEDIFF_STATE_DIR", state.path())
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout).replace('\r', "");
        assert!(text.contains("the whole run moved"), "{text}");
        for line in text.lines() {
            assert!(line.width() <= width, "a line of {}:\n{line}\n\n{text}", line.width());
            assert!(line.starts_with("tracediff: "), "a wrapped line:\n{text}");
        }
        let shown = text.lines().find(|l| l.contains("the whole run moved")).unwrap();
        let start = shown.strip_suffix('…').unwrap();
        assert!(note.starts_with(start), "{shown}\n{note}");
    }
}

/// Kernel names cut for width keep what identifies a kernel: no row starts with `void ` or ends
/// in its argument list's last characters (`… int, int)`, `…gs<float>)` at 80 columns before),
/// and distinct kernels read apart, on every H100 pair at 80 and 100 columns.
#[cfg_attr(
    tracediff_no_shared,
    ignore = "needs ../shared (real traces, HTA's output), absent when the tests were built: put it beside the repository or set TRACEDIFF_SHARED"
)]
#[test]
fn cut_kernel_names_keep_their_own_name() {
    let Some(traces) = common::traces("kernel names cut at 80 and 100 columns") else {
        return;
    };
    let state = TempDir::new().unwrap();
    for pair in ["resnet", "precision", "attention", "vit_precision", "nomodules"] {
        let [c, t] = common::sides(&traces.join("gpu_h100").join(pair));
        let (c, t) = (c.as_str(), t.as_str());
        let full = common::run_with(state.path(), &["kernels", c, t, "--format", "csv"], None);
        let rows = full.stdout.lines().count() - 1;
        for columns in ["80", "100"] {
            let r = common::run_with(state.path(), &["kernels", c, t], Some(columns));
            assert_eq!(r.code, 0, "{}", r.stderr);
            let names: Vec<&str> = common::table_rows(&r.stdout)
                .take(rows)
                .map(common::name_cell)
                .collect();
            assert_eq!(names.len(), rows, "{pair} at {columns}:\n{}", r.stdout);
            for name in &names {
                assert!(!name.starts_with("void "), "{pair} at {columns}: {name}\n{}", r.stdout);
                assert!(
                    !name.ends_with("int)") && !name.ends_with(">)"),
                    "{pair} at {columns}: {name}"
                );
            }
            let distinct: std::collections::BTreeSet<&&str> = names.iter().collect();
            assert_eq!(distinct.len(), names.len(), "{pair} at {columns}:\n{}", r.stdout);
        }
    }
}

/// `kernels --by-operator`: a kernel gets what its operator leaves, so a cut row fills the name
/// column (at 120 columns `aten::mm → …` rows were cut 20 columns short of it, as if every
/// operator were the longest).
#[cfg_attr(
    tracediff_no_shared,
    ignore = "needs ../shared (real traces, HTA's output), absent when the tests were built: put it beside the repository or set TRACEDIFF_SHARED"
)]
#[test]
fn by_operator_cut_rows_fill_the_name_column() {
    let Some(traces) = common::traces("kernels --by-operator at 120 columns") else {
        return;
    };
    let [c, t] = common::sides(&traces.join("gpu_h100/vit_precision"));
    let state = TempDir::new().unwrap();
    let args = ["kernels", &c, &t, "--by-operator", "--top", "12"];
    let r = common::run_with(state.path(), &args, Some("120"));
    assert_eq!(r.code, 0, "{}", r.stderr);
    let names: Vec<&str> = common::table_rows(&r.stdout).take(12).map(common::name_cell).collect();
    let column = names.iter().map(|n| n.width()).max().unwrap_or(0);
    let cut: Vec<&&str> = names.iter().filter(|n| n.contains('…')).collect();
    assert!(cut.len() > 3, "{}", r.stdout);
    for name in cut {
        assert!(name.contains(" → "), "{name}\n{}", r.stdout);
        assert!(
            name.width() + 1 >= column,
            "{name} is cut short of {column}:\n{}",
            r.stdout
        );
    }
}

/// The events table cuts a kernel's name as the other tables do: its own name first
/// (`Kernel2<cutlass_80_tensorop…`, where it read `void cutlass::Ke…4::Params)` at 80).
#[test]
fn the_events_table_cuts_kernels_to_their_own_name() {
    let dir = TempDir::new().unwrap();
    let (c, _) = long_named("fixtures/views", dir.path());
    let state = TempDir::new().unwrap();
    let r = common::run_with(state.path(), &["events", &c, "--format", "table"], Some("80"));
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stdout.contains(" Kernel2<cutlass_80_tensorop…"), "{}", r.stdout);
    assert!(!r.stdout.contains(" void "), "{}", r.stdout);
}
