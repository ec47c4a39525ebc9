//! Kernel classes and aligned kernel sequences (docs/kernel-classes.md): `kernels --by-class`,
//! `kernels --aligned`, `--kernel-classes` and the flame graph's class-keyed kernel frames on `fixtures/classes` (a made-up transformer
//! step under H100 and MI300X kernel names), and on `../shared`'s real cross-vendor traces when
//! they are there.

use crate::common::{fails, json, ok, run, traces};

const PAIR: [&str; 2] = ["fixtures/classes/h100", "fixtures/classes/mi300"];

fn args<'a>(extra: &[&'a str]) -> Vec<&'a str> {
    let mut a = vec!["kernels", PAIR[0], PAIR[1], "--labels", "h100,mi300"];
    a.extend_from_slice(extra);
    a
}

/// A column of a CSV, summed (µs), by header name.
fn csv_sum(csv: &str, column: &str) -> f64 {
    let mut reader = csv::Reader::from_reader(csv.as_bytes());
    let k = reader.headers().unwrap().iter().position(|h| h == column).unwrap();
    reader
        .records()
        .map(|r| r.unwrap()[k].parse::<f64>().unwrap_or(0.0))
        .sum()
}

/// Two sums of µs values with 3 decimals each, equal to the nanosecond.
fn same_us(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-6 * a.abs().max(1.0)
}

