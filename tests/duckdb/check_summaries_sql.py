"""Runs the DuckDB SQL of docs/summaries.md over a summary dataset of each pair (`tracediff summarize
CONTROL -o summaries --label control`, the same for TEST) and checks it: the op query gives
`compare --rank all --iteration all --hta`'s counts and total durations name by name, the step
query `overview --rank all --iteration all`'s steps, mean step time, compute and idle time.

usage: check_summaries_sql.py TRACEDIFF docs/summaries.md CONTROL TEST [CONTROL TEST ...]
"""

import csv
import io
import json
import os
import re
import subprocess
import sys
import tempfile
from decimal import Decimal
from pathlib import Path

import duckdb


def page_sql(page: Path, marker: str) -> str:
    m = re.search(rf"<!-- {marker} -->\s*```sql\n(.*?)```", page.read_text(), re.S)
    if not m:
        sys.exit(f"{page}: no ```sql block after <!-- {marker} -->")
    return m.group(1)


def query(sql: str, cwd: str) -> list:
    here = os.getcwd()
    os.chdir(cwd)  # the SQL names summaries/ as a user would
    try:
        got = duckdb.connect().execute(sql)
        cols = [d[0] for d in got.description]
        return [dict(zip(cols, r)) for r in got.fetchall()]
    finally:
        os.chdir(here)


def run(tracediff: str, *args: str) -> str:
    return subprocess.run([tracediff, *args], check=True, capture_output=True, text=True).stdout


def check(tracediff: str, ops_sql: str, steps_sql: str, control: str, test: str) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        for label, path in (("control", control), ("test", test)):
            run(tracediff, "summarize", str(Path(path).resolve()), "-o", str(Path(tmp) / "summaries"), "--label", label)
        ops = query(ops_sql, tmp)
        steps = {r["run"]: r for r in query(steps_sql, tmp)}
    sel = ["--rank", "all", "--iteration", "all"]
    out = run(tracediff, "compare", control, test, *sel, "--hta", "--format", "csv", "--no-save")
    cli_rows = {r["name"]: r for r in csv.DictReader(io.StringIO(out))}
    sql_rows = {(r["run"], r["name"]): r for r in ops}
    for name, cli in cli_rows.items():
        for side in ("control", "test"):
            s = sql_rows.get((side, name), {"events": 0, "total_ns": 0})
            assert int(cli[f"{side}_counts"]) == s["events"], (name, side, cli, s)
            assert Decimal(cli[f"{side}_total_duration"]) * 1000 == s["total_ns"], (name, side, cli, s)
    assert {n for _, n in sql_rows} == cli_rows.keys(), (control, sorted({n for _, n in sql_rows} ^ cli_rows.keys())[:5])
    overview = json.loads(run(tracediff, "overview", control, test, *sel, "--format", "json"))
    for side in ("control", "test"):
        o, s = overview[side], steps[side]
        assert s["rank_steps"] == o["ranks"] * o["steps"], (side, o["ranks"], o["steps"], s)
        for col, key in (("step_ns", "mean_step_time_us"), ("compute_ns", "compute_per_step_us"), ("idle_ns", "idle_per_step_us")):
            if key != "mean_step_time_us" and o["breakdown"] is None:
                continue  # no device events: no breakdown (the SQL's average is of the CPU-only zeros)
            want = o[key] if key == "mean_step_time_us" else o["breakdown"][key]
            assert abs(s[col] / 1000 - want) <= 1e-3 + 1e-9 * abs(want), (side, col, s[col], want)
    print(f"DuckDB over a summary dataset = compare and overview: {len(cli_rows)} names ({control} vs {test})")


def main() -> None:
    tracediff, page = sys.argv[1], Path(sys.argv[2])
    pairs = sys.argv[3:]
    ops_sql = page_sql(page, "duckdb-summaries-ops")
    steps_sql = page_sql(page, "duckdb-summaries-steps")
    for control, test in zip(pairs[::2], pairs[1::2]):
        check(tracediff, ops_sql, steps_sql, control, test)


if __name__ == "__main__":
    main()
