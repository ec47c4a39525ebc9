#!/usr/bin/env python3
"""HTA's TraceDiff against tracediff's Python package, the same calls in one process.

    python3 -m venv /tmp/v && /tmp/v/bin/pip install HolisticTraceAnalysis "pandas<3" .
    /tmp/v/bin/python scripts/bench_python.py ../shared/traces/hta_trace_diff/control \
        ../shared/traces/hta_trace_diff/test --runs 5

Prints the median wall time of each call and the ratio; checks that both give the same rows.
"""

import argparse
import logging
import statistics
import time
import warnings


def median_seconds(fn, runs):
    times = []
    result = None
    for _ in range(runs):
        start = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times), result


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("control")
    parser.add_argument("test")
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    logging.disable(logging.WARNING)

    from hta.trace_diff import TraceDiff as HtaTraceDiff

    import tracediff

    hta_s, hta_df = median_seconds(lambda: HtaTraceDiff.compare_traces(args.control, args.test), args.runs)
    td_s, td_df = median_seconds(lambda: tracediff.TraceDiff.compare_traces(args.control, args.test), args.runs)
    same = list(hta_df.index) == list(td_df.index) and (hta_df["Test_counts"] == td_df["Test_counts"]).all()
    print(f"HTA TraceDiff.compare_traces       median {hta_s:.3f} s over {args.runs} runs")
    print(f"tracediff TraceDiff.compare_traces median {td_s:.3f} s over {args.runs} runs")
    print(f"ratio {hta_s / td_s:.1f}x; same rows and counts: {same}")


if __name__ == "__main__":
    main()
