//! The `tracediff` binary on the repository's own fixtures (see fixtures/make_fixtures.py).
//! Output is checked exactly, with insta snapshots under tests/snapshots.

use crate::common;

use assert_cmd::Command;
use common::{fails, json, ok, run, run_in};
use std::path::Path;
use tempfile::TempDir;

const BASIC: [&str; 2] = ["fixtures/basic/control", "fixtures/basic/test"];

fn compare(extra: &[&str]) -> String {
    let mut args = vec!["compare", BASIC[0], BASIC[1]];
    args.extend_from_slice(extra);
    ok(&args)
}

#[test]
fn basic_table() {
    insta::assert_snapshot!(compare(&[]));
}

#[test]
fn basic_csv_has_the_fields_and_hta_htas_columns() {
    let out = compare(&["--format", "csv"]);
    assert!(out.starts_with(
        "name,control_count,control_total_us,test_count,test_total_us,diff_count,diff_total_us,\
         control_count_per_step,control_total_per_step_us,test_count_per_step,test_total_per_step_us,\
         diff_count_per_step,diff_total_per_step_us,counts_change_categories,significant\n"
    ));
    insta::assert_snapshot!(out);
    let hta = compare(&["--format", "csv", "--hta"]);
    assert!(hta.starts_with(
        "name,control_counts,control_total_duration,test_counts,test_total_duration,diff_counts,diff_duration,counts_change_categories\n"
    ));
}

#[test]
fn basic_json() {
    let out = compare(&["--format", "json", "--top", "4"]);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["rows"].as_array().unwrap().len(), 4);
    assert_eq!(v["summary"]["rows"], 17, "Python frames are not rows by default");
    insta::assert_snapshot!(out.replace(env!("CARGO_PKG_VERSION"), "[version]"));
}

#[test]
fn basic_markdown() {
    insta::assert_snapshot!(compare(&["--format", "markdown", "--sort", "name"]));
}

#[test]
fn short_names_gpu_only() {
    insta::assert_snapshot!(compare(&["--format", "csv", "--device", "gpu", "--short-names"]));
}

#[test]
fn cpu_only_every_iteration_sorted_by_counts() {
    insta::assert_snapshot!(compare(&[
        "--format",
        "csv",
        "--device",
        "cpu",
        "--iteration",
        "all",
        "--sort",
        "diff-counts"
    ]));
}

#[test]
fn per_side_iterations() {
    // Step 1 of control against step 3 of test: the same rows as step 1 vs step 1, but for the steps.
    let a = compare(&[
        "--format",
        "csv",
        "--control-iteration",
        "1",
        "--test-iteration",
        "3",
        "--exclude",
        "ProfilerStep",
    ]);
    let b = compare(&["--format", "csv", "--exclude", "ProfilerStep", "--iteration", "1"]);
    assert_eq!(a, b);
    // Two steps: the rows are per step (4 calls and 80 µs over the two steps of control).
    let two = compare(&["--format", "csv", "--iteration", "1,2", "--include", "^aten::add$"]);
    assert_eq!(two.lines().nth(1), Some("aten::add,4,80,6,120,2,40,2,40,3,60,1,20,+,"));
    let sums = compare(&[
        "--format",
        "csv",
        "--iteration",
        "1,2",
        "--include",
        "^aten::add$",
        "--totals",
    ]);
    assert_eq!(sums.lines().nth(1), Some("aten::add,4,80,6,120,2,40,+,"));
}

#[test]
fn a_kernel_counts_in_the_step_that_launched_it() {
    // reduce_kernel runs after ProfilerStep#1 ends, but was launched inside it.
    let out = compare(&["--format", "csv", "--include", "reduce_kernel", "--iteration", "1"]);
    assert_eq!(
        out.lines().nth(1),
        Some("\"void at::native::reduce_kernel<512, 1>(at::native::ReduceOp<float>)\",1,30,1,30,0,0,=,")
    );
}

#[test]
fn include_exclude_and_labels() {
    let out = compare(&[
        "--format",
        "csv",
        "--include",
        "^aten::",
        "--exclude",
        "copy|zeros",
        "--labels",
        "fp32,bf16",
        "--sort",
        "name",
    ]);
    insta::assert_snapshot!(out);
}

#[test]
fn output_file_format_follows_its_extension() {
    let dir = TempDir::new().unwrap();
    let csv = dir.path().join("diff.csv");
    let md = dir.path().join("diff.md");
    let r = run(&["compare", BASIC[0], BASIC[1], "-o", csv.to_str().unwrap()]);
    assert_eq!(r.code, 0);
    assert!(r.stdout.is_empty());
    assert_eq!(std::fs::read_to_string(&csv).unwrap(), compare(&["--format", "csv"]));
    run(&["compare", BASIC[0], BASIC[1], "-o", md.to_str().unwrap()]);
    assert!(std::fs::read_to_string(&md).unwrap().contains("|---|---:|"));
    let missing = dir.path().join("no/such/dir/x.csv");
    let e = fails(&["compare", BASIC[0], BASIC[1], "-o", missing.to_str().unwrap()]);
    assert_eq!(
        e,
        format!("cannot write {}: no such file or directory", missing.display())
    );
}

#[test]
fn ranks_lowest_by_default_all_and_rank_vs_rank() {
    let a = [
        "compare",
        "fixtures/ranks/control",
        "fixtures/ranks/test",
        "--format",
        "csv",
    ];
    insta::assert_snapshot!("ranks_default", ok(&a));
    let mut all = a.to_vec();
    all.extend(["--rank", "all", "--iteration", "all"]);
    insta::assert_snapshot!("ranks_all", ok(&all));
    let rank_vs_rank = ok(&[
        "compare",
        "fixtures/ranks/control",
        "fixtures/ranks/control",
        "--control-rank",
        "0",
        "--test-rank",
        "1",
        "--format",
        "csv",
        "--include",
        "linear",
    ]);
    assert_eq!(
        rank_vs_rank,
        "name,control_count,control_total_us,test_count,test_total_us,diff_count,diff_total_us,\
         control_count_per_step,control_total_per_step_us,test_count_per_step,test_total_per_step_us,\
         diff_count_per_step,diff_total_per_step_us,counts_change_categories,significant\n\
         aten::linear,2,200,2,220,0,20,1,100,1,110,0,10,=,\n"
    );
}

#[test]
fn amd_stream0_kernels_keep_their_iteration_and_ns_are_exact() {
    let out = ok(&[
        "compare",
        "fixtures/amd/control",
        "fixtures/amd/test",
        "--format",
        "csv",
        "--device",
        "gpu",
    ]);
    insta::assert_snapshot!(out);
}

#[test]
fn traces_without_steps_are_compared_whole() {
    let r = run(&[
        "compare",
        "fixtures/nosteps/control",
        "fixtures/nosteps/test",
        "--format",
        "csv",
    ]);
    assert_eq!(r.code, 0);
    assert!(
        r.stderr
            .contains("note: no ProfilerStep in fixtures/nosteps/control; comparing the whole trace")
    );
    insta::assert_snapshot!(r.stdout);
    let e = fails(&[
        "compare",
        "fixtures/nosteps/control",
        "fixtures/nosteps/test",
        "--iteration",
        "2",
    ]);
    assert_eq!(
        e,
        "control: no iteration 2 (the trace of rank 0 has no steps: no ProfilerStep, no serving loop's step annotation, no --step-marker match; leave out --iteration to compare it whole) (fixtures/nosteps/control)"
    );
}

