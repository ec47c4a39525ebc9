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
    for side in ["h100", "mi300"] {
        let column = format!("{side}_device_total");
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
        csv_sum(&csv, "control_device_total"),
        csv_sum(&kernels, "h100_device_total")
    ));
    assert!(same_us(
        csv_sum(&csv, "test_device_total"),
        csv_sum(&kernels, "mi300_device_total")
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
        let (total, other) = (csv_sum(&r.stdout, "control_device_total"), {
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
