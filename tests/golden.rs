//! tracediff against HTA 0.5.0's own output on real traces (`../shared/golden`).
//!
//! The test carries a small, independent model of HTA's TraceDiff whose deliberate
//! departures (docs/semantics.md#differences-from-hta) are switches:
//!   - `hta_rounding`: HTA rounds `ts` up and `ts + dur` down to whole µs (point 2);
//!   - `link_stream0`: tracediff links device events on stream 0 to their launch (point 1);
//!   - `device_by_category`: tracediff counts `gpu_user_annotation` as GPU (point 7);
//!   - `host_by_category`: host categories are host even with `args.stream` (point 8);
//!   - `place_uncorrelated`: device events without a correlation are placed by `ts` (point 8).
//!
//! With HTA's settings the model must reproduce every golden CSV and ops_diff list exactly;
//! with tracediff's settings it must reproduce tracediff's rows exactly. So tracediff equals
//! HTA but for the listed points, and `tests/snapshots/golden__hta_differences.snap` writes
//! down, per pair, which rows differ and which point explains each.
//!
//! Skips, with a printed reason, when `../shared` is not beside the repository.

use crate::common;

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write;
use std::path::Path;
use tracediff::commands::{CompareOptions, CompareRequest, compare};
use tracediff::{Category, Comparison, Device, Naming, Pick, Resolved, SideSelection, shorten_name};
use tracediff_trace::input::attrs::AttrRequest;
use tracediff_trace::input::load::{Side, load_side};
use tracediff_trace::model::iteration::step_number;
use tracediff_trace::model::store::TraceFile;

#[derive(Clone, Copy, Debug)]
struct Rules {
    hta_rounding: bool,
    link_stream0: bool,
    device_by_category: bool,
    host_by_category: bool,
    place_uncorrelated: bool,
}

const HTA: Rules = Rules {
    hta_rounding: true,
    link_stream0: false,
    device_by_category: false,
    host_by_category: false,
    place_uncorrelated: false,
};
const TRACEDIFF: Rules = Rules {
    hta_rounding: false,
    link_stream0: true,
    device_by_category: true,
    host_by_category: true,
    place_uncorrelated: true,
};

/// Design docs/semantics.md#host-and-device-events, written out here rather than taken from the library.
const HOST_CATEGORIES: [&str; 7] = [
    "cpu_op",
    "Operator",
    "user_annotation",
    "python_function",
    "cuda_runtime",
    "cuda_driver",
    "Runtime",
];
const DEVICE_CATEGORIES: [&str; 7] = [
    "kernel",
    "gpu_memcpy",
    "gpu_memset",
    "gpu_user_annotation",
    "Kernel",
    "Memcpy",
    "Memset",
];

/// Per name: (count, total duration in ns).
type Totals = BTreeMap<String, (u64, i64)>;

/// Python's float() of the decimal µs text the trace held (at most three decimals).
fn micros_f64(ns: i64) -> f64 {
    let sign = if ns < 0 { "-" } else { "" };
    format!("{sign}{}.{:03}", ns.unsigned_abs() / 1000, ns.unsigned_abs() % 1000)
        .parse()
        .unwrap()
}

/// (ts, dur) in ns after the rules' rounding.
fn times(rules: Rules, ts_ns: i64, dur_ns: i64) -> (i64, i64) {
    if !rules.hta_rounding {
        return (ts_ns, dur_ns);
    }
    let ts = micros_f64(ts_ns);
    let end = ts + micros_f64(dur_ns);
    let (ts_r, end_r) = (ts.ceil() as i64, end.floor() as i64);
    (ts_r * 1000, (end_r - ts_r) * 1000)
}

