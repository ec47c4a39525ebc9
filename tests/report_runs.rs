//! `tracediff report` with sides of runs (docs/semantics.md#report): every number the page
//! embeds equals the CLI's views with the same runs (`operators`, `kernels`, `kernels
//! --by-class` with `--zoom`, `modules` with its between-run marks, `overview`, `compare`), the
//! header names the runs and steps, the page says which judgement its marks are, and (with
//! chromium and chromedriver installed) the page opens without errors.

use crate::common::{self, json};
use crate::report::{data, no_errors, node_paths, url};
use crate::webdriver::{Driver, browser};
use serde_json::Value;
use std::path::Path;
use tempfile::TempDir;

const FUSED: [&str; 2] = ["fixtures/replicates/fused/control", "fixtures/replicates/fused/test"];

/// Writes the report of `pair` into `dir` (with `extra` arguments, as `report`'s tests do);
/// returns its path and data.
fn report(pair: [&str; 2], dir: &Path, extra: &[&str]) -> (String, Value) {
    let (path, page) = crate::report::report(pair, dir, extra);
    (path, data(&page))
}

/// Two runs a side of a GPU pair with modules (`fixtures/modules`: control and test each copied
/// as `run1/`, `run2/`): device tables, kernel classes, added and deleted nodes.
fn module_runs(dir: &Path) -> [String; 2] {
    for side in ["control", "test"] {
        for r in ["run1", "run2"] {
            let to = dir.join(side).join(r);
            std::fs::create_dir_all(&to).unwrap();
            std::fs::copy(format!("fixtures/modules/{side}/trace.json"), to.join("trace.json")).unwrap();
        }
    }
    ["control", "test"].map(|s| dir.join(s).display().to_string())
}

/// A CLI value as the page writes it: a count per step to two decimals, a time in ns.
fn page_value(measure: &str, v: &Value) -> Value {
    match v.as_f64() {
        None => Value::Null,
        Some(x) if measure == "calls" => Value::from((x * 100.0).round() / 100.0),
        Some(x) => Value::from((x * 1000.0).round() as i64),
    }
}

/// Every embedded table of every node equals the view with `--zoom` on the same runs, row by
/// row and measure by measure (its per-step values), and each row's mark (between runs) as the
/// view's `significant`.
fn tables_equal_the_views(pair: [&str; 2], d: &Value) {
    let names = d["names"].as_array().unwrap();
    let paths = node_paths(d);
    let (mut checked, mut marks) = (0, 0);
    for (index, t) in d["tables"].as_object().unwrap() {
        let path = &paths[index.parse::<usize>().unwrap()];
        let views: [(&str, &[&str], &str); 3] = [
            ("op", &["operators"], "opMeasures"),
            ("k", &["kernels"], "kMeasures"),
            ("kc", &["kernels", "--by-class"], "kMeasures"),
        ];
        for (kind, cmd, measures) in views {
            let mut args = cmd.to_vec();
            args.extend(pair);
            if !path.is_empty() {
                args.extend(["--zoom", path.as_str()]);
            }
            let cli = json(&args);
            let rows = cli["rows"].as_array().unwrap();
            if kind != "kc" {
                assert_eq!(t[kind]["total"].as_u64().unwrap() as usize, rows.len(), "{args:?}");
            }
            let measures = d[measures].as_array().unwrap();
            // The rows' marks (between runs) for the measure the view judges.
            let judged = measures.iter().position(|m| m == &cli["significance_measure"]);
            for (i, r) in t[kind]["rows"].as_array().unwrap().iter().enumerate() {
                let name = &names[r[0].as_u64().unwrap() as usize];
                let want = rows.iter().find(|w| &w["name"] == name).unwrap();
                if let Some(k) = judged {
                    let got = t[kind].get("g").map_or(&Value::Null, |g| &g[i][k]);
                    assert_eq!(got, &want["significant"], "{args:?} {name} marked");
                    marks += 1;
                }
                for (k, m) in measures.iter().enumerate() {
                    let m = m.as_str().unwrap();
                    for (side, got) in [("control", &r[1 + k]), ("test", &r[1 + measures.len() + k])] {
                        // The per-step field (docs/fields.md); a kernel's mean, min and max have
                        // none: steps do not divide them.
                        let unit = if m == "calls" { "" } else { "_us" };
                        let key = format!("{side}_{m}_per_step{unit}");
                        let Some(value) = want.get(&key).or_else(|| want.get(format!("{side}_{m}{unit}"))) else {
                            continue;
                        };
                        assert_eq!(*got, page_value(m, value), "{args:?} {name} {key}");
                        checked += 1;
                    }
                }
            }
        }
    }
    assert!(checked > 100, "{checked} values compared");
    assert!(marks > 10, "{marks} marks compared");
}