#[test]
fn selections_that_match_nothing_say_what_exists() {
    let e = fails(&[
        "compare",
        "fixtures/ranks/control",
        "fixtures/ranks/test",
        "--rank",
        "7",
    ]);
    assert_eq!(e, "control: no rank 7 (ranks present: 0, 1) (fixtures/ranks/control)");
    let e = fails(&[
        "compare",
        "fixtures/ranks/control",
        "fixtures/ranks/test",
        "--test-iteration",
        "5,99",
    ]);
    assert_eq!(e, "test: no iteration 99 (steps present: 5, 6) (fixtures/ranks/test)");
    let e = fails(&["compare", BASIC[0], BASIC[1], "--exclude", "("]);
    assert!(e.starts_with("invalid --exclude pattern '('"), "{e}");
    let r = run(&["compare", BASIC[0], BASIC[1], "--rank", "x"]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("'x' is not a number"), "{}", r.stderr);
    let r = run(&["compare", BASIC[0], BASIC[1], "--labels", "a,a"]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("the two labels must differ"), "{}", r.stderr);
}

#[test]
fn bad_inputs_are_one_line_errors_with_exit_code_2() {
    let cases = [
        ("fixtures/bad/empty.json", "empty file (fixtures/bad/empty.json)"),
        (
            "fixtures/bad/not_a_trace.json",
            "not a trace: the JSON text is a string, not an object (fixtures/bad/not_a_trace.json: byte 0)",
        ),
        (
            "fixtures/bad/no_trace_events.json",
            "not a Kineto trace: a JSON object with no 'traceEvents' array (its members: schemaVersion, deviceProperties); pass the trace torch.profiler writes (on_trace_ready, export_chrome_trace) (fixtures/bad/no_trace_events.json)",
        ),
        (
            "fixtures/bad/truncated.json",
            "invalid JSON: unexpected end of text (truncated file?) (fixtures/bad/truncated.json: byte 189)",
        ),
        (
            "fixtures/bad/truncated.json.gz",
            "truncated gzip stream (fixtures/bad/truncated.json.gz: after 171 bytes of JSON)",
        ),
        (
            "fixtures/bad/invalid_utf8.json",
            "invalid JSON: invalid UTF-8 in string (fixtures/bad/invalid_utf8.json: byte 275)",
        ),
        (
            "fixtures/bad/wrong_type.json",
            "'dur' must be a number, found a string (fixtures/bad/wrong_type.json: byte 321)",
        ),
        (
            "fixtures/bad/deep.json",
            "invalid JSON: nesting deeper than 256 levels (fixtures/bad/deep.json: byte 280)",
        ),
        (
            "fixtures/bad/dup_ranks",
            "two trace files with rank 4: fixtures/bad/dup_ranks/a.json and fixtures/bad/dup_ranks/b.json (pass one file to compare it alone) (fixtures/bad/dup_ranks)",
        ),
        (
            "fixtures/nope",
            "cannot open: no such file or directory (fixtures/nope)",
        ),
    ];
    for (path, want) in cases {
        assert_eq!(fails(&["compare", path, BASIC[1]]), want, "control {path}");
        assert_eq!(fails(&["compare", BASIC[0], path]), want, "test {path}");
    }
    // One file of a duplicated rank is fine on its own.
    ok(&[
        "compare",
        "fixtures/bad/dup_ranks/a.json",
        "fixtures/bad/dup_ranks/b.json",
    ]);
}

#[test]
fn empty_and_traceless_directories() {
    let dir = TempDir::new().unwrap();
    let p = dir.path().to_str().unwrap();
    assert_eq!(
        fails(&["compare", p, BASIC[1]]),
        format!("empty directory: no trace files ({p})")
    );
    std::fs::write(dir.path().join("README.txt"), "x").unwrap();
    assert_eq!(
        fails(&["compare", p, BASIC[1]]),
        format!(
            "no trace files (Kineto or rocprofv3 *.json, *.json.gz; Nsight *.sqlite) or summaries (*.parquet) in the only entry of this directory ({p})"
        )
    );
    // A directory one level too high is a set of runs (one per subdirectory) for compare and
    // the views alike.
    let nest = dir.path().join("nest");
    std::fs::create_dir_all(nest.join("sub")).unwrap();
    std::fs::copy(format!("{}/trace.json", BASIC[0]), nest.join("sub/trace.json")).unwrap();
    let n = nest.to_str().unwrap();
    ok(&["compare", n, n]);
    ok(&["operators", n, n]);
}

#[test]
fn ops_diff_lists() {
    insta::assert_snapshot!("ops_diff_table", ok(&["ops-diff", BASIC[0], BASIC[1]]));
    insta::assert_snapshot!(
        "ops_diff_json",
        ok(&["ops-diff", BASIC[0], BASIC[1], "--format", "json", "--device", "cpu"])
    );
    assert_eq!(
        ok(&[
            "ops-diff",
            BASIC[0],
            BASIC[1],
            "--category",
            "added",
            "--format",
            "csv",
            "--short-names"
        ]),
        "category,name\nadded,at::native::::GeluCUDAKernelImpl\nadded,aten::gelu\n"
    );
    // --top keeps the largest changes, not the first names from A to Z.
    let top = ok(&["ops-diff", BASIC[0], BASIC[1], "--category", "unchanged", "--top", "1"]);
    assert_eq!(
        top,
        "unchanged (7, showing 1):\n  +100 µs/step  1 → 1 calls  cutlass::Kernel<cutlass_80_tensorop_s1688gemm_64x64_16x6_nn_align4>(…)\n"
    );
}

#[test]
fn ops_diff_uses_the_saved_comparison() {
    let state = TempDir::new().unwrap();
    let s = state.path();
    let none = run_in(s, &["ops-diff"]);
    assert_eq!(none.code, 2);
    assert!(
        none.stderr.contains("run `tracediff compare CONTROL TEST` first"),
        "{}",
        none.stderr
    );

    assert_eq!(run_in(s, &["compare", BASIC[0], BASIC[1], "--format", "csv"]).code, 0);
    let saved = run_in(s, &["ops-diff", "--category", "deleted"]);
    assert_eq!(saved.code, 0, "{}", saved.stderr);
    assert!(
        saved.stderr.starts_with("tracediff: using the comparison saved in "),
        "{}",
        saved.stderr
    );
    let direct = ok(&["ops-diff", BASIC[0], BASIC[1], "--category", "deleted"]);
    assert_eq!(saved.stdout, direct);

    // A selection that changes the rows reloads the saved paths.
    let gpu = run_in(
        s,
        &["ops-diff", "--device", "gpu", "--category", "all", "--format", "json"],
    );
    assert_eq!(gpu.code, 0, "{}", gpu.stderr);
    assert_eq!(
        gpu.stdout,
        ok(&["ops-diff", BASIC[0], BASIC[1], "--device", "gpu", "--format", "json"])
    );

    // --no-save leaves the saved comparison alone.
    run_in(
        s,
        &["compare", "fixtures/ranks/control", "fixtures/ranks/test", "--no-save"],
    );
    assert_eq!(run_in(s, &["ops-diff", "--category", "deleted"]).stdout, direct);
}

#[test]
fn help_lists_every_option() {
    let help = ok(&["compare", "--help"]);
    // The help names every input a directory contributes, as the "no trace files" error does.
    let patterns = tracediff_trace::input::discover::TRACE_FILE_PATTERNS;
    assert!(help.contains(patterns), "compare --help does not name {patterns}");
    for opt in [
        "--rank",
        "--iteration",
        "--control-rank",
        "--test-rank",
        "--control-iteration",
        "--test-iteration",
        "--device",
        "--short-names",
        "--include",
        "--exclude",
        "--labels",
        "--format",
        "--output",
        "--top",
        "--sort",
        "--no-save",
    ] {
        assert!(help.contains(opt), "missing {opt}");
    }
    let r = run(&["compare"]);
    assert_eq!(r.code, 2);
}

