//! One meaning per field name (docs/fields.md): for the same pair, a field of a given name holds
//! the same number in CSV, JSON, the views' Markdown and from summaries (Parquet) as from the
//! traces. Before, `compare --format csv` wrote the values per step under `control_counts` and
//! `control_total_duration` while `--format json` wrote the sums under the same names.

use crate::common::{json, ok};
use serde_json::Value;
use std::collections::BTreeMap;

/// A pair of 3 steps a side: its rows are per step, so sums and per-step values differ.
const PAIR: [&str; 2] = ["fixtures/basic/control", "fixtures/basic/test"];

/// A CSV's rows by their first field (the key; with `by_key` the first two joined), each as
/// header → cell.
fn csv_rows(text: &str, key_fields: usize) -> BTreeMap<String, BTreeMap<String, String>> {
    let mut r = csv::Reader::from_reader(text.as_bytes());
    let headers: Vec<String> = r.headers().unwrap().iter().map(String::from).collect();
    r.records()
        .map(|rec| {
            let rec = rec.unwrap();
            let key = (0..key_fields).map(|i| &rec[i]).collect::<Vec<_>>().join(" → ");
            let cells = headers.iter().cloned().zip(rec.iter().map(String::from)).collect();
            (key, cells)
        })
        .collect()
}

/// The JSON rows by name (with `key_fields` 2, `operator → name`).
fn json_rows(doc: &Value, key_fields: usize) -> BTreeMap<String, serde_json::Map<String, Value>> {
    doc["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            let name = r["name"].as_str().unwrap().to_string();
            let key = match (key_fields, r.get("operator").and_then(Value::as_str)) {
                (2, Some(op)) => format!("{op} → {name}"),
                _ => name,
            };
            (key, r.as_object().unwrap().clone())
        })
        .collect()
}

/// Every CSV field that JSON has under the same name holds the same value; returns how many
/// were compared, and fails if a JSON value field is missing from the CSV's (or the reverse)
/// among `must_share`.
fn same_in_csv_and_json(args: &[&str], key_fields: usize, must_share: &[&str]) -> usize {
    let mut csv_args = args.to_vec();
    csv_args.extend(["--format", "csv"]);
    let csv = csv_rows(&ok(&csv_args), key_fields);
    let doc = json(args);
    let rows = json_rows(&doc, key_fields);
    assert_eq!(csv.len(), rows.len(), "{args:?}");
    let mut compared = 0;
    for (key, cells) in &csv {
        let j = &rows[key];
        for field in must_share {
            assert!(cells.contains_key(*field), "{args:?}: CSV has no {field}");
            assert!(j.contains_key(*field), "{args:?}: JSON has no {field} ({key})");
        }
        for (field, text) in cells {
            let Some(v) = j.get(field) else { continue };
            let same = match v {
                Value::Number(n) => text.parse::<f64>().ok() == n.as_f64(),
                Value::Null => text.is_empty(),
                Value::Bool(b) => text == &b.to_string(),
                Value::String(s) => text == s,
                other => panic!("{field}: {other}"),
            };
            assert!(same, "{args:?} {key}: {field} is {text} in CSV, {v} in JSON");
            compared += 1;
        }
    }
    compared
}

/// The number a Markdown cell shows: a count (`3`, `+1.5`), a duration (`150 µs`, `-1.50 ms`)
/// in µs, or `None` for a blank.
fn shown_number(cell: &str) -> Option<f64> {
    // A ratio (`×2.25`) reads as its number.
    let cell = cell.trim().trim_start_matches('+').trim_start_matches('×');
    if cell == "-" || cell.is_empty() {
        return None;
    }
    let (num, scale) = match cell.split_once(' ') {
        Some((n, "ns")) => (n, 1e-3),
        Some((n, "µs")) => (n, 1.0),
        Some((n, "ms")) => (n, 1e3),
        Some((n, "s")) => (n, 1e6),
        Some((_, unit)) => panic!("unit {unit} in {cell}"),
        None => (cell, 1.0),
    };
    num.parse::<f64>().ok().map(|v| v * scale)
}