/// The page's node list equals `modules`' tree (per-step values), its marks `modules --time
/// host` and `--time device`'s between-run marks.
fn tree_equals_modules(pair: [&str; 2], d: &Value) {
    fn walk<'a>(n: &'a Value, out: &mut Vec<&'a Value>) {
        out.push(n);
        for c in n["children"].as_array().into_iter().flatten() {
            walk(c, out);
        }
    }
    let paths = node_paths(d);
    for (time, mark) in [("host", 0), ("device", 1)] {
        let cli = json(&["modules", pair[0], pair[1], "--time", time]);
        let mut nodes = Vec::new();
        walk(&cli, &mut nodes);
        assert_eq!(nodes.len(), paths.len());
        for (n, path) in d["nodes"].as_array().unwrap().iter().zip(&paths) {
            let want = nodes.iter().find(|w| w["path"] == *path.as_str()).unwrap();
            for (page, side) in [(&n["c"], "control"), (&n["t"], "test")] {
                let w = &want[side];
                if w.is_null() {
                    assert!(page.is_null(), "{path}");
                    continue;
                }
                assert_eq!(page[0], w["calls"], "{path}");
                assert_eq!(page[1], page_value("host", &w["host_total_us"]), "{path}");
                assert_eq!(page[2], page_value("device", &w["device_total_us"]), "{path}");
            }
            assert_eq!(n["g"][mark], want["significant"], "{path} {time}");
        }
    }
}

/// The page's ops-diff lists hold `compare`'s per-step rows.
fn ops_diff_equals_compare(pair: [&str; 2], d: &Value) {
    let cli = json(&["compare", pair[0], pair[1], "--no-save"]);
    let rows = cli["rows"].as_array().unwrap();
    let mut seen = 0;
    for list in d["opsDiff"]["lists"].as_array().unwrap() {
        for r in list["rows"].as_array().unwrap() {
            let want = rows.iter().find(|w| w["name"] == r[0]).unwrap();
            assert_eq!(r[1], page_value("calls", &want["control_count_per_step"]), "{r}");
            assert_eq!(r[2], page_value("calls", &want["test_count_per_step"]), "{r}");
            assert_eq!(r[3], page_value("time", &want["control_total_per_step_us"]), "{r}");
            assert_eq!(r[4], page_value("time", &want["test_total_per_step_us"]), "{r}");
            seen += 1;
        }
    }
    assert_eq!(seen, rows.len());
}