#[test]
fn normalize_names_lines_up_addresses() {
    let plain = compare(&["--format", "csv", "--include", "built-in", "--hta"]);
    assert_eq!(plain.lines().count(), 3, "{plain}");
    let normalized = compare(&[
        "--format",
        "csv",
        "--include",
        "built-in",
        "--python-frames",
        "--iteration",
        "1",
    ]);
    assert_eq!(
        normalized.lines().nth(1),
        Some("<built-in method add_ of Tensor object at 0x*>,1,3,1,3,0,0,=,")
    );
    // Step numbers line up too, so step 1 and step 3 compare row by row.
    let steps = compare(&[
        "--format",
        "csv",
        "--control-iteration",
        "1",
        "--test-iteration",
        "3",
        "--normalize-names",
        "--include",
        "Profiler",
    ]);
    assert_eq!(steps.lines().nth(1), Some("ProfilerStep#*,1,1000,1,1000,0,0,=,"));
}

#[test]
fn group_by_splits_rows_by_attribute_values() {
    let out = compare(&[
        "--format",
        "csv",
        "--group-by",
        "input_dims",
        "--include",
        "aten::mm",
        "--sort",
        "name",
    ]);
    insta::assert_snapshot!(out);
    let by_stream = compare(&[
        "--format",
        "csv",
        "--group-by",
        "stream",
        "--include",
        "Memset",
        "--sort",
        "name",
    ]);
    assert_eq!(
        by_stream.lines().skip(1).collect::<Vec<_>>(),
        [
            "Memset (Device) [stream=7],3,6,3,6,0,0,1,2,1,2,0,0,=,",
            "cudaMemsetAsync [stream=-1],3,9,3,9,0,0,1,3,1,3,0,0,=,"
        ]
    );
    let custom = compare(&[
        "--format",
        "csv",
        "--arg-spec",
        "types=Input type:object",
        "--group-by",
        "types",
        "--include",
        "^aten::mm",
    ]);
    assert_eq!(
        custom.lines().nth(1),
        Some("\"aten::mm [types=[\"\"float\"\",\"\"float\"\"]]\",3,180,3,180,0,0,1,60,1,60,0,0,=,")
    );
    let e = fails(&["compare", BASIC[0], BASIC[1], "--group-by", "nope"]);
    assert!(e.starts_with("unknown attribute 'nope'"), "{e}");
}

#[test]
fn events_table_with_chosen_attributes() {
    let out = ok(&[
        "events",
        "fixtures/basic/control",
        "--iteration",
        "1",
        "--name",
        "aten::mm|cutlass|Launch",
        "--arg",
        "input_dims,grid",
        "--format",
        "csv",
    ]);
    insta::assert_snapshot!(out);
}

#[test]
fn events_all_args_as_jsonl_and_json() {
    let jsonl = ok(&[
        "events",
        "fixtures/amd/test",
        "--args",
        "all",
        "--format",
        "jsonl",
        "--cat",
        "kernel",
    ]);
    insta::assert_snapshot!(jsonl);
    let json = ok(&[
        "events",
        "fixtures/amd/test",
        "--args",
        "all",
        "--format",
        "json",
        "--cat",
        "kernel",
    ]);
    let rows: Vec<serde_json::Value> = serde_json::from_str(&json).unwrap();
    assert_eq!(rows.len(), jsonl.lines().count());
    assert_eq!(rows[0]["grid"], serde_json::json!([128, 1, 1]));
    assert_eq!(rows[0]["iteration"], 3, "stream-0 kernel keeps its step");
    // Every event by default: the ones outside steps too (iteration -1).
    let all = ok(&[
        "events",
        "fixtures/basic/control",
        "--format",
        "csv",
        "--name",
        "aten::(zeros|empty)",
    ]);
    assert_eq!(
        all.lines()
            .skip(1)
            .map(|l| l.split(',').nth(11).unwrap())
            .collect::<Vec<_>>(),
        ["-1", "-1"]
    );
}

#[test]
fn events_defaults_presets_and_bad_attributes() {
    let out = ok(&[
        "events",
        "fixtures/basic/test",
        "--args",
        "default",
        "--name",
        "^aten::mm$",
        "--iteration",
        "2",
        "--format",
        "csv",
    ]);
    assert_eq!(
        out,
        "index,rank,name,cat,pid,tid,ts,dur,stream,correlation,index_correlation,iteration,bytes,memory_bw_gbps,wait_on_stream,wait_on_cuda_event_record_corr_id,input_dims,input_type,input_strides,external_id\n\
         46,0,aten::mm,cpu_op,100,100,1210,60,-1,-1,-1,2,-1,0.0,-1,-1,\"[[64,256],[256,256]]\",\"[\"\"float\"\",\"\"float\"\"]\",-1,13\n"
    );
    let e = fails(&["events", "fixtures/basic/test", "--arg", "bogus"]);
    assert!(e.starts_with("unknown attribute 'bogus'"), "{e}");
    let e = fails(&["events", "fixtures/basic/test", "--arg-spec", "x=k:int:abc"]);
    assert!(e.contains("default 'abc' of attribute 'x' is not a valid int"), "{e}");
    let dir = TempDir::new().unwrap();
    let path = dir.path().join("ev.jsonl");
    ok(&["events", "fixtures/basic/test", "-o", path.to_str().unwrap()]);
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(
        text.lines()
            .all(|l| serde_json::from_str::<serde_json::Value>(l).is_ok())
    );
}

/// Runs `tracediff gate` and returns (exit code, stdout).
fn gate(args: &[&str]) -> (i32, String) {
    let mut all = vec!["gate"];
    all.extend_from_slice(args);
    let r = run(&all);
    assert!(!r.stderr.contains("panicked"), "{}", r.stderr);
    (r.code, r.stdout)
}

const TIMING: [&str; 6] = [
    "--max-step-time-regression",
    "5%",
    "--max-op-regression",
    "10%",
    "--max-gpu-busy-regression",
    "5%",
];

#[test]
fn gate_passes_a_rerun_of_the_same_program() {
    let mut args = vec![
        "fixtures/gate/base",
        "fixtures/gate/noise",
        "--fail-on-added",
        ".",
        "--fail-on-deleted",
        ".",
    ];
    args.extend(TIMING);
    let (code, out) = gate(&args);
    assert_eq!(code, 0, "{out}");
    assert!(out.ends_with("gate: PASS (5 rules checked)\n"), "{out}");
    assert!(out.contains("over 5 samples"), "{out}");
}

#[test]
fn gate_fails_a_kernel_twice_as_slow_and_names_it() {
    let mut args = vec!["fixtures/gate/base", "fixtures/gate/kernel2x"];
    args.extend(TIMING);
    let (code, out) = gate(&args);
    assert_eq!(code, 1, "{out}");
    insta::assert_snapshot!(out);
    let (_, json) = gate(&[
        "fixtures/gate/base",
        "fixtures/gate/kernel2x",
        "--max-op-regression",
        "10%",
        "--format",
        "json",
    ]);
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["schema_version"], 3);
    assert_eq!(v["report"]["verdict"], "fail");
    // The threshold is a number beside what it bounds; the text is the table's.
    let rule = &v["report"]["rules"][0];
    assert_eq!(
        (&rule["threshold"], &rule["threshold_on"], &rule["threshold_text"]),
        (&0.1.into(), &"relative_change".into(), &"> 10.0%".into()),
        "{rule}"
    );
    let top = v["report"]["top_contributors"][0]["name"].as_str().unwrap();
    assert!(top.starts_with("void cutlass::Kernel<"), "{top}");
    let failing = failing_time_rules(&v);
    assert_eq!(failing.len(), 1);
    assert!(failing[0].starts_with("void cutlass::Kernel<"));
}

