//! `tracediff explain` (docs/cost-model.md): each changed operator's Δ split into calls, work
//! and efficiency that sum to it exactly, and the causes named, on fixtures/explain (a pair
//! whose changes are known: dims, dtype, calls, an op replaced) and on real pairs.

use crate::common;

use common::{json, ok, run};

const PAIR: [&str; 3] = ["explain", "fixtures/explain/control", "fixtures/explain/test"];

fn args<'a>(extra: &[&'a str]) -> Vec<&'a str> {
    PAIR.iter().copied().chain(extra.iter().copied()).collect()
}

#[test]
fn each_row_names_its_part_and_cause() {
    let out = ok(&args(&[]));
    let expected = "\
control vs test, by device self time per step
aten::mm  +100 µs/step (+100.0%) *  work ×2.25 (dims [64, 512]×[512, 512] → [64, 768]×[768, 768]),
  efficiency ×1.12, calls same
    calls 0 ns, work +125 µs, efficiency -25.0 µs
    [64, 512]×[512, 512] → [64, 768]×[768, 768]
    336 GFLOP/s → 377 GFLOP/s (0.5% → 0.6% of H100 SXM fp32 peak)
aten::addmm  -25.0 µs/step (-50.0%) *  efficiency ×2.00 (float → c10::BFloat16), calls same, work
  same
    calls 0 ns, work 0 ns, efficiency -25.0 µs
    float → c10::BFloat16
    kernels: ampere_sgemm_128x64_tn (gemm) → sm90_xmma_gemm_bf16bf16_bf16f32 (gemm)
    671 GFLOP/s → 1.34 TFLOP/s (1.0% → 0.1% of H100 SXM fp32 peak / H100 SXM bf16 peak)
aten::bmm  -20.0 µs/step (gone) *  calls gone (kernels: ampere_sgemm_32x32_nn (gemm) → none)
    calls -20.0 µs, efficiency 0 ns
    kernels: ampere_sgemm_32x32_nn (gemm) → none
aten::_efficient_attention_forward  +15.0 µs/step (new) (within noise)  calls new (kernels: none →
  fmha_cutlassF_f32_aligned_64x64_rf_sm80 (attention))
    calls +15.0 µs, efficiency 0 ns
    kernels: none → fmha_cutlassF_f32_aligned_64x64_rf_sm80 (attention)
aten::relu  +10.0 µs/step (+100.0%) (within noise)  calls ×2.00, work same, efficiency same
    calls +10.0 µs, work 0 ns, efficiency 0 ns
    52 GB/s → 52 GB/s (1.6% → 1.6% of H100 SXM memory bandwidth)

The step is 0 ns (+0.0%). The self time of the 5 changed operators changed by +80.0 µs: work +125 µs
  (mostly aten::mm), efficiency -50.0 µs (mostly aten::addmm), calls +5.00 µs (mostly aten::bmm,
  aten::_efficient_attention_forward, aten::relu). Gone: aten::bmm (-20.0 µs); new:
  aten::_efficient_attention_forward (+15.0 µs). Rows marked * changed beyond run-to-run noise.
";
    assert_eq!(out, expected);
}