/// HTA's TraceDiff on one trace file, written from HTA's source (trace.py, trace_diff.py).
/// `iterations`: `None` takes every event (a trace without ProfilerStep, which HTA refuses).
fn model(file: &TraceFile, rules: Rules, iterations: Option<&[i64]>, device: &str, naming: Naming) -> Totals {
    let e = &file.events;
    let name = |i: usize| file.strings.resolve(e.name[i]);
    let n = e.len();
    let t: Vec<(i64, i64)> = (0..n).map(|i| times(rules, e.ts_ns[i], e.dur_ns[i])).collect();
    let steps: Vec<(i64, i64, i64)> = (0..n)
        .filter_map(|i| step_number(name(i)).map(|s| (t[i].0, t[i].1, s)))
        .collect();
    let cat = |i: usize| file.strings.resolve(e.cat[i]);
    let host_cat = |i: usize| HOST_CATEGORIES.contains(&cat(i)) || cat(i).ends_with("_runtime");
    // Where the event ran, for the device filter.
    let on_device = |i: usize| {
        if rules.host_by_category && host_cat(i) {
            false
        } else if rules.device_by_category {
            DEVICE_CATEGORIES.contains(&cat(i)) || e.stream.get(i) >= 0
        } else {
            e.stream.get(i) != -1
        }
    };
    // Whether the event is placed as a device event (through its launch) rather than by its ts.
    let device_event = |i: usize| {
        if rules.host_by_category {
            on_device(i)
        } else {
            e.stream.get(i) >= 0
        }
    };
    let step_at = |ts: i64| {
        let mut it = -1;
        for &(s_ts, s_dur, num) in &steps {
            if s_ts <= ts && ts < s_ts + s_dur {
                it = num;
            }
        }
        it
    };
    let mut iteration: Vec<Option<i64>> = vec![None; n];
    for i in 0..n {
        if !device_event(i) {
            iteration[i] = Some(step_at(t[i].0));
        }
    }
    let is_sync = |i: usize| name(i) == "Event Sync" || name(i) == "Context Sync";
    let mut partner: BTreeMap<i64, usize> = BTreeMap::new();
    for i in 0..n {
        let gpu_side = if rules.host_by_category {
            on_device(i)
        } else {
            (e.stream.get(i) >= 0 && e.correlation.get(i) >= 0) || is_sync(i)
        };
        if e.correlation.get(i) != -1 && !gpu_side {
            partner.insert(e.correlation.get(i), i);
        }
    }
    let linked = |s: i64| rules.link_stream0 || s > 0;
    for i in 0..n {
        if !device_event(i) {
            continue;
        }
        if rules.place_uncorrelated && e.correlation.get(i) == -1 {
            iteration[i] = Some(step_at(t[i].0));
        } else if linked(e.stream.get(i)) {
            let p = partner.get(&e.correlation.get(i)).copied();
            // HTA ignores a partner at traceEvents index 0 (`index_correlation > 0`).
            iteration[i] = Some(match p {
                Some(p) if e.correlation.get(i) != -1 && e.index[p] > 0 => iteration[p].unwrap_or(-1),
                _ => -1,
            });
        }
    }
    let mut out = Totals::new();
    for i in 0..n {
        if !iterations.is_none_or(|iters| iteration[i].is_some_and(|it| iters.contains(&it))) {
            continue;
        }
        let keep = match device {
            "CPU" => !on_device(i),
            "GPU" => on_device(i),
            _ => true,
        };
        if !keep {
            continue;
        }
        let key = match naming {
            Naming::Name => name(i).to_string(),
            Naming::ShortName => shorten_name(name(i)),
        };
        let slot = out.entry(key).or_default();
        slot.0 += 1;
        slot.1 += t[i].1;
    }
    out
}

/// Rows as (name, control, test).
type Rows = BTreeMap<String, ((u64, i64), (u64, i64))>;

fn join(c: &Totals, t: &Totals) -> Rows {
    let names: BTreeSet<&String> = c.keys().chain(t.keys()).collect();
    names
        .into_iter()
        .map(|k| {
            (
                k.clone(),
                (
                    c.get(k).copied().unwrap_or_default(),
                    t.get(k).copied().unwrap_or_default(),
                ),
            )
        })
        .collect()
}

struct Pair {
    golden: &'static str,
    control: &'static str,
    test: &'static str,
    control_rank: Option<i64>,
    test_rank: Option<i64>,
    control_iteration: Option<i64>,
    test_iteration: Option<i64>,
}

const fn pair(golden: &'static str, control: &'static str, test: &'static str) -> Pair {
    Pair {
        golden,
        control,
        test,
        control_rank: None,
        test_rank: None,
        control_iteration: None,
        test_iteration: None,
    }
}

