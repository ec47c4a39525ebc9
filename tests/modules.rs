//! `tracediff modules` (docs/semantics.md#module-aligned-diff) on the repository's own fixtures (fixtures/modules, made by
//! fixtures/make_module_fixtures.py): a model that gains blocks, loses one module and renames
//! another, and the same run recorded without module frames. Output is checked exactly.

use crate::common;

use common::{json, ok, run};
use serde_json::Value;

const C: &str = "fixtures/modules/control";
const T: &str = "fixtures/modules/test";
const PLAIN: &str = "fixtures/modules/plain";

#[test]
fn gained_blocks_a_lost_module_and_a_renamed_one() {
    insta::assert_snapshot!(ok(&["modules", C, T, "--order", "logical"]));
}

#[test]
fn biggest_change_first_by_default() {
    insta::assert_snapshot!(ok(&["modules", C, T, "--depth", "2"]));
}

#[test]
fn zoom_depth_and_folding() {
    insta::assert_snapshot!(ok(&[
        "modules",
        C,
        T,
        "--zoom",
        "Net/Sequential",
        "--depth",
        "1",
        "--order",
        "logical"
    ]));
    // [0] may be written or left out; a slash at either end is ignored.
    assert_eq!(
        ok(&[
            "modules",
            C,
            T,
            "--zoom",
            "/Net[0]/Sequential[0]/",
            "--depth",
            "1",
            "--order",
            "logical"
        ]),
        ok(&[
            "modules",
            C,
            T,
            "--zoom",
            "Net/Sequential",
            "--depth",
            "1",
            "--order",
            "logical"
        ])
    );
    let folded = ok(&[
        "modules",
        C,
        T,
        "--zoom",
        "Net",
        "--depth",
        "1",
        "--min-share",
        "10",
        "--order",
        "logical",
    ]);
    assert!(folded.contains("└─ … 4 more under 10%"), "{folded}");
    assert!(!folded.contains("Embedding"), "{folded}");
}

#[test]
fn a_wrong_zoom_path_says_what_is_there() {
    let r = run(&["modules", C, T, "--zoom", "Net/Sequentia"]);
    assert_eq!(r.code, 2);
    assert_eq!(
        r.stderr.lines().last().unwrap(),
        "tracediff: --zoom 'Net/Sequentia': no such node; Net[0] has children Embedding[0], Sequential[0], ManualNorm[0], Head[0], Norm[0], (unknown)[0]"
    );
    let r = run(&["modules", C, T, "--min-share", "120"]);
    assert_eq!(r.code, 2, "{}", r.stderr);
}

#[test]
fn json_tree_has_the_designs_fields_and_children_sum_to_parents() {
    let root = json(&["modules", C, T]);
    assert_eq!(root["kind"], "step");
    assert_eq!(root["key"], "ProfilerStep");
    assert_eq!(root["path"], "");
    let seq = &root["children"][0]["children"][1];
    assert_eq!(seq["path"], "Net[0]/Sequential[0]");
    let statuses: Vec<&str> = seq["children"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["status"].as_str().unwrap())
        .collect();
    assert_eq!(statuses, ["matched", "matched", "matched", "added", "added", "unknown"]);
    let added = &seq["children"][3];
    assert_eq!(added["control"], Value::Null);
    assert_eq!(added["test"]["calls"], 1);
    assert_eq!(added["test"]["host_total_us"], 100);
    assert_eq!(added["test"]["device_total_us"], 20);
    let unknown = &seq["children"][5];
    assert_eq!(unknown["control"]["calls"], Value::Null);
    fn check(n: &Value) {
        let kids = n["children"].as_array().unwrap();
        if kids.is_empty() {
            return;
        }
        for side in ["control", "test"] {
            for time in ["host_total_us", "device_total_us"] {
                if let Some(parent) = n[side][time].as_f64() {
                    let sum: f64 = kids.iter().filter_map(|c| c[side][time].as_f64()).sum();
                    assert!(
                        (sum - parent).abs() < 1e-6,
                        "{} {side} {time}: {sum} vs {parent}",
                        n["path"]
                    );
                }
            }
        }
        kids.iter().for_each(check);
    }
    check(&root);
}