/// A Markdown table's rows by name (the backticks taken off), header → cell.
fn markdown_rows(text: &str) -> BTreeMap<String, BTreeMap<String, String>> {
    let mut lines = text.lines().filter(|l| l.starts_with('|'));
    let split = |l: &str| -> Vec<String> {
        l.trim_matches('|')
            .split(" | ")
            .map(|c| c.trim().replace('\\', ""))
            .collect()
    };
    let headers = split(lines.next().unwrap());
    lines
        .skip(1)
        .map(|l| {
            let cells = split(l);
            let name = cells[0].trim_matches('`').to_string();
            (name, headers.iter().cloned().zip(cells).collect())
        })
        .collect()
}

#[test]
fn compare_writes_each_field_with_one_meaning_in_csv_and_json() {
    let [c, t] = PAIR;
    let args = ["compare", c, t, "--no-save"];
    let fields = [
        "control_count",
        "control_total_us",
        "test_count",
        "test_total_us",
        "diff_count",
        "diff_total_us",
        "control_count_per_step",
        "control_total_per_step_us",
        "test_count_per_step",
        "test_total_per_step_us",
        "diff_count_per_step",
        "diff_total_per_step_us",
        "counts_change_categories",
    ];
    assert!(same_in_csv_and_json(&args, 1, &fields) >= 17 * fields.len());
    // The sums are 3 steps of the per-step values: the two meanings have two names.
    let doc = json(&args);
    let mm = &json_rows(&doc, 1)["aten::mm"];
    assert_eq!(mm["control_count"], 3, "{mm:?}");
    assert_eq!(mm["control_count_per_step"], 1.0, "{mm:?}");
    assert_eq!(mm["control_total_us"], 180, "{mm:?}");
    assert_eq!(mm["control_total_per_step_us"], 60, "{mm:?}");
    assert_eq!(doc["summary"]["control_total_us"], 4527, "{doc:#}");
    assert_eq!(doc["mean_step_time_us"]["control"], 1000, "{doc:#}");
}

/// The old names are gone from the default CSV and JSON (they meant per step in one and sums in
/// the other), and stay, HTA's, in `compare --hta`'s CSV only.
#[test]
fn the_old_ambiguous_names_are_only_in_htas_csv() {
    let [c, t] = PAIR;
    let old = [
        "control_counts",
        "control_total_duration",
        "diff_counts",
        "diff_duration",
    ];
    let csv = ok(&["compare", c, t, "--no-save", "--format", "csv"]);
    let header = csv.lines().next().unwrap();
    let json = ok(&["compare", c, t, "--no-save", "--format", "json"]);
    for name in old {
        assert!(!header.split(',').any(|h| h == name), "{header}");
        assert!(!json.contains(&format!("\"{name}\"")), "{name} in the JSON");
    }
    assert!(!json.contains("\"per_step\""), "a nested per_step object");
    let hta = ok(&["compare", c, t, "--no-save", "--hta", "--format", "csv"]);
    assert_eq!(
        hta.lines().next().unwrap(),
        "name,control_counts,control_total_duration,test_counts,test_total_duration,diff_counts,diff_duration,counts_change_categories"
    );
    // --hta is one step a side: HTA's counts are that step's.
    assert!(hta.lines().any(|l| l.starts_with("aten::mm,1,")), "{hta}");
}