#[test]
fn a_report_of_runs_embeds_the_cli_views_with_runs() {
    let dir = TempDir::new().unwrap();
    let (_, d) = report(FUSED, dir.path(), &[]);
    for side in 0..2 {
        assert_eq!(d["sides"][side]["runs"], 3);
        assert_eq!(d["sides"][side]["run_steps"], serde_json::json!([3, 3, 3]));
    }
    assert_eq!(d["runs"], serde_json::json!([3, 3]));
    assert_eq!(d["significance"]["judged"], "runs");
    assert_eq!(d["significance"]["estimated"], true);
    tables_equal_the_views(FUSED, &d);
    tree_equals_modules(FUSED, &d);
    ops_diff_equals_compare(FUSED, &d);
    assert_eq!(d["overview"], json(&["overview", FUSED[0], FUSED[1]]));
    // The fused op is new and marked between runs; the step got faster.
    let paths = node_paths(&d);
    let fused = paths.iter().position(|p| p == "aten::fused[0]").unwrap();
    assert_eq!(d["nodes"][fused]["g"][0], true);
    assert_eq!(d["nodes"][0]["g"][0], true);
    // No device events: no kernel sequences.
    assert!(d["aligned"].is_null() && d["alignedRuns"].is_null());
}

#[test]
fn a_report_of_gpu_runs_embeds_device_tables_and_the_first_runs_sequences() {
    let dir = TempDir::new().unwrap();
    let pair = module_runs(dir.path());
    let pair = [pair[0].as_str(), pair[1].as_str()];
    let (_, d) = report(pair, dir.path(), &[]);
    assert_eq!(d["hasDevice"], true);
    tables_equal_the_views(pair, &d);
    tree_equals_modules(pair, &d);
    ops_diff_equals_compare(pair, &d);
    assert_eq!(d["overview"], json(&["overview", pair[0], pair[1]]));
    // The sequences are the first run's of each side, as `kernels --aligned` of those runs.
    assert_eq!(
        d["alignedRuns"],
        serde_json::json!([format!("{}/run1", pair[0]), format!("{}/run1", pair[1])])
    );
    let runs = [format!("{}/run1", pair[0]), format!("{}/run1", pair[1])];
    let aligned = json(&["kernels", &runs[0], &runs[1], "--aligned"]);
    assert_eq!(
        d["aligned"]["total"].as_u64().unwrap() as usize,
        aligned["rows"].as_array().unwrap().len()
    );
}

/// One run against three: the views' rule, and no marks, with the note that says why.
#[test]
fn a_report_of_one_run_against_runs_says_why_nothing_is_marked() {
    let dir = TempDir::new().unwrap();
    let control = format!("{}/run1", FUSED[0]);
    let pair = [control.as_str(), FUSED[1]];
    let (_, d) = report(pair, dir.path(), &[]);
    assert_eq!(d["runs"], serde_json::json!([1, 3]));
    assert_eq!(d["significance"]["estimated"], false);
    assert_eq!(
        d["significance"]["note"],
        format!("significant is null: the test between runs needs 2 or more runs per side; control has 1, test 3")
    );
    assert!(d["nodes"][0].get("g").is_none());
    tables_equal_the_views(pair, &d);
    assert_eq!(d["overview"], json(&["overview", pair[0], pair[1]]));
}

/// `compare --report` writes the same page of runs, its values per step.
#[test]
fn compare_writes_a_report_of_runs() {
    let dir = TempDir::new().unwrap();
    let path = dir.path().join("c.html").display().to_string();
    common::ok(&["compare", FUSED[0], FUSED[1], "--report", &path, "--no-save"]);
    let d = data(&std::fs::read_to_string(&path).unwrap());
    assert_eq!(d["sides"][0]["runs"], 3);
    let mul = d["opsDiff"]["lists"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|l| l["rows"].as_array().unwrap())
        .find(|r| r[0] == "aten::mul")
        .unwrap();
    // 3 calls a step in every control run, none in test.
    assert_eq!((&mul[1], &mul[2]), (&Value::from(3.0), &Value::from(0.0)));
    ops_diff_equals_compare(FUSED, &d);
}