#[test]
fn by_class_rows_sum_to_the_kernel_total() {
    insta::assert_snapshot!(ok(&args(&["--by-class"])));
    let classes = ok(&args(&["--by-class", "--format", "csv"]));
    insta::assert_snapshot!("by_class_csv", classes);
    let kernels = ok(&args(&["--format", "csv"]));
    for side in ["control", "test"] {
        let column = format!("{side}_device_total_us");
        assert!(
            same_us(csv_sum(&classes, &column), csv_sum(&kernels, &column)),
            "{side}"
        );
    }
    let doc = json(&args(&["--by-class"]));
    assert_eq!(doc["view"], "classes");
    let attention = doc["rows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["name"] == "attention")
        .unwrap();
    assert_eq!(attention["control_calls"], 3);
    assert_eq!(attention["test_calls"], 0);
    assert!(attention["control_share"].as_f64().unwrap() > 0.0);
}

#[test]
fn the_kernel_table_names_each_kernels_class() {
    let doc = json(&args(&[]));
    for row in doc["rows"].as_array().unwrap() {
        let name = row["name"].as_str().unwrap();
        let want = if name.starts_with("nvjet") || name.starts_with("Cijk") {
            "gemm"
        } else if name.starts_with("nccl") {
            "communication"
        } else if name.contains("flash") {
            "attention"
        } else {
            continue;
        };
        assert_eq!(row["class"], want, "{name}");
    }
}

#[test]
fn aligned_prints_the_layer_once_and_pairs_a_replaced_kernel() {
    insta::assert_snapshot!(ok(&args(&["--aligned"])));
    let csv = ok(&args(&["--aligned", "--format", "csv"]));
    insta::assert_snapshot!("aligned_csv", csv);
    // Every event in one row: each side's rows sum to its device time.
    let kernels = ok(&args(&["--format", "csv"]));
    assert!(same_us(
        csv_sum(&csv, "control_device_total_us"),
        csv_sum(&kernels, "control_device_total_us")
    ));
    assert!(same_us(
        csv_sum(&csv, "test_device_total_us"),
        csv_sum(&kernels, "test_device_total_us")
    ));
    // FlashAttention against GEMM, softmax, GEMM: one changed row naming both, two added.
    let flash: Vec<&str> = csv.lines().filter(|l| l.contains("flash_fwd")).collect();
    assert_eq!(flash.len(), 1, "{csv}");
    assert!(
        flash[0].contains(",attention/gemm,") && flash[0].contains(",changed,"),
        "{}",
        flash[0]
    );
    let doc = json(&args(&["--aligned"]));
    assert_eq!(doc["groups"][0]["control"]["blocks"], 3);
    assert_eq!(doc["groups"][0]["test"]["blocks"], 3);
    assert_eq!(doc["groups"][0]["control"]["period"], 10);
    assert_eq!(doc["groups"][0]["test"]["period"], 12);
    assert_eq!(doc["paired_share"]["control"], 1.0);
}

#[test]
fn aligned_refuses_what_does_not_apply() {
    let e = fails(&args(&["--aligned", "--top", "3"]));
    assert_eq!(
        e,
        "--top does not apply to --aligned: it shows every position of the sequences, in aligned order"
    );
    let r = run(&args(&["--aligned", "--by-operator"]));
    assert_eq!(r.code, 2, "{}", r.stderr);
}

#[test]
fn own_rules_come_first_and_a_bad_file_names_its_line() {
    let dir = tempfile::TempDir::new().unwrap();
    let good = dir.path().join("good.toml");
    std::fs::write(
        &good,
        "# flash is an elementwise kernel here\nelementwise = [\"flash_fwd\"]\n",
    )
    .unwrap();
    let doc = json(&args(&["--by-class", "--kernel-classes", good.to_str().unwrap()]));
    let names: Vec<&str> = doc["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["name"].as_str().unwrap())
        .collect();
    assert!(!names.contains(&"attention"), "{names:?}");
    let bad = dir.path().join("bad.toml");
    std::fs::write(&bad, "gemm = [\"x\"]\nmatmul = [\"y\"]\n").unwrap();
    let e = fails(&args(&["--aligned", "--kernel-classes", bad.to_str().unwrap()]));
    assert!(
        e.starts_with("unknown kernel class `matmul` (the classes are gemm,"),
        "{e}"
    );
    assert!(e.ends_with(&format!("({}: line 2)", bad.display())), "{e}");
    let e = fails(&args(&[
        "--kernel-classes",
        dir.path().join("none.toml").to_str().unwrap(),
    ]));
    assert!(e.starts_with("cannot read kernel classes:"), "{e}");
}

/// Each side's share of its weight in folded lines that both sides have.
fn shared_share(folded: &str) -> [f64; 2] {
    let (mut total, mut shared) = ([0i64; 2], [0i64; 2]);
    for line in folded.lines() {
        let mut words = line.rsplitn(3, ' ');
        let t: i64 = words.next().unwrap().parse().unwrap();
        let c: i64 = words.next().unwrap().parse().unwrap();
        total[0] += c;
        total[1] += t;
        if c > 0 && t > 0 {
            shared[0] += c;
            shared[1] += t;
        }
    }
    [0, 1].map(|k| shared[k] as f64 / total[k] as f64)
}

#[test]
fn flame_graph_kernel_frames_are_keyed_by_class_where_names_differ() {
    let folded = ok(&["flamegraph", PAIR[0], PAIR[1], "--time", "device", "--folded"]);
    assert!(folded.lines().any(|l| l.ends_with(";gemm #1 8000 10000")), "{folded}");
    // Under an operator both sides ran, no vendor's GEMM name is left.
    let both = |l: &&str| !l.ends_with(" 0") && !l.contains(" 0 ");
    assert!(
        folded
            .lines()
            .filter(both)
            .all(|l| !l.contains("nvjet") && !l.contains("Cijk")),
        "{folded}"
    );
    // What stays apart is what only one side ran: FlashAttention's operator against bmm and
    // softmax.
    let [c, t] = shared_share(&folded);
    assert!((0.85..1.0).contains(&c) && (0.75..1.0).contains(&t), "{c} {t}");
}

/// On every real trace `other` holds at most 3% of the device time; on the cross-vendor pairs
/// at least 90% of each side's device time lies in paired rows of `kernels --aligned`.
#[test]
fn real_traces_are_classified_and_cross_vendor_pairs_align() {
    let Some(root) = traces("kernel classes on real traces") else {
        return;
    };
    let mut files = Vec::new();
    let mut stack = vec![root.clone()];
    while let Some(dir) = stack.pop() {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            let name = p.to_string_lossy().to_string();
            if p.is_dir() {
                stack.push(p);
            } else if name.ends_with(".json") || name.ends_with(".json.gz") {
                files.push(name);
            }
        }
    }
    files.sort();
    for f in &files {
        let r = run(&["kernels", "--by-class", f, f, "--iteration", "all", "--format", "csv"]);
        if r.code != 0 {
            continue; // the edge traces that do not load are other tests' business
        }
        let (total, other) = (csv_sum(&r.stdout, "control_device_total_us"), {
            let mut reader = csv::Reader::from_reader(r.stdout.as_bytes());
            reader
                .records()
                .map(|x| x.unwrap())
                .filter(|x| &x[0] == "other")
                .map(|x| x[4].parse::<f64>().unwrap())
                .sum::<f64>()
        });
        assert!(other <= 0.03 * total, "{f}: other {other} of {total} µs");
    }
    for pair in [
        ["tracelens_bert_small/h100", "tracelens_bert_small/mi300"],
        [
            "inference/sglang_qwen3moe_decode_mi300_b300/control",
            "inference/sglang_qwen3moe_decode_mi300_b300/test",
        ],
    ] {
        let [c, t] = pair.map(|p| root.join(p).to_str().unwrap().to_string());
        let doc = json(&["kernels", "--aligned", &c, &t]);
        for side in ["control", "test"] {
            let share = doc["paired_share"][side].as_f64().unwrap();
            assert!(share >= 0.9, "{pair:?} {side}: {share}");
        }
        let folded = ok(&["flamegraph", &c, &t, "--time", "device", "--folded"]);
        for (side, share) in ["control", "test"].into_iter().zip(shared_share(&folded)) {
            assert!(share >= 0.95, "{pair:?} flame graph, {side}: {share}");
        }
    }
}

#[test]
fn the_flame_graph_takes_own_kernel_classes() {
    let dir = tempfile::TempDir::new().unwrap();
    let rules = dir.path().join("rules.toml");
    // Both vendors' GEMMs called elementwise: their frames are keyed by that class.
    std::fs::write(&rules, "elementwise = [\"nvjet\", \"Cijk\"]\n").unwrap();
    let folded = ok(&[
        "flamegraph",
        PAIR[0],
        PAIR[1],
        "--time",
        "device",
        "--folded",
        "--kernel-classes",
        rules.to_str().unwrap(),
    ]);
    assert!(
        folded.lines().any(|l| l.ends_with(";elementwise #1 8000 10000")),
        "{folded}"
    );
    assert!(!folded.contains(";gemm #"), "{folded}");
}

/// The report's page data of the pair (with `extra` options).
fn report_data(dir: &std::path::Path, extra: &[&str]) -> serde_json::Value {
    let path = dir.join("r.html");
    let mut a = vec![
        "report",
        PAIR[0],
        PAIR[1],
        "--labels",
        "h100,mi300",
        "-o",
        path.to_str().unwrap(),
    ];
    a.extend_from_slice(extra);
    let out = run(&a);
    assert_eq!(out.code, 0, "{}", out.stderr);
    crate::report::data(&std::fs::read_to_string(&path).unwrap())
}

#[test]
fn the_report_shows_classes_and_aligned_sequences_as_the_command_line() {
    let dir = tempfile::TempDir::new().unwrap();
    let d = report_data(dir.path(), &[]);
    let names: Vec<&str> = d["names"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n.as_str().unwrap())
        .collect();
    let step = &d["tables"]["0"];
    // The step's class table: `kernels --by-class`, row for row (calls and device total).
    let cli = json(&args(&["--by-class"]));
    let mut want: Vec<(String, i64, i64, i64, i64)> = cli["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            let ns = |k: &str| (r[k].as_f64().unwrap() * 1000.0).round() as i64;
            let calls = |k: &str| r[k].as_i64().unwrap();
            (
                r["name"].as_str().unwrap().to_string(),
                calls("control_calls"),
                calls("test_calls"),
                ns("control_device_total_us"),
                ns("test_device_total_us"),
            )
        })
        .collect();
    let m = d["kMeasures"].as_array().unwrap().len();
    let mut got: Vec<(String, i64, i64, i64, i64)> = step["kc"]["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            let v = |i: usize| r[i].as_i64().unwrap();
            (
                names[r[0].as_u64().unwrap() as usize].to_string(),
                v(1),
                v(1 + m),
                v(2),
                v(2 + m),
            )
        })
        .collect();
    want.sort();
    got.sort();
    assert_eq!(got, want);
    // Each kernel row's class is the CSV's class column.
    let csv = ok(&args(&["--format", "csv"]));
    let mut reader = csv::Reader::from_reader(csv.as_bytes());
    let class_col = reader.headers().unwrap().iter().position(|h| h == "class").unwrap();
    let cli_class: std::collections::BTreeMap<String, String> = reader
        .records()
        .map(|r| {
            let r = r.unwrap();
            (r[0].to_string(), r[class_col].to_string())
        })
        .collect();
    let class_names = d["classNames"].as_array().unwrap();
    for (row, class) in step["k"]["rows"]
        .as_array()
        .unwrap()
        .iter()
        .zip(step["k"]["class"].as_array().unwrap())
    {
        let name = names[row[0].as_u64().unwrap() as usize];
        assert_eq!(class_names[class.as_u64().unwrap() as usize], cli_class[name], "{name}");
    }
    // The aligned sequences: `kernels --aligned`'s positions, statuses and times.
    let aligned = json(&args(&["--aligned"]));
    let rows = aligned["rows"].as_array().unwrap();
    let page = d["aligned"]["rows"].as_array().unwrap();
    assert_eq!(d["aligned"]["total"].as_u64().unwrap() as usize, rows.len());
    assert_eq!(page.len(), rows.len());
    for (p, c) in page.iter().zip(rows) {
        assert_eq!(p[1], c["block"]);
        assert_eq!(p[2], c["position"]);
        assert_eq!(p[3], c["class"]);
        assert_eq!(p[4], c["status"]);
        let name = |v: &serde_json::Value| v.as_u64().map(|i| names[i as usize]);
        assert_eq!(name(&p[5]), c["control"]["name"].as_str());
        assert_eq!(name(&p[6]), c["test"]["name"].as_str());
    }
    // Own rules reach the page's classes.
    let rules = dir.path().join("rules.toml");
    std::fs::write(&rules, "elementwise = [\"flash_fwd\"]\n").unwrap();
    let d = report_data(dir.path(), &["--kernel-classes", rules.to_str().unwrap()]);
    let names: Vec<&str> = d["names"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n.as_str().unwrap())
        .collect();
    let classes: Vec<&str> = d["tables"]["0"]["kc"]["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| names[r[0].as_u64().unwrap() as usize])
        .collect();
    assert!(
        !classes.contains(&"attention") && classes.contains(&"elementwise"),
        "{classes:?}"
    );
}

/// A class's share is of the host step: the device's `gpu_user_annotation` mirror of the step
/// (written first in this file) is not step time too (the shares were halved by it).
#[test]
fn class_shares_are_of_the_host_step_not_of_its_device_mirror_too() {
    let doc = json(&["kernels", "fixtures/amd/control", "fixtures/amd/test", "--by-class"]);
    assert_eq!(doc["mean_step_time_us"]["control"], 900.5, "{doc:#}");
    for row in doc["rows"].as_array().unwrap() {
        let total = row["control_device_total_us"].as_f64().unwrap();
        let share = row["control_share"].as_f64().unwrap();
        assert!((share - total / 900.5).abs() < 1e-4, "{row}");
    }
}