#[test]
fn without_module_frames_both_sides_fall_back_to_annotations_and_operators() {
    insta::assert_snapshot!(ok(&["modules", C, PLAIN, "--order", "logical"]));
    let root = json(&["modules", PLAIN, PLAIN]);
    assert_eq!(root["compared"]["fallback"], true);
    let kinds: Vec<&str> = root["children"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["kind"].as_str().unwrap())
        .collect();
    assert!(
        kinds.contains(&"op") && kinds.contains(&"backward") && kinds.contains(&"annotation"),
        "{kinds:?}"
    );
}

#[test]
fn a_trace_against_itself_matches_everything() {
    let root = json(&["modules", C, C]);
    fn walk(n: &Value) {
        let s = n["status"].as_str().unwrap();
        assert!(s == "matched" || s == "unknown", "{}", n["path"]);
        n["children"].as_array().unwrap().iter().for_each(walk);
    }
    walk(&root);
}

#[test]
fn markdown_and_csv() {
    insta::assert_snapshot!(ok(&[
        "modules", C, T, "--format", "markdown", "--depth", "2", "--order", "logical"
    ]));
    insta::assert_snapshot!(ok(&["modules", C, T, "--format", "csv", "--zoom", "Net/Sequential"]));
}

#[test]
fn operators_and_kernels_follow_a_zoomed_block() {
    insta::assert_snapshot!(ok(&["operators", C, T, "--zoom", "Net/Sequential", "--format", "csv"]));
    let kernels = ok(&["kernels", C, T, "--zoom", "Net/Sequential/Block[0]", "--format", "csv"]);
    assert_eq!(
        kernels,
        "name,class,control_calls,test_calls,diff_calls,control_device_total_us,test_device_total_us,diff_device_total_us,control_device_mean_us,test_device_mean_us,significant\n\
         aten::add_kernel,elementwise,1,1,0,8,8,0,8,8,\n\
         aten::conv2d_kernel,conv,1,1,0,20,20,0,20,20,\n"
    );
    // A path that is not in the tree is a usage error.
    let r = run(&["operators", C, T, "--zoom", "Net/Nope"]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("no such node"), "{}", r.stderr);
}