/// `operators --zoom` on a node that only one side's runs have: that side's rows, the other
/// side's none (it was refused: each run looked for the node in its own tree); a node no run
/// has is still refused.
#[test]
fn a_zoom_into_a_node_only_some_runs_have() {
    let v = json(&["operators", FUSED[0], FUSED[1], "--zoom", "aten::mul[0]"]);
    let rows = v["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 1, "{v:#}");
    assert_eq!(rows[0]["name"], "aten::mul");
    assert_eq!(rows[0]["control_calls_per_step"], 1.0);
    assert_eq!(rows[0]["test_calls_per_step"], 0.0);
    let e = common::fails(&["operators", FUSED[0], FUSED[1], "--zoom", "nope[0]"]);
    assert!(e.starts_with("--zoom 'nope[0]': no such node"), "{e}");
}

#[cfg_attr(
    tracediff_no_browser,
    ignore = "needs chromium and chromedriver on PATH, absent when the tests were built: apt-get install -y chromium chromium-driver"
)]
#[test]
fn browser_opens_a_report_of_runs() {
    let Some(b) = browser() else { return };
    let dir = TempDir::new().unwrap();
    let pair = module_runs(dir.path());
    for (pair, sequences) in [(FUSED, false), ([pair[0].as_str(), pair[1].as_str()], true)] {
        let (path, _) = report(pair, dir.path(), &[]);
        let d = Driver::start(&b);
        crate::report::goto(&d, &url(&path));
        let header = d.exec(r##"return document.querySelector("#compared").textContent"##);
        let header = header.as_str().unwrap();
        let steps = if sequences {
            "2 runs × 1 step"
        } else {
            "3 runs × 3 steps"
        };
        assert!(header.contains(steps), "{header}");
        assert!(header.contains("Significancebetween runs"), "{header}");
        let legend = d.exec(r##"return document.querySelector("#exec-legend").textContent"##);
        assert!(
            legend.as_str().unwrap().contains("beyond the scatter between runs"),
            "{legend}"
        );
        let runs = d.exec(r##"const p = document.querySelector("#seq-runs"); return p ? p.textContent : null"##);
        assert_eq!(runs.is_string(), sequences, "{runs}");
        let rows = d.exec(r##"return document.querySelectorAll("#op-table tbody tr").length"##);
        assert!(rows.as_u64().unwrap() > 0);
        no_errors(&d);
    }
}

/// The "Why" section of a report of runs: `explain`'s reading over the same runs (its rows
/// judged between runs, each side's figures gathered from all of its runs), where the page of
/// runs had none (`explain` read one run a side).
#[test]
fn a_report_of_runs_says_why_as_explain_on_the_runs() {
    let dir = TempDir::new().unwrap();
    let (path, _) = report(FUSED, dir.path(), &[]);
    let page = std::fs::read_to_string(&path).unwrap();
    let start = page.find(r#"<section id="why""#).expect("a why section");
    let section = &page[start..start + page[start..].find("</section>").unwrap()];
    let e = json(&["explain", FUSED[0], FUSED[1]]);
    let summary = e["summary"].as_str().unwrap();
    assert!(
        section.contains(&format!("<p id=\"why-summary\">{summary}</p>")),
        "{section}"
    );
    let rows: Vec<&str> = section.lines().filter(|l| l.starts_with("<tr><td")).collect();
    assert_eq!(rows.len(), e["rows"].as_array().unwrap().len(), "{section}");
    assert!(
        rows[0].starts_with(r#"<tr><td class="name" title="aten::mul"><code>aten::mul</code></td><td>-363 µs</td><td class="sig">*</td>"#),
        "{section}"
    );
}

/// The headline of a report of runs names the noise its mark is judged against: the spread
/// between runs (it said "step-to-step noise", the rule of one run a side).
#[test]
fn a_report_of_runs_headline_names_the_noise_between_runs() {
    let dir = TempDir::new().unwrap();
    let (path, _) = report(FUSED, dir.path(), &[]);
    let page = std::fs::read_to_string(&path).unwrap();
    let want = "Significant: the step&#39;s host time changed beyond run-to-run noise (the spread between runs).";
    let at = page.find("id=\"headline\"").unwrap();
    assert!(page.contains(want), "{}", &page[at..at + 400]);
}
