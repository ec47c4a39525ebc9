//! `--why` on `compare`, `operators` and `kernels` (docs/cost-model.md#the-why-columns): each
//! row's own Δ split into calls, work and efficiency (they sum to it), the ratios, and the
//! causes, on fixtures/explain (a pair whose changes are known: dims, dtype, calls, an op
//! replaced) and its copy recorded without shapes.

use crate::common::{self, fails, json, ok, run};

const PAIR: [&str; 2] = ["fixtures/explain/control", "fixtures/explain/test"];

fn args<'a>(command: &'a str, extra: &[&'a str]) -> Vec<&'a str> {
    [command, PAIR[0], PAIR[1]]
        .into_iter()
        .chain(extra.iter().copied())
        .collect()
}

#[test]
fn operators_split_each_rows_change_and_name_its_cause() {
    let out = ok(&args("operators", &["--why", "--time", "device-self"]));
    let expected = "\
control: fixtures/explain/control (rank 0, steps 1–3)
test: fixtures/explain/test (rank 0, steps 1–3)
device: all
time: device self
 name                                        Δ         Δ   sig       Δ by      Δ by       Δ by
                                          time    time %            calls      work     effic.
───────────────────────────────────────────────────────────────────────────────────────────────
 aten::mm                              +100 µs   +100.0%     *       0 ns   +125 µs   -25.0 µs
 aten::addmm                          -25.0 µs    -50.0%     *       0 ns      0 ns   -25.0 µs
 aten::bmm                            -20.0 µs      gone     *   -20.0 µs         -       0 ns
 aten::_efficient_attention_forward   +15.0 µs       new         +15.0 µs         -       0 ns
 aten::relu                           +10.0 µs   +100.0%         +10.0 µs      0 ns       0 ns
5 operators; mean step time: control 1.90 ms, test 1.90 ms (0 ns, 0%); rows are per step
why:
  aten::mm: dims [64, 512]×[512, 512] → [64, 768]×[768, 768]
  aten::addmm: float → c10::BFloat16; kernels: ampere_sgemm_128x64_tn (gemm) →
  sm90_xmma_gemm_bf16bf16_bf16f32 (gemm)
  aten::bmm: kernels: ampere_sgemm_32x32_nn (gemm) → none
  aten::_efficient_attention_forward: kernels: none → fmha_cutlassF_f32_aligned_64x64_rf_sm80
  (attention)
";
    assert_eq!(out, expected);
}

#[test]
fn a_wide_terminal_shows_the_ratios_too() {
    let state = tempfile::TempDir::new().unwrap();
    let r = common::run_with(
        state.path(),
        &args("operators", &["--why", "--time", "device-self", "--top", "2"]),
        Some("200"),
    );
    let header: Vec<&str> = r.stdout.lines().skip(4).take(2).collect();
    for h in ["calls", "work", "effic.", "Δ by"] {
        assert!(header[0].contains(h), "{header:?}");
    }
    let mm = r.stdout.lines().find(|l| l.starts_with(" aten::mm ")).unwrap();
    assert!(
        mm.contains("×1.00   ×2.25    ×1.12    0 ns   +125 µs   -25.0 µs"),
        "{mm}"
    );
}

#[test]
fn kernel_rows_take_the_causes_of_the_op_that_launched_them() {
    let csv = ok(&args("kernels", &["--why", "--format", "csv"]));
    let header = csv.lines().next().unwrap();
    assert!(
        header.ends_with(
            ",significant,ratio_calls,ratio_work,ratio_efficiency,ratio_time_per_call,\
             diff_calls_part_per_step_us,diff_work_part_per_step_us,diff_efficiency_part_per_step_us,\
             work_unit,control_work_per_call,test_work_per_call,causes,causes_via"
        ),
        "{header}"
    );
    let tail = |name: &str| {
        let line = csv.lines().find(|l| l.starts_with(&format!("{name},"))).unwrap();
        line.split_once(",true,")
            .or_else(|| line.split_once(",false,"))
            .unwrap()
            .1
            .to_string()
    };
    // Same launches, twice the time each: no work figure of its own, so calls and time per
    // launch; the cause is aten::mm's dims.
    assert_eq!(
        tail("ampere_sgemm_64x64_nn"),
        "1.0,,,2.0,0,,100,,,,\"dims [64, 512]×[512, 512] → [64, 768]×[768, 768]\",aten::mm"
    );
    assert_eq!(
        tail("sm90_xmma_gemm_bf16bf16_bf16f32"),
        ",,,,25,,0,,,,float → c10::BFloat16,aten::addmm"
    );
    assert_eq!(
        tail("vectorized_elementwise_kernel<relu>"),
        "2.0,,,1.0,10,,0,,,,,aten::relu"
    );
    // By operator, the row's own operator; its name already says it.
    let out = ok(&args("kernels", &["--why", "--by-operator"]));
    assert!(
        out.contains("\nwhy:\n  aten::mm → ampere_sgemm_64x64_nn: dims [64, 512]×[512, 512] → [64, 768]×[768, 768]\n"),
        "{out}"
    );
}

#[test]
fn compare_rows_are_operators_kernels_or_neither() {
    let csv = ok(&args("compare", &["--why", "--no-save", "--format", "csv"]));
    let row = |name: &str| {
        let line = csv.lines().find(|l| l.starts_with(&format!("{name},"))).unwrap();
        line.split_once(",=,")
            .or_else(|| line.split_once(",+,"))
            .or_else(|| line.split_once(",-,"))
            .unwrap()
            .1
            .to_string()
    };
    // compare times an op by its whole duration: aten::mm's host time did not move while its
    // work grew 2.25×, so the work part is cancelled by the efficiency part.
    assert_eq!(
        row("aten::mm"),
        "false,1.0,2.25,2.25,1.0,0,50,-50,FLOP,33554432,75497472,\"dims [64, 512]×[512, 512] → [64, 768]×[768, 768]\","
    );
    assert_eq!(row("aten::relu"), "true,2.0,1.0,1.0,1.0,80,0,0,B,262144,262144,,");
    assert_eq!(
        row("ampere_sgemm_128x64_tn"),
        "true,,,,,-50,,0,,,,float → c10::BFloat16,aten::addmm"
    );
    // A runtime call: calls and time per call.
    assert_eq!(row("cudaLaunchKernel"), "false,1.4,,,1.0,2,,0,,,,,");
    let out = ok(&args("compare", &["--why", "--no-save", "--top", "1"]));
    assert!(
        out.ends_with(
            "why:\n  ampere_sgemm_64x64_nn (via aten::mm): dims [64, 512]×[512, 512] → [64, 768]×[768, 768]\n"
        ),
        "{out}"
    );
}

#[test]
fn without_shapes_the_work_columns_are_empty_and_a_note_says_why() {
    let r = run(&[
        "operators",
        "fixtures/explain/noshapes/control",
        "fixtures/explain/noshapes/test",
        "--why",
        "--time",
        "device-self",
        "--format",
        "csv",
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stderr.contains(
            "note: --why: control and test recorded no input shapes, so the work columns are empty: \
             record_shapes=True gives them"
        ),
        "{}",
        r.stderr
    );
    let mm = r.stdout.lines().find(|l| l.starts_with("aten::mm,")).unwrap();
    assert!(mm.ends_with(",true,1.0,,,2.0,0,,100,,,,,"), "{mm}");
}

#[test]
fn what_why_cannot_explain_is_refused() {
    let one_run = fails(&["operators", PAIR[0], "--why"]);
    assert!(
        one_run.starts_with("--why explains what changed between two runs"),
        "{one_run}"
    );
    let runs = fails(&[
        "compare",
        "fixtures/replicates/aa/control",
        "fixtures/replicates/aa/test",
        "--why",
        "--no-save",
    ]);
    assert!(runs.starts_with("compare --why explains one run per side"), "{runs}");
    let grouped = fails(&args("compare", &["--why", "--group-by", "Input Dims", "--no-save"]));
    assert_eq!(grouped, "--why keys rows by name: it does not take --group-by");
    let r = run(&args("kernels", &["--why", "--by-class"]));
    assert_eq!(r.code, 2, "{}", r.stderr);
}

#[test]
fn without_why_the_output_is_unchanged() {
    for command in ["compare", "operators", "kernels"] {
        let plain = ok(&args(
            command,
            &["--no-save", "--format", "csv"][usize::from(command != "compare")..],
        ));
        assert!(!plain.contains("ratio_calls"), "{command}: {plain}");
        assert!(!plain.contains("causes"), "{command}: {plain}");
    }
}

/// `compare --why` reads the pair once, with the shapes, and summarises what it read: its table
/// is `compare`'s, column for column (the why columns only follow).
#[test]
fn compare_why_keeps_the_table_compare_gives() {
    let table = |out: &str| -> Vec<Vec<String>> {
        csv::Reader::from_reader(out.as_bytes())
            .records()
            .map(|r| r.unwrap().iter().map(str::to_string).collect())
            .collect()
    };
    for pair in [PAIR, ["fixtures/basic/control", "fixtures/basic/test"]] {
        let base = ["compare", pair[0], pair[1], "--no-save", "--format", "csv"];
        let plain = ok(&base);
        let why = ok(&[&base[..], &["--why"]].concat());
        let plain_header = plain.lines().next().unwrap();
        assert!(why.starts_with(plain_header), "{pair:?}:\n{why}");
        let columns = plain_header.split(',').count();
        let cut: Vec<Vec<String>> = table(&why).into_iter().map(|r| r[..columns].to_vec()).collect();
        assert_eq!(cut, table(&plain), "{pair:?}");
    }
}

/// `operators --why` and `kernels --why` on sides of runs (each run a copy of the pair's side):
/// the figures gathered from every run give the pair's `--why` columns row for row (the
/// significance aside, judged between runs); they used to be refused.
#[test]
fn why_on_runs_gives_the_pairs_columns() {
    let dir = tempfile::TempDir::new().unwrap();
    for (k, side) in ["control", "test"].iter().enumerate() {
        for run in ["run1", "run2", "run3"] {
            let to = dir.path().join(side).join(run);
            std::fs::create_dir_all(&to).unwrap();
            std::fs::copy(format!("{}/trace.json", PAIR[k]), to.join("trace.json")).unwrap();
        }
    }
    let [c, t] = ["control", "test"].map(|s| dir.path().join(s).to_str().unwrap().to_string());
    for command in ["operators", "kernels"] {
        let why = |v: serde_json::Value| -> Vec<serde_json::Value> {
            let mut rows: Vec<serde_json::Value> = v["rows"]
                .as_array()
                .unwrap()
                .iter()
                .map(|r| {
                    let mut r = r.clone();
                    r.as_object_mut().unwrap().retain(|k, _| {
                        k.starts_with("ratio_")
                            || k.ends_with("_part_per_step_us")
                            || k.ends_with("work_per_call")
                            || k.starts_with("causes")
                            || k == "work_unit"
                            || k == "name"
                    });
                    r
                })
                .collect();
            rows.sort_by_key(|r| r.to_string());
            rows
        };
        let runs = why(json(&[command, &c, &t, "--why"]));
        let pair = why(json(&[command, PAIR[0], PAIR[1], "--why"]));
        assert!(
            runs.iter().any(|r| r.get("causes").is_some_and(|c| c != "")),
            "{command}: {runs:?}"
        );
        assert_eq!(runs, pair, "{command}");
    }
}
