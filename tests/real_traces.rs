//! Scenarios on the real traces in `../shared/traces` (skipped, with a printed reason, when
//! `../shared` is not beside the repository).

use assert_cmd::Command;
use std::path::{Path, PathBuf};

fn traces() -> Option<PathBuf> {
    let dir = std::env::var_os("TRACEDIFF_SHARED")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared"))
        .join("traces");
    if dir.is_dir() {
        Some(dir)
    } else {
        eprintln!(
            "skipping real-trace scenarios: {} not found (set TRACEDIFF_SHARED)",
            dir.display()
        );
        None
    }
}

fn json(args: &[&str]) -> serde_json::Value {
    let state = tempfile::tempdir().unwrap();
    let out = Command::cargo_bin("tracediff")
        .unwrap()
        .env("TRACEDIFF_STATE_DIR", state.path())
        .args(args)
        .args(["--format", "json"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn identical_runs_differ_only_by_addresses() {
    let Some(t) = traces() else { return };
    let c = t.join("torch_cpu/identical/control");
    let tt = t.join("torch_cpu/identical/test");
    let (c, tt) = (c.to_str().unwrap(), tt.to_str().unwrap());
    let plain = json(&["compare", c, tt]);
    assert_eq!(plain["summary"]["added"], 23, "HTA also finds 23 added names");
    let normalized = json(&["compare", c, tt, "--normalize-names", "--iteration", "all"]);
    assert_eq!(normalized["summary"]["added"], 0);
    assert_eq!(normalized["summary"]["deleted"], 0);
    assert_eq!(normalized["summary"]["increased"], 0);
    assert_eq!(normalized["summary"]["decreased"], 0);
}

#[test]
fn linear_dims_shows_the_shape_change_with_group_by() {
    let Some(t) = traces() else { return };
    let c = t.join("torch_cpu/linear_dims/control");
    let tt = t.join("torch_cpu/linear_dims/test");
    let v = json(&[
        "compare",
        c.to_str().unwrap(),
        tt.to_str().unwrap(),
        "--group-by",
        "input_dims",
        "--include",
        "^aten::addmm",
        "--sort",
        "name",
    ]);
    let rows: Vec<(String, String)> = v["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["name"].as_str().unwrap().to_string(),
                r["category"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    // Without --group-by aten::addmm is one unchanged row; with it, old shapes go, new ones come.
    assert!(rows.contains(&(
        "aten::addmm [input_dims=[[100],[16,128],[128,100],[],[]]]".into(),
        "deleted".into()
    )));
    assert!(rows.contains(&(
        "aten::addmm [input_dims=[[1024],[16,2048],[2048,1024],[],[]]]".into(),
        "added".into()
    )));
    assert!(
        rows.iter().all(|(_, cat)| cat == "added" || cat == "deleted"),
        "{rows:?}"
    );
}

#[test]
fn every_edge_trace_loads() {
    let Some(t) = traces() else { return };
    for entry in std::fs::read_dir(t.join("edge")).unwrap() {
        let p = entry.unwrap().path();
        let p = p.to_str().unwrap();
        let v = json(&["compare", p, p, "--no-save"]);
        let s = &v["summary"];
        assert!(s["rows"].as_u64().unwrap() > 0, "{p}");
        assert_eq!(s["rows"], s["unchanged"], "{p} against itself");
    }
}

fn gate(args: &[&str]) -> (i32, String) {
    let out = Command::cargo_bin("tracediff")
        .unwrap()
        .arg("gate")
        .args(args)
        .output()
        .unwrap();
    (out.status.code().unwrap_or(-1), String::from_utf8(out.stdout).unwrap())
}

#[test]
fn gate_on_identical_runs_passes_count_rules_and_shows_the_spread() {
    let Some(t) = traces() else { return };
    let c = t.join("torch_cpu/identical/control");
    let tt = t.join("torch_cpu/identical/test");
    let (code, out) = gate(&[
        c.to_str().unwrap(),
        tt.to_str().unwrap(),
        "--normalize-names",
        "--fail-on-added",
        ".",
        "--fail-on-deleted",
        ".",
        "--max-count-increase",
        "0",
    ]);
    assert_eq!(code, 0, "{out}");
    // Both sides' step-time spread is reported (min, max, MAD over the three steps).
    assert!(
        out.contains("baseline: ") && out.contains("step time median") && out.contains("MAD"),
        "{out}"
    );
    assert!(out.contains("over 3 samples"), "{out}");
}

#[test]
fn gate_on_loss_fn_fails_the_deleted_exp() {
    let Some(t) = traces() else { return };
    let (code, out) = gate(&[
        t.join("torch_cpu/loss_fn/control").to_str().unwrap(),
        t.join("torch_cpu/loss_fn/test").to_str().unwrap(),
        "--fail-on-deleted",
        "aten::exp",
    ]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("gate: FAIL: fail on deleted"), "{out}");
}