/// The subjects of the timing rules (in µs) a gate's JSON report fails.
fn failing_time_rules(v: &serde_json::Value) -> Vec<&str> {
    v["report"]["rules"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["verdict"] == "fail" && r["unit"] == "us")
        .map(|r| r["subject"].as_str().unwrap())
        .collect()
}

#[test]
fn gate_relative_forgives_a_uniformly_slower_machine() {
    let base = [
        "fixtures/gate/base",
        "fixtures/gate/uniform",
        "--max-op-regression",
        "10%",
        "--no-run-shift",
        "--device",
        "all",
    ];
    let (code, out) = gate(&base);
    assert_eq!(code, 1, "every op is 20% slower, judged against no change: {out}");
    let mut rel = base.to_vec();
    rel.push("--relative");
    let (code, out) = gate(&rel);
    assert_eq!(code, 0, "shares of step time are unchanged: {out}");
    rel.extend(["--max-step-time-regression", "5%"]);
    let (code, out) = gate(&rel);
    assert_eq!(code, 1, "{out}");
    assert!(out.ends_with("gate: FAIL: step time\n"), "{out}");
}

#[test]
fn gate_count_rules() {
    let (code, out) = gate(&[
        "fixtures/gate/base",
        "fixtures/gate/added",
        "--fail-on-added",
        "aten::copy_|Memcpy",
    ]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("aten::copy_"), "{out}");
    let (code, _) = gate(&["fixtures/gate/added", "fixtures/gate/base", "--fail-on-added", "copy"]);
    assert_eq!(code, 0);
    let (code, out) = gate(&[
        "fixtures/gate/added",
        "fixtures/gate/base",
        "--fail-on-deleted",
        "Memcpy",
    ]);
    assert_eq!(code, 1, "{out}");
    // cudaMemcpyAsync runs once more per step in "added".
    let (code, out) = gate(&["fixtures/gate/base", "fixtures/gate/added", "--max-count-increase", "0"]);
    assert_eq!(code, 0, "ops only on one side are for --fail-on-added: {out}");
}

#[test]
fn gate_markdown_and_config_file() {
    let (code, md) = gate(&[
        "fixtures/gate/base",
        "fixtures/gate/kernel2x",
        "--config",
        "examples/tracediff-gate.toml",
        "--format",
        "markdown",
    ]);
    assert_eq!(code, 1);
    assert!(
        md.starts_with("### ❌ tracediff gate: FAIL: step time, gpu busy time, op time (1 op)\n"),
        "{md}"
    );
    assert!(md.contains("| op time | `void cutlass::Kernel<"), "{md}");
    // The command line overrides the file.
    let (code, _) = gate(&[
        "fixtures/gate/base",
        "fixtures/gate/noise",
        "--config",
        "examples/tracediff-gate.toml",
        "--max-step-time-regression",
        "50%",
    ]);
    assert_eq!(code, 0);
}

#[test]
fn the_example_gate_config_passes_two_runs_of_one_program_and_fails_a_slower_kernel() {
    let config = ["--config", "examples/tracediff-gate.toml"];
    for (base, cand, want) in [
        ("fixtures/gate/base", "fixtures/gate/noise", 0),
        ("fixtures/gate/base", "fixtures/gate/base", 0),
        ("fixtures/gate/noise", "fixtures/gate/base", 0),
        ("fixtures/gate/base", "fixtures/gate/kernel2x", 1),
        ("fixtures/gate/base", "fixtures/gate/uniform", 1),
    ] {
        let (code, out) = gate(&[&[base, cand][..], &config[..]].concat());
        assert_eq!(code, want, "{base} vs {cand}: {out}");
    }
}

#[test]
fn the_gate_judges_operations_not_frames_steps_or_runtime_calls() {
    // fixtures/basic holds Python frames, ProfilerSteps and runtime calls that changed; with
    // every floor at zero only operators, kernels, copies and annotations may fail.
    let (_, out) = gate(&[
        BASIC[0],
        BASIC[1],
        "--max-op-regression",
        "0%",
        "--max-count-increase",
        "0",
        "--min-op-share",
        "0%",
        "--device",
        "all",
        "--no-run-shift",
        "--format",
        "csv",
    ]);
    let subjects: Vec<&str> = out.lines().skip(1).filter_map(|l| l.split(',').nth(1)).collect();
    assert!(subjects.iter().any(|s| s.starts_with("aten::")), "{out}");
    for s in &subjects {
        assert!(
            !s.contains("built-in") && !s.starts_with("ProfilerStep") && !s.starts_with("cuda"),
            "{s} judged: {out}"
        );
    }
}

#[test]
fn gate_single_step_says_no_noise_estimate() {
    let (code, out) = gate(&[
        "fixtures/gate/base",
        "fixtures/gate/noise",
        "--iteration",
        "2",
        "--max-step-time-regression",
        "50%",
    ]);
    assert_eq!(code, 0, "{out}");
    assert!(
        out.contains("one step per side: no noise estimate was possible"),
        "{out}"
    );
}

#[test]
fn gate_bad_configuration_is_exit_2() {
    let e = fails(&["gate", "fixtures/gate/base", "fixtures/gate/noise"]);
    assert!(e.starts_with("no rule to check"), "{e}");
    let e = fails(&[
        "gate",
        "fixtures/gate/base",
        "fixtures/gate/noise",
        "--max-op-regression",
        "ten",
    ]);
    assert_eq!(e, "invalid --max-op-regression 'ten': expected a percentage such as 5%");
    let dir = TempDir::new().unwrap();
    let cfg = dir.path().join("g.toml");
    std::fs::write(&cfg, "[gate]\nmax_step_time = 3\n").unwrap();
    let e = fails(&[
        "gate",
        "fixtures/gate/base",
        "fixtures/gate/noise",
        "--config",
        cfg.to_str().unwrap(),
    ]);
    assert!(e.contains("invalid gate config: unknown field `max_step_time`"), "{e}");
    let e = fails(&[
        "gate",
        "fixtures/nosteps/control",
        "fixtures/nosteps/test",
        "--max-step-time-regression",
        "5%",
    ]);
    assert!(
        e.starts_with("the gate measures per ProfilerStep, and these traces have none"),
        "{e}"
    );
    let e = fails(&[
        "gate",
        "fixtures/bad/truncated.json",
        "fixtures/gate/noise",
        "--max-step-time-regression",
        "5%",
    ]);
    assert!(e.starts_with("invalid JSON: unexpected end of text"), "{e}");
}

#[test]
fn plot_png_has_the_size_and_is_not_blank() {
    let dir = TempDir::new().unwrap();
    let path = dir.path().join("d.png");
    let out = ok(&[
        "plot",
        BASIC[0],
        BASIC[1],
        "--metric",
        "duration",
        "--width",
        "1000",
        "--height",
        "700",
        "-o",
        path.to_str().unwrap(),
    ]);
    assert_eq!(out, format!("{}\n", path.display()));
    let decoder = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(&path).unwrap()));
    let mut reader = decoder.read_info().unwrap();
    let mut pixels = vec![0; reader.output_buffer_size().unwrap()];
    let frame = reader.next_frame(&mut pixels).unwrap();
    assert_eq!(
        (frame.width, frame.height, frame.color_type),
        (1000, 700, png::ColorType::Rgb)
    );
    let has = |rgb: [u8; 3]| pixels.chunks_exact(3).any(|p| p == rgb);
    assert!(
        has([0x00, 0x72, 0xB2]) && has([0xE6, 0x9F, 0x00]) && has([0xCC, 0x79, 0xA7]),
        "bars in all three colours"
    );
}

