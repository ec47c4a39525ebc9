"""Runs the DuckDB SQL of docs/history.md over a history store of fixtures/history/runs (made with
`tracediff history add`) and checks it against `tracediff history show --format json`: one row
per run, in seq order, with its label and its mean step time (the step series of `show` is each
run's mean per step, rounded to the nanosecond, written in µs as `values_us`).

usage: check_history_sql.py TRACEDIFF docs/history.md RUN [RUN ...]
"""

import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

import duckdb


def main() -> None:
    tracediff, page, runs = sys.argv[1], Path(sys.argv[2]), sys.argv[3:]
    m = re.search(r"<!-- duckdb-history -->\s*```sql\n(.*?)```", page.read_text(), re.S)
    if not m:
        sys.exit(f"{page}: no ```sql block after <!-- duckdb-history -->")
    with tempfile.TemporaryDirectory() as tmp:
        store = Path(tmp) / "hist"
        for run in runs:
            label = Path(run).name
            subprocess.run([tracediff, "history", "add", str(store), str(Path(run).resolve()), "--label", label],
                           check=True, capture_output=True)
        here = os.getcwd()
        os.chdir(tmp)  # the SQL names hist/ as a user would
        try:
            rows = duckdb.connect().execute(m.group(1)).fetchall()
        finally:
            os.chdir(here)
        shown = json.loads(subprocess.run([tracediff, "history", "show", str(store), "--format", "json"],
                                          check=True, capture_output=True, text=True).stdout)
    step = shown["series"][0]
    assert step["name"] == "step time", step["name"]
    labels = [r["label"] for r in shown["runs"]]
    assert [r[1] for r in rows] == labels, (rows, labels)
    assert [int(r[0]) for r in rows] == [r["seq"] for r in shown["runs"]], rows
    # history show writes µs, to the ns.
    for (seq, label, step_ns), value_us in zip(rows, step["values_us"]):
        assert abs(step_ns - value_us * 1000) <= 0.5 + 1e-6, (label, step_ns, value_us)
    print(f"the DuckDB query of {page} reads a history store of {len(runs)} runs as history show does")


if __name__ == "__main__":
    main()