#[test]
fn fwdbwd_flows_place_backward_work_on_module_backward_nodes() {
    // Each autograd operator sits on the `.backward` node mirroring the module of the forward
    // operator its flow starts at; the AccumulateGrad, which no flow links, stays unknown.
    let seq = json(&[
        "modules",
        C,
        T,
        "--zoom",
        "backward/Net.backward/Sequential.backward",
        "--order",
        "logical",
    ]);
    let kids: Vec<(String, String)> = seq["children"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["key"].as_str().unwrap().to_string(),
                c["status"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    // Listed (and aligned) in forward order, though autograd ran them in reverse: the test's 2
    // extra blocks are the last ones, as in the forward tree.
    let want: Vec<(String, String)> = [
        ("Block.backward", "matched"),
        ("Block.backward", "matched"),
        ("Block.backward", "matched"),
        ("Block.backward", "added"),
        ("Block.backward", "added"),
        ("(unknown)", "unknown"),
    ]
    .iter()
    .map(|(k, s)| (k.to_string(), s.to_string()))
    .collect();
    assert_eq!(kids, want);
    // The first block's backward: its conv (in Conv) and its shortcut's add (in Shortcut).
    let first = json(&[
        "modules",
        C,
        T,
        "--zoom",
        "backward/Net.backward/Sequential.backward/Block.backward[0]",
        "--order",
        "logical",
    ]);
    let keys: Vec<&str> = first["children"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["key"].as_str().unwrap())
        .collect();
    assert_eq!(keys, ["Conv.backward", "Shortcut.backward", "(unknown)"]);
    assert_eq!(first["control"]["calls"], 2);
    assert_eq!(first["control"]["host_total_us"], 50);
    let backward = json(&["modules", C, T, "--zoom", "backward", "--order", "logical"]);
    let unknown = backward["children"].as_array().unwrap().last().unwrap();
    assert_eq!(unknown["key"], "(unknown)");
    assert_eq!(unknown["control"]["host_total_us"], 15);
    assert_eq!(
        backward["compared"]["backward_placed"]["control"]["backward_host_us"],
        190
    );
    assert_eq!(
        backward["compared"]["backward_placed"]["control"]["placed_host_us"],
        175
    );
    // The operators of a zoomed backward node are the autograd operators placed there.
    let ops = ok(&[
        "operators",
        C,
        T,
        "--zoom",
        "backward/Net.backward/Sequential.backward",
        "--format",
        "csv",
    ]);
    let names: Vec<&str> = ops.lines().skip(1).map(|l| l.split(',').next().unwrap()).collect();
    assert_eq!(
        names,
        [
            "autograd::engine::evaluate_function: ConvolutionBackward0",
            "autograd::engine::evaluate_function: AddBackward0"
        ]
    );
}

// ---- real CPU traces of the design's scenarios (fixtures/scenarios, scripts/record_scenarios.py)

const SCENARIOS: &str = "fixtures/scenarios";

fn scenario(name: &str) -> Value {
    let (c, t) = (
        format!("{SCENARIOS}/{name}/control"),
        format!("{SCENARIOS}/{name}/test"),
    );
    json(&["modules", &c, &t])
}

/// (status, kind, key) → count over the added and deleted nodes of a tree.
fn changes(n: &Value, out: &mut std::collections::BTreeMap<(String, String, String), usize>) {
    let status = n["status"].as_str().unwrap();
    if status == "added" || status == "deleted" {
        let key = (
            status.to_string(),
            n["kind"].as_str().unwrap().to_string(),
            n["key"].as_str().unwrap().to_string(),
        );
        *out.entry(key).or_default() += 1;
    }
    n["children"].as_array().unwrap().iter().for_each(|c| changes(c, out));
}

fn statuses(n: &Value) -> Vec<String> {
    n["children"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["status"] != "unknown")
        .map(|c| c["status"].as_str().unwrap().to_string())
        .collect()
}

fn node<'a>(root: &'a Value, path: &str) -> &'a Value {
    let mut n = root;
    for segment in path.split('/') {
        n = n["children"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["path"].as_str().unwrap().ends_with(segment))
            .unwrap_or_else(|| panic!("{path}: no {segment}"));
    }
    n
}

#[test]
fn resnet_50_against_152_pairs_every_block_of_the_shorter_layer() {
    let root = scenario("resnet");
    // torchvision's ResNet-50 layers have 3, 4, 6, 3 bottlenecks; ResNet-152's 3, 8, 36, 3.
    for (layer, (short, long)) in [(3, 3), (4, 8), (6, 36), (3, 3)].into_iter().enumerate() {
        for prefix in [
            "ResNet[0]/Sequential",
            "backward[0]/ResNet.backward[0]/Sequential.backward",
        ] {
            let n = node(&root, &format!("{prefix}[{layer}]"));
            let got = statuses(n);
            let matched = got.iter().filter(|s| *s == "matched").count();
            let added = got.iter().filter(|s| *s == "added").count();
            assert_eq!(
                (matched, added, got.len()),
                (short, long - short, long),
                "{prefix}[{layer}]"
            );
            // The first block (with the downsampling shortcut) pairs with the first block.
            assert_eq!(got[0], "matched", "{prefix}[{layer}]");
            let first = &n["children"][0];
            assert!(statuses(first).iter().all(|s| s == "matched"), "{}", first["path"]);
        }
    }
    let mut all = Default::default();
    changes(&root, &mut all);
    assert!(all.keys().all(|(s, _, _)| s == "added"), "nothing deleted: {all:?}");
    children_sum_to_parents(&root);
}