#[test]
fn plot_svg_holds_the_bars_labels_and_tooltips() {
    let dir = TempDir::new().unwrap();
    let path = dir.path().join("c.svg");
    ok(&[
        "plot",
        BASIC[0],
        BASIC[1],
        "--metric",
        "counts",
        "--top",
        "4",
        "--hta",
        "--exclude",
        "ProfilerStep",
        "-o",
        path.to_str().unwrap(),
    ]);
    let text = std::fs::read_to_string(&path).unwrap();
    let doc = roxmltree::Document::parse(&text).expect("valid SVG");
    let fills = |c: &str| {
        doc.descendants()
            .filter(|n| n.has_tag_name("rect") && n.attribute("fill") == Some(c))
            .count()
    };
    // Three bars per row (four host rows, four device rows), plus the legend's swatch.
    for colour in ["#0072B2", "#E69F00", "#CC79A7"] {
        assert_eq!(fills(colour), 8 + 1, "{colour}");
    }
    let titles: Vec<String> = doc
        .descendants()
        .filter(|n| n.has_tag_name("title"))
        .map(|n| n.text().unwrap_or("").to_string())
        .collect();
    assert_eq!(titles.len(), 8);
    // Ranked by |diff_counts| (1 each, either way: the largest changes both ways by default),
    // ties by name; the host rows, then the device rows.
    assert!(
        titles[0].starts_with("<built-in method add_ of Tensor object at 0x7f4680bc77a0>: control 1, test 0"),
        "{titles:?}"
    );
    assert_eq!(titles[2], "aten::add: control 2, test 3");
    assert_eq!(titles[4], "Memcpy HtoD (Pageable -> Device): control 2, test 1");
    let texts: String = doc
        .descendants()
        .filter(|n| n.has_tag_name("text"))
        .filter_map(|n| n.text())
        .collect::<Vec<_>>()
        .join("|");
    assert!(
        texts.contains("Count per name: control vs test (top 4 host and device rows by abs-diff-counts)"),
        "{texts}"
    );
    assert!(
        texts.contains("count (events)") && texts.contains("test − control"),
        "{texts}"
    );
}

#[test]
fn plot_from_saved_comparison_equals_plot_from_directories_and_is_deterministic() {
    let state = TempDir::new().unwrap();
    let dir = TempDir::new().unwrap();
    let a = dir.path().join("a.png");
    let b = dir.path().join("b.png");
    assert_eq!(run_in(state.path(), &["compare", BASIC[0], BASIC[1]]).code, 0);
    let r = run_in(
        state.path(),
        &[
            "plot",
            "--top",
            "5",
            "--exclude",
            "ProfilerStep",
            "-o",
            a.to_str().unwrap(),
        ],
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stderr.contains("using the comparison saved in"));
    ok(&[
        "plot",
        BASIC[0],
        BASIC[1],
        "--top",
        "5",
        "--exclude",
        "ProfilerStep",
        "-o",
        b.to_str().unwrap(),
    ]);
    for metric in ["counts", "duration"] {
        let name = |p: &std::path::Path| {
            p.with_file_name(format!("{}-{metric}.png", p.file_stem().unwrap().to_str().unwrap()))
        };
        assert_eq!(
            std::fs::read(name(&a)).unwrap(),
            std::fs::read(name(&b)).unwrap(),
            "{metric}"
        );
    }
}

#[test]
fn plot_default_paths_and_errors() {
    let dir = TempDir::new().unwrap();
    let out = Command::cargo_bin("tracediff")
        .unwrap()
        .current_dir(dir.path())
        .env("TRACEDIFF_STATE_DIR", dir.path().join("state"))
        .args(["plot"])
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join(BASIC[0]))
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join(BASIC[1]))
        .output()
        .unwrap();
    assert!(out.status.success());
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        "tracediff-counts.png\ntracediff-duration.png\n"
    );
    assert!(dir.path().join("tracediff-counts.png").is_file());
    let e = fails(&["plot", BASIC[0], BASIC[1], "--include", "no-such-op"]);
    assert!(e.starts_with("nothing to plot"), "{e}");
    let e = fails(&["plot", BASIC[0], BASIC[1], "-o", "chart.pdf"]);
    assert!(e.starts_with("cannot tell the image format of chart.pdf"), "{e}");
    // Usage errors come before the traces are read (a 1 GB trace takes seconds to load): the
    // missing trace is never reached.
    let e = fails(&["plot", "no/such/dir", BASIC[1], "-o", "chart.pdf", "--metric", "counts"]);
    assert!(e.starts_with("cannot tell the image format of chart.pdf"), "{e}");
    let e = fails(&["plot", "no/such/dir", BASIC[1], "--top", "0"]);
    assert_eq!(e, "--top must be at least 1");
}

#[test]
fn views_refuse_an_unknown_output_extension_before_reading_the_traces() {
    for command in ["operators", "kernels", "overview", "modules"] {
        let e = fails(&[command, "no/such/dir", BASIC[1], "-o", "table.png"]);
        assert!(
            e.starts_with("cannot tell the output format of table.png"),
            "{command}: {e}"
        );
    }
}

/// A bad `--sort` key or `--include`/`--exclude` pattern of `operators` and `kernels` was only
/// refused after the traces were read (seconds on a large pair; on a missing CONTROL the user
/// got "cannot open" first and the bad option on the next try).
#[test]
fn views_refuse_a_bad_sort_or_pattern_before_reading_the_traces() {
    for command in ["operators", "kernels"] {
        let e = fails(&[command, "no/such/dir", BASIC[1], "--sort", "nope"]);
        assert!(e.starts_with("--sort: unknown sort key 'nope'"), "{command}: {e}");
        for flag in ["--include", "--exclude"] {
            let e = fails(&[command, "no/such/dir", BASIC[1], flag, "("]);
            assert!(e.starts_with(&format!("invalid {flag} pattern '('")), "{command}: {e}");
        }
    }
    // A key of the other table is refused there too: kernels have no host time.
    let e = fails(&["kernels", BASIC[0], BASIC[1], "--sort", "diff-host-self"]);
    assert!(e.starts_with("--sort: unknown sort key"), "{e}");
    ok(&["operators", BASIC[0], BASIC[1], "--sort", "diff-host-self"]);
}

/// `overview --per-step --format csv` printed the CSV without the per-step rows: refused, with
/// where they are, before the traces are read.
#[test]
fn overview_per_step_in_csv_is_refused_with_where_the_rows_are() {
    let e = fails(&["overview", "no/such/dir", BASIC[1], "--per-step", "--format", "csv"]);
    assert!(e.starts_with("--per-step: the CSV has one row per metric"), "{e}");
    let e = fails(&["overview", "no/such/dir", BASIC[1], "--per-step", "-o", "o.csv"]);
    assert!(e.starts_with("--per-step: "), "{e}");
    ok(&["overview", BASIC[0], BASIC[1], "--format", "csv"]);
    let json = ok(&["overview", BASIC[0], BASIC[1], "--per-step", "--format", "json"]);
    assert!(json.contains("\"per_step\""), "{json}");
}