fn pairs() -> Vec<Pair> {
    let mut v = vec![
        pair("hta_trace_compare", "hta_trace_compare/base", "hta_trace_compare/test"),
        pair("hta_trace_diff", "hta_trace_diff/control", "hta_trace_diff/test"),
        Pair {
            control_iteration: Some(1010),
            test_iteration: Some(1012),
            ..pair(
                "hta_trace_diff_iter1010_1012",
                "hta_trace_diff/control",
                "hta_trace_diff/test",
            )
        },
        Pair {
            control_rank: Some(0),
            test_rank: Some(1),
            ..pair("hta_two_ranks", "hta_two_ranks", "hta_two_ranks")
        },
        pair(
            "kineto_resnet50_workers",
            "kineto_resnet50_workers/w0",
            "kineto_resnet50_workers/w4",
        ),
        pair(
            "tracelens_bert_small",
            "tracelens_bert_small/h100",
            "tracelens_bert_small/mi300",
        ),
        Pair {
            control_rank: Some(2),
            test_rank: Some(2),
            ..pair(
                "torch_cpu_multi_rank_r2",
                "torch_cpu/multi_rank/control",
                "torch_cpu/multi_rank/test",
            )
        },
    ];
    for (g, c, t) in [
        (
            "torch_cpu_fused_op",
            "torch_cpu/fused_op/control",
            "torch_cpu/fused_op/test",
        ),
        (
            "torch_cpu_identical",
            "torch_cpu/identical/control",
            "torch_cpu/identical/test",
        ),
        (
            "torch_cpu_linear_dims",
            "torch_cpu/linear_dims/control",
            "torch_cpu/linear_dims/test",
        ),
        (
            "torch_cpu_loss_fn",
            "torch_cpu/loss_fn/control",
            "torch_cpu/loss_fn/test",
        ),
        (
            "torch_cpu_multi_rank",
            "torch_cpu/multi_rank/control",
            "torch_cpu/multi_rank/test",
        ),
        (
            "torch_cpu_precision",
            "torch_cpu/precision/control",
            "torch_cpu/precision/test",
        ),
    ] {
        v.push(pair(g, c, t));
    }
    v
}

/// Golden CSV rows: name -> (control count, control µs, test count, test µs) as printed.
fn read_golden_csv(path: &Path) -> BTreeMap<String, [f64; 4]> {
    let mut r = csv::Reader::from_path(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    r.records()
        .map(|rec| {
            let rec = rec.unwrap();
            let num = |k: usize| rec[k].parse::<f64>().unwrap();
            (rec[0].to_string(), [num(1), num(2), num(3), num(4)])
        })
        .collect()
}

fn pick(p: Option<i64>) -> Pick {
    p.map_or(Pick::Lowest, |v| Pick::List(vec![v]))
}

/// The comparison `tracediff compare` gives for `req`.
fn compared(req: &CompareRequest) -> Comparison {
    compare(req, &CompareOptions::default()).unwrap().value
}

/// The one file of `side` that `resolved` selects, and its steps.
fn side_file<'a>(side: &'a Side, resolved: &Resolved) -> (&'a TraceFile, Vec<i64>) {
    assert_eq!(resolved.ranks.len(), 1);
    (
        side.file_of_rank(resolved.ranks[0]).unwrap(),
        resolved.iterations.clone().expect("golden traces have steps"),
    )
}

