//! The views of a diff run (docs/semantics.md#the-views: operators, kernels, overview) and the host/device rules
//! they rest on (docs/semantics.md#iterations, docs/semantics.md#host-and-device-events), on the repository's own fixtures. Output is checked exactly.

use crate::common;

use common::{ok, run};

const HEADER: &str = "name,control_counts,control_total_duration,test_counts,test_total_duration,diff_counts,diff_duration,counts_change_categories\n";

fn compare_self(file: &str, extra: &[&str]) -> String {
    let mut args = vec!["compare", file, file, "--format", "csv", "--hta"];
    args.extend_from_slice(extra);
    ok(&args)
}

/// Inductor's Triton launch `cpu_op` carries `args.stream`; it is host work (docs/semantics.md#host-and-device-events), so the
/// Triton kernel counts once on the GPU, and the launch op stays on the CPU.
#[test]
fn a_triton_launch_cpu_op_with_a_stream_is_host_work() {
    let f = "fixtures/place/triton_nosteps.json";
    assert_eq!(
        compare_self(f, &["--device", "gpu"]),
        format!("{HEADER}triton_poi_fused_add_0,1,3,1,3,0,0,=\n")
    );
    assert_eq!(
        compare_self(f, &["--device", "cpu"]),
        format!("{HEADER}cuLaunchKernel,1,4,1,4,0,0,=\ntriton_poi_fused_add_0,1,8,1,8,0,0,=\n")
    );
}

/// MTIA DMA requests carry no correlation: they are placed by their own time (docs/semantics.md#iterations), the
/// one after the last step in none; a device event with a correlation takes its launch's step. The Triton launch op inside a step is counted on the CPU.
#[test]
fn device_events_without_a_correlation_are_placed_by_their_time() {
    let f = "fixtures/place/mtia_steps.json";
    assert_eq!(
        compare_self(f, &["--iteration", "all", "--device", "gpu"]),
        format!("{HEADER}dma_request,2,10,2,10,0,0,=\nkernel_a,1,5,1,5,0,0,=\n")
    );
    assert_eq!(
        compare_self(f, &["--iteration", "2", "--device", "gpu"]),
        format!("{HEADER}dma_request,1,6,1,6,0,0,=\n"),
        "kernel_a runs in step 2's window but was launched in step 1"
    );
    assert!(
        compare_self(f, &["--device", "cpu"]).contains("\ntriton_poi_fused_add_0,1,8,1,8,0,0,=\n"),
        "the Triton launch op is host work of step 1"
    );
}

const VIEWS: [&str; 2] = ["fixtures/views/control", "fixtures/views/test"];
const CPU: [&str; 2] = ["fixtures/views/cpu/control", "fixtures/views/cpu/test"];

fn view(command: &str, pair: [&str; 2], extra: &[&str]) -> String {
    let mut args = vec![command, pair[0], pair[1]];
    args.extend_from_slice(extra);
    ok(&args)
}

/// The fixture's tree (control): linear ⊃ addmm ⊃ {cudaLaunchKernel → gemm_kernel 150,
/// cudaMemcpyAsync → memcpy 40}; relu, then py_frame overlapping it (partial) ⊃ add; a
/// recursive aten::to ⊃ aten::to ⊃ _to_copy ⊃ cuLaunchKernel (cuda_driver) → triton_copy 8.
#[test]
fn operators_csv_has_every_column_with_known_values() {
    let out = view("operators", VIEWS, &["--format", "csv", "--sort", "name"]);
    assert_eq!(
        out,
        "name,control_calls,test_calls,diff_calls,control_host_self_us,test_host_self_us,diff_host_self_us,control_host_total_us,test_host_total_us,diff_host_total_us,control_device_self_us,test_device_self_us,diff_device_self_us,control_device_total_us,test_device_total_us,diff_device_total_us,significant\n\
         aten::_to_copy,1,1,0,25,25,0,30,30,0,8,10,2,8,10,2,\n\
         aten::add,1,0,-1,20,0,-20,20,0,-20,0,0,0,0,0,0,\n\
         aten::addmm,1,1,0,170,190,20,200,200,0,190,250,60,190,250,60,\n\
         aten::gelu,0,1,1,0,45,45,0,50,50,0,30,30,0,30,30,\n\
         aten::linear,1,1,0,100,100,0,300,300,0,0,0,0,190,250,60,\n\
         aten::relu,1,0,-1,100,0,-100,100,0,-100,0,0,0,0,0,0,\n\
         aten::to,2,2,0,70,70,0,150,150,0,0,0,0,16,20,4,\n"
    );
}

#[test]
fn operators_table_shows_device_total_by_default_and_notes_the_overlap() {
    let r = run(&["operators", VIEWS[0], VIEWS[1]]);
    assert_eq!(r.code, 0);
    assert!(r.stderr.contains(
        "note: control: 1 host event starts inside an enclosing event and ends after it; each is nested under the innermost event that contains it (docs/semantics.md#the-call-tree)"
    ));
    insta::assert_snapshot!(r.stdout);
}

