//! `tracediff report`: the page's embedded numbers against the CLI views, its self-containment,
//! and (with chromium and chromedriver installed) the page driven in headless Chromium.

use crate::webdriver;

use crate::common;

use common::{ok as stdout, run};
use serde_json::Value;
use std::path::Path;
use tempfile::TempDir;
use webdriver::{Driver, browser};

const MODULES: [&str; 2] = ["fixtures/modules/control", "fixtures/modules/test"];
const VIEWS: [&str; 2] = ["fixtures/views/control", "fixtures/views/test"];

/// Writes the report of `pair` (with `extra` options) into `dir`; returns its path and text.
pub(crate) fn report(pair: [&str; 2], dir: &Path, extra: &[&str]) -> (String, String) {
    let path = dir.join("report.html").display().to_string();
    let mut args = vec!["report", pair[0], pair[1], "-o", &path];
    args.extend_from_slice(extra);
    let out = run(&args);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let text = std::fs::read_to_string(&path).unwrap();
    (path, text)
}

/// The JSON document embedded in the page.
pub(crate) fn data(page: &str) -> Value {
    let start = page
        .find(r##"<script type="application/json" id="report-data">"##)
        .unwrap();
    let body = &page[start..];
    let body = &body[body.find('>').unwrap() + 1..body.find("</script>").unwrap()];
    serde_json::from_str(body).unwrap()
}

/// The path of each node of the page's flat node list (`n[i]` below its parent `u`).
pub(crate) fn node_paths(d: &Value) -> Vec<String> {
    let mut paths: Vec<String> = Vec::new();
    for n in d["nodes"].as_array().unwrap() {
        let path = match n["u"].as_u64() {
            None => String::new(),
            Some(u) => {
                let segment = format!("{}[{}]", n["n"].as_str().unwrap(), n["i"]);
                let parent = &paths[u as usize];
                if parent.is_empty() {
                    segment
                } else {
                    format!("{parent}/{segment}")
                }
            }
        };
        paths.push(path);
    }
    paths
}

/// The page's flat node list as a nested tree: each node with its path under `p` and its
/// children under `ch` (parents come before their children in the list).
fn tree(d: &Value) -> Value {
    let paths = node_paths(d);
    let nodes = d["nodes"].as_array().unwrap();
    let mut made: Vec<Value> = nodes
        .iter()
        .zip(&paths)
        .map(|(n, p)| {
            let mut n = n.clone();
            n["p"] = Value::from(p.as_str());
            n
        })
        .collect();
    for k in (1..made.len()).rev() {
        let u = nodes[k]["u"].as_u64().unwrap() as usize;
        let child = made[k].take();
        let list = made[u]
            .as_object_mut()
            .unwrap()
            .entry("ch")
            .or_insert_with(|| Value::Array(Vec::new()));
        list.as_array_mut().unwrap().insert(0, child);
    }
    made.swap_remove(0)
}

fn us_to_ns(s: &str) -> i64 {
    (s.parse::<f64>().unwrap() * 1000.0).round() as i64
}

/// Every embedded table equals `tracediff operators|kernels --zoom PATH --format csv`.
fn tables_match_cli(pair: [&str; 2], d: &Value) {
    let names: Vec<&str> = d["names"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n.as_str().unwrap())
        .collect();
    let paths = node_paths(d);
    for (index, t) in d["tables"].as_object().unwrap() {
        let path = &paths[index.parse::<usize>().unwrap()];
        for (kind, cmd, measures) in [("op", "operators", &d["opMeasures"]), ("k", "kernels", &d["kMeasures"])] {
            let mut args = vec![cmd, pair[0], pair[1], "--format", "csv"];
            if !path.is_empty() {
                args.extend(["--zoom", path.as_str()]);
            }
            let csv = stdout(&args);
            let mut reader = csv::Reader::from_reader(csv.as_bytes());
            let header: Vec<String> = reader.headers().unwrap().iter().map(str::to_string).collect();
            let mut cli: Vec<(String, Vec<Option<i64>>)> = Vec::new();
            for record in reader.records() {
                let f = record.unwrap();
                let vals = measures
                    .as_array()
                    .unwrap()
                    .iter()
                    .flat_map(|m| {
                        let m = m.as_str().unwrap();
                        ["control", "test"].map(|side| {
                            // The values the page shows: per step where the rows are
                            // (docs/fields.md), else the sums.
                            let unit = if m == "calls" { "" } else { "_us" };
                            let col = header
                                .iter()
                                .position(|h| *h == format!("{side}_{m}_per_step{unit}"))
                                .or_else(|| header.iter().position(|h| *h == format!("{side}_{m}{unit}")));
                            col.and_then(|c| {
                                let v = &f[c];
                                (!v.is_empty()).then(|| if m == "calls" { v.parse().unwrap() } else { us_to_ns(v) })
                            })
                        })
                    })
                    .collect();
                cli.push((f[0].to_string(), vals));
            }
            let rows = t[kind]["rows"].as_array().unwrap();
            assert_eq!(t[kind]["total"].as_u64().unwrap() as usize, cli.len(), "{cmd} {path}");
            let m = measures.as_array().unwrap().len();
            for r in rows {
                let r = r.as_array().unwrap();
                let name = names[r[0].as_u64().unwrap() as usize];
                let (_, want) = cli.iter().find(|(n, _)| n == name).unwrap();
                for k in 0..m {
                    // The CSV carries only some kernel measures (mean), and every operator one.
                    for (side, v) in [(0, &r[1 + k]), (1, &r[1 + m + k])] {
                        if let Some(w) = want[2 * k + side] {
                            assert_eq!(v.as_i64(), Some(w), "{cmd} {path} {name} measure {k} side {side}");
                        }
                    }
                }
            }
        }
    }
}

/// Every embedded table's row marks (`g`, per measure) equal the `significant` of `tracediff
/// operators|kernels|kernels --by-class --zoom PATH --format json` for the measure each view
/// judges by default; returns how many rows are marked.
fn table_marks_match_cli(pair: [&str; 2], d: &Value) -> usize {
    let names = d["names"].as_array().unwrap();
    let paths = node_paths(d);
    let mut marked = 0;
    for (index, t) in d["tables"].as_object().unwrap() {
        let path = &paths[index.parse::<usize>().unwrap()];
        for (kind, view, measures) in [
            ("op", &["operators"][..], &d["opMeasures"]),
            ("k", &["kernels"][..], &d["kMeasures"]),
            ("kc", &["kernels", "--by-class"][..], &d["kMeasures"]),
        ] {
            let mut args = [view, &[pair[0], pair[1], "--format", "json"][..]].concat();
            if !path.is_empty() {
                args.extend(["--zoom", path.as_str()]);
            }
            let cli: Value = serde_json::from_str(&stdout(&args)).unwrap();
            let measure = cli["significance_measure"].as_str().unwrap();
            let k = measures.as_array().unwrap().iter().position(|m| m == measure).unwrap();
            let rows = t[kind]["rows"].as_array().unwrap();
            for (i, r) in rows.iter().enumerate() {
                let name = &names[r[0].as_u64().unwrap() as usize];
                let want = cli["rows"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .find(|c| &c["name"] == name)
                    .unwrap();
                let got = t[kind].get("g").map_or(&Value::Null, |g| &g[i][k]);
                assert_eq!(got, &want["significant"], "{args:?} {name}");
                marked += usize::from(got == &Value::Bool(true));
            }
        }
    }
    marked
}

/// The operator, kernel and class tables mark their rows as the views do: one run per side
/// against the steps' scatter (`fixtures/gate`: the linear layers' kernels doubled, at every
/// node that holds them); with one step a side nothing is judged and there is no `g`.
#[test]
fn table_rows_are_marked_as_the_views_mark_them() {
    let dir = TempDir::new().unwrap();
    let pair = ["fixtures/gate/base", "fixtures/gate/kernel2x"];
    let (_, page) = report(pair, dir.path(), &[]);
    let d = data(&page);
    assert!(
        table_marks_match_cli(pair, &d) >= 3,
        "the step's and each linear's rows"
    );
    let (_, page) = report(MODULES, dir.path(), &[]);
    let d = data(&page);
    table_marks_match_cli(MODULES, &d);
    let (_, page) = report(pair, dir.path(), &["--iteration", "1"]);
    let d = data(&page);
    assert!(d["tables"]["0"]["op"].get("g").is_none(), "{}", d["tables"]["0"]["op"]);
}

#[test]
fn embedded_numbers_equal_the_cli_views() {
    let dir = TempDir::new().unwrap();
    for pair in [MODULES, VIEWS] {
        let (_, page) = report(pair, dir.path(), &[]);
        let d = data(&page);
        tables_match_cli(pair, &d);
        let overview: Value =
            serde_json::from_str(&stdout(&["overview", pair[0], pair[1], "--format", "json"])).unwrap();
        assert_eq!(d["overview"], overview);
    }
}

#[test]
fn the_module_tree_is_the_modules_view() {
    let dir = TempDir::new().unwrap();
    let (_, page) = report(MODULES, dir.path(), &[]);
    let d = data(&page);
    let cli: Value = serde_json::from_str(&stdout(&["modules", MODULES[0], MODULES[1], "--format", "json"])).unwrap();
    fn check(page: &Value, cli: &Value) {
        assert_eq!(page["p"], cli["path"]);
        assert_eq!(page["s"], cli["status"]);
        for (p, c) in [(&page["c"], &cli["control"]), (&page["t"], &cli["test"])] {
            if c.is_null() {
                assert!(p.is_null());
                continue;
            }
            assert_eq!(p[0], c["calls"]);
            assert_eq!(p[1].as_i64().unwrap(), us_to_ns(&c["host_total_us"].to_string()));
        }
        let none = Vec::new();
        let (pc, cc) = (
            page["ch"].as_array().unwrap_or(&none),
            cli["children"].as_array().unwrap_or(&none),
        );
        // The CLI orders siblings by change; compare by path.
        assert_eq!(pc.len(), cc.len());
        for c in cc {
            let p = pc.iter().find(|p| p["p"] == c["path"]).unwrap();
            check(p, c);
        }
    }
    check(&tree(&d), &cli);
}

#[test]
fn the_page_is_self_contained() {
    let dir = TempDir::new().unwrap();
    let (_, page) = report(VIEWS, dir.path(), &[]);
    for bad in ["<link", "@import", "url(http", "fetch(", "XMLHttpRequest"] {
        assert!(!page.contains(bad), "the page contains {bad}");
    }
    // The two `src` are the flame graph's pictures, inside the page as data: URLs.
    assert_eq!(page.matches(" src=").count(), 2);
    for (i, _) in page.match_indices(" src=") {
        assert!(
            page[i..].starts_with(r#" src="data:image/svg+xml,"#),
            "a source outside the page"
        );
    }
    // The only URLs are XML namespaces of the inline SVG.
    for (i, _) in page.match_indices("http:").chain(page.match_indices("https:")) {
        let around = &page[i..(i + 40).min(page.len())];
        assert!(around.starts_with("http://www.w3.org/"), "a URL: {around}");
    }
    // Names never end the data's <script> element: `<` is escaped in the JSON.
    assert!(!data(&page)["names"].as_array().unwrap().is_empty());
    assert_eq!(page.matches("</script>").count(), 2, "the data and the script");
    // The counts and duration charts are inline SVG, well-formed XML that scales with the page.
    for id in ["chart-counts", "chart-duration"] {
        let start = page.find(&format!(r#"<figure class="chart" id="{id}">"#)).unwrap();
        let svg = &page[start..];
        let svg = &svg[svg.find("<svg").unwrap()..svg.find("</figure>").unwrap()];
        let doc = roxmltree::Document::parse(svg).unwrap_or_else(|e| panic!("{id}: {e}"));
        assert!(doc.root_element().attribute("viewBox").is_some(), "{id}");
        assert!(doc.root_element().attribute("width").is_none(), "{id}");
    }
}

/// The "Why" section: each operator whose self time moved, beside the line `explain` gives it
/// (fixtures/explain: a Linear layer widened, an op in bf16, an op gone, one new, a relu
/// called twice as often), with the changed kernels its words do not name; only rows that moved.
#[test]
fn the_why_section_puts_explains_line_beside_each_moved_row() {
    let dir = TempDir::new().unwrap();
    let pair = ["fixtures/explain/control", "fixtures/explain/test"];
    let (_, page) = report(pair, dir.path(), &[]);
    let start = page.find(r#"<section id="why""#).expect("a why section");
    let section = &page[start..start + page[start..].find("</section>").unwrap()];
    let rows: Vec<&str> = section.lines().filter(|l| l.starts_with("<tr><td")).collect();
    let row = |name: &str| {
        let at = format!(r#"<tr><td class="name" title="{name}">"#);
        *rows
            .iter()
            .find(|r| r.starts_with(&at))
            .unwrap_or_else(|| panic!("{name}: {section}"))
    };
    assert_eq!(rows.len(), 5, "{section}");
    assert_eq!(
        row("aten::mm"),
        "<tr><td class=\"name\" title=\"aten::mm\"><code>aten::mm</code></td><td>+100 µs</td>\
         <td class=\"sig\">*</td><td>0 ns</td><td>+125 µs</td><td>-25.0 µs</td><td class=\"why\">work ×2.25 \
         (dims [64, 512]×[512, 512] → [64, 768]×[768, 768]), efficiency ×1.12, calls same</td></tr>"
    );
    assert!(
        row("aten::addmm").ends_with(
            "<td class=\"why\">efficiency ×2.00 (float → c10::BFloat16), calls same, work same<br>\
             <span class=\"note\">kernels: ampere_sgemm_128x64_tn (gemm) → sm90_xmma_gemm_bf16bf16_bf16f32 \
             (gemm)</span></td></tr>"
        ),
        "{section}"
    );
    assert!(
        row("aten::bmm").contains("<td class=\"why\">calls gone (kernels: ampere_sgemm_32x32_nn (gemm) → none)</td>")
    );
    // The paragraph is explain's.
    let json = stdout(&["explain", pair[0], pair[1], "--format", "json"]);
    let summary = serde_json::from_str::<Value>(&json).unwrap()["summary"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        section.contains(&format!("<p id=\"why-summary\">{summary}</p>")),
        "{section}"
    );
    // A pair that did not change has no rows to explain, so no section.
    let (_, same) = report([pair[0], pair[0]], dir.path(), &[]);
    assert!(!same.contains(r#"<section id="why""#));
}

/// The Why paragraph knows the step time where each side used one step (it said "The step
/// time is not known" where the page's overview gave 167 ms → 424 ms), as `explain` does.
#[test]
fn the_why_paragraph_knows_a_single_steps_time() {
    let dir = TempDir::new().unwrap();
    let pair = ["fixtures/scenarios/resnet/control", "fixtures/scenarios/resnet/test"];
    let (_, page) = report(pair, dir.path(), &[]);
    assert!(
        page.contains("<p id=\"why-summary\">The step is +257 ms (+153.7%)."),
        "{page}"
    );
    let json = stdout(&["explain", pair[0], pair[1], "--format", "json"]);
    let summary = serde_json::from_str::<Value>(&json).unwrap()["summary"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(summary.starts_with("The step is +257 ms (+153.7%)."), "{summary}");
}

/// The page's charts show the 10 largest changes either way. They took `plot`'s (HTA's) default,
/// largest increase first, so on a run that got faster the heading's "top 10 by change" left out
/// what shrank most (fp32 → bf16: every fp32 kernel that went).
#[test]
fn the_charts_show_the_largest_changes_either_way() {
    let dir = TempDir::new().unwrap();
    let (_, page) = report(["fixtures/basic/control", "fixtures/basic/test"], dir.path(), &[]);
    let chart = |id: &str| {
        let start = page.find(&format!(r#"<figure class="chart" id="{id}">"#)).unwrap();
        page[start..start + page[start..].find("</figure>").unwrap()].to_string()
    };
    let duration = chart("chart-duration");
    assert!(duration.contains("by abs-diff-duration"), "{duration}");
    // aten::relu went (-25 µs), the third largest change of the 17 rows: 10 increases or
    // unchanged rows ranked above it by signed difference.
    assert!(duration.contains("aten::relu"), "{duration}");
    assert!(chart("chart-counts").contains("by abs-diff-counts"));
}

/// The page's overview rows are named as `tracediff overview` names them (it said "GPU
/// utilisation", "host busy per step" and "average allocated" beside the command's "GPU
/// utilization", "host ops busy per step" and "avg allocated").
#[test]
fn the_overview_rows_are_named_as_the_command_names_them() {
    let dir = TempDir::new().unwrap();
    let (_, page) = report(VIEWS, dir.path(), &[]);
    let overview = stdout(&["overview", VIEWS[0], VIEWS[1]]);
    for label in [
        "GPU busy per step",
        "GPU utilization",
        "host ops busy per step",
        "avg allocated",
        "peak allocated",
    ] {
        assert!(overview.contains(label), "overview: {label}");
        assert!(page.contains(&format!("\"{label}\"")), "report: {label}");
    }
    assert!(!page.contains("utilisation\""));
}

#[test]
fn a_report_needs_an_html_name_and_compare_writes_one_too() {
    let dir = TempDir::new().unwrap();
    let bad = dir.path().join("r.txt").display().to_string();
    let out = run(&["report", VIEWS[0], VIEWS[1], "-o", &bad]);
    assert_eq!(out.code, 2);
    assert!(out.stderr.contains("name it .html"), "{}", out.stderr);
    let good = dir.path().join("c.html");
    let g = good.display().to_string();
    let out = run(&["compare", VIEWS[0], VIEWS[1], "--no-save", "--report", &g]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let (_, page) = report(VIEWS, dir.path(), &[]);
    assert_eq!(
        std::fs::read_to_string(&good).unwrap(),
        page,
        "compare --report writes the report's page"
    );
}

/// `compare --report` writes `report`'s page on a pair whose graph replays join their
/// captures: it once loaded the sides under `compare`, which joins none, so its tables kept the
/// replays' Python wrappers where `report`'s show the captured operators.
#[test]
fn compare_writes_the_reports_page_where_replays_join_their_captures() {
    let pair = ["fixtures/graphs/replay", "fixtures/graphs/multistream"];
    let dir = TempDir::new().unwrap();
    let compared = dir.path().join("c.html").display().to_string();
    let out = run(&["compare", pair[0], pair[1], "--no-save", "--report", &compared]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let (_, page) = report(pair, dir.path(), &[]);
    let compared = std::fs::read_to_string(&compared).unwrap();
    assert_eq!(data(&compared), data(&page), "the embedded data");
    assert!(
        page.contains("vllm::moe_forward"),
        "the captured operators are in the page"
    );
    assert_eq!(compared, page, "compare --report writes the report's page");
}

// ---- in the browser --------------------------------------------------------------------------

/// A fresh browser showing the report of `pair` written into `dir`; `None` (the test skips)
/// where there is no browser.
pub(crate) fn open_report(pair: [&str; 2], dir: &Path) -> Option<Driver> {
    open_report_with(pair, dir, &[])
}

/// [`open_report`] with more arguments.
fn open_report_with(pair: [&str; 2], dir: &Path, args: &[&str]) -> Option<Driver> {
    let b = browser()?;
    let (path, _) = report(pair, dir, args);
    let d = Driver::start(&b);
    goto(&d, &url(&path));
    Some(d)
}

/// Opens a report page and waits until its script has drawn it: on a loaded machine that can
/// be after the navigation returns.
pub(crate) fn goto(d: &Driver, url: &str) {
    d.goto(url);
    d.wait_for("return window.__tracediffReady === true");
}

pub(crate) fn url(path: &str) -> String {
    format!("file://{}", std::fs::canonicalize(path).unwrap().display())
}

fn current(d: &Driver) -> String {
    d.exec(r##"return document.querySelector("#breadcrumb [aria-current]").textContent"##)
        .as_str()
        .unwrap()
        .to_string()
}

fn column(d: &Driver, table: &str, col: usize) -> Vec<String> {
    let script = format!(
        r##"return [...document.querySelectorAll("#{table} tbody tr")].map(tr => tr.children[{col}].textContent)"##
    );
    serde_json::from_value(d.exec(&script)).unwrap()
}

pub(crate) fn no_errors(d: &Driver) {
    let errors = d.exec("return window.__tracediffErrors");
    assert_eq!(errors, serde_json::json!([]), "errors on the page");
    assert_eq!(d.severe_logs(), Vec::<String>::new(), "console errors");
}

fn zoom(d: &Driver, path: &str, expect: &str) {
    // A mouse click on the bar's hit area (geckodriver's element click refuses an SVG <g>).
    d.click_at(&d.find(&format!(r##"#exec-chart .group[data-path="{path}"] rect.hit"##)));
    d.wait_for(&format!(
        r##"return document.querySelector("#breadcrumb [aria-current]").textContent === "{expect}""##
    ));
}

#[cfg_attr(
    tracediff_no_browser,
    ignore = "needs chromium and chromedriver on PATH, absent when the tests were built: apt-get install -y chromium chromium-driver"
)]
#[test]
fn browser_zoom_sort_filter_and_back() {
    let dir = TempDir::new().unwrap();
    let Some(d) = open_report(MODULES, dir.path()) else {
        return;
    };
    assert_eq!(current(&d), "ProfilerStep");
    // added, deleted and unknown children are drawn.
    let statuses: Vec<String> = serde_json::from_value(
        d.exec(r##"return [...document.querySelectorAll("#exec-chart .group")].map(g => g.dataset.status)"##),
    )
    .unwrap();
    assert!(statuses.contains(&"unknown".to_string()), "{statuses:?}");

    zoom(&d, "Net[0]", "Net[0]");
    assert_eq!(d.exec("return location.hash"), "#node=Net%5B0%5D");
    let statuses: Vec<String> = serde_json::from_value(
        d.exec(r##"return [...document.querySelectorAll("#exec-chart .group")].map(g => g.dataset.status)"##),
    )
    .unwrap();
    for s in ["added", "deleted", "unknown", "matched"] {
        assert!(statuses.contains(&s.to_string()), "{s} in {statuses:?}");
    }
    // The operator table follows the node: `operators --zoom Net[0]`, largest |Δ device total| first.
    assert_eq!(
        column(&d, "op-table", 0),
        [
            "aten::conv2d",
            "aten::linear",
            "aten::mul",
            "aten::native_layer_norm",
            "aten::add",
            "aten::embedding"
        ]
    );
    assert_eq!(column(&d, "op-table", 7)[0], "+66.7%");

    // Sort by test calls, descending then ascending.
    d.click(&d.find("#op-table thead th:nth-child(3) button"));
    assert_eq!(column(&d, "op-table", 2), ["5", "1", "1", "1", "0", "0"]);
    d.click(&d.find("#op-table thead th:nth-child(3) button"));
    assert_eq!(column(&d, "op-table", 2), ["0", "0", "1", "1", "1", "5"]);
    assert_eq!(
        d.exec(r##"return document.querySelector("#op-table thead th:nth-child(3)").getAttribute("aria-sort")"##),
        "ascending"
    );
    // Filter.
    d.type_into(&d.find("#op-filter"), "conv");
    assert_eq!(column(&d, "op-table", 0), ["aten::conv2d"]);

    // Deeper, then out with the Back button and the browser's back.
    zoom(&d, "Net[0]/Sequential[0]", "Sequential[0]");
    let deeper: Vec<String> = serde_json::from_value(
        d.exec(r##"return [...document.querySelectorAll("#exec-chart .group.zoomable")].map(g => g.dataset.path)"##),
    )
    .unwrap();
    if let Some(p) = deeper.first() {
        let last = p.rsplit('/').next().unwrap().to_string();
        zoom(&d, p, &last);
        d.back();
        d.wait_for(r##"return document.querySelector("#breadcrumb [aria-current]").textContent === "Sequential[0]""##);
    }
    d.click(&d.find("#back"));
    d.wait_for(r##"return document.querySelector("#breadcrumb [aria-current]").textContent === "Net[0]""##);
    d.exec("history.back(); return true");
    d.wait_for(r##"return document.querySelector("#breadcrumb [aria-current]").textContent === "Sequential[0]""##);
    d.click(&d.find("#breadcrumb a"));
    d.wait_for(r##"return document.querySelector("#breadcrumb [aria-current]").textContent === "ProfilerStep""##);
    assert_eq!(d.exec(r##"return document.getElementById("back").disabled"##), true);
    // The keyboard: a focused bar zooms on Enter.
    d.exec(r##"document.querySelector('#exec-chart .group[data-path="Net[0]"]').focus(); return true"##);
    d.press("\u{E007}");
    d.wait_for(r##"return document.querySelector("#breadcrumb [aria-current]").textContent === "Net[0]""##);
    no_errors(&d);
}

/// Runs of added siblings with one key are one bar (`Block ×2 (added)`, times summed, as the
/// terminal's table folds them); a click (or Enter) unfolds the run. Children that ran
/// concurrently mark their parent `∥`, with the overlap per side.
/// A duration as the page writes it (`dur` in assets/report.js), for µs and ms.
fn page_duration(ns: i64) -> String {
    let (v, unit) = if ns >= 1_000_000 {
        (ns as f64 / 1e6, "ms")
    } else {
        (ns as f64 / 1e3, "µs")
    };
    let digits = if v >= 100.0 {
        0
    } else if v >= 10.0 {
        1
    } else {
        2
    };
    format!("{v:.digits$} {unit}")
}

/// The two reports the folding tests read (in `dir`): `fixtures/modules`, whose
/// `Net[0]/Sequential[0]` has two added children (returned by path), and the plain step against
/// the DDP one, whose children overlap. Returns the two pages' paths and the added nodes.
fn folded_and_overlapping(dir: &Path) -> (String, String, [Value; 2]) {
    let (path, page) = report(MODULES, dir, &[]);
    // The page keeps every node; folding is the page's view of them.
    let page = data(&page);
    let root = tree(&page);
    let seq = &root["ch"]
        .as_array()
        .unwrap()
        .iter()
        .find(|n| n["p"] == "Net[0]")
        .unwrap()["ch"];
    let seq = seq
        .as_array()
        .unwrap()
        .iter()
        .find(|n| n["p"] == "Net[0]/Sequential[0]")
        .unwrap();
    let added: Vec<&Value> = seq["ch"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|n| n["s"] == "added")
        .collect();
    assert_eq!(added.len(), 2, "{seq}");
    let ddp_dir = dir.join("ddp");
    std::fs::create_dir_all(&ddp_dir).unwrap();
    let (ddp_path, ddp_page) = report(["fixtures/modules/plain", "fixtures/modules/ddp"], &ddp_dir, &[]);
    let overlap = &data(&ddp_page)["nodes"][0]["o"];
    assert!(
        overlap[1].as_i64().unwrap() > 0,
        "the DDP step's children overlap: {overlap}"
    );
    let added = [0, 1].map(|k| added[k].clone());
    (path, ddp_path, added)
}

/// The page keeps every node (folding is the page's view of them) and the DDP step's overlap.
#[test]
fn the_page_keeps_folded_nodes_and_the_overlap_of_children() {
    let dir = TempDir::new().unwrap();
    folded_and_overlapping(dir.path());
}

#[cfg_attr(
    tracediff_no_browser,
    ignore = "needs chromium and chromedriver on PATH, absent when the tests were built: apt-get install -y chromium chromium-driver"
)]
#[test]
fn browser_folds_runs_and_marks_overlap() {
    let Some(b) = browser() else { return };
    let dir = TempDir::new().unwrap();
    let (path, ddp_path, added) = folded_and_overlapping(dir.path());
    let d = Driver::start(&b);
    goto(&d, &format!("{}#node=Net%5B0%5D%2FSequential%5B0%5D", url(&path)));
    let folded = r##"return [...document.querySelectorAll("#exec-chart .group.folded")].map(g => [g.dataset.path, g.dataset.count, g.querySelector("text").textContent])"##;
    assert_eq!(
        d.exec(folded),
        serde_json::json!([[added[0]["p"], "2", "Block ×2 (added)"]])
    );
    // The folded bar's test time is the run's sum.
    let sum: i64 = added.iter().map(|n| n["t"][2].as_i64().unwrap()).sum();
    let tip = d.exec(r##"return document.querySelector("#exec-chart .group.folded title").textContent"##);
    let tip = tip.as_str().unwrap();
    assert!(
        tip.contains("2 consecutive Block") && tip.contains("click to unfold"),
        "{tip}"
    );
    let test_line = tip.lines().nth(2).unwrap();
    assert!(test_line.ends_with(&page_duration(sum)), "test time {sum} ns in {tip}");
    assert!(
        d.exec(r##"return document.getElementById("node-summary").textContent"##)
            .as_str()
            .unwrap()
            .contains("1 run of added or deleted siblings folded")
    );
    let bars = r##"return document.querySelectorAll("#exec-chart .group").length"##;
    let before = d.exec(bars).as_u64().unwrap();
    d.click_at(&d.find("#exec-chart .group.folded rect.hit"));
    d.wait_for(r##"return document.querySelectorAll("#exec-chart .group.folded").length === 0"##);
    assert_eq!(d.exec(bars).as_u64().unwrap(), before + 1);
    let shown: Vec<String> = serde_json::from_value(d.exec(
        r##"return [...document.querySelectorAll('#exec-chart .group[data-status="added"]')].map(g => g.dataset.path)"##,
    ))
    .unwrap();
    assert_eq!(
        shown,
        [added[0]["p"].as_str().unwrap(), added[1]["p"].as_str().unwrap()]
    );
    // The keyboard unfolds too (on a fresh page).
    d.exec("location.reload(); return true");
    d.wait_for(r##"return document.querySelectorAll("#exec-chart .group.folded").length === 1"##);
    d.exec(r##"document.querySelector("#exec-chart .group.folded").focus(); return true"##);
    d.press("\u{E007}");
    d.wait_for(r##"return document.querySelectorAll("#exec-chart .group.folded").length === 0"##);
    no_errors(&d);
    // The DDP step: its children ran concurrently.
    goto(&d, &url(&ddp_path));
    let summary = d.exec(r##"return document.getElementById("node-summary").textContent"##);
    assert!(
        summary.as_str().unwrap().contains("∥ Its children ran concurrently"),
        "{summary}"
    );
    no_errors(&d);
}

/// The module chart shows host time (null-safe: "not yet" while the chart is not drawn).
const HOST_CHART: &str =
    r##"return document.querySelector("#exec-chart svg")?.getAttribute("aria-label")?.startsWith("host") === true"##;

#[cfg_attr(
    tracediff_no_browser,
    ignore = "needs chromium and chromedriver on PATH, absent when the tests were built: apt-get install -y chromium chromium-driver"
)]
#[test]
fn browser_device_tables_and_time_toggle() {
    let dir = TempDir::new().unwrap();
    let Some(d) = open_report(VIEWS, dir.path()) else {
        return;
    };
    assert!(!column(&d, "k-table", 0).is_empty(), "kernel rows");
    // The class table (with its shares) and the aligned sequences are drawn.
    assert!(!column(&d, "kc-table", 0).is_empty(), "class rows");
    assert!(column(&d, "kc-table", 8).iter().all(|s| s.ends_with('%')), "shares");
    let positions = column(&d, "seq-table", 4).len();
    assert!(positions > 0, "aligned positions");
    d.exec(r##"const s = document.getElementById("seq-status"); s.value = "same"; s.dispatchEvent(new Event("change")); return true"##);
    let same = column(&d, "seq-table", 4);
    assert!(same.len() <= positions && same.iter().all(|s| s == "same"), "{same:?}");
    // The kernel time toggle, and the host/device toggle of the bars.
    let before = column(&d, "k-table", 4);
    d.exec(r##"const s = document.getElementById("k-group"); s.value = "device_max"; s.dispatchEvent(new Event("change")); return true"##);
    assert_eq!(column(&d, "k-table", 4).len(), before.len());
    d.click(&d.find(r##"#time-toggle input[value="host"]"##));
    d.wait_for(HOST_CHART);
    // The time is in the URL fragment: a reload (or a shared link) keeps it. The browser's own
    // reload (WebDriver's Refresh), which returns once the page has loaded: a reload started by
    // a script is not waited for, and under load a poll could run in the half-parsed page (a
    // TypeError on a missing element, not a false).
    assert_eq!(d.exec("return location.hash"), "#node=&time=host");
    d.exec("window.__beforeReload = true; return true");
    d.refresh();
    assert_eq!(d.exec("return window.__beforeReload === undefined"), true, "reloaded");
    d.wait_for(r##"return document.querySelector('#time-toggle input[value="host"]')?.checked === true"##);
    d.wait_for(HOST_CHART);
    // Keyboard: the controls take focus.
    d.exec(r##"document.getElementById("op-filter").focus(); return true"##);
    assert_eq!(d.exec("return document.activeElement.id"), "op-filter");
    no_errors(&d);
}

/// A real pair from two vendors (../shared/traces; skipped without it): the numbers equal the CLI
/// views', and the page zooms three levels down and back with no errors.
#[cfg_attr(
    tracediff_no_shared,
    ignore = "needs ../shared (real traces, HTA's output), absent when the tests were built: put it beside the repository or set TRACEDIFF_SHARED"
)]
#[test]
fn real_gpu_pair_from_two_vendors() {
    let Some(traces) = common::traces("the report of a real GPU pair") else {
        return;
    };
    let base = traces.join("tracelens_bert_small");
    let (h100, mi300) = (base.join("h100"), base.join("mi300"));
    let pair = [h100.to_str().unwrap(), mi300.to_str().unwrap()];
    let dir = TempDir::new().unwrap();
    let (_, page) = report(pair, dir.path(), &[]);
    tables_match_cli(pair, &data(&page));
    if cfg!(not(tracediff_no_browser)) {
        assert!(three_levels_down_and_back(pair).is_some(), "a browser");
    }
}

/// ResNet-50 against ResNet-152, recorded on a CPU with `with_stack=True`
/// (`scripts/record_scenarios.py`, kept in fixtures/scenarios): the page's numbers equal the CLI
/// views'.
#[test]
fn resnet_50_against_152_tables_equal_the_cli() {
    let pair = ["fixtures/scenarios/resnet/control", "fixtures/scenarios/resnet/test"];
    let dir = TempDir::new().unwrap();
    let (_, page) = report(pair, dir.path(), &[]);
    tables_match_cli(pair, &data(&page));
}

/// ResNet-50 against ResNet-152 in the browser: three levels down and back, a sorted and a
/// filtered operator table, no errors.
#[cfg_attr(
    tracediff_no_browser,
    ignore = "needs chromium and chromedriver on PATH, absent when the tests were built: apt-get install -y chromium chromium-driver"
)]
#[test]
fn resnet_50_against_152() {
    let pair = ["fixtures/scenarios/resnet/control", "fixtures/scenarios/resnet/test"];
    let Some(d) = three_levels_down_and_back(pair) else {
        return;
    };
    // A CPU-only pair says so rather than that its device is unnamed.
    let compared = d.exec(r##"return document.getElementById("compared").textContent"##);
    assert!(
        compared
            .as_str()
            .unwrap()
            .contains("no device events (host only) vs no device events (host only)"),
        "{compared}"
    );
    // Sort by test calls (descending), then filter.
    d.click(&d.find("#op-table thead th:nth-child(3) button"));
    let calls: Vec<u64> = column(&d, "op-table", 2).iter().map(|c| c.parse().unwrap()).collect();
    assert!(calls.len() > 3 && calls.windows(2).all(|w| w[0] >= w[1]), "{calls:?}");
    d.type_into(&d.find("#op-filter"), "conv");
    let names = column(&d, "op-table", 0);
    assert!(
        !names.is_empty() && names.iter().all(|n| n.to_lowercase().contains("conv")),
        "{names:?}"
    );
    no_errors(&d);
}

/// The report of `pair` in the browser (`None` where there is none): the first zoomable bar
/// three times, then the browser's back three times, with no errors.
fn three_levels_down_and_back(pair: [&str; 2]) -> Option<Driver> {
    let b = browser()?;
    let dir = TempDir::new().unwrap();
    let (path, _) = report(pair, dir.path(), &[]);
    let d = Driver::start(&b);
    goto(&d, &url(&path));
    let mut trail = vec![current(&d)];
    for _ in 0..3 {
        let next: Vec<String> = serde_json::from_value(d.exec(
            r##"return [...document.querySelectorAll("#exec-chart .group.zoomable")].map(g => g.dataset.path)"##,
        ))
        .unwrap();
        let p = next.first().expect("a child to zoom into");
        zoom(&d, p, p.rsplit('/').next().unwrap());
        trail.push(current(&d));
        assert!(!column(&d, "op-table", 0).is_empty(), "operators in {p}");
    }
    assert_eq!(trail.len(), 4, "three levels down: {trail:?}");
    for want in trail.iter().rev().skip(1) {
        d.back();
        d.wait_for(&format!(
            r##"return document.querySelector("#breadcrumb [aria-current]").textContent === "{want}""##
        ));
    }
    no_errors(&d);
    Some(d)
}

/// The HTA demo pair (35 MB of JSON) and a 2021-format ResNet-50 pair (no module events: the
/// fallback tree) open with bars, tables and no errors (../shared/traces; skipped without it).
#[cfg_attr(
    any(tracediff_no_shared, tracediff_no_browser),
    ignore = "needs ../shared (real traces) and chromium with chromedriver on PATH, one of them absent when the tests were built"
)]
#[test]
fn real_pairs_open_without_errors() {
    let Some(base) = common::traces("the reports of real pairs") else {
        return;
    };
    let Some(b) = browser() else { return };
    let d = Driver::start(&b);
    for (c, t) in [
        ("hta_trace_diff/control", "hta_trace_diff/test"),
        ("kineto_resnet50_workers/w0", "kineto_resnet50_workers/w4"),
    ] {
        let dir = TempDir::new().unwrap();
        let (c, t) = (base.join(c), base.join(t));
        let (path, _) = report([c.to_str().unwrap(), t.to_str().unwrap()], dir.path(), &[]);
        goto(&d, &url(&path));
        // A large page may still be drawing when navigation returns on a loaded machine.
        d.wait_for(r##"return document.querySelectorAll("#exec-chart .group").length > 1"##);
        assert!(!column(&d, "op-table", 0).is_empty(), "{path}: operators");
        assert!(!column(&d, "k-table", 0).is_empty(), "{path}: kernels");
        no_errors(&d);
    }
}

/// Module significance in the page (as the terminal's `sig` column): over the 5 steps a side of
/// `fixtures/gate`, the linear layers' device time doubled and is marked `*`, the ReLUs are not;
/// with one step nothing is marked and the legend says why.
#[test]
fn significant_nodes_are_marked() {
    const PAIR: [&str; 2] = ["fixtures/gate/base", "fixtures/gate/kernel2x"];
    let dir = TempDir::new().unwrap();
    let (_, page) = report(PAIR, dir.path(), &["--iteration", "all"]);
    let d = data(&page);
    assert_eq!(d["significance"]["estimated"], true);
    let root = tree(&d);
    let child = |p: &str| {
        root["ch"]
            .as_array()
            .unwrap()
            .iter()
            .find(|n| n["p"] == p)
            .unwrap_or_else(|| panic!("{p}"))
            .clone()
    };
    // [host, device]: the device time is the one the kernels changed.
    assert_eq!(child("aten::linear[0]")["g"][1], true);
    assert_eq!(child("aten::relu[0]")["g"][1], false);
    let (_, every_step) = report(PAIR, dir.path(), &[]);
    assert_eq!(
        data(&every_step)["significance"]["estimated"],
        true,
        "every step by default"
    );
    let (_, one_step) = report(PAIR, dir.path(), &["--iteration", "1"]);
    let one = data(&one_step);
    assert_eq!(one["significance"]["estimated"], false);
    assert!(
        one["significance"]["note"]
            .as_str()
            .unwrap()
            .contains("significant is null")
    );
    assert!(one["nodes"].as_array().unwrap().iter().all(|n| n.get("g").is_none()));
}

/// In the browser, the significant nodes of `fixtures/gate` (every step) carry `*` in the
/// execution chart, and its legend says what `*` means.
#[cfg_attr(
    tracediff_no_browser,
    ignore = "needs chromium and chromedriver on PATH, absent when the tests were built: apt-get install -y chromium chromium-driver"
)]
#[test]
fn browser_marks_significant_nodes() {
    const PAIR: [&str; 2] = ["fixtures/gate/base", "fixtures/gate/kernel2x"];
    let dir = TempDir::new().unwrap();
    let Some(d) = open_report_with(PAIR, dir.path(), &["--iteration", "all"]) else {
        return;
    };
    let marked: Vec<String> = serde_json::from_value(d.exec(
        r##"return [...document.querySelectorAll('#exec-chart .group[data-significant="true"]')].map(g => g.dataset.path)"##,
    ))
    .unwrap();
    assert_eq!(marked, ["aten::linear[0]", "aten::linear[1]", "aten::linear[2]"]);
    let label = d
        .exec(r##"return document.querySelector('#exec-chart .group[data-path="aten::linear[0]"] text').textContent"##);
    assert!(label.as_str().unwrap().ends_with(" *"), "{label}");
    let legend = d.exec(r##"return document.getElementById("exec-legend").textContent"##);
    assert!(legend.as_str().unwrap().contains("* = its time"), "{legend}");
    no_errors(&d);
}

/// The report's module marks are judged beyond a run-wide shift as `modules` judges them: on a
/// host 40% slower only `aten::layer_norm`, three times as slow besides, is marked (and the step
/// that holds it, the top node, whose path is ""); the note is
/// printed and the page's legend carries it; `--no-run-shift` judges against no change
/// (docs/significance.md#a-run-wide-shift).
#[test]
fn the_report_judges_module_marks_beyond_a_run_wide_shift() {
    const PAIR: [&str; 2] = ["fixtures/shift/base", "fixtures/shift/slowchanged"];
    let dir = TempDir::new().unwrap();
    let marked = |d: &Value| -> Vec<String> {
        let paths = node_paths(d);
        d["nodes"]
            .as_array()
            .unwrap()
            .iter()
            .zip(paths)
            .filter(|(n, _)| n["g"][0] == true)
            .map(|(_, p)| p)
            .collect()
    };
    let path = dir.path().join("report.html").display().to_string();
    let beyond = run(&["report", PAIR[0], PAIR[1], "-o", &path, "--iteration", "all"]);
    assert_eq!(beyond.code, 0, "{}", beyond.stderr);
    assert!(
        beyond.stderr.contains("nodes are judged against it"),
        "{}",
        beyond.stderr
    );
    let d = data(&std::fs::read_to_string(&path).unwrap());
    let note = d["significance"]["shift"].as_str().unwrap();
    assert!(
        note.starts_with("the whole run moved: on host, test runs 40% slower"),
        "{note}"
    );
    assert_eq!(
        marked(&d),
        ["", "aten::layer_norm[0]", "aten::layer_norm[1]", "aten::layer_norm[2]"]
    );
    let plain = run(&[
        "report",
        PAIR[0],
        PAIR[1],
        "-o",
        &path,
        "--iteration",
        "all",
        "--no-run-shift",
    ]);
    assert_eq!(plain.code, 0, "{}", plain.stderr);
    assert!(plain.stderr.contains("as --no-run-shift asks"), "{}", plain.stderr);
    let d = data(&std::fs::read_to_string(&path).unwrap());
    assert!(marked(&d).len() > 10, "{:?}", marked(&d));
}

/// The page's header counts the steps used apart from their numbers (`step 1009 (of 6)` read as
/// the 1009th of 6) and writes runs of steps as the terminal does (`steps 1–3`, not `1, 2, 3`);
/// by default the page uses every step, as every command does.
#[cfg_attr(
    tracediff_no_browser,
    ignore = "needs chromium and chromedriver on PATH, absent when the tests were built: apt-get install -y chromium chromium-driver"
)]
#[test]
fn the_header_counts_steps_apart_from_their_numbers() {
    let dir = TempDir::new().unwrap();
    let pair = ["fixtures/basic/control", "fixtures/basic/test"];
    let Some(d) = open_report_with(pair, dir.path(), &["--iteration", "1"]) else {
        return;
    };
    let compared = d.exec(r##"return document.getElementById("compared").textContent"##);
    let compared = compared.as_str().unwrap();
    assert!(
        compared.contains("rank 0; the tables and module tree: step 1 (1 of 3 steps); 1 file"),
        "{compared}"
    );
    no_errors(&d);
    let Some(d) = open_report(pair, dir.path()) else {
        return;
    };
    let compared = d.exec(r##"return document.getElementById("compared").textContent"##);
    let compared = compared.as_str().unwrap();
    assert!(
        compared.contains("fixtures/basic/control — rank 0; the tables and module tree: steps 1–3; 1 file"),
        "{compared}"
    );
    no_errors(&d);
}

/// The tables show a kernel without its `void` and with its argument list as `(…)` (the cell
/// cuts the end: `void cutlass::Kernel2<cutlass_80_simt_sgemm_256x12…` showed neither tile nor
/// layout); its tooltip keeps the name, and the filter matches it.
#[cfg_attr(
    tracediff_no_browser,
    ignore = "needs chromium and chromedriver on PATH, absent when the tests were built: apt-get install -y chromium chromium-driver"
)]
#[test]
fn browser_tables_show_a_kernel_by_its_own_name() {
    let dir = TempDir::new().unwrap();
    let Some(d) = open_report(["fixtures/basic/control", "fixtures/basic/test"], dir.path()) else {
        return;
    };
    let shown = column(&d, "k-table", 0);
    assert!(
        shown
            .iter()
            .any(|n| n.starts_with("cutlass::Kernel<") && n.ends_with(">(…)")),
        "{shown:?}"
    );
    assert!(shown.iter().all(|n| !n.starts_with("void ")), "{shown:?}");
    assert!(shown.contains(&"Memset (Device)".to_string()), "{shown:?}");
    let titles: Vec<String> = serde_json::from_value(
        d.exec(r##"return [...document.querySelectorAll("#k-table tbody tr td:first-child")].map(td => td.title)"##),
    )
    .unwrap();
    assert!(
        titles
            .iter()
            .any(|t| t.starts_with("void cutlass::Kernel<") && t.ends_with("::Params)")),
        "{titles:?}"
    );
    d.type_into(&d.find("#k-filter"), "void cutlass");
    assert_eq!(column(&d, "k-table", 0).len(), 1);
    no_errors(&d);
}

/// In the page, the operator, kernel and class tables carry a `sig` column with the rows'
/// marks and a legend line that says what `*` means (`fixtures/gate`: the linear layers'
/// kernels doubled); with one step a side there is no column and the legend says why.
#[cfg_attr(
    tracediff_no_browser,
    ignore = "needs chromium and chromedriver on PATH, absent when the tests were built: apt-get install -y chromium chromium-driver"
)]
#[test]
fn browser_table_rows_carry_their_marks() {
    let dir = TempDir::new().unwrap();
    let pair = ["fixtures/gate/base", "fixtures/gate/kernel2x"];
    let Some(d) = open_report(pair, dir.path()) else {
        return;
    };
    let marked = |table: &str| -> Vec<String> {
        let script = format!(
            r##"const t = document.getElementById("{table}");
            const k = [...t.querySelectorAll("thead th")].findIndex(th => th.textContent === "sig");
            if (k < 0) return [];
            return [...t.querySelectorAll("tbody tr")].filter(tr => tr.children[k].textContent === "*")
                .map(tr => tr.children[0].textContent)"##
        );
        serde_json::from_value(d.exec(&script)).unwrap()
    };
    assert_eq!(marked("op-table"), ["aten::linear"]);
    assert_eq!(marked("kc-table"), ["gemm"]);
    let kernels = marked("k-table");
    assert!(
        kernels.len() == 1 && kernels[0].starts_with("cutlass::Kernel<"),
        "{kernels:?}"
    );
    for note in ["op-note", "k-note", "kc-note"] {
        let text = d.exec(&format!(r##"return document.getElementById("{note}").textContent"##));
        assert!(
            text.as_str()
                .unwrap()
                .contains("sig: * = its device total time changed"),
            "{text}"
        );
    }
    no_errors(&d);
    let Some(d) = open_report_with(pair, dir.path(), &["--iteration", "1"]) else {
        return;
    };
    let heads = d.exec(r##"return [...document.querySelectorAll("#op-table thead th")].map(th => th.textContent)"##);
    assert!(!heads.as_array().unwrap().iter().any(|h| h == "sig"), "{heads}");
    let note = d.exec(r##"return document.getElementById("op-note").textContent"##);
    assert!(
        note.as_str().unwrap().contains("No * marks: significant is null"),
        "{note}"
    );
    no_errors(&d);
}