/// A pair without steps is explained by the time of the whole trace, and says so: its header
/// read "by device self time per step" and its rows "µs/step", one step that is not there.
#[test]
fn a_pair_without_steps_is_explained_by_the_whole_trace() {
    let out = ok(&["explain", "fixtures/nosteps/control", "fixtures/nosteps/test"]);
    let expected = "\
control vs test, by device self time of the whole trace (no ProfilerStep)
aten::_softmax  +10.0 µs (new)  calls new (kernels: none → at::native::vectorized_elementwise_kernel
  (elementwise))
    calls +10.0 µs, efficiency 0 ns
    kernels: none → at::native::vectorized_elementwise_kernel (elementwise)
    no work figure: shapes not recorded (record_shapes=True gives the work part)
aten::softmax  -10.0 µs (gone)  calls gone (kernels: at::native::vectorized_elementwise_kernel
  (elementwise) → none)
    calls -10.0 µs, efficiency 0 ns
    kernels: at::native::vectorized_elementwise_kernel (elementwise) → none
    no work figure: shapes not recorded (record_shapes=True gives the work part)

The step time is not known (no step on a side). The self time of the 2 changed operators changed by
  0 ns: calls 0 ns (mostly aten::_softmax, aten::softmax), work 0 ns, efficiency 0 ns. Gone:
  aten::softmax (-10.0 µs); new: aten::_softmax (+10.0 µs). Significance was not judged (it needs at
  least 3 steps per side). control recorded no shapes: record_shapes=True gives the work part. test
  recorded no shapes: record_shapes=True gives the work part.
";
    assert_eq!(out, expected);
    let md = ok(&[
        "explain",
        "fixtures/nosteps/control",
        "fixtures/nosteps/test",
        "--format",
        "markdown",
    ]);
    assert!(
        md.starts_with("- control vs test, by device self time of the whole trace (no ProfilerStep)\n"),
        "{md}"
    );
    // One side's steps named against a side without: the header names the side whose times
    // are of its whole trace.
    let out = ok(&[
        "explain",
        "fixtures/explain/control",
        "fixtures/nosteps/test",
        "--control-iteration",
        "1-3",
    ]);
    assert!(
        out.starts_with("control vs test, by device self time per step (test: no ProfilerStep, the whole trace)\n"),
        "{out}"
    );
}