/// `--only-significant` on one step per side kept nothing and printed "0 rows: 0 added, …" or
/// "0 operators" (false: none could be judged). Refused with the reason; with the steps it works.
#[test]
fn only_significant_without_an_estimate_is_refused_with_the_reason() {
    let pair = ["fixtures/gate/base", "fixtures/gate/kernel2x"];
    for command in ["compare", "operators", "kernels", "modules"] {
        // Every command uses every step unless told: one step is asked for.
        let one: &[&str] = &["--iteration", "1"];
        let e = fails(&[&[command, pair[0], pair[1], "--only-significant"], one].concat());
        assert!(
            e.starts_with("--only-significant cannot judge these rows: significant is null: it needs 3 or more steps"),
            "{command}: {e}"
        );
        assert!(e.ends_with("--iteration all uses them"), "{command}: {e}");
        ok(&[command, pair[0], pair[1], "--only-significant", "--iteration", "all"]);
    }
}

#[test]
fn unselected_ranks_are_only_scanned_for_their_rank() {
    let dir = "fixtures/bad/rank1_broken";
    // Rank 1 is truncated after its distributedInfo: with rank 0 and an explicit step, its
    // events are never read.
    let out = ok(&[
        "compare",
        dir,
        dir,
        "--format",
        "csv",
        "--include",
        "mm",
        "--iteration",
        "1",
    ]);
    assert_eq!(out.lines().nth(1), Some("aten::mm,1,5,1,5,0,0,=,"));
    ok(&["compare", dir, dir, "--rank", "0", "--iteration", "1"]);
    // Every step, the default, needs no other rank's steps: rank 1 is never read.
    ok(&["compare", dir, dir, "--rank", "0"]);
    // HTA's step is the lowest of the whole side: rank 1's steps are read.
    let e = fails(&["compare", dir, dir, "--rank", "0", "--hta"]);
    assert!(
        e.starts_with("invalid JSON: unexpected end of text") && e.contains("rank1.json"),
        "{e}"
    );
    let e = fails(&["compare", dir, dir, "--rank", "all"]);
    assert!(e.starts_with("invalid JSON: unexpected end of text"), "{e}");
    assert!(e.contains("rank1.json"), "{e}");
    let e = fails(&["compare", dir, dir, "--control-rank", "0", "--test-rank", "1"]);
    assert!(e.contains("rank1.json"), "{e}");
    let e = fails(&["compare", dir, dir, "--rank", "3", "--iteration", "1"]);
    assert_eq!(e, format!("control: no rank 3 (ranks present: 0, 1) ({dir})"));
}

#[test]
fn significance_marks_a_kernel_twice_as_slow_and_not_noise() {
    let rows = |test: &str, extra: &[&str]| -> Vec<(String, serde_json::Value)> {
        let mut args = vec!["compare", "fixtures/gate/base", test, "--no-save", "--iteration", "all"];
        args.extend_from_slice(extra);
        let v = json(&args);
        v["rows"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| (r["name"].as_str().unwrap().to_string(), r["significant"].clone()))
            .collect()
    };
    let slow = rows("fixtures/gate/kernel2x", &[]);
    let marked: Vec<&str> = slow
        .iter()
        .filter(|(_, s)| s == true)
        .map(|(n, _)| n.as_str())
        .collect();
    assert!(marked.iter().any(|n| n.contains("cutlass::Kernel")), "{slow:?}");
    let noise = rows("fixtures/gate/noise", &[]);
    assert!(noise.iter().all(|(_, s)| s == false), "{noise:?}");
    let only = rows("fixtures/gate/kernel2x", &["--only-significant"]);
    assert_eq!(only.len(), marked.len());
    // One step per side: no estimate, and a note says why.
    let r = run(&[
        "compare",
        "fixtures/gate/base",
        "fixtures/gate/kernel2x",
        "--iteration",
        "1",
        "--no-save",
        "--format",
        "json",
    ]);
    assert!(
        r.stderr.contains("significant is null: it needs 3 or more steps"),
        "{}",
        r.stderr
    );
    // HTA's table has no such field.
    let hta = json(&[
        "compare",
        "fixtures/gate/base",
        "fixtures/gate/kernel2x",
        "--no-save",
        "--hta",
    ]);
    assert!(hta["rows"][0].get("significant").is_none());
}

/// The same program on a host 40% slower: the whole run moved, the note says so and rows are
/// judged beyond it (nothing is significant); one operation three times as slow besides is;
/// one more layer (counts changed) is the program, not the machine
/// (docs/significance.md#a-run-wide-shift).
#[test]
fn significance_is_judged_beyond_a_run_wide_shift() {
    let compare = |test: &str, extra: &[&str]| {
        let mut args = vec![
            "compare",
            "fixtures/shift/base",
            test,
            "--no-save",
            "--iteration",
            "all",
        ];
        args.extend_from_slice(extra);
        let v = json(&args);
        let marked = significant_names(&v);
        (v["run_shift"].clone(), marked)
    };
    let (shift, marked) = compare("fixtures/shift/slow", &[]);
    let factor = shift["host"]["factor"].as_f64().unwrap();
    assert!((1.35..1.45).contains(&factor), "{shift}");
    assert_eq!(
        (shift["applied"].clone(), shift["device"].clone()),
        (true.into(), serde_json::Value::Null)
    );
    assert!(marked.is_empty(), "{marked:?}");
    let r = run(&[
        "compare",
        "fixtures/shift/base",
        "fixtures/shift/slow",
        "--no-save",
        "--iteration",
        "all",
    ]);
    assert!(
        r.stderr
            .contains("the whole run moved: on host, test runs 40% slower than control (×1.40")
            && r.stderr.contains("rows are judged against it"),
        "{}",
        r.stderr
    );
    // The plain rule: every row moved.
    let (shift, marked) = compare("fixtures/shift/slow", &["--no-run-shift"]);
    assert_eq!(shift["applied"], false);
    assert!(marked.len() >= 8, "{marked:?}");
    // One run per side: the step's growth beyond the shift (layer_norm's) lies within how far
    // the pair's rows scatter; layer_norm itself lies far beyond it.
    let (_, marked) = compare("fixtures/shift/slowchanged", &[]);
    assert_eq!(marked, ["aten::layer_norm"]);
    let (shift, marked) = compare("fixtures/shift/deeper", &[]);
    assert!(shift["host"].is_null() && shift["applied"] == false, "{shift}");
    assert!(marked.contains(&"aten::conv2d".to_string()), "{marked:?}");
}

/// A host 40% slower whose GPU kept its pace: the host rows are judged beyond the host's factor,
/// the kernels against no change (no device shift was found). Kernels were judged beyond the
/// host's factor when only the host moved, and an unchanged GEMM was marked.
#[test]
fn kernels_are_not_judged_beyond_a_shift_of_the_host() {
    let v = json(&[
        "compare",
        "fixtures/shift/gpubase",
        "fixtures/shift/gpuslowhost",
        "--no-save",
        "--iteration",
        "all",
    ]);
    let shift = &v["run_shift"];
    assert!(shift["applied"] == true && shift["device"].is_null(), "{shift}");
    assert!(
        (1.35..1.45).contains(&shift["host"]["factor"].as_f64().unwrap()),
        "{shift}"
    );
    assert!(significant_names(&v).is_empty(), "{:?}", significant_names(&v));
}