#[test]
fn operators_time_groups_sort_top_labels_and_filters() {
    insta::assert_snapshot!(view(
        "operators",
        VIEWS,
        &[
            "--time",
            "host-self",
            "--sort",
            "diff-host-self",
            "--top",
            "3",
            "--labels",
            "fp32,bf16"
        ]
    ));
    insta::assert_snapshot!(view(
        "operators",
        VIEWS,
        &["--format", "markdown", "--include", "^aten::(to|add)"]
    ));
}

#[test]
fn operators_json_carries_every_measure_and_percentages() {
    let out = view(
        "operators",
        VIEWS,
        &["--format", "json", "--include", "gelu|relu|addmm"],
    );
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let rows = v["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 3);
    let addmm = rows.iter().find(|r| r["name"] == "aten::addmm").unwrap();
    assert_eq!(addmm["control_device_self_us"], 190);
    assert_eq!(addmm["diff_pct_device_self"], "+31.6%");
    let gelu = rows.iter().find(|r| r["name"] == "aten::gelu").unwrap();
    assert_eq!(gelu["diff_pct_calls"], "new");
    let relu = rows.iter().find(|r| r["name"] == "aten::relu").unwrap();
    assert_eq!(relu["diff_pct_host_total"], "gone");
}

#[test]
fn a_trace_without_gpu_shows_host_total() {
    insta::assert_snapshot!(view("operators", CPU, &[]));
    let kernels = view("kernels", CPU, &["--format", "csv"]);
    assert_eq!(
        kernels,
        "name,class,control_calls,test_calls,diff_calls,control_device_total_us,test_device_total_us,diff_device_total_us,control_device_mean_us,test_device_mean_us,significant\n"
    );
}

#[test]
fn kernels_with_memcpy_and_a_cuda_driver_launch() {
    insta::assert_snapshot!(view("kernels", VIEWS, &[]));
    assert_eq!(
        view(
            "kernels",
            VIEWS,
            &["--by-operator", "--format", "csv", "--sort", "name"]
        ),
        "operator,name,class,control_calls,test_calls,diff_calls,control_device_total_us,test_device_total_us,diff_device_total_us,control_device_mean_us,test_device_mean_us,significant\n\
         aten::addmm,Memcpy HtoD (Pageable -> Device),copy,1,0,-1,40,0,-40,40,,\n\
         aten::gelu,gelu_kernel,elementwise,0,1,1,0,30,30,,30,\n\
         aten::addmm,gemm_kernel,gemm,1,1,0,150,250,100,150,250,\n\
         aten::_to_copy,triton_copy,copy,1,1,0,8,10,2,8,10,\n"
    );
    // --include matches the launching operator or the kernel.
    let by_op = view(
        "kernels",
        VIEWS,
        &["--by-operator", "--format", "csv", "--include", "^aten::addmm$"],
    );
    assert_eq!(by_op.lines().count(), 3, "{by_op}");
}

#[test]
fn overview_table_and_json() {
    insta::assert_snapshot!(view("overview", VIEWS, &[]));
    // Memory (control): 0 B until 5 µs, 1000 until 200, 3000 until 600, then 2000, in [0, 1000).
    let v: serde_json::Value = serde_json::from_str(&view("overview", VIEWS, &["--format", "json"])).unwrap();
    assert_eq!(v["control"]["peak_allocated_bytes"], 3000);
    assert_eq!(v["control"]["avg_allocated_bytes"], 2195);
    assert_eq!(v["test"]["avg_allocated_bytes"], 2995);
    assert_eq!(v["control"]["memory_device"], "cuda:0");
    assert_eq!(v["control"]["device_name"], "Fake GPU 80GB");
    assert_eq!(v["control"]["device_memory_bytes"], 85_899_345_920u64);
    assert_eq!(v["diff"]["peak_allocated_bytes"], 2000);
    let v: serde_json::Value = serde_json::from_str(&view("overview", CPU, &["--format", "json"])).unwrap();
    assert_eq!(v["control"]["steps"], 1);
    assert_eq!(v["control"]["mean_step_time_us"], 500);
    assert!(v["control"]["gpu_busy_per_step_us"].is_null());
    assert!(v["control"]["gpu_utilization"].is_null());
    assert!(v["control"]["device_name"].is_null());
}

#[test]
fn view_options_are_checked() {
    let r = run(&["operators", VIEWS[0], VIEWS[1], "--sort", "diff-nothing"]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("unknown sort key 'diff-nothing'"), "{}", r.stderr);
    let r = run(&["kernels", VIEWS[0], VIEWS[1], "--group-by", "stream"]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("kernels keys rows by name"), "{}", r.stderr);
    let r = run(&["overview", VIEWS[0], VIEWS[1], "--iteration", "9"]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("no iteration 9"), "{}", r.stderr);
}

#[test]
fn a_device_the_trace_does_not_describe_takes_the_one_it_does_with_a_note() {
    let dir = tempfile::TempDir::new().unwrap();
    let path = dir.path().join("t.json");
    std::fs::write(
        &path,
        r#"{"deviceProperties": [{"id": 0, "name": "AMD Instinct MI300X VF", "totalGlobalMem": 1024}],
            "traceEvents": [
              {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": 1, "tid": 1, "ts": 0, "dur": 20},
              {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 1, "dur": 10},
              {"ph": "X", "cat": "kernel", "name": "k", "pid": 2, "tid": 7, "ts": 2, "dur": 5, "args": {"device": 2, "stream": 7}}
            ]}"#,
    )
    .unwrap();
    let p = path.to_str().unwrap();
    let r = run(&["overview", p, p, "--format", "csv"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stdout
            .contains("device_name,AMD Instinct MI300X VF,AMD Instinct MI300X VF,"),
        "{}",
        r.stdout
    );
    assert_eq!(
        r.stderr,
        "tracediff: note: control: the device events name device 2, which deviceProperties does not describe; naming it after the one device described (0: AMD Instinct MI300X VF)\n\
         tracediff: note: test: the device events name device 2, which deviceProperties does not describe; naming it after the one device described (0: AMD Instinct MI300X VF)\n"
    );
}

/// `fixtures/breakdown`, worked by hand (µs). Control step 1 [0,100): gemm [10,40), an NCCL
/// all-reduce [30,60) (10 under gemm, 20 exposed), a copy [15,25) under gemm (hidden), a copy
/// [70,80) (exposed), relu [95,110) crossing into step 2 (5 here), an annotation over
/// everything (never counted): compute 35, comm 30 (10 overlapped, 20 exposed), memory 10,
/// idle 35. Step 2 [100,200): relu's 10, an all-gather [150,170) alone, a memset [160,180)
/// (10 under the all-gather, 10 exposed): compute 10, comm 20 exposed, memory 10, idle 60.
/// Test step 1 [0,120): gemm [0,80), all-reduce [60,100) (20 overlapped), copy [100,105).
#[test]
fn breakdown_of_a_fixture_worked_by_hand() {
    const PAIR: [&str; 2] = ["fixtures/breakdown/control", "fixtures/breakdown/test"];
    let v: serde_json::Value =
        serde_json::from_str(&view("overview", PAIR, &["--format", "json", "--per-step"])).unwrap();
    let parts = |b: &serde_json::Value| -> Vec<f64> {
        [
            "step_time_per_step_us",
            "compute_per_step_us",
            "comm_total_per_step_us",
            "comm_overlapped_per_step_us",
            "comm_exposed_per_step_us",
            "memory_exposed_per_step_us",
            "idle_per_step_us",
            "overlap_ratio",
        ]
        .iter()
        .map(|k| b[k].as_f64().unwrap_or(f64::NAN))
        .collect()
    };
    assert_eq!(
        parts(&v["control"]["breakdown"]),
        [100.0, 22.5, 25.0, 5.0, 20.0, 10.0, 47.5, 0.2]
    );
    assert_eq!(
        parts(&v["test"]["breakdown"]),
        [120.0, 80.0, 40.0, 20.0, 20.0, 5.0, 15.0, 0.5]
    );
    // Compute by kernel class: control's gemm 30 + relu 5 in step 1, relu 10 in step 2.
    let classes = &v["control"]["breakdown"]["compute_by_class"];
    assert_eq!(
        (
            classes["gemm_per_step_us"].as_f64(),
            classes["elementwise_per_step_us"].as_f64()
        ),
        (Some(15.0), Some(7.5))
    );
    let summed: f64 = classes.as_object().unwrap().values().map(|x| x.as_f64().unwrap()).sum();
    assert_eq!(summed, 22.5, "the classes add up to compute: {classes}");
    let d = parts(&v["diff"]["breakdown"]);
    assert_eq!(d[..7], [20.0, 57.5, 15.0, 15.0, 0.0, -5.0, -32.5]);
    assert_eq!(d[0], d[1] + d[4] + d[5] + d[6], "Δ step = Σ Δ parts");
    let steps = v["control"]["per_step"].as_array().unwrap();
    assert_eq!(steps.len(), 2);
    assert_eq!(parts(&steps[0])[..7], [100.0, 35.0, 30.0, 10.0, 20.0, 10.0, 35.0]);
    assert_eq!(parts(&steps[1])[..7], [100.0, 10.0, 20.0, 0.0, 20.0, 10.0, 60.0]);
    assert_eq!(steps[1]["step"], 2);
    assert_eq!(v["control"]["steps_used"], serde_json::json!([1, 2]));
    assert_eq!(v["test"]["steps"], 1);
    // The table, narrowed to step 2 of control.
    insta::assert_snapshot!(view("overview", PAIR, &["--per-step"]));
    let two: serde_json::Value = serde_json::from_str(&view(
        "overview",
        PAIR,
        &["--format", "json", "--control-iteration", "2"],
    ))
    .unwrap();
    assert_eq!(two["control"]["steps_used"], serde_json::json!([2]));
    assert_eq!(parts(&two["control"]["breakdown"])[1], 10.0);
}

/// `fixtures/idle`, worked by hand (µs), step 1 [0,100) on both sides.
/// Control (its step an `Operator`, as older traces write it): the data loader [0,10);
/// `aten::mm` [10,20) around a launch [12,16); the gemm [20,50); `aten::item` [48,62) around a
/// stream synchronize [50,60); nothing [62,66); `gloo:all_reduce` on another thread [66,90),
/// under which `aten::add` [80,95) starts; nothing [95,100). Idle 70 = host communication 24 +
/// synchronize 10 + launch 4 + dataloader 10 + host compute 13 (2 + 4 + 2 + 5) + untraced 9;
/// host communication 24; host ops busy 39 (never the step).
/// Test: `nccl:all_reduce` [0,20) launches its kernel [5,10) (so it is host compute, not host
/// communication); the NCCL kernel [20,40); `gloo:all_reduce` [40,60) on another thread over a
/// device synchronize [50,70); `aten::relu` [72,80). Idle 80 = 20 + 10 + 5 + 0 + 23 + 22.
#[test]
fn idle_time_splits_by_what_the_host_was_doing() {
    const PAIR: [&str; 2] = ["fixtures/idle/control", "fixtures/idle/test"];
    let v: serde_json::Value =
        serde_json::from_str(&view("overview", PAIR, &["--format", "json", "--per-step"])).unwrap();
    let causes = |b: &serde_json::Value| -> Vec<f64> {
        [
            "host_communication_per_step_us",
            "synchronize_per_step_us",
            "launch_per_step_us",
            "dataloader_per_step_us",
            "host_compute_per_step_us",
            "untraced_per_step_us",
        ]
        .iter()
        .map(|k| b["idle"][k].as_f64().unwrap_or(f64::NAN))
        .collect()
    };
    assert_eq!(causes(&v["control"]["breakdown"]), [24.0, 10.0, 4.0, 10.0, 13.0, 9.0]);
    assert_eq!(causes(&v["test"]["breakdown"]), [20.0, 10.0, 5.0, 0.0, 23.0, 22.0]);
    assert_eq!(causes(&v["diff"]["breakdown"]), [-4.0, 0.0, 1.0, -10.0, 10.0, 13.0]);
    assert_eq!(causes(&v["control"]["per_step"][0]), [24.0, 10.0, 4.0, 10.0, 13.0, 9.0]);
    for (side, idle) in [("control", 70.0), ("test", 80.0)] {
        let b = &v[side]["breakdown"];
        assert_eq!(b["idle_per_step_us"], idle, "{side}");
        assert_eq!(
            causes(b).iter().sum::<f64>(),
            idle,
            "the causes sum to the idle time: {side}"
        );
    }
    assert_eq!(v["control"]["host_comm_per_step_us"], 24.0);
    assert_eq!(v["test"]["host_comm_per_step_us"], 20.0);
    assert_eq!(v["control"]["host_busy_per_step_us"], 39.0, "the step is no operator");
    insta::assert_snapshot!(view("overview", PAIR, &["--per-step"]));
}

#[test]
fn a_side_without_steps_has_zero_steps_and_a_breakdown_of_its_span() {
    let pair = ["fixtures/nosteps/control", "fixtures/nosteps/test"];
    let v: serde_json::Value = serde_json::from_str(&view("overview", pair, &["--format", "json"])).unwrap();
    assert_eq!(v["control"]["steps"], 0);
    assert_eq!(v["control"]["steps_used"], serde_json::json!([]));
    assert!(v["control"]["mean_step_time_us"].is_null());
    // The span's parts still add up to it.
    let b = &v["control"]["breakdown"];
    let sum: f64 = [
        "compute_per_step_us",
        "comm_exposed_per_step_us",
        "memory_exposed_per_step_us",
        "idle_per_step_us",
    ]
    .iter()
    .map(|k| b[k].as_f64().unwrap())
    .sum();
    assert!((sum - b["step_time_per_step_us"].as_f64().unwrap()).abs() < 1e-9, "{b}");
}

#[test]
fn rank_all_gives_a_row_per_rank_and_names_the_straggler() {
    const RANKS: [&str; 2] = ["fixtures/ranks/control", "fixtures/ranks/test"];
    let v: serde_json::Value =
        serde_json::from_str(&view("overview", RANKS, &["--rank", "all", "--format", "json"])).unwrap();
    for side in ["control", "test"] {
        assert_eq!(v[side]["ranks_used"], serde_json::json!([0, 1]));
        let rows = v[side]["per_rank"].as_array().unwrap();
        assert_eq!(rows.len(), 2, "{side}");
        assert!(v[side]["straggler"]["per_step"].is_array(), "{side}");
    }
    // Test rank 1 computes 40 µs more than rank 0 but idles as much less: equal steps.
    assert_eq!(v["test"]["per_rank"][1]["compute_per_step_us"], 120);
    assert_eq!(v["test"]["straggler"]["max_over_median"], 1.0);
    let text = view("overview", RANKS, &["--rank", "all"]);
    assert!(
        text.contains("control: fixtures/ranks/control (ranks 0–1, steps 5–6)"),
        "{text}"
    );
    assert!(text.contains(" test rank 1 "), "{text}");
    assert!(text.contains("test: no straggler"), "{text}");
}

/// `fixtures/breakdown/ranks`: rank 0 is the hand-worked control (steps 1 and 2 of 100 µs),
/// rank 1 the test (step 1 of 120 µs). Step 1: rank 1 is slowest, 120 ÷ median(100, 120).
#[test]
fn the_straggler_is_the_slowest_rank_against_the_median() {
    let p = "fixtures/breakdown/ranks";
    let v: serde_json::Value =
        serde_json::from_str(&view("overview", [p, p], &["--rank", "all", "--format", "json"])).unwrap();
    let st = &v["control"]["straggler"];
    assert_eq!(st["rank"], 1);
    assert!(
        (st["max_over_median"].as_f64().unwrap() - 120.0 / 110.0).abs() < 1e-12,
        "{st}"
    );
    assert_eq!(st["per_step"][0]["step"], 1);
    assert_eq!(st["per_step"][0]["rank"], 1);
    assert_eq!(st["per_step"][0]["median_step_time_per_step_us"], 110.0);
    assert_eq!(st["per_step"][1]["rank"], 0);
    assert_eq!(v["control"]["per_rank"][1]["windows"], 1);
    let text = view("overview", [p, p], &["--rank", "all"]);
    assert!(
        text.contains("control: straggler rank 1, its mean step 1.09× the median rank's"),
        "{text}"
    );
    assert!(
        text.contains("  step 1 → rank 1 (1.09×), step 2 → rank 0 (1.00×)"),
        "{text}"
    );
}

/// Per-row significance in the operator and kernel views: the kernel that doubled in every one
/// of 5 steps is significant, the steady ones are not; one step per side gives null and a note.
#[test]
fn operators_and_kernels_mark_significant_rows() {
    let pair = ["fixtures/gate/base", "fixtures/gate/kernel2x"];
    let csv = view("kernels", pair, &["--iteration", "all", "--format", "csv"]);
    let lines: Vec<&str> = csv.lines().collect();
    assert!(lines[0].ends_with(",significant"), "{csv}");
    assert!(
        lines[1].starts_with("void cutlass::Kernel<") && lines[1].ends_with(",true"),
        "{csv}"
    );
    assert!(lines[2].ends_with(",false"), "{csv}");
    let only = view(
        "kernels",
        pair,
        &["--iteration", "all", "--only-significant", "--format", "csv"],
    );
    assert_eq!(only.lines().count(), 2, "{only}");
    let doc = common::json(&["operators", pair[0], pair[1], "--iteration", "all"]);
    assert_eq!(doc["significance_measure"], "device_total");
    let linear = doc["rows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["name"] == "aten::linear")
        .unwrap();
    assert_eq!(linear["significant"], true, "{linear}");
    let one = run(&["kernels", pair[0], pair[1], "--iteration", "1", "--format", "json"]);
    assert!(
        one.stderr.contains("significant is null: it needs 3 or more steps"),
        "{}",
        one.stderr
    );
    let doc: serde_json::Value = serde_json::from_str(&one.stdout).unwrap();
    assert!(doc["rows"][0]["significant"].is_null());
}

/// `fixtures/cpuranks`: a CPU-only DDP job (gloo, no device events) of three ranks and three
/// steps; test's rank 1 takes 1.2 ms in step 1, rank 2 1.6 and 1.4 ms in steps 2 and 3, every
/// other step 1 ms. The per-step and per-rank step times and the straggler need no device
/// events: the tables hold the step time alone (the parts are null in JSON), the rest as with them.
#[test]
fn a_cpu_only_multi_rank_pair_has_per_step_and_per_rank_step_times_and_the_straggler() {
    const CPU: [&str; 2] = ["fixtures/cpuranks/control", "fixtures/cpuranks/test"];
    let r = run(&["overview", CPU[0], CPU[1], "--rank", "all", "--per-step"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(r.stderr, "", "no note: the tables are there");
    let tables = &r.stdout[r.stdout.find("\nPer step\n").expect(&r.stdout)..];
    assert_eq!(
        tables,
        "
Per step
                         step time
───────────────────────────────────
 control rank 0 step 1     1.00 ms
 control rank 0 step 2     1.00 ms
 control rank 0 step 3     1.00 ms
 control rank 1 step 1     1.00 ms
 control rank 1 step 2     1.00 ms
 control rank 1 step 3     1.00 ms
 control rank 2 step 1     1.00 ms
 control rank 2 step 2     1.00 ms
 control rank 2 step 3     1.00 ms
 test rank 0 step 1        1.00 ms
 test rank 0 step 2        1.00 ms
 test rank 0 step 3        1.00 ms
 test rank 1 step 1        1.20 ms
 test rank 1 step 2        1.00 ms
 test rank 1 step 3        1.00 ms
 test rank 2 step 1        1.00 ms
 test rank 2 step 2        1.60 ms
 test rank 2 step 3        1.40 ms

Per rank (means per step)
                  steps   step time
────────────────────────────────────
 control rank 0       3     1.00 ms
 control rank 1       3     1.00 ms
 control rank 2       3     1.00 ms
 test rank 0          3     1.00 ms
 test rank 1          3     1.07 ms
 test rank 2          3     1.33 ms
control: no straggler: every rank's steps take as long
test: straggler rank 2, its mean step 1.25× the median rank's; slowest rank per step (÷ the step's
  median):
  step 1 → rank 1 (1.20×), step 2 → rank 2 (1.60×), step 3 → rank 2 (1.40×)
"
    );
    let v: serde_json::Value = serde_json::from_str(&view(
        "overview",
        CPU,
        &["--rank", "all", "--per-step", "--format", "json"],
    ))
    .unwrap();
    let t = &v["test"];
    assert!(t["breakdown"].is_null());
    assert_eq!(t["per_step"].as_array().unwrap().len(), 9);
    assert_eq!(
        t["per_step"][3],
        serde_json::json!({"rank": 1, "step": 1, "step_time_per_step_us": 1200, "compute_per_step_us": null,
            "comm_total_per_step_us": null, "comm_overlapped_per_step_us": null, "comm_exposed_per_step_us": null,
            "memory_exposed_per_step_us": null, "idle_per_step_us": null, "overlap_ratio": null, "idle": null})
    );
    assert_eq!(
        t["per_rank"][2],
        serde_json::json!({"rank": 2, "windows": 3, "step_time_per_step_us": 1333.333, "compute_per_step_us": null,
            "comm_total_per_step_us": null, "comm_overlapped_per_step_us": null, "comm_exposed_per_step_us": null,
            "memory_exposed_per_step_us": null, "idle_per_step_us": null, "overlap_ratio": null, "idle": null})
    );
    let st = &t["straggler"];
    assert_eq!(st["rank"], 2);
    assert_eq!(
        st["per_step"],
        serde_json::json!([
            {"step": 1, "rank": 1, "step_time_per_step_us": 1200, "median_step_time_per_step_us": 1000.0, "max_over_median": 1.2},
            {"step": 2, "rank": 2, "step_time_per_step_us": 1600, "median_step_time_per_step_us": 1000.0, "max_over_median": 1.6},
            {"step": 3, "rank": 2, "step_time_per_step_us": 1400, "median_step_time_per_step_us": 1000.0, "max_over_median": 1.4},
        ])
    );
    assert_eq!(v["control"]["straggler"]["max_over_median"], 1.0);
    let md = view("overview", CPU, &["--rank", "all", "--format", "markdown"]);
    assert!(md.contains("| test rank 2 | 3 | 1.33 ms |\n"), "{md}");
}

/// kernels on a CPU-only pair said "0 kernels; device total summed: control 0 ns, test 0 ns (0 ns,
/// 0%)", as if kernels had been measured; an empty table after a filter says only its count.
#[test]
fn kernels_of_a_cpu_only_pair_say_there_are_no_device_events() {
    let out = view("kernels", ["fixtures/shift/base", "fixtures/shift/slow"], &[]);
    assert!(
        out.ends_with("(no rows)\n0 kernels: neither side has device events (a CPU-only run)\n"),
        "{out}"
    );
    let out = view(
        "kernels",
        ["fixtures/basic/control", "fixtures/basic/test"],
        &["--include", "nomatch"],
    );
    assert!(out.ends_with("(no rows)\n0 kernels\n"), "{out}");
}

/// A rank 0.3% slower than the median printed as "straggler rank 1, its mean step 1.00× the
/// median rank's": under 0.5% (what prints as 1.00×) the line says there is none (HTA's two ranks,
/// ../shared; skipped without it).
#[cfg_attr(
    tracediff_no_shared,
    ignore = "needs ../shared (real traces, HTA's output), absent when the tests were built: put it beside the repository or set TRACEDIFF_SHARED"
)]
#[test]
fn a_rank_within_half_a_percent_of_the_median_is_no_straggler() {
    let Some(traces) = common::traces("the straggler line of HTA's two ranks") else {
        return;
    };
    let p = traces.join("hta_two_ranks");
    let p = p.to_str().unwrap();
    let text = view("overview", [p, p], &["--rank", "all"]);
    assert!(
        text.contains(
            "control: no straggler over the steps (every rank's mean step within 0.5% of the median rank's);"
        ),
        "{text}"
    );
    assert!(
        text.contains("step 551 → rank 1 (1.00×), step 552 → rank 1 (1.01×)"),
        "{text}"
    );
}

/// With two ranks or more, the overview's CSV gains a `rank` column, last (the others keep their
/// places): empty on the side totals and the straggler's rows, then each rank's own rows, both
/// sides' rank N on one row. One rank a side: the CSV as before, without the column.
#[test]
fn the_overview_csv_has_per_rank_rows_and_the_straggler_with_several_ranks() {
    const CPU: [&str; 2] = ["fixtures/cpuranks/control", "fixtures/cpuranks/test"];
    let csv = view("overview", CPU, &["--rank", "all", "--format", "csv"]);
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(lines[0], "metric,control,test,diff,diff_pct,rank");
    assert_eq!(lines[5], "mean_step_time_us,1000,1133.333,133.333,+13.3%,");
    assert_eq!(
        lines[39..43],
        [
            "straggler.rank,0,2,,,",
            "straggler.max_over_median,1,1.250000468750293,0.250000468750293,+25.0%,",
            "steps,3,3,0,0%,0",
            "mean_step_time_us,1000,1000,0,0%,0",
        ]
    );
    let rank2: Vec<&str> = lines.iter().copied().filter(|l| l.ends_with(",2")).collect();
    assert_eq!(rank2.len(), 16, "{csv}");
    assert_eq!(rank2[1], "mean_step_time_us,1000,1333.333,333.333,+33.3%,2");
    assert_eq!(
        rank2[3], "breakdown.compute_per_step_us,,,,,2",
        "no device events: empty parts"
    );
    assert_eq!(lines.len(), 1 + 38 + 2 + 3 * 16);
    // With device events, a rank's parts.
    let gpu = view(
        "overview",
        ["fixtures/ranks/control", "fixtures/ranks/test"],
        &["--rank", "all", "--format", "csv"],
    );
    assert!(
        gpu.contains("\nbreakdown.compute_per_step_us,80,120,40,+50.0%,1\n"),
        "{gpu}"
    );
    // One rank a side: no rank column.
    let one = view("overview", CPU, &["--format", "csv"]);
    assert!(one.starts_with("metric,control,test,diff,diff_pct\n"), "{one}");
    assert_eq!(one.lines().count(), 1 + 38, "{one}");
}

/// A GPU trace holds each step twice among its ProfilerStep events (the host annotation and its
/// `gpu_user_annotation`); the "too few samples" note of the views and of `modules` counts
/// steps, as `compare`'s does ("hold 2 and 2 steps" on a one-step pair told the user to pass
/// the `--iteration all` they had given).
#[test]
fn the_too_few_samples_note_counts_each_step_once() {
    let (c, t) = ("fixtures/amd/control", "fixtures/amd/test");
    let note = "tracediff: note: significant is null: it needs 3 or more steps (ranks × steps) per side; \
                control has 1 selected, test 1; the traces hold no more steps: record more, or compare more ranks";
    for command in ["compare", "operators", "kernels", "modules"] {
        let r = run(&[command, c, t, "--iteration", "all"]);
        assert!(r.stderr.lines().any(|l| l == note), "{command}: {}", r.stderr);
    }
}

/// A GPU trace records an annotation twice under one name: the host span and the GPU span
/// (`gpu_user_annotation`). The default rows keep them apart (`NAME (GPU)`); `--hta` sums them
/// by name as HTA does (one step then read as 2 calls).
#[test]
fn a_gpu_annotation_has_its_own_row_except_in_htas_table() {
    let (c, t) = ("fixtures/amd/control", "fixtures/amd/test");
    let rows = |extra: &[&str]| -> Vec<String> {
        let mut args = vec!["compare", c, t, "--format", "csv"];
        args.extend_from_slice(extra);
        ok(&args)
            .lines()
            .filter(|l| l.starts_with("ProfilerStep"))
            .map(String::from)
            .collect()
    };
    assert_eq!(
        rows(&[]),
        [
            "ProfilerStep#*,1,900.5,1,900.5,0,0,=,",
            "ProfilerStep#* (GPU),1,800.25,1,800.25,0,0,=,"
        ]
    );
    assert_eq!(rows(&["--hta"]), ["ProfilerStep#3,2,1700.75,2,1700.75,0,0,="]);
    assert_eq!(rows(&["--device", "cpu"]), ["ProfilerStep#*,1,900.5,1,900.5,0,0,=,"]);
}

/// The overview's header says which steps of how many it used, and hints at the rest, as the
/// other commands' headers do.
#[test]
fn the_overview_header_names_the_steps_of_n_and_hints() {
    let (c, t) = ("fixtures/basic/control", "fixtures/basic/test");
    let head = |extra: &[&str]| -> Vec<String> {
        let mut args = vec!["overview", c, t];
        args.extend_from_slice(extra);
        ok(&args).lines().take(3).map(String::from).collect()
    };
    assert_eq!(
        head(&["--iteration", "2"]),
        [
            "control: fixtures/basic/control (rank 0, step 2; 1 of 3 steps)",
            "test: fixtures/basic/test (rank 0, step 2; 1 of 3 steps)",
            "hint: more steps exist than were used; --iteration all uses every step",
        ]
    );
    assert_eq!(
        head(&["--iteration", "2", "--format", "markdown"])[2],
        "- hint: more steps exist than were used; --iteration all uses every step"
    );
    // Every step (the default): no "of N", no hint.
    assert_eq!(head(&[])[0], "control: fixtures/basic/control (rank 0, steps 1–3)");
    assert!(!head(&[])[2].starts_with("hint"));
}

/// A header counts the ranks and steps used out of those the side holds, after the numbers of
/// the ones used: `step 5 of 2` read as the fifth of two steps.
#[test]
fn headers_count_the_ranks_and_steps_used_apart_from_their_numbers() {
    let (c, t) = ("fixtures/ranks/control", "fixtures/ranks/test");
    let first = |cmd: &str, extra: &[&str]| -> String {
        let mut args = vec![cmd, c, t];
        args.extend_from_slice(extra);
        ok(&args).lines().next().unwrap_or_default().to_string()
    };
    for cmd in ["compare", "operators", "kernels", "modules", "overview"] {
        let extra: &[&str] = if cmd == "compare" { &["--no-save"] } else { &[] };
        for (picks, want) in [
            (
                ["--rank", "1", "--iteration", "5"],
                "control: fixtures/ranks/control (rank 1, step 5; 1 of 2 ranks, 1 of 2 steps)",
            ),
            (
                ["--rank", "all", "--iteration", "5,6"],
                "control: fixtures/ranks/control (ranks 0–1, steps 5–6)",
            ),
        ] {
            let mut args = extra.to_vec();
            args.extend(picks);
            assert_eq!(first(cmd, &args), want, "{cmd}");
        }
    }
}

/// A ratio that did not change reads `0 pp`, as a time that did not change reads `0 ns` (it read
/// `+0.0 pp` beside `0 ns` when a pair was compared with itself).
#[test]
fn an_unchanged_ratio_reads_zero_points() {
    let c = "fixtures/breakdown/control";
    let table = ok(&["overview", c, c]);
    let line = |label: &str| {
        table
            .lines()
            .find(|l| l.trim_start().trim_start_matches(['├', '└', ' ']).starts_with(label))
            .unwrap_or_else(|| panic!("no {label}:\n{table}"))
            .to_string()
    };
    for label in ["GPU utilization", "overlap ratio"] {
        let l = line(label);
        assert!(l.contains(" 0 pp ") && !l.contains("+0.0 pp"), "{l}\n{table}");
    }
}

/// A rank that ran none of the selected steps has no step time and no parts ('-', JSON null),
/// not a 0 ns step; the other ranks' rows stand.
#[test]
fn a_rank_without_the_selected_step_has_no_step_time() {
    let dir = tempfile::TempDir::new().unwrap();
    for rank in ["rank0.json", "rank1.json"] {
        let text = std::fs::read_to_string(format!("fixtures/ranks/control/{rank}")).unwrap();
        let text = if rank == "rank1.json" {
            text.replace("ProfilerStep#6", "ProfilerStep#9")
        } else {
            text
        };
        std::fs::write(dir.path().join(rank), text).unwrap();
    }
    let control = dir.path().to_str().unwrap();
    let args = [
        "overview",
        control,
        "fixtures/ranks/test",
        "--rank",
        "all",
        "--iteration",
        "6",
    ];
    let table = ok(&args);
    let row = table.lines().find(|l| l.starts_with(" control rank 1")).unwrap();
    assert_eq!(
        row.split_whitespace().collect::<Vec<_>>()[3..],
        ["0", "-", "-", "-", "-", "-"]
    );
    let json: serde_json::Value = serde_json::from_str(&ok(&[&args[..], &["--format", "json"]].concat())).unwrap();
    let rank1 = &json["control"]["per_rank"][1];
    assert_eq!(
        (rank1["windows"].as_i64(), rank1["step_time_per_step_us"].is_null()),
        (Some(0), true)
    );
    assert!(rank1["compute_per_step_us"].is_null() && rank1["idle"].is_null());
    assert_eq!(json["control"]["per_rank"][0]["step_time_per_step_us"], 500);
}