#[cfg_attr(
    tracediff_no_shared,
    ignore = "needs ../shared (real traces, HTA's output), absent when the tests were built: put it beside the repository or set TRACEDIFF_SHARED"
)]
#[test]
fn every_golden_pair_matches_hta_but_for_the_documented_differences() {
    let Some(shared) = common::shared("golden", "the golden suite") else {
        return;
    };
    let traces = shared.join("traces");
    let mut report = String::new();
    for p in pairs() {
        let golden = shared.join("golden").join(p.golden);
        let control = load_side(&traces.join(p.control), &AttrRequest::default()).unwrap();
        let test = load_side(&traces.join(p.test), &AttrRequest::default()).unwrap();
        let c_sel = SideSelection {
            ranks: pick(p.control_rank),
            iterations: pick(p.control_iteration),
        };
        let t_sel = SideSelection {
            ranks: pick(p.test_rank),
            iterations: pick(p.test_iteration),
        };
        // The ranks and steps the selection resolves to, as the command resolves them.
        let mut req = CompareRequest::new(traces.join(p.control), traces.join(p.test));
        req.control_selection = c_sel.clone();
        req.test_selection = t_sel.clone();
        let first = compared(&req);
        let (c_file, c_iters) = side_file(&control, &first.control.resolved);
        let (t_file, t_iters) = side_file(&test, &first.test.resolved);
        let _ = writeln!(report, "{}:", p.golden);
        for (device_name, device) in [("ALL", Device::All), ("CPU", Device::Cpu), ("GPU", Device::Gpu)] {
            for naming in [Naming::Name, Naming::ShortName] {
                let tag = format!("{} {device_name} {}", p.golden, naming.column());
                let run = |rules| {
                    join(
                        &model(c_file, rules, Some(&c_iters), device_name, naming),
                        &model(t_file, rules, Some(&t_iters), device_name, naming),
                    )
                };
                // 1. The HTA model reproduces HTA's CSV exactly.
                let hta = run(HTA);
                let suffix = if naming == Naming::Name { "name" } else { "short" };
                let gold = read_golden_csv(&golden.join(format!("compare_{device_name}_{suffix}.csv")));
                assert_eq!(
                    hta.keys().collect::<Vec<_>>(),
                    gold.keys().collect::<Vec<_>>(),
                    "{tag}: HTA model rows"
                );
                for (name, ((cc, cd), (tc, td))) in &hta {
                    let want = gold[name];
                    let got = [*cc as f64, *cd as f64 / 1000.0, *tc as f64, *td as f64 / 1000.0];
                    assert_eq!(got, want, "{tag}: HTA model row {name}");
                }
                // 2. tracediff equals the model with tracediff's rules, to the nanosecond.
                let ours_model = run(TRACEDIFF);
                let mut req = req.clone();
                req.device = device;
                req.naming = naming;
                let cmp = compared(&req);
                let ours: Rows = cmp
                    .rows
                    .iter()
                    .map(|r| {
                        (
                            r.name.clone(),
                            ((r.control.count, r.control.dur_ns), (r.test.count, r.test.dur_ns)),
                        )
                    })
                    .collect();
                assert_eq!(ours, ours_model, "{tag}: tracediff vs its model");
                // 3. ops_diff lists (full names) equal HTA's.
                if naming == Naming::Name {
                    let text = std::fs::read_to_string(golden.join(format!("ops_diff_{device_name}.json"))).unwrap();
                    let want: BTreeMap<String, Vec<String>> = serde_json::from_str(&text).unwrap();
                    for cat in Category::ALL {
                        let got: Vec<String> = hta
                            .iter()
                            .filter(|(_, ((cc, _), (tc, _)))| category(*cc, *tc) == cat)
                            .map(|(n, _)| n.clone())
                            .collect();
                        let mut want_list = want[cat.as_str()].clone();
                        want_list.sort();
                        assert_eq!(got, want_list, "{tag}: ops_diff {cat}");
                    }
                }
                // 4. Which rows differ from HTA, and why.
                let _ = writeln!(
                    report,
                    "  {device_name} {}: {}",
                    naming.column(),
                    explain(&hta, &ours_model, run)
                );
            }
        }
    }
    insta::assert_snapshot!("hta_differences", report);
}

/// Traces with no HTA output that show docs/semantics.md#differences-from-hta (point 8): Triton launch `cpu_op`s with `args.stream`,
/// MTIA device events without a correlation. Each is compared with itself; tracediff must equal
/// its model, and the snapshot records which rows the HTA-rules model gives differently and why.
#[cfg_attr(
    tracediff_no_shared,
    ignore = "needs ../shared (real traces, HTA's output), absent when the tests were built: put it beside the repository or set TRACEDIFF_SHARED"
)]
#[test]
fn point_8_traces_match_the_model_and_differ_from_hta_only_by_point_8() {
    let Some(shared) = common::shared("traces", "the point 8 traces") else {
        return;
    };
    let mut report = String::new();
    for f in ["triton_example", "torch_compile_triton", "mtia_rank_0"] {
        let path = shared.join("traces/edge").join(format!("{f}.json.gz"));
        let side = load_side(&path, &AttrRequest::default()).unwrap();
        let resolved = compared(&CompareRequest::new(&path, &path)).control.resolved;
        let file = side.file_of_rank(resolved.ranks[0]).unwrap();
        let iters = resolved.iterations.as_deref();
        let _ = writeln!(report, "{f}:");
        for (device_name, device) in [("ALL", Device::All), ("CPU", Device::Cpu), ("GPU", Device::Gpu)] {
            let run = |rules| {
                let m = model(file, rules, iters, device_name, Naming::Name);
                join(&m, &m)
            };
            let mut req = CompareRequest::new(&path, &path);
            req.device = device;
            let cmp = compared(&req);
            let ours: Rows = cmp
                .rows
                .iter()
                .map(|r| {
                    (
                        r.name.clone(),
                        ((r.control.count, r.control.dur_ns), (r.test.count, r.test.dur_ns)),
                    )
                })
                .collect();
            let ours_model = run(TRACEDIFF);
            assert_eq!(ours, ours_model, "{f} {device_name}: tracediff vs its model");
            let _ = writeln!(report, "  {device_name} name: {}", explain(&run(HTA), &ours_model, run));
        }
    }
    insta::assert_snapshot!("point_8_differences", report);
}