#[test]
fn the_views_write_each_field_with_one_meaning_in_csv_json_and_markdown() {
    let [c, t] = PAIR;
    let cases: [(&[&str], usize, &[&str]); 3] = [
        (
            &["operators", c, t],
            1,
            &[
                "control_calls",
                "control_calls_per_step",
                "control_host_self_us",
                "control_host_self_per_step_us",
                "diff_device_total_per_step_us",
            ],
        ),
        (
            &["kernels", c, t],
            1,
            &[
                "control_calls",
                "control_device_total_us",
                "test_device_total_per_step_us",
                "control_device_mean_us",
            ],
        ),
        (
            &["kernels", c, t, "--by-operator"],
            2,
            &["control_calls_per_step", "diff_device_total_us"],
        ),
    ];
    for (args, key_fields, fields) in cases {
        assert!(same_in_csv_and_json(args, key_fields, fields) > 0, "{args:?}");
        if key_fields == 2 {
            continue;
        }
        // Markdown shows each value rounded for people, under the field it is.
        let mut md_args = args.to_vec();
        md_args.extend(["--format", "markdown"]);
        let md = markdown_rows(&ok(&md_args));
        let doc = json(args);
        let rows = json_rows(&doc, 1);
        let mut compared = 0;
        for (name, cells) in &md {
            for (field, cell) in cells {
                let Some(Value::Number(n)) = rows[name].get(field) else {
                    continue;
                };
                let (shown, exact) = (shown_number(cell), n.as_f64().unwrap());
                let shown = shown.unwrap_or_else(|| panic!("{args:?} {name} {field}: {cell}"));
                assert!(
                    (shown - exact).abs() <= 0.006 * exact.abs() + 0.01,
                    "{args:?} {name}: {field} shows {cell} in Markdown, {exact} in JSON"
                );
                compared += 1;
            }
        }
        assert!(compared > 0, "{args:?}: no Markdown header is a JSON field");
        assert!(
            md.values().next().unwrap().keys().any(|h| h.ends_with("_per_step")),
            "{md:?}"
        );
    }
}

/// The `--why` fields (docs/fields.md#why) hold one number in CSV, JSON and Markdown too, and
/// the parts sum to the row's Δ in each.
#[test]
fn the_why_fields_have_one_meaning_in_every_format() {
    let pair = ["fixtures/explain/control", "fixtures/explain/test"];
    let why = [
        "ratio_calls",
        "ratio_work",
        "ratio_efficiency",
        "ratio_time_per_call",
        "diff_calls_part_per_step_us",
        "diff_work_part_per_step_us",
        "diff_efficiency_part_per_step_us",
        "work_unit",
        "control_work_per_call",
        "test_work_per_call",
        "causes",
        "causes_via",
    ];
    let cases: [(Vec<&str>, usize, &str); 4] = [
        (
            vec!["operators", pair[0], pair[1], "--why"],
            1,
            "diff_device_total_per_step_us",
        ),
        (
            vec!["kernels", pair[0], pair[1], "--why"],
            1,
            "diff_device_total_per_step_us",
        ),
        (
            vec!["kernels", pair[0], pair[1], "--why", "--by-operator"],
            2,
            "diff_device_total_per_step_us",
        ),
        (
            vec!["compare", pair[0], pair[1], "--why", "--no-save"],
            1,
            "diff_total_per_step_us",
        ),
    ];
    for (args, key_fields, delta) in cases {
        assert!(same_in_csv_and_json(&args, key_fields, &why) > 0, "{args:?}");
        for (key, r) in json_rows(&json(&args), key_fields) {
            let part = |k: &str| r[k].as_f64().unwrap_or(0.0);
            let sum = part("diff_calls_part_per_step_us")
                + part("diff_work_part_per_step_us")
                + part("diff_efficiency_part_per_step_us");
            assert!((sum - part(delta)).abs() < 1e-9, "{args:?} {key}: {r:?}");
        }
        if args[0] == "compare" || key_fields == 2 {
            continue;
        }
        let mut md_args = args.clone();
        md_args.extend(["--format", "markdown"]);
        let md = markdown_rows(&ok(&md_args));
        let rows = json_rows(&json(&args), 1);
        for (name, cells) in &md {
            for field in ["ratio_calls", "ratio_work", "diff_work_part_per_step_us"] {
                let (Some(cell), Some(Value::Number(n))) = (cells.get(field), rows[name].get(field)) else {
                    continue;
                };
                let exact = n.as_f64().unwrap();
                let shown = shown_number(cell).unwrap();
                assert!(
                    (shown - exact).abs() <= 0.006 * exact.abs() + 0.01,
                    "{name} {field}: {cell} vs {exact}"
                );
            }
        }
    }
}

