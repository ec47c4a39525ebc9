#!/usr/bin/env python3
"""Measures the one-run verdict on pairs of single runs (docs/significance.md#what-one-run-per-side-can-and-cannot-tell).

    python3 scripts/one_run_pairs.py BIN CONFIG [--aa SET ...] [--real SET ...] [--pair NAME BASE CAND ...]
                                     [--no-rows] [--gate-both-ways]

For every pair of single runs it runs `compare`, `operators` and `kernels` (each with
`--iteration all`, JSON) and counts the rows marked significant, then the gate with CONFIG and
gives its verdict and each failing rule (change, threshold, noise band). One line a pair,
tab-separated, and a summary per set at the end.

- `--aa SET`: SET holds `control/run*/` and `test/run*/` of ONE program (an A/A set): every
  unordered pair of its runs (control×test and control×control, test×test: 8 runs give 28
  pairs), the earlier run as the baseline; with `--gate-both-ways` the gate also runs each pair
  the other way round.
- `--real SET`: SET holds `control/run*/` and `test/run*/` of a real change: each control run
  against each test run, and the gate both ways (the change, and its reverse).
- `--pair NAME BASE CAND`: one pair of runs (a directory or a trace each), as given.
"""
import argparse
import itertools
import json
import os
import subprocess
import sys


def runs_of(side):
    return sorted(
        os.path.join(side, d) for d in os.listdir(side) if os.path.isdir(os.path.join(side, d))
    )


def marked(binary, cmd, base, cand):
    out = subprocess.run(
        [binary, cmd, "--iteration", "all", "--format", "json", base, cand],
        capture_output=True,
        text=True,
    )
    if out.returncode != 0:
        return None, None
    rows = json.loads(out.stdout)["rows"]
    return sum(1 for r in rows if r.get("significant")), len(rows)


def gate(binary, config, base, cand):
    out = subprocess.run(
        [binary, "gate", "--config", config, "--format", "json", base, cand],
        capture_output=True,
        text=True,
    )
    if out.returncode not in (0, 1):
        return "ERROR", out.stderr.strip().splitlines()[-1:]
    report = json.loads(out.stdout)["report"]
    failed = []
    for r in report["rules"]:
        if r["verdict"] != "fail" or r["rule"] in ("op time", "count") and r["relative_change"] is None:
            continue
        rel = r.get("relative_change")
        noise = r.get("noise")
        failed.append(
            "{} {}: {}{} (noise ±{})".format(
                r["rule"],
                r["subject"],
                "" if rel is None else "{:+.1f}%".format(100 * rel),
                "" if r.get("expected") is None else " beyond shift",
                "-" if noise is None else "{:.3g}".format(noise),
            )
        )
    return report["verdict"].upper(), failed


def short(path):
    parts = os.path.normpath(path).split(os.sep)
    return "/".join(parts[-2:])


def measure(args, name, base, cand, rows=True, both=False):
    line = [name, short(base), short(cand)]
    counts = {}
    if rows:
        for cmd in ("compare", "operators", "kernels"):
            sig, n = marked(args.bin, cmd, base, cand)
            counts[cmd] = (sig, n)
            line.append("-" if n is None else "{}/{}".format(sig, n))
    verdicts = []
    for b, c in [(base, cand), (cand, base)] if both else [(base, cand)]:
        verdict, failed = gate(args.bin, args.config, b, c)
        verdicts.append(verdict)
        line.append(verdict + ("" if not failed else " [" + "; ".join(failed) + "]"))
    print("\t".join(line), flush=True)
    return counts, verdicts


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("bin")
    p.add_argument("config")
    p.add_argument("--aa", nargs="*", default=[])
    p.add_argument("--real", nargs="*", default=[])
    p.add_argument("--pair", nargs=3, action="append", default=[], metavar=("NAME", "BASE", "CAND"))
    p.add_argument("--no-rows", action="store_true")
    p.add_argument("--gate-both-ways", action="store_true")
    args = p.parse_args()
    summary = []
    for aa in args.aa:
        runs = runs_of(os.path.join(aa, "control")) + runs_of(os.path.join(aa, "test"))
        over, fails, gates, worst = 0, 0, 0, 0.0
        pairs = list(itertools.combinations(runs, 2))
        for base, cand in pairs:
            counts, verdicts = measure(args, os.path.basename(aa), base, cand, not args.no_rows, args.gate_both_ways)
            for sig, n in counts.values():
                if n:
                    worst = max(worst, sig / n)
                    over += sig / n > 0.01
            fails += sum(v != "PASS" for v in verdicts)
            gates += len(verdicts)
        summary.append(
            "A/A {}: {} pairs; tables over 1% marked: {}; worst share {:.1%}; gate fails {} of {}".format(
                aa, len(pairs), over, worst, fails, gates
            )
        )
    for real in args.real:
        pairs = list(itertools.product(runs_of(os.path.join(real, "control")), runs_of(os.path.join(real, "test"))))
        fails = [0, 0]
        for base, cand in pairs:
            _, verdicts = measure(args, os.path.basename(real), base, cand, not args.no_rows, True)
            for i, v in enumerate(verdicts):
                fails[i] += v != "PASS"
        summary.append(
            "real {}: {} pairs; gate fails control→test {}, test→control {}".format(real, len(pairs), *fails)
        )
    for name, base, cand in args.pair:
        measure(args, name, base, cand, not args.no_rows, True)
    for s in summary:
        print(s)


if __name__ == "__main__":
    sys.exit(main())