fn category(c: u64, t: u64) -> Category {
    match (c, t) {
        (0, _) => Category::Added,
        (_, 0) => Category::Deleted,
        (c, t) if t > c => Category::Increased,
        (c, t) if t < c => Category::Decreased,
        _ => Category::Unchanged,
    }
}

/// Counts the rows where tracediff and HTA differ, attributing each to the docs/semantics.md#differences-from-hta points whose
/// switch alone changes that row.
fn explain(hta: &Rows, ours: &Rows, run: impl Fn(Rules) -> Rows) -> String {
    // "durations only": the point changes no count, only total durations.
    let differing: BTreeSet<&String> = hta
        .keys()
        .chain(ours.keys())
        .filter(|k| hta.get(*k) != ours.get(*k))
        .collect();
    if differing.is_empty() {
        return "identical".to_string();
    }
    let toggles = [
        (
            "ns rounding (3.7.2)",
            Rules {
                hta_rounding: false,
                ..HTA
            },
        ),
        (
            "stream 0 (3.7.1)",
            Rules {
                link_stream0: true,
                ..HTA
            },
        ),
        (
            "gpu_user_annotation (3.7.7)",
            Rules {
                device_by_category: true,
                ..HTA
            },
        ),
        (
            "host categories (3.7.8)",
            Rules {
                host_by_category: true,
                ..HTA
            },
        ),
        (
            "uncorrelated device events (3.7.8)",
            Rules {
                place_uncorrelated: true,
                ..HTA
            },
        ),
    ];
    let mut parts = Vec::new();
    let mut explained: BTreeSet<&String> = BTreeSet::new();
    for (label, rules) in toggles {
        let alt = run(rules);
        let rows: Vec<&&String> = differing.iter().filter(|k| hta.get(**k) != alt.get(**k)).collect();
        if !rows.is_empty() {
            explained.extend(rows.iter().copied().copied());
            let only_counts_same = rows.iter().all(|k| {
                let a = hta.get(**k).map(|((c, _), (t, _))| (*c, *t));
                let b = alt.get(**k).map(|((c, _), (t, _))| (*c, *t));
                a == b
            });
            let what = if only_counts_same {
                "durations only"
            } else {
                "counts too"
            };
            parts.push(format!("{} rows by {label}, {what}", rows.len()));
        }
    }
    let unexplained = differing.len() - explained.len();
    assert_eq!(
        unexplained, 0,
        "rows differing from HTA that no docs/semantics.md#differences-from-hta point explains"
    );
    format!("{} rows differ: {}", differing.len(), parts.join("; "))
}