/// `compare` of the summaries (Parquet) of the traces writes the same fields, with the same
/// values, as `compare` of the traces.
#[test]
fn summaries_give_the_same_fields_as_the_traces() {
    let dir = tempfile::TempDir::new().unwrap();
    let mut sides = Vec::new();
    for (side, file) in PAIR.into_iter().zip(["trace.json", "trace.json.gz"]) {
        let out = dir.path().join(format!("{}.parquet", side.replace('/', "_")));
        let out = out.to_str().unwrap().to_string();
        ok(&["summarize", &format!("{side}/{file}"), "-o", &out]);
        sides.push(out);
    }
    let traces = json(&["compare", PAIR[0], PAIR[1], "--no-save"]);
    let summaries = json(&["compare", &sides[0], &sides[1], "--no-save"]);
    let (a, b) = (json_rows(&traces, 1), json_rows(&summaries, 1));
    assert_eq!(a.keys().collect::<Vec<_>>(), b.keys().collect::<Vec<_>>());
    for (name, row) in &a {
        for (field, v) in row {
            if field.starts_with("control_") || field.starts_with("test_") || field.starts_with("diff_") {
                assert_eq!(Some(v), b[name].get(field), "{name}: {field}");
            }
        }
    }
}

/// The value at a dotted `key` of a JSON object (`breakdown.idle.launch_per_step_us`).
fn at<'a>(v: &'a Value, key: &str) -> &'a Value {
    key.split('.').fold(v, |v, k| &v[k])
}

/// Whether a CSV cell and a JSON value hold the same thing (a number, text, or nothing).
fn same_cell(text: &str, v: &Value) -> bool {
    match v {
        Value::Number(n) => text.parse::<f64>().ok() == n.as_f64(),
        Value::Null => text.is_empty(),
        Value::String(s) => text == s,
        other => panic!("{other}"),
    }
}

/// Every time key of an overview object (the side's `breakdown`, a `per_step`, `per_rank` or
/// straggler row) says it is per step: the step time's parts are means per step, never sums.
fn times_per_step(v: &Value, place: &str) -> usize {
    let mut times = 0;
    for (k, inner) in v.as_object().unwrap() {
        if inner.is_object() {
            times += times_per_step(inner, &format!("{place}.{k}"));
        } else if k.ends_with("_us") {
            assert!(k.ends_with("_per_step_us"), "{place}.{k} holds µs per step");
            times += 1;
        }
    }
    times
}

/// The overview (issue 53): its CSV's metrics are the JSON's keys, each holding the same number
/// (side totals and each rank's rows), and every key of the step-time breakdown, whose values
/// are per step, says so (`breakdown.compute_per_step_us`), in the side's breakdown and in its
/// per-step, per-rank and straggler rows alike.
#[test]
fn the_overview_writes_each_field_with_one_meaning_in_csv_and_json() {
    let pairs: [(&str, &str, &[&str]); 3] = [
        ("fixtures/breakdown/control", "fixtures/breakdown/test", &["--per-step"]),
        ("fixtures/idle/control", "fixtures/idle/test", &["--per-step"]),
        (
            "fixtures/cpuranks/control",
            "fixtures/cpuranks/test",
            &["--rank", "all", "--per-step"],
        ),
    ];
    for (c, t, extra) in pairs {
        let mut args = vec!["overview", c, t];
        args.extend(extra);
        let doc = json(&args);
        // The CSV is a row per metric (the per-step rows are JSON's).
        let mut csv_args: Vec<&str> = args.iter().copied().filter(|a| *a != "--per-step").collect();
        csv_args.extend(["--format", "csv"]);
        let text = ok(&csv_args);
        let mut r = csv::Reader::from_reader(text.as_bytes());
        let headers: Vec<String> = r.headers().unwrap().iter().map(String::from).collect();
        let mut compared = 0;
        for rec in r.records() {
            let rec = rec.unwrap();
            let cell = |h: &str| headers.iter().position(|x| x == h).map(|i| &rec[i]);
            let key = &rec[0];
            match cell("rank").filter(|r| !r.is_empty()) {
                // Side totals: the JSON's side objects and its `diff`.
                None => {
                    for side in ["control", "test", "diff"] {
                        let v = at(&doc[side], key);
                        let text = cell(side).unwrap();
                        if side == "diff" && v.is_null() {
                            continue;
                        }
                        assert!(same_cell(text, v), "{args:?} {key}: {side} {text} in CSV, {v} in JSON");
                        compared += 1;
                    }
                }
                // A rank's rows: the same name in the JSON's `per_rank` row of that rank.
                Some(rank) => {
                    let Some(field) = key.strip_prefix("breakdown.") else {
                        continue;
                    };
                    for side in ["control", "test"] {
                        let Some(row) = doc[side]["per_rank"].as_array().and_then(|rows| {
                            rows.iter()
                                .find(|r| r["rank"].as_i64().map(|n| n.to_string()).as_deref() == Some(rank))
                        }) else {
                            continue;
                        };
                        let (text, v) = (cell(side).unwrap(), at(row, field));
                        assert!(same_cell(text, v), "{args:?} rank {rank} {key}: {side} {text} vs {v}");
                        compared += 1;
                    }
                }
            }
        }
        assert!(compared > 40, "{args:?}: {compared}");
        let mut times = 0;
        for side in ["control", "test"] {
            let s = &doc[side];
            if s["breakdown"].is_object() {
                times += times_per_step(&s["breakdown"], "breakdown");
            }
            for rows in ["per_step", "per_rank"] {
                for row in s[rows].as_array().into_iter().flatten() {
                    times += times_per_step(row, rows);
                }
            }
            for row in s["straggler"]["per_step"].as_array().into_iter().flatten() {
                times += times_per_step(row, "straggler.per_step");
            }
        }
        assert!(times > 10, "{args:?}");
    }
}