/// A slower host slows each operation by its own factor (×1.15 to ×1.6 around the run's ×1.36):
/// rows are judged beyond how far rows scatter around the run's factor too, so none is marked;
/// an operation three times as slow besides still is (docs/significance.md#a-run-wide-shift).
#[test]
fn significance_allows_for_how_rows_scatter_under_a_shift() {
    let args = |test: &'static str, cmd: &'static str| {
        let mut a = vec![cmd, "fixtures/shift/base", test, "--iteration", "all"];
        if cmd == "compare" {
            a.push("--no-save");
        }
        a
    };
    let v = json(&args("fixtures/shift/uneven", "compare"));
    let host = &v["run_shift"]["host"];
    let (factor, spread) = (host["factor"].as_f64().unwrap(), host["spread"].as_f64().unwrap());
    assert!((1.3..1.4).contains(&factor), "{host}");
    assert!((0.08..0.2).contains(&spread), "{host}");
    assert_eq!(significant_names(&v), Vec::<String>::new());
    // Judged against no change, every operator moved.
    let mut plain = args("fixtures/shift/uneven", "compare");
    plain.push("--no-run-shift");
    assert!(significant_names(&json(&plain)).len() >= 6);
    // In `compare`'s 9 rows, `aten::layer_norm` ×3 beyond the shift lies 5.3 spreads from the
    // rows' median: under the heavy tails that two processes of one program show (Student's t,
    // 3 degrees of freedom; docs/significance.md#what-one-run-per-side-can-and-cannot-tell) that
    // is p = 0.013, short of what Benjamini–Hochberg asks of the first of 8 rows.
    let v = json(&args("fixtures/shift/unevenchanged", "compare"));
    assert_eq!(significant_names(&v), Vec::<String>::new());
    let v = json(&args("fixtures/shift/unevenchanged", "operators"));
    assert_eq!(significant_names(&v), ["aten::layer_norm"]);
    let v = json(&args("fixtures/shift/uneven", "operators"));
    assert_eq!(significant_names(&v), Vec::<String>::new());
    for (test, marks) in [("fixtures/shift/uneven", 0), ("fixtures/shift/unevenchanged", 3)] {
        let r = run(&args(test, "modules"));
        assert_eq!(r.code, 0, "{}", r.stderr);
        let marked = r.stdout.lines().filter(|l| l.trim_end().ends_with('*')).count();
        assert_eq!(marked, marks, "{test}: {}", r.stdout);
    }
}

/// The names of the rows a JSON output marks significant, in its order.
fn significant_names(v: &serde_json::Value) -> Vec<String> {
    v["rows"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["significant"] == true)
        .map(|r| r["name"].as_str().unwrap().to_string())
        .collect()
}

/// The views and `modules` judge beyond the same run-wide shift as `compare`: on a host 40%
/// slower nothing is significant but the operation that also changed, the note says so, and
/// `--no-run-shift` gives the plain rule (docs/significance.md#a-run-wide-shift).
#[test]
fn views_and_modules_judge_beyond_a_run_wide_shift() {
    let operators = |test: &str, extra: &[&str]| {
        let mut args = vec!["operators", "fixtures/shift/base", test, "--iteration", "all"];
        args.extend_from_slice(extra);
        let v = json(&args);
        let marked = significant_names(&v);
        (v["run_shift"]["applied"].clone(), marked)
    };
    let (applied, marked) = operators("fixtures/shift/slow", &[]);
    assert_eq!((applied, marked.len()), (true.into(), 0), "{marked:?}");
    let (applied, marked) = operators("fixtures/shift/slow", &["--no-run-shift"]);
    assert_eq!(applied, false);
    assert_eq!(marked.len(), 7, "{marked:?}");
    let (_, marked) = operators("fixtures/shift/slowchanged", &["--time", "host-self"]);
    assert_eq!(marked, ["aten::layer_norm"]);
    let (applied, marked) = operators("fixtures/shift/deeper", &[]);
    assert_eq!(applied, false);
    assert!(marked.contains(&"aten::conv2d".to_string()), "{marked:?}");
    let r = run(&[
        "operators",
        "fixtures/shift/base",
        "fixtures/shift/slow",
        "--iteration",
        "all",
    ]);
    assert!(
        r.stderr.contains("the whole run moved: on host, test runs 40% slower"),
        "{}",
        r.stderr
    );

    let modules = |test: &str, extra: &[&str]| {
        let mut args = vec!["modules", "fixtures/shift/base", test, "--iteration", "all"];
        args.extend_from_slice(extra);
        let r = run(&args);
        assert_eq!(r.code, 0, "{}", r.stderr);
        let marks = r.stdout.lines().filter(|l| l.trim_end().ends_with('*')).count();
        (r.stderr, marks)
    };
    let (stderr, marks) = modules("fixtures/shift/slow", &[]);
    assert!(stderr.contains("nodes are judged against it"), "{stderr}");
    assert_eq!(marks, 0);
    let (stderr, marks) = modules("fixtures/shift/slow", &["--no-run-shift"]);
    assert!(
        stderr.contains("as --no-run-shift asks, nodes are judged against no change"),
        "{stderr}"
    );
    assert!(marks >= 10, "{marks}");
    let v = json(&[
        "modules",
        "fixtures/shift/base",
        "fixtures/shift/slow",
        "--iteration",
        "all",
    ]);
    assert_eq!(v["compared"]["run_shift"]["applied"], true, "{}", v["compared"]);
}

/// With `--no-run-shift` the gate's rules judge the change itself, a run-wide shift included, but the gate says when
/// the whole run moved, on stderr and in its JSON, so that a rule failed on a slower machine
/// reads as such (docs/significance.md#a-run-wide-shift).
#[test]
fn the_gate_names_a_run_wide_shift_but_judges_the_change_itself() {
    let args = |test: &'static str, format: &'static str| {
        vec![
            "gate",
            "fixtures/shift/base",
            test,
            "--max-step-time-regression",
            "10%",
            "--no-run-shift",
            "--format",
            format,
        ]
    };
    let r = run(&args("fixtures/shift/slow", "table"));
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert!(
        r.stderr
            .contains("the whole run moved: on host, candidate runs 40% slower than baseline")
            && r.stderr.contains("The gate's rules judge the change itself"),
        "{}",
        r.stderr
    );
    let doc = |test: &'static str| -> serde_json::Value {
        let r = run(&args(test, "json"));
        serde_json::from_str(&r.stdout).unwrap_or_else(|e| panic!("{e}: {}", r.stderr))
    };
    let v = doc("fixtures/shift/slow");
    let report = &v["report"];
    assert_eq!(report["verdict"], "fail");
    assert_eq!(report["run_shift"]["applied"], false);
    assert!((1.35..1.45).contains(&report["run_shift"]["host"]["factor"].as_f64().unwrap()));
    assert!(
        report["run_shift_note"]
            .as_str()
            .unwrap()
            .contains("a timing rule may fail for it")
    );
    // A program's change (one more layer) is no shift.
    let v = doc("fixtures/shift/deeper");
    assert!(v["report"]["run_shift_note"].is_null() && v["report"]["run_shift"]["host"].is_null());
}