#[test]
fn two_attention_modules_differ_in_the_attention_alone() {
    let root = scenario("attention");
    let mut all = Default::default();
    changes(&root, &mut all);
    let want: std::collections::BTreeMap<(String, String, String), usize> = [
        ("added", "backward", "Linear.backward", 8),
        ("added", "backward", "SdpaAttention.backward", 4),
        ("added", "module", "Linear", 8),
        ("added", "module", "SdpaAttention", 4),
        ("deleted", "backward", "Linear.backward", 8),
        ("deleted", "backward", "ManualAttention.backward", 4),
        ("deleted", "module", "Linear", 8),
        ("deleted", "module", "ManualAttention", 4),
    ]
    .into_iter()
    .map(|(s, k, n, c)| ((s.to_string(), k.to_string(), n.to_string()), c))
    .collect();
    // The Linears are the attention modules' own (qkv, proj): inside an added or deleted node.
    assert_eq!(all, want);
    children_sum_to_parents(&root);
    // fp32 against bf16 autocast: the same modules.
    let mut precision = Default::default();
    changes(&scenario("precision"), &mut precision);
    assert!(precision.is_empty(), "{precision:?}");
}

#[test]
fn a_real_trace_without_modules_falls_back_and_against_itself_matches() {
    let root = scenario("nomodules");
    assert_eq!(root["compared"]["fallback"], true);
    let mut all = Default::default();
    changes(&root, &mut all);
    assert!(all.keys().all(|(_, kind, _)| kind == "op"), "{all:?}");
    assert!(all.contains_key(&("added".into(), "op".into(), "aten::scaled_dot_product_attention".into())));
    let c = format!("{SCENARIOS}/resnet/test");
    let same = json(&["modules", &c, &c]);
    let mut none = Default::default();
    changes(&same, &mut none);
    assert!(none.is_empty(), "{none:?}");
}

fn children_sum_to_parents(n: &Value) {
    let kids = n["children"].as_array().unwrap();
    for side in ["control", "test"] {
        if let (Some(parent), false) = (n[side]["host_total_us"].as_f64(), kids.is_empty()) {
            let sum: f64 = kids.iter().filter_map(|c| c[side]["host_total_us"].as_f64()).sum();
            assert!((sum - parent).abs() < 1e-3, "{} {side}: {sum} vs {parent}", n["path"]);
        }
    }
    kids.iter().for_each(children_sum_to_parents);
}

const EAGER: &str = "fixtures/modules/eager";
const COMPILED: &str = "fixtures/modules/compiled";
const COMPILED2: &str = "fixtures/modules/compiled2";
const DDP: &str = "fixtures/modules/ddp";

/// Every node's times on both sides are never negative.
fn no_negative_time(root: &Value) {
    let mut todo = vec![root];
    while let Some(n) = todo.pop() {
        for side in ["control", "test"] {
            for time in ["host_total_us", "device_total_us", "children_overlap_us"] {
                if let Some(v) = n[side][time].as_f64() {
                    assert!(v >= 0.0, "{} {side} {time}: {v}", n["path"]);
                }
            }
        }
        todo.extend(n["children"].as_array().unwrap());
    }
}