/// Every key of a JSON value that holds a time ends in `_us`: none in `_ns` (the gate wrote ns
/// where every other command writes µs).
fn no_ns_keys(v: &Value, place: &str) {
    match v {
        Value::Object(m) => {
            for (k, inner) in m {
                assert!(!k.ends_with("_ns"), "{place}.{k}: a time in ns");
                no_ns_keys(inner, &format!("{place}.{k}"));
            }
        }
        Value::Array(a) => a.iter().for_each(|inner| no_ns_keys(inner, place)),
        _ => {}
    }
}

/// The gate (issue 53): its times are µs in JSON and CSV alike, a rule's values in its `unit`
/// (`us` for timings), and the CSV's rule rows hold the JSON's numbers under the same names.
#[test]
fn the_gate_writes_times_in_us_with_one_meaning_in_csv_and_json() {
    let args = [
        "gate",
        "fixtures/gate/base",
        "fixtures/gate/kernel2x",
        "--max-step-time-regression",
        "5%",
        "--max-op-regression",
        "10%",
    ];
    let run = crate::common::run(&[&args[..], &["--format", "json"]].concat());
    assert_eq!(run.code, 1, "{}", run.stderr);
    let doc: Value = serde_json::from_str(&run.stdout).unwrap();
    no_ns_keys(&doc, "");
    let report = &doc["report"];
    assert_eq!(report["baseline"]["step_median_us"], 1522.0, "{report:#}");
    let top = &report["top_contributors"][0];
    let (b, c, d) = (
        top["baseline_per_step_us"].as_f64().unwrap(),
        top["candidate_per_step_us"].as_f64().unwrap(),
        top["diff_per_step_us"].as_f64().unwrap(),
    );
    assert!((c - b - d).abs() < 1e-6 && d > 1000.0, "{top}");
    let csv = crate::common::run(&[&args[..], &["--format", "csv"]].concat());
    let mut r = csv::Reader::from_reader(csv.stdout.as_bytes());
    let headers: Vec<String> = r.headers().unwrap().iter().map(String::from).collect();
    let rules = report["rules"].as_array().unwrap();
    let mut compared = 0;
    for (rec, rule) in r.records().zip(rules) {
        let rec = rec.unwrap();
        for (h, text) in headers.iter().zip(rec.iter()) {
            let v = &rule[h.as_str()];
            let same = match v {
                Value::Number(n) => text.parse::<f64>().ok() == n.as_f64(),
                Value::Null => text.is_empty(),
                Value::String(s) => text == s,
                other => panic!("{h}: {other}"),
            };
            assert!(same, "{}: {h} is {text} in CSV, {v} in JSON", rule["subject"]);
            compared += 1;
        }
    }
    assert!(compared >= 3 * headers.len(), "{compared}");
    assert_eq!(rules[0]["unit"], "us", "{:#}", rules[0]);
}
