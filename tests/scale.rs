//! Many ranks: directories of thousands of small rank files, generated here from the
//! `fixtures/ranks` traces (only the rank and the world size differ from file to file). Every
//! command reads them with the default selection and with `--rank all`, and the bytes do not
//! depend on the number of threads. (Before the fix, 2,000 files a side overflowed the stack at
//! two threads and more.)

use std::path::{Path, PathBuf};
use std::process::Command;
use tempfile::TempDir;

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Writes `ranks` copies of `template` into `dir` (named `rank<r>.json`), each declaring its
/// rank `r` of a job of `world` ranks.
pub fn write_ranks(template: &Path, dir: &Path, ranks: &[i64], world: i64) {
    let text = std::fs::read_to_string(template).unwrap();
    assert!(text.contains("\"rank\": 0") && text.contains("\"world_size\": 2"));
    std::fs::create_dir_all(dir).unwrap();
    for &r in ranks {
        let t = text.replacen("\"rank\": 0", &format!("\"rank\": {r}"), 1).replacen(
            "\"world_size\": 2",
            &format!("\"world_size\": {world}"),
            1,
        );
        std::fs::write(dir.join(format!("rank{r}.json")), t).unwrap();
    }
}

/// Two sides of `n` ranks each, made from the `fixtures/ranks` pair.
pub fn job(n: i64) -> (TempDir, PathBuf, PathBuf) {
    let tmp = TempDir::new().unwrap();
    let (c, t) = (tmp.path().join("control"), tmp.path().join("test"));
    let ranks: Vec<i64> = (0..n).collect();
    write_ranks(&repo().join("fixtures/ranks/control/rank0.json"), &c, &ranks, n);
    write_ranks(&repo().join("fixtures/ranks/test/rank0.pt.trace.json"), &t, &ranks, n);
    (tmp, c, t)
}

/// Runs the binary at `threads` threads in `cwd`; (exit code, stdout, stderr).
fn run_at(threads: usize, cwd: &Path, args: &[&str]) -> (i32, String, String) {
    let out = Command::new(assert_cmd::cargo::cargo_bin("tracediff"))
        .current_dir(cwd)
        .env("RAYON_NUM_THREADS", threads.to_string())
        .env("TRACEDIFF_STATE_DIR", cwd)
        .env("COLUMNS", "100")
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

#[test]
fn two_thousand_ranks_compare_the_same_at_1_2_and_16_threads() {
    let (tmp, c, t) = job(2000);
    for selection in [&[][..], &["--rank", "all", "--iteration", "all"][..]] {
        let mut args = vec!["compare", s(&c), s(&t), "--format", "csv"];
        args.extend_from_slice(selection);
        let runs: Vec<(i32, String, String)> = [1, 2, 16].iter().map(|&n| run_at(n, tmp.path(), &args)).collect();
        for (i, r) in runs.iter().enumerate() {
            assert_eq!(r.0, 0, "{args:?} run {i}: {}", r.2);
            assert_eq!(
                (&r.1, &r.2),
                (&runs[0].1, &runs[0].2),
                "{args:?}: the bytes differ by thread count"
            );
        }
        assert!(runs[0].1.contains("aten::linear"), "{}", runs[0].1);
    }
}

#[test]
fn every_command_reads_a_thousand_ranks() {
    let (tmp, c, t) = job(1000);
    let out = tmp.path().join("out");
    let commands: [&[&str]; 10] = [
        &["compare"],
        &["ops-diff"],
        &["plot", "-o", "p.svg"],
        &["gate", "--max-step-time-regression", "1000%"],
        &["operators"],
        &["kernels"],
        &["overview"],
        &["modules"],
        &["report", "-o", "r.html"],
        &["flamegraph", "-o", "f.svg"],
    ];
    std::fs::create_dir_all(&out).unwrap();
    for command in commands {
        for selection in [&[][..], &["--rank", "all"][..]] {
            let mut args = command.to_vec();
            args.extend([s(&c), s(&t)]);
            args.extend_from_slice(selection);
            let (code, _, err) = run_at(16, &out, &args);
            assert_eq!(code, 0, "{args:?}: {err}");
        }
    }
    let (code, csv, err) = run_at(16, &out, &["events", s(&c), "--format", "csv"]);
    assert_eq!(code, 0, "{err}");
    assert!(csv.lines().count() > 1000, "every rank's events");
}

#[test]
fn a_missing_rank_is_named_by_every_command_and_the_gate_refuses_it() {
    let (tmp, c, t) = job(64);
    std::fs::remove_file(c.join("rank17.json")).unwrap();
    let out = tmp.path().join("out");
    std::fs::create_dir_all(&out).unwrap();
    let note = format!(
        "tracediff: note: {} lacks rank 17 of its 64 (distributedInfo.world_size); the side is compared without it",
        c.display()
    );
    let commands: [&[&str]; 9] = [
        &["compare"],
        &["ops-diff"],
        &["plot", "-o", "p.svg"],
        &["operators"],
        &["kernels"],
        &["overview"],
        &["modules"],
        &["report", "-o", "r.html"],
        &["flamegraph", "-o", "f.svg"],
    ];
    for command in commands {
        for selection in [&[][..], &["--rank", "all"][..]] {
            let mut args = command.to_vec();
            args.extend([s(&c), s(&t)]);
            args.extend_from_slice(selection);
            let (code, _, err) = run_at(2, &out, &args);
            assert_eq!(code, 0, "{args:?}: {err}");
            assert!(err.lines().any(|l| l == note), "{args:?}: {err}");
        }
    }
    let (code, _, err) = run_at(2, &out, &["events", s(&c), "--format", "csv"]);
    assert_eq!((code, err.lines().any(|l| l == note)), (0, true), "{err}");
    // The gate refuses it, whichever side lacks the rank; told to, it judges what is there.
    let gate = ["gate", "--max-step-time-regression", "1000%"];
    let (code, _, err) = run_at(2, &out, &[&gate[..], &[s(&c), s(&t)]].concat());
    assert_eq!(code, 2);
    assert_eq!(
        err,
        format!(
            "tracediff: the baseline lacks rank 17 of its 64 (distributedInfo.world_size): a gate over part of a job \
             judges only the ranks it holds; give every rank's file, or --allow-missing-ranks to gate it anyway ({})\n",
            c.display()
        )
    );
    let (code, _, err) = run_at(2, &out, &[&gate[..], &[s(&t), s(&c)]].concat());
    assert_eq!(code, 2);
    assert!(
        err.starts_with("tracediff: the candidate lacks rank 17 of its 64"),
        "{err}"
    );
    let (code, _, err) = run_at(2, &out, &[&gate[..], &[s(&c), s(&t), "--allow-missing-ranks"]].concat());
    assert_eq!(code, 0, "{err}");
    assert!(err.lines().any(|l| l == note), "{err}");
}

#[test]
fn summaries_keep_the_world_size() {
    let (tmp, c, _t) = job(4);
    let sums = tmp.path().join("sums");
    std::fs::create_dir_all(&sums).unwrap();
    for r in [0, 1, 3] {
        let file = sums.join(format!("rank{r}.parquet"));
        let trace = c.join(format!("rank{r}.json"));
        let (code, _, err) = run_at(2, tmp.path(), &["summarize", s(&trace), "-o", s(&file)]);
        assert_eq!(code, 0, "{err}");
    }
    let (code, _, err) = run_at(2, tmp.path(), &["compare", s(&sums), s(&c), "--rank", "all"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains(&format!(
            "{} lacks rank 2 of its 4 (distributedInfo.world_size)",
            sums.display()
        )),
        "{err}"
    );
}
