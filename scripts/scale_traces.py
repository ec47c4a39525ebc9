#!/usr/bin/env python3
"""Writes the large synthetic traces that docs/modules.md's scale measurements use (standard
library only, deterministic; write them under /tmp and delete them after).

  flat N OUT [VARIANT]   a step of N top-level operators, each launching one kernel. VARIANT 0
                         and 1 differ by one name in the cycle (they mostly pair); 2 draws other
                         names (most operators differ: the alignment's worst case).
  stair N OUT [VARIANT]  a step of N operators whose intervals cross: each starts before the
                         previous one ends and ends after it (the call tree's partial overlaps).
  deep N OUT [VARIANT]   N nested nn.Module frames with one operator and kernel at the bottom.

Examples:
  python3 scripts/scale_traces.py flat 20000 /tmp/flat_c.json 0
  python3 scripts/scale_traces.py flat 20000 /tmp/flat_t.json 1
  tracediff report /tmp/flat_c.json /tmp/flat_t.json -o /tmp/flat.html
"""
import json
import sys


def step(span):
    return {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": 1, "tid": 1, "ts": 0, "dur": span}


def op(name, ts, dur):
    return {"ph": "X", "cat": "cpu_op", "name": name, "pid": 1, "tid": 1, "ts": ts, "dur": dur}


def launch(ts, corr, kernel, dur):
    return [
        {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": ts + 1, "dur": 3,
         "args": {"correlation": corr}},
        {"ph": "X", "cat": "kernel", "name": kernel, "pid": 0, "tid": 7, "ts": ts + 5, "dur": dur,
         "args": {"correlation": corr, "stream": 7, "device": 0}},
    ]


def ops(kind, n, variant):
    events = [step(n * 10 + 100)]
    for k in range(n):
        name = f"aten::op_{(k * 7 + variant) % 37}" if variant < 2 else f"aten::op_{(k * k * 13 + 5) % 41}"
        ts = 10 + k * 10
        dur = (15 if kind == "stair" else 8) + (k + variant) % 3
        events.append(op(name, ts, dur))
        if kind == "flat":
            events += launch(ts, k + 1, f"kernel_{(k + variant) % 23}", 4 + variant)
    return events


def deep(n, variant):
    events = [step(4 * n + 100)]
    for k in range(n):
        events.append({"ph": "X", "cat": "python_function", "name": f"nn.Module: Block_{k}", "pid": 1, "tid": 1,
                       "ts": 1 + 2 * k, "dur": 4 * n + 50 - 4 * k})
    ts = 2 * n + 5
    events.append(op("aten::mm", ts, 10 + variant))
    return events + launch(ts, 1, "gemm", 4 + variant)


def main():
    if len(sys.argv) < 4 or sys.argv[1] not in ("flat", "stair", "deep"):
        sys.exit(__doc__)
    kind, n, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    variant = int(sys.argv[4]) if len(sys.argv) > 4 else 0
    events = deep(n, variant) if kind == "deep" else ops(kind, n, variant)
    with open(out, "w") as f:
        json.dump({"traceEvents": events}, f)


if __name__ == "__main__":
    main()