#[test]
fn the_parts_sum_to_the_change_in_every_row() {
    let v = json(&args(&[]));
    let rows = v["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 5);
    for r in rows {
        let part = |k: &str| r[k].as_f64().unwrap_or(0.0);
        // µs with three decimals: whole ns.
        let sum = part("calls_part") + part("work_part") + part("efficiency_part");
        assert!((sum - part("delta")).abs() < 1e-9, "{r}");
    }
    let mm = &rows[0];
    assert_eq!(mm["name"], "aten::mm");
    assert_eq!(
        (&mm["control_work"], &mm["test_work"], &mm["unit"]),
        (&json!(33_554_432.0), &json!(75_497_472.0), &json!("FLOP")),
        "2·64·512·512 and 2·64·768·768 FLOPs"
    );
    assert_eq!(
        (mm["work_part"].as_f64(), mm["efficiency_part"].as_f64()),
        (Some(125.0), Some(-25.0))
    );
    assert_eq!(v["measure"], "device_self");
    assert_eq!(v["changed_rows"], 5);
}

#[test]
fn csv_and_markdown_carry_the_parts() {
    let csv = ok(&args(&["--format", "csv", "--top", "3"]));
    assert_eq!(
        csv,
        "name,diff_time,control_time_per_step_us,test_time_per_step_us,calls_part,work_part,efficiency_part,control_calls_per_step,test_calls_per_step,\
calls_ratio,work_ratio,efficiency_ratio,time_per_call_ratio,work_unit,control_work_per_call,test_work_per_call,significant,causes
aten::mm,100,100,200,0,125,-25,1,1,1.0,2.25,1.125,2.0,FLOP,33554432.0,75497472.0,true,\"[64, 512]×[512, 512] → [64, 768]×[768, 768]; \
336 GFLOP/s → 377 GFLOP/s (0.5% → 0.6% of H100 SXM fp32 peak)\"
aten::addmm,-25,50,25,0,0,-25,1,1,1.0,1.0,2.0,0.5,FLOP,33554432.0,33554432.0,true,float → c10::BFloat16; kernels: ampere_sgemm_128x64_tn \
(gemm) → sm90_xmma_gemm_bf16bf16_bf16f32 (gemm); 671 GFLOP/s → 1.34 TFLOP/s (1.0% → 0.1% of H100 SXM fp32 peak / H100 SXM bf16 peak)
aten::bmm,-20,20,0,-20,,0,1,0,,,,,,,,true,kernels: ampere_sgemm_32x32_nn (gemm) → none
"
    );
    let md = ok(&args(&["--format", "markdown", "--top", "1"]));
    let lines: Vec<&str> = md.lines().collect();
    assert_eq!(lines[0], "- control vs test, by device self time per step");
    assert_eq!(
        lines[2],
        "| name | Δ / step | calls | work | efficiency | calls × | work × | efficiency × | sig | causes |"
    );
    assert!(
        lines[4].starts_with("| `aten::mm` | +100 µs | 0 ns | +125 µs | -25.0 µs | ×1.00 | ×2.25 | ×1.12 | \\* |"),
        "{md}"
    );
}

#[test]
fn without_shapes_it_explains_by_calls_and_time_per_call() {
    let out = ok(&[
        "explain",
        "fixtures/explain/noshapes/control",
        "fixtures/explain/noshapes/test",
        "--top",
        "1",
    ]);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(
        lines[1],
        "aten::mm  +100 µs/step (+100.0%) *  time per call ×2.00, calls same"
    );
    assert_eq!(lines[2], "    calls 0 ns, efficiency +100 µs");
    assert_eq!(
        lines[3],
        "    no work figure: shapes not recorded (record_shapes=True gives the work part)"
    );
    assert!(
        out.contains("control recorded no shapes: record_shapes=True gives the work part."),
        "{out}"
    );
}

/// Shapes that are strings, negative, nested where a matrix is due, or overflow a u64: no
/// panic, no wrapped number, a note on what was skipped.
#[test]
fn bad_shapes_are_skipped_with_a_note() {
    let dir = tempfile::TempDir::new().unwrap();
    let side = |name: &str, dims: serde_json::Value| {
        let events = json!([
            {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": 1, "tid": 1, "ts": 0, "dur": 100},
            {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 1, "dur": 10,
             "args": {"Input Dims": dims, "Input type": ["float", "float"]}},
            {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 20, "dur": 10,
             "args": {"Input Dims": [[2, 3], [3, 4]], "Input type": ["float", "float"]}},
        ]);
        let path = dir.path().join(format!("{name}.json"));
        std::fs::write(&path, json!({"traceEvents": events}).to_string()).unwrap();
        path.to_str().unwrap().to_string()
    };
    let big = u64::MAX / 4;
    for (dims, why) in [
        (json!("[[2, 3], [3, 4]]"), "Input Dims is not a list"),
        (json!([[-2, 3], [3, 4]]), "negative dimension"),
        (json!([[[2, 3]], [3, 4]]), "is not a tensor"),
        (json!([[big, big], [big, big]]), "the work overflows a u64"),
        (json!([["a", 3], [3, 4]]), "not a number"),
    ] {
        let c = side("c", json!([[2, 3], [3, 4]]));
        let t = side("t", dims);
        let r = run(&["explain", &c, &t, "--format", "json"]);
        assert_eq!(r.code, 0, "{}", r.stderr);
        assert!(!r.stderr.contains("panicked"), "{}", r.stderr);
        assert!(
            r.stderr
                .contains("tracediff: note: test: 1 call of aten::mm has no work figure: ")
                && r.stderr.contains(why),
            "{why}: {}",
            r.stderr
        );
        let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
        // No work figure on the test side: the row splits into calls and time per call.
        let row = &v["rows"][0];
        assert!(row["work_part"].is_null() && row["unit"].is_null(), "{row}");
    }
}

use serde_json::json;

fn pair(t: &std::path::Path, scenario: &str) -> [String; 2] {
    ["control", "test"].map(|s| t.join(scenario).join(s).to_str().unwrap().to_string())
}

/// The first line names the changed op and the right cause: work for dims, efficiency with the
/// dtype for precision, calls for depth, new and gone ops with their kernels for attention.
#[cfg_attr(
    tracediff_no_shared,
    ignore = "needs ../shared (real traces, HTA's output), absent when the tests were built: put it beside the repository or set TRACEDIFF_SHARED"
)]
#[test]
fn real_pairs_name_the_change_made() {
    let Some(t) = common::traces("explain on real pairs") else {
        return;
    };
    let first = |scenario: &str| {
        let [c, tt] = pair(&t, scenario);
        let out = ok(&["explain", &c, &tt, "--top", "3"]);
        out.lines().nth(1).unwrap().to_string()
    };
    let dims = first("torch_cpu/linear_dims");
    assert!(
        dims.starts_with("aten::mm ") && dims.contains("work ×") && dims.contains("dims "),
        "{dims}"
    );
    let bf16 = first("gpu_h100/vit_precision");
    assert!(
        bf16.starts_with("aten::mm ") && bf16.contains("efficiency ×") && bf16.contains("float → c10::BFloat16"),
        "{bf16}"
    );
    let depth = first("gpu_h100/resnet");
    assert!(
        depth.starts_with("aten::convolution_backward ") && depth.contains("calls ×2.92"),
        "{depth}"
    );
    let [c, tt] = pair(&t, "gpu_h100/attention");
    let out = ok(&["explain", &c, &tt, "--top", "3"]);
    assert!(
        out.lines().nth(1).unwrap().starts_with("aten::bmm  ") && out.contains("calls gone"),
        "{out}"
    );
    assert!(
        out.contains("aten::_efficient_attention_forward") && out.contains("(attention)"),
        "{out}"
    );
    assert!(out.contains("Gone: aten::bmm"), "{out}");
}