/// `--beyond-run-shift` (`beyond_run_shift` in a config; the default): the timing rules judge
/// the change beyond a run-wide shift, so a uniformly slower machine passes and a program's change on it
/// still fails; `--no-run-shift` overrides the config.
#[test]
fn the_gate_judges_beyond_a_run_wide_shift_when_asked() {
    let doc = |test: &str, extra: &[&str]| -> (i32, serde_json::Value) {
        let mut args = vec![
            "gate",
            "fixtures/shift/base",
            test,
            "--max-step-time-regression",
            "5%",
            "--max-op-regression",
            "10%",
            "--format",
            "json",
        ];
        args.extend_from_slice(extra);
        let r = run(&args);
        let v = serde_json::from_str(&r.stdout).unwrap_or_else(|e| panic!("{e}: {}", r.stderr));
        (r.code, v)
    };
    // Every operation ×1.40: within the shift, by default too.
    assert_eq!(doc("fixtures/shift/slow", &[]).0, 0);
    let (code, v) = doc("fixtures/shift/slow", &["--beyond-run-shift"]);
    assert_eq!(code, 0, "{v}");
    let report = &v["report"];
    assert_eq!(report["run_shift"]["applied"], true);
    assert!(
        report["run_shift_note"]
            .as_str()
            .unwrap()
            .contains("The timing rules judged the change beyond it (--beyond-run-shift, the default)")
    );
    let step = &report["rules"][0];
    assert_eq!(step["rule"], "step time");
    let (base, expected) = (step["baseline"].as_f64().unwrap(), step["expected"].as_f64().unwrap());
    let factor = report["run_shift"]["host"]["factor"].as_f64().unwrap();
    assert!((expected - base * factor).abs() < 1.0, "{step}");
    assert!(step["relative_change"].as_f64().unwrap().abs() < 0.05, "{step}");
    assert!(
        step["note"]
            .as_str()
            .unwrap()
            .starts_with("judged beyond the run-wide shift on host (×1.40): 3.69 ms expected"),
        "{step}"
    );
    // The same slower machine with layer_norm three times as slow: it alone fails, and the step.
    let (code, v) = doc("fixtures/shift/slowchanged", &["--beyond-run-shift"]);
    assert_eq!(code, 1, "{v}");
    assert_eq!(failing_time_rules(&v), ["median of steps", "aten::layer_norm"], "{v}");
    // A program's change (one more layer) is no shift: judged against no change as before.
    let (code, v) = doc("fixtures/shift/deeper", &["--beyond-run-shift"]);
    assert_eq!(code, 1);
    assert_eq!(v["report"]["run_shift"]["applied"], false);
    assert!(v["report"]["rules"][0]["expected"].is_null());
    // From a config file, and the command line's --no-run-shift over it.
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("gate.toml");
    std::fs::write(&config, "[gate]\nbeyond_run_shift = true\n").unwrap();
    let config = config.to_str().unwrap();
    assert_eq!(doc("fixtures/shift/slow", &["--config", config]).0, 0);
    let (code, v) = doc("fixtures/shift/slow", &["--config", config, "--no-run-shift"]);
    assert_eq!(code, 1);
    assert_eq!(v["report"]["run_shift"]["applied"], false);
}

/// The gate judges operations only: asking it for Python frames (or HTA's table) is a usage
/// error that says why, not clap's "unexpected argument".
#[test]
fn gate_refuses_python_frames_and_hta_with_a_reason() {
    for flag in ["--python-frames", "--hta"] {
        let r = common::run(&["gate", "fixtures/gate/base", "fixtures/gate/noise", flag]);
        assert_eq!(r.code, 2, "{}", r.stderr);
        assert!(r.stderr.contains("never Python frames"), "{}", r.stderr);
        assert!(r.stderr.contains(flag), "{}", r.stderr);
    }
}

#[test]
fn dash_output_is_standard_output_not_a_file_named_dash() {
    let dir = TempDir::new().unwrap();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let pair = [root.join(BASIC[0]), root.join(BASIC[1])];
    let run = |args: &[&str]| {
        Command::cargo_bin("tracediff")
            .unwrap()
            .current_dir(dir.path())
            .env("TRACEDIFF_STATE_DIR", dir.path().join("state"))
            .env_remove("COLUMNS")
            .args(args)
            .output()
            .unwrap()
    };
    let (c, t) = (pair[0].to_str().unwrap(), pair[1].to_str().unwrap());
    for args in [
        vec!["compare", c, t, "--format", "csv", "--no-save"],
        vec!["operators", c, t, "--format", "json"],
        vec!["events", c, "--format", "csv"],
        vec!["flamegraph", c, t, "--folded"],
        vec!["man"],
    ] {
        let plain = run(&args);
        let dashed = run(&[args.clone(), vec!["-o", "-"]].concat());
        assert!(
            dashed.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&dashed.stderr)
        );
        assert!(!plain.stdout.is_empty());
        assert_eq!(dashed.stdout, plain.stdout, "{args:?}");
        assert!(!dir.path().join("-").exists(), "{args:?} wrote a file named -");
    }
    let refused = run(&["summarize", pair[0].join("trace.json").to_str().unwrap(), "-o", "-"]);
    assert_eq!(refused.status.code(), Some(2));
    assert!(!dir.path().join("-").exists());
}

#[test]
fn plot_and_ops_diff_do_not_send_the_user_after_significance_they_do_not_show() {
    let dir = TempDir::new().unwrap();
    let chart = dir.path().join("c.svg");
    let chart = chart.to_str().unwrap();
    for args in [
        vec!["plot", BASIC[0], BASIC[1], "--metric", "counts", "-o", chart],
        vec!["ops-diff", BASIC[0], BASIC[1]],
    ] {
        let r = run(&args);
        assert_eq!(r.code, 0, "{args:?}: {}", r.stderr);
        assert!(!r.stderr.contains("significant is null"), "{args:?}: {}", r.stderr);
    }
    // compare, which shows the column, still says why it is empty.
    assert!(
        run(&["compare", BASIC[0], BASIC[1], "--no-save", "--iteration", "1"])
            .stderr
            .contains("significant is null")
    );
}

/// `overview`, `modules` and `flamegraph` have no rows by name: the options that shape or filter
/// rows (`--include`, `--device`, `--short-names`…) were accepted and changed nothing, so a
/// user could believe the output filtered. They are refused with the reason, before the traces
/// are read, and hidden from those commands' help; `--normalize-names` (the default) is accepted.
#[test]
fn commands_without_rows_by_name_refuse_row_options_with_a_reason() {
    let options: [&[&str]; 9] = [
        &["--include", "mm"],
        &["--exclude", "mm"],
        &["--device", "gpu"],
        &["--short-names"],
        &["--raw-names"],
        &["--python-frames"],
        &["--hta"],
        &["--group-by", "stream"],
        &["--arg-spec", "x=X:int"],
    ];
    for command in [&["overview"][..], &["modules"], &["flamegraph", "--folded"]] {
        let help = ok(&[command[0], "--help"]);
        for option in options {
            let mut args = command.to_vec();
            args.extend(["no/such/dir", BASIC[1]]);
            args.extend(option);
            let e = fails(&args);
            assert!(
                e.starts_with(&format!("{} does not take {}: ", command[0], option[0])),
                "{args:?}: {e}"
            );
            assert!(!help.contains(option[0]), "{} --help lists {}", command[0], option[0]);
        }
        let mut args = command.to_vec();
        args.extend([BASIC[0], BASIC[1], "--normalize-names"]);
        ok(&args);
    }
    // The overview's steps default to all of them, and its help says so.
    let help = ok(&["overview", "--help"]);
    assert!(help.contains("or `all`\n          [default: every step]"), "{help}");
}

/// `--quiet` (anywhere on the line) takes the notes off standard error, and only them: the
/// output is the same bytes and an error still shows.
#[test]
fn quiet_drops_the_notes_and_keeps_errors() {
    let state = TempDir::new().unwrap();
    let s = state.path();
    let args = ["compare", BASIC[0], BASIC[1], "--no-save"];
    let loud = run_in(s, &args);
    assert!(loud.stderr.contains("note:"), "{}", loud.stderr);
    for quiet in [["-q"].as_slice(), ["--quiet"].as_slice()] {
        let mut a = args.to_vec();
        a.extend_from_slice(quiet);
        let got = run_in(s, &a);
        assert_eq!((got.code, got.stderr.as_str()), (0, ""));
        assert_eq!(got.stdout, loud.stdout);
    }
    let bad = run_in(s, &["--quiet", "compare", BASIC[0], "no/such/dir", "--no-save"]);
    assert_eq!(bad.code, 2);
    assert!(bad.stderr.starts_with("tracediff: "), "{}", bad.stderr);
}