/// `compare --hta` and `ops-diff --hta` through the binary equal HTA's CSV and lists exactly on
/// the pairs where HTA and tracediff agree (the others differ only as the suite above explains),
/// while the default rows of the same pairs leave the Python frames out.
#[cfg_attr(
    tracediff_no_shared,
    ignore = "needs ../shared (real traces, HTA's output), absent when the tests were built: put it beside the repository or set TRACEDIFF_SHARED"
)]
#[test]
fn the_hta_flag_gives_htas_table_through_the_command_line() {
    let Some(shared) = common::shared("golden", "the golden suite") else {
        return;
    };
    let traces = shared.join("traces");
    let cases: [(&str, &str, &str, &[&str]); 3] = [
        ("hta_trace_diff", "hta_trace_diff/control", "hta_trace_diff/test", &[]),
        (
            "hta_trace_diff_iter1010_1012",
            "hta_trace_diff/control",
            "hta_trace_diff/test",
            &["--control-iteration", "1010", "--test-iteration", "1012"],
        ),
        (
            "hta_two_ranks",
            "hta_two_ranks",
            "hta_two_ranks",
            &["--control-rank", "0", "--test-rank", "1"],
        ),
    ];
    for (golden, control, test, extra) in cases {
        let (c, t) = (traces.join(control), traces.join(test));
        let (c, t) = (c.to_str().unwrap(), t.to_str().unwrap());
        for device in ["ALL", "CPU", "GPU"] {
            for (suffix, naming) in [("name", None), ("short", Some("--short-names"))] {
                let dev = device.to_lowercase();
                let mut args = vec![
                    "compare",
                    c,
                    t,
                    "--hta",
                    "--device",
                    &dev,
                    "--format",
                    "csv",
                    "--no-save",
                ];
                args.extend(naming);
                args.extend_from_slice(extra);
                let out = common::ok(&args);
                let dir = tempfile::TempDir::new().unwrap();
                let ours = dir.path().join("ours.csv");
                std::fs::write(&ours, &out).unwrap();
                let want = read_golden_csv(
                    &shared
                        .join("golden")
                        .join(golden)
                        .join(format!("compare_{device}_{suffix}.csv")),
                );
                assert_eq!(
                    read_golden_csv(&ours),
                    want,
                    "{golden} {device} {suffix}: compare --hta"
                );
            }
            let dev = device.to_lowercase();
            let mut args = vec!["ops-diff", c, t, "--hta", "--device", &dev, "--format", "json"];
            args.extend_from_slice(extra);
            let ours: BTreeMap<String, Vec<String>> = serde_json::from_str(&common::ok(&args)).unwrap();
            let text = std::fs::read_to_string(
                shared
                    .join("golden")
                    .join(golden)
                    .join(format!("ops_diff_{device}.json")),
            )
            .unwrap();
            let want: BTreeMap<String, Vec<String>> = serde_json::from_str(&text).unwrap();
            for (cat, names) in want {
                let mut names = names;
                names.sort();
                let mut got = ours[&cat].clone();
                got.sort();
                assert_eq!(got, names, "{golden} {device}: ops-diff --hta {cat}");
            }
        }
    }
}

/// On a `with_stack` pair, `--hta` keeps HTA's rows (Python frames with their addresses; the
/// counts equal HTA's, durations differ only by its rounding) and the default drops the frames.
#[cfg_attr(
    tracediff_no_shared,
    ignore = "needs ../shared (real traces, HTA's output), absent when the tests were built: put it beside the repository or set TRACEDIFF_SHARED"
)]
#[test]
fn the_hta_flag_keeps_python_frames_that_the_default_drops() {
    let Some(shared) = common::shared("golden", "the golden suite") else {
        return;
    };
    let traces = shared.join("traces");
    let (c, t) = (
        traces.join("torch_cpu/loss_fn/control"),
        traces.join("torch_cpu/loss_fn/test"),
    );
    let (c, t) = (c.to_str().unwrap(), t.to_str().unwrap());
    let dir = tempfile::TempDir::new().unwrap();
    let rows = |extra: &[&str]| {
        let mut args = vec!["compare", c, t, "--format", "csv", "--no-save"];
        args.extend_from_slice(extra);
        let path = dir.path().join("ours.csv");
        std::fs::write(&path, common::ok(&args)).unwrap();
        read_golden_csv(&path)
    };
    let counts = |m: &BTreeMap<String, [f64; 4]>| -> BTreeMap<String, (f64, f64)> {
        m.iter().map(|(n, v)| (n.clone(), (v[0], v[2]))).collect()
    };
    let gold = read_golden_csv(&shared.join("golden/torch_cpu_loss_fn/compare_ALL_name.csv"));
    assert_eq!(counts(&rows(&["--hta"])), counts(&gold));
    let default = rows(&[]);
    assert!(gold.keys().any(|n| n.contains(" at 0x")));
    assert!(
        default
            .keys()
            .all(|n| !n.contains(" at 0x7") && !n.starts_with("nn.Module:")),
        "{:?}",
        default.keys()
    );
    assert!(
        default.len() < gold.len() / 2,
        "{} default rows, {} HTA rows",
        default.len(),
        gold.len()
    );
}