#[test]
fn per_step_fields_are_named_as_every_command_names_them() {
    // `control_calls` is a sum in the views; explain's are per step, so they say so.
    let v: serde_json::Value = serde_json::from_str(&ok(&args(&["--format", "json", "--top", "1"]))).unwrap();
    let row = &v["rows"][0];
    for key in [
        "control_calls_per_step",
        "test_calls_per_step",
        "control_time_per_step_us",
        "test_time_per_step_us",
    ] {
        assert!(row.get(key).is_some(), "{key}: {row}");
    }
    for key in ["control_calls", "test_calls", "control_time", "test_time"] {
        assert!(row.get(key).is_none(), "{key}: {row}");
    }
    assert!(
        v.get("mean_step_time_us").is_some() && v.get("mean_step_time").is_none(),
        "{v}"
    );
}

/// Sides of runs (`control/run1/ … run3/`, each a copy of the pair's side): the rows are the
/// operator table joined over the runs, so each side's mean per step is the one run's, and the
/// shapes, element types and kernels gathered from every run give the pair's causes, parts and
/// ratios row for row; explain on runs used to be refused.
#[test]
fn runs_per_side_give_the_pairs_causes() {
    let dir = tempfile::TempDir::new().unwrap();
    for side in ["control", "test"] {
        for run in ["run1", "run2", "run3"] {
            let to = dir.path().join(side).join(run);
            std::fs::create_dir_all(&to).unwrap();
            std::fs::copy(format!("fixtures/explain/{side}/trace.json"), to.join("trace.json")).unwrap();
        }
    }
    let [c, t] = ["control", "test"].map(|s| dir.path().join(s).to_str().unwrap().to_string());
    let runs = json(&["explain", &c, &t]);
    let pair = json(&args(&[]));
    let kept = |v: &serde_json::Value| -> Vec<serde_json::Value> {
        v["rows"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| {
                let mut r = r.clone();
                r.as_object_mut()
                    .unwrap()
                    .retain(|k, _| !matches!(k.as_str(), "significant" | "line"));
                r
            })
            .collect()
    };
    assert_eq!(kept(&runs), kept(&pair));
    assert_eq!(runs["shapes_recorded"], pair["shapes_recorded"]);
    assert_eq!(runs["devices"], pair["devices"]);
}

/// On the replicate runs of `fixtures/replicates`: the ops the fused op replaced and the fused op
/// itself change beyond the spread between runs, the rest stay within it; runs of one program
/// mark no row.
#[test]
fn runs_per_side_are_judged_between_runs() {
    let marks = |set: &str| -> Vec<(String, bool)> {
        let [c, t] = ["control", "test"].map(|s| format!("fixtures/replicates/{set}/{s}"));
        let v = json(&["explain", &c, &t]);
        v["rows"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| (r["name"].as_str().unwrap().to_string(), r["significant"] == true))
            .collect()
    };
    let fused = marks("fused");
    let marked: Vec<&str> = fused.iter().filter(|(_, s)| *s).map(|(n, _)| n.as_str()).collect();
    assert_eq!(marked, ["aten::mul", "aten::add", "aten::fused"], "{fused:?}");
    let aa = marks("aa");
    assert!(!aa.is_empty() && aa.iter().all(|(_, s)| !s), "{aa:?}");
}
