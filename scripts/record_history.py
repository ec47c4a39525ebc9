#!/usr/bin/env python3
"""Records a history as CI would, and drives `tracediff history add` and `gate --history` on it
(docs/history.md#recording-a-history).

    python3 scripts/record_history.py OUT_DIR [--baseline N] [--aa M] [--after K] [--steps S]
                                       [--batch B] [--width W] [--changed-width W2] [--tracediff BIN]

A small CPU training program (an MLP on random data, batch B = 256, hidden width W = 1024,
SGD, one thread: steps of tens of milliseconds, so that a preemption on a shared machine is a
small part of one) is recorded with
torch.profiler (Kineto), each run a fresh process, as each commit's CI job would record it:

1. N baseline "commits" `c01 … cNN` (hidden width W), each added to OUT_DIR/store;
2. one commit with a known change, `x01`: the hidden Linear layers W2 = 1536 wide instead of W;
   `gate --history` judges it against the store and must fail, naming its rows;
3. M A/A candidates `a1 … aM`: the baseline program run again; each must pass;
4. the change accepted: `x01` and K−1 more runs of the changed program added after the
   baseline; `history show` must find the step time's change point at `x01`.

Traces are written gzipped under OUT_DIR/traces/<label>/trace.json.gz. It prints what the gate
said of each candidate and where `history show` put the change, and exits 1 when an
expectation above does not hold. Needs torch (CPU is enough) and a built tracediff
(`--tracediff`, default target/release/tracediff, else `tracediff` on PATH).
"""
import argparse
import gzip
import json
import os
import shutil
import subprocess
import sys
import tempfile

RULES = ["--max-step-time-regression", "5%", "--max-op-regression", "10%"]


def record_one(out: str, width: int, batch: int, steps: int, seed: int) -> None:
    """One run: a fresh process's training steps, the last `steps` of them profiled."""
    import torch
    import torch.nn as nn

    torch.set_num_threads(1)
    torch.manual_seed(seed)
    model = nn.Sequential(
        nn.Linear(128, width),
        nn.ReLU(),
        nn.Linear(width, width),
        nn.ReLU(),
        nn.Linear(width, 10),
    )
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    x, y = torch.randn(batch, 128), torch.randint(0, 10, (batch,))

    def step() -> None:
        opt.zero_grad(set_to_none=True)
        loss = nn.functional.cross_entropy(model(x), y)
        loss.backward()
        opt.step()

    for _ in range(3):  # warm-up outside the profiler
        step()
    raw = tempfile.mktemp(suffix=".json")
    schedule = torch.profiler.schedule(wait=0, warmup=1, active=steps, repeat=1)
    with torch.profiler.profile(
        activities=[torch.profiler.ProfilerActivity.CPU],
        schedule=schedule,
        record_shapes=True,
        on_trace_ready=lambda p: p.export_chrome_trace(raw),
    ) as prof:
        for _ in range(steps + 1):
            step()
            prof.step()
    os.makedirs(out, exist_ok=True)
    with open(raw, "rb") as src, gzip.open(os.path.join(out, "trace.json.gz"), "wb", compresslevel=9) as dst:
        shutil.copyfileobj(src, dst)
    os.remove(raw)


def tracediff_bin(given):
    if given:
        return given
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    built = os.path.join(root, "target", "release", "tracediff")
    return built if os.path.exists(built) else "tracediff"


def run(cmd, ok=(0,)):
    done = subprocess.run(cmd, capture_output=True, text=True)
    if done.returncode not in ok:
        sys.exit(f"{' '.join(cmd)}: exit {done.returncode}\n{done.stderr}")
    return done


def record(args, label: str, width: int, seed: int) -> str:
    out = os.path.join(args.out, "traces", label)
    cmd = [sys.executable, os.path.abspath(__file__), "--one", out, "--width", str(width), "--batch", str(args.batch)]
    run(cmd + ["--steps", str(args.steps), "--seed", str(seed)])
    return out


def gate(args, store: str, candidate: str) -> dict:
    done = run([args.bin, "gate", "--history", store, candidate, *RULES, "--format", "json"], ok=(0, 1))
    return json.loads(done.stdout)


def failed_rows(report: dict):
    rows = []
    for rule in report["report"]["rules"]:
        if rule["verdict"] == "fail":
            rows.append(f"{rule['rule']}: {rule['subject']}")
    return rows


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out", nargs="?")
    ap.add_argument("--baseline", type=int, default=8)
    ap.add_argument("--aa", type=int, default=3)
    ap.add_argument("--after", type=int, default=4)
    ap.add_argument("--steps", type=int, default=8)
    ap.add_argument("--batch", type=int, default=256)
    ap.add_argument("--width", type=int, default=1024)
    ap.add_argument("--changed-width", type=int, default=1536)
    ap.add_argument("--tracediff")
    ap.add_argument("--one", help=argparse.SUPPRESS)
    ap.add_argument("--seed", type=int, default=0, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.one:
        record_one(args.one, args.width, args.batch, args.steps, args.seed)
        return 0
    if not args.out:
        ap.error("OUT_DIR is required")
    args.bin = tracediff_bin(args.tracediff)
    store = os.path.join(args.out, "store")
    shutil.rmtree(store, ignore_errors=True)
    good = True
    for i in range(1, args.baseline + 1):
        label = f"c{i:02}"
        trace = record(args, label, args.width, i)
        run([args.bin, "history", "add", store, trace, "--label", label, "--branch", "main",
             "--meta", f"width={args.width}"])
        print(f"recorded and added {label}")
    changed = record(args, "x01", args.changed_width, 100)
    verdict = gate(args, store, changed)
    rows = failed_rows(verdict)
    print(f"x01 (width {args.changed_width}): {verdict['report']['verdict']}: {'; '.join(rows)}")
    good &= verdict["report"]["verdict"] == "fail"
    for i in range(1, args.aa + 1):
        trace = record(args, f"a{i}", args.width, 200 + i)
        verdict = gate(args, store, trace)
        rows = failed_rows(verdict)
        print(f"a{i} (A/A): {verdict['report']['verdict']}{': ' + '; '.join(rows) if rows else ''}")
        good &= verdict["report"]["verdict"] == "pass"
    # The change accepted: it and more runs of the changed program join the history.
    run([args.bin, "history", "add", store, changed, "--label", "x01", "--branch", "main"])
    for i in range(2, args.after + 1):
        trace = record(args, f"x{i:02}", args.changed_width, 100 + i)
        run([args.bin, "history", "add", store, trace, "--label", f"x{i:02}", "--branch", "main"])
    show = json.loads(run([args.bin, "history", "show", store, "--top", "3", "--format", "json"]).stdout)
    step = next(s for s in show["series"] if s["kind"] == "step")
    found = [(c["label"], c["relative_change"], c["p_value"]) for c in step["change_points"]]
    for label, rel, p in found:
        print(f"history show: step time change at {label}: {rel * 100:+.1f}% (p = {p:.3f})")
    good &= [f[0] for f in found] == ["x01"]
    print("as expected" if good else "NOT as expected")
    return 0 if good else 1


if __name__ == "__main__":
    sys.exit(main())