fn child_keys(n: &Value) -> Vec<(String, String)> {
    n["children"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["key"].as_str().unwrap().to_string(),
                c["status"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

#[test]
fn a_compiled_model_pairs_with_its_eager_self_and_keeps_its_compiled_graphs_inside() {
    let json_text = ok(&["modules", EAGER, COMPILED, "--format", "json"]);
    insta::assert_snapshot!(json_text);
    let root: Value = serde_json::from_str(&json_text).unwrap();
    no_negative_time(&root);
    // Every kernel of the step: the compiled graph's kernel has no operator around its launch.
    assert_eq!(root["control"]["device_total_us"], 100);
    assert_eq!(root["test"]["device_total_us"], 115);
    let model = &root["children"][0];
    assert_eq!(
        (model["key"].as_str(), model["status"].as_str()),
        (Some("GPT2LMHeadModel"), Some("matched"))
    );
    assert_eq!(model["wrappers"]["test"], serde_json::json!(["OptimizedModule"]));
    // The dynamo frame left open at profiler stop no longer pulls the compiled forward out.
    let region = &model["children"][1];
    assert_eq!(region["key"], "Torch-Compiled Region");
    assert_eq!(region["children"][0]["key"], "CompiledFunction");
    assert_eq!(
        region["children"][0]["children"][0]["key"],
        "## Call CompiledFxGraph ##"
    );
    // The backward graph's call is in the backward subtree only, never also under the step.
    let step_keys = child_keys(&root);
    assert_eq!(
        step_keys.iter().map(|(k, _)| k.as_str()).collect::<Vec<_>>(),
        ["GPT2LMHeadModel", "backward", "(unknown)"]
    );
    let mirror = &root["children"][1]["children"][0];
    assert_eq!(
        (mirror["key"].as_str(), mirror["status"].as_str()),
        (Some("GPT2LMHeadModel.backward"), Some("matched"))
    );
    assert_eq!(mirror["children"][1]["key"], "CompiledFunctionBackward");
    assert_eq!(
        mirror["children"][1]["children"][0]["key"],
        "## Call CompiledFxGraph ##"
    );
}

#[test]
fn compiled_graphs_align_across_runs_whatever_their_hashes() {
    let root = json(&["modules", COMPILED, COMPILED2]);
    let mut todo = vec![&root];
    while let Some(n) = todo.pop() {
        assert!(
            matches!(n["status"].as_str(), Some("matched" | "unknown")),
            "{}",
            n["path"]
        );
        todo.extend(n["children"].as_array().unwrap());
    }
}

#[test]
fn ddp_all_reduce_threads_overlap_and_the_comm_hook_kernel_counts() {
    let root = json(&["modules", EAGER, DDP]);
    no_negative_time(&root);
    // 40 µs forward, 60 µs backward and the hook's 29 µs launched with no operator.
    assert_eq!(root["test"]["device_total_us"], 129);
    // The all-reduces ran beside the backward: their overlap is reported, the rest stays ≥ 0.
    assert_eq!(root["test"]["children_overlap_us"], 350);
    assert!(root["control"].get("children_overlap_us").is_none());
    let model = &root["children"][0];
    assert_eq!(
        (model["key"].as_str(), model["status"].as_str()),
        (Some("GPT2LMHeadModel"), Some("matched"))
    );
    assert_eq!(
        model["wrappers"]["test"],
        serde_json::json!(["DistributedDataParallel"])
    );
    let table = ok(&["modules", EAGER, DDP, "--order", "logical"]);
    assert!(table.contains("gloo:all_reduce ×2"), "{table}");
    assert!(table.contains("matched ∥"), "{table}");
    let unfolded = ok(&["modules", EAGER, DDP, "--order", "logical", "--no-fold"]);
    assert!(unfolded.contains("gloo:all_reduce[1]"), "{unfolded}");
}

/// A trace of `levels` nested module frames (one operator with a kernel at the bottom).
pub(crate) fn nested_trace(dir: &std::path::Path, name: &str, levels: usize) -> String {
    let mut events = vec![format!(
        r#"{{"ph":"X","cat":"user_annotation","name":"ProfilerStep#1","pid":1,"tid":1,"ts":0,"dur":{}}}"#,
        4 * levels + 100
    )];
    for k in 0..levels {
        events.push(format!(
            r#"{{"ph":"X","cat":"python_function","name":"nn.Module: Block_{k}","pid":1,"tid":1,"ts":{},"dur":{}}}"#,
            1 + 2 * k,
            4 * levels + 50 - 4 * k
        ));
    }
    let ts = 2 * levels + 5;
    events.push(format!(
        r#"{{"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":1,"ts":{ts},"dur":10}}"#
    ));
    events.push(format!(
        r#"{{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":{},"dur":3,"args":{{"correlation":1}}}}"#,
        ts + 1
    ));
    events.push(format!(
        r#"{{"ph":"X","cat":"kernel","name":"gemm","pid":0,"tid":7,"ts":{},"dur":4,"args":{{"correlation":1,"stream":7,"device":0}}}}"#,
        ts + 5
    ));
    let path = dir.join(name);
    std::fs::write(&path, format!(r#"{{"traceEvents":[{}]}}"#, events.join(","))).unwrap();
    path.display().to_string()
}

/// Cuts `n`'s tree below `levels` levels (children `[]`), without recursion.
fn cut_below(n: &mut Value, levels: usize) {
    let mut todo = vec![(n, 0)];
    while let Some((n, level)) = todo.pop() {
        let Some(children) = n["children"].as_array_mut() else {
            continue;
        };
        if level >= levels {
            children.clear();
        } else {
            todo.extend(children.iter_mut().map(|c| (c, level + 1)));
        }
    }
}

/// A tree deeper than 32 levels is written as compact JSON (pretty-printing indents each level
/// further: its size grew with the square of the depth); the same document, on one line.
#[test]
fn deep_trees_are_written_as_compact_json() {
    let dir = tempfile::TempDir::new().unwrap();
    let shallow = nested_trace(dir.path(), "shallow.json", 20);
    let text = ok(&["modules", &shallow, &shallow, "--format", "json"]);
    assert!(text.lines().count() > 20, "a shallow tree stays pretty-printed");
    let deep = nested_trace(dir.path(), "deep.json", 40);
    let compact = ok(&["modules", &deep, &deep, "--format", "json"]);
    assert_eq!(compact.lines().count(), 1, "{compact}");
    let pretty = ok(&["modules", &deep, &deep, "--format", "json", "--depth", "32"]);
    assert!(pretty.lines().count() > 32);
    let (mut compact, pretty): (Value, Value) = (
        serde_json::from_str(&compact).unwrap(),
        serde_json::from_str(&pretty).unwrap(),
    );
    cut_below(&mut compact, 32);
    assert_eq!(compact, pretty);
}

/// Per-node significance over the steps of `fixtures/gate` (5 steps a side): the linear layers'
/// kernels run twice as long in `kernel2x`, the ReLUs do not change.
#[test]
fn nodes_whose_time_changed_beyond_noise_are_significant() {
    const BASE: &str = "fixtures/gate/base";
    const SLOW: &str = "fixtures/gate/kernel2x";
    let root = json(&["modules", BASE, SLOW, "--iteration", "all"]);
    assert_eq!(root["compared"]["significance_measure"], "device_total");
    let sig = |path: &str| node(&root, path)["significant"].clone();
    for k in 0..3 {
        assert_eq!(
            sig(&format!("aten::linear[{k}]")),
            Value::Bool(true),
            "aten::linear[{k}]"
        );
        assert_eq!(sig(&format!("aten::relu[{k}]")), Value::Bool(false), "aten::relu[{k}]");
    }
    assert_eq!(sig("Optimizer.step#SGD.step[0]"), Value::Bool(false));
    // The same program twice: nothing stands out.
    let same = json(&["modules", BASE, "fixtures/gate/noise", "--iteration", "all"]);
    let mut todo = vec![&same];
    while let Some(n) = todo.pop() {
        assert_eq!(n["significant"], Value::Bool(false), "{}", n["path"]);
        todo.extend(n["children"].as_array().into_iter().flatten());
    }
    // --only-significant keeps the changed nodes (and the step above them).
    let only = json(&["modules", BASE, SLOW, "--iteration", "all", "--only-significant"]);
    let kept: Vec<&str> = only["children"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|c| c["path"].as_str().unwrap_or_default())
        .collect();
    assert_eq!(kept, ["aten::linear[0]", "aten::linear[1]", "aten::linear[2]"]);
    let csv = ok(&[
        "modules",
        BASE,
        SLOW,
        "--iteration",
        "all",
        "--format",
        "csv",
        "--only-significant",
    ]);
    assert!(
        csv.lines().next().unwrap_or_default().ends_with(",significant"),
        "{csv}"
    );
    assert!(csv.lines().skip(1).all(|l| l.ends_with(",true")), "{csv}");
    let table = ok(&["modules", BASE, SLOW, "--iteration", "all", "--depth", "1"]);
    assert!(
        table.contains("4 of 9 nodes (sig *) changed their device time"),
        "{table}"
    );
    // One step: no estimate, output as before, and a note says why.
    let r = run(&["modules", BASE, SLOW, "--iteration", "1", "--format", "csv"]);
    assert!(!r.stdout.contains("significant"), "{}", r.stdout);
    assert!(r.stderr.contains("significant is null"), "{}", r.stderr);
}

/// 6,000 nested module frames: `modules` and `report` exit 0 (and CSV and JSON at 1,500 levels),
/// in memory linear in the depth (docs/modules.md#scale; the JSON's paths alone grow with its
/// square).
#[test]
fn six_thousand_nested_modules() {
    let dir = tempfile::TempDir::new().unwrap();
    let deep = nested_trace(dir.path(), "deep.json", 6000);
    let table = ok(&["modules", &deep, &deep]);
    assert!(
        table.contains("6,000 matched, 0 added, 0 deleted below the step"),
        "{table}"
    );
    let report = dir.path().join("deep.html");
    let r = run(&["report", &deep, &deep, "-o", report.to_str().unwrap()]);
    assert_eq!(r.code, 0, "report: {}", r.stderr);
    // CSV and JSON print every node's full path, so their bytes grow with the square of the
    // depth (about 500 MB at 6,000 levels): 1,500 levels keep the test's files small.
    let deep = nested_trace(dir.path(), "deep1500.json", 1500);
    for (format, name) in [("csv", "deep.csv"), ("json", "deep.json.out")] {
        let out = dir.path().join(name);
        let r = run(&["modules", &deep, &deep, "--format", format, "-o", out.to_str().unwrap()]);
        assert_eq!(r.code, 0, "{format}: {}", r.stderr);
    }
    let csv_bytes = std::fs::metadata(dir.path().join("deep.csv")).unwrap().len();
    assert!(csv_bytes > 1500 * 1500 / 2 * 8, "{csv_bytes} bytes of CSV");
}

/// The table's top row is the step: a `--zoom` path may start with its name.
#[test]
fn a_zoom_path_may_start_with_the_step() {
    let c = "fixtures/modules/control";
    let t = "fixtures/modules/test";
    assert_eq!(
        ok(&["modules", c, t, "--zoom", "ProfilerStep/Net/Sequential"]),
        ok(&["modules", c, t, "--zoom", "Net/Sequential"])
    );
    assert_eq!(ok(&["modules", c, t, "--zoom", "ProfilerStep"]), ok(&["modules", c, t]));
}

/// A model 3,000 modules deep renders whole (`--depth 10000`) with lines as wide as at 32
/// levels: past that, a line draws its first 8 levels, `… N levels … ` and its last 24, so the
/// table grows with the depth, not its square (6,000 levels drew 289 MB; docs/commands.md#modules).
#[test]
fn a_deep_tree_draws_a_bounded_prefix() {
    let dir = tempfile::TempDir::new().unwrap();
    let depth = 3000;
    let mut events = vec![
        serde_json::json!({"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1",
        "pid": 1, "tid": 1, "ts": 0, "dur": 4 * depth + 100}),
    ];
    for k in 0..depth {
        events.push(
            serde_json::json!({"ph": "X", "cat": "python_function", "name": format!("nn.Module: L{k}_0"),
            "pid": 1, "tid": 1, "ts": 1 + 2 * k, "dur": 4 * depth - 4 * k}),
        );
    }
    let path = dir.path().join("deep.json");
    std::fs::write(&path, serde_json::json!({ "traceEvents": events }).to_string()).unwrap();
    let p = path.to_str().unwrap();
    let r = run(&["modules", p, p, "--depth", "10000"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let lines: Vec<&str> = r.stdout.lines().collect();
    assert!(lines.len() > depth, "{}", lines.len());
    // Every line within what 32 levels of drawing, a key and the value columns take.
    let widest = lines.iter().map(|l| l.chars().count()).max().unwrap();
    assert!(widest < 300, "{widest}");
    assert!(r.stdout.len() < 1_500_000, "{}", r.stdout.len());
    let deepest = lines.iter().find(|l| l.contains("L2999[0]")).unwrap();
    assert!(deepest.contains(&format!(" … {} levels … ", 2999 - 32)), "{deepest}");
    // Down to 32 levels the drawing is whole.
    let shallow = lines.iter().find(|l| l.contains("L31[0]")).unwrap();
    assert!(
        shallow.starts_with(&format!(" {}├─ L31[0]", "│  ".repeat(31))),
        "{shallow}"
    );
}
