"""Runs the DuckDB SQL of docs/commands.md over `tracediff events --format parquet` of each pair and checks
that it gives `tracediff compare`'s counts and total durations, name by name.

usage: check_readme_sql.py TRACEDIFF docs/commands.md CONTROL TEST [CONTROL TEST ...]
"""

import csv
import io
import os
import re
import subprocess
import sys
import tempfile
from decimal import Decimal
from pathlib import Path

import duckdb


def readme_sql(readme: Path) -> str:
    text = readme.read_text()
    m = re.search(r"<!-- duckdb-example -->.*?```sql\n(.*?)```", text, re.S)
    if not m:
        sys.exit(f"{readme}: no ```sql block after <!-- duckdb-example -->")
    return m.group(1)


def check(tracediff: str, sql: str, control: str, test: str) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        for side, path in (("control", control), ("test", test)):
            subprocess.run(
                [tracediff, "events", str(Path(path).resolve()), "--format", "parquet", "-o", f"{side}.parquet"],
                cwd=tmp,
                check=True,
            )
        here = os.getcwd()
        os.chdir(tmp)  # the SQL names control.parquet and test.parquet as a user would
        try:
            got = duckdb.connect().execute(sql)
            cols = [d[0] for d in got.description]
            sql_rows = {r[0]: dict(zip(cols, r)) for r in got.fetchall()}
        finally:
            os.chdir(here)
    out = subprocess.run(
        # The SQL keeps raw names and every category, as `compare --hta` does.
        [tracediff, "compare", control, test, "--hta", "--format", "csv", "--no-save"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    cli_rows = {r["name"]: r for r in csv.DictReader(io.StringIO(out))}
    assert sql_rows.keys() == cli_rows.keys(), (control, sorted(sql_rows.keys() ^ cli_rows.keys())[:5])
    for name, cli in cli_rows.items():
        s = sql_rows[name]
        for side in ("control", "test"):
            assert int(cli[f"{side}_counts"]) == s[f"{side}_count"], (name, side, cli, s)
            ns = Decimal(cli[f"{side}_total_duration"]) * 1000
            assert ns == s[f"{side}_total_ns"], (name, side, cli, s)
    print(f"DuckDB over events.parquet = compare: {len(cli_rows)} names ({control} vs {test})")


def check_differing_attributes(tracediff: str) -> None:
    """A run whose ranks carry different `args` (a key only on one rank, a key int on one and
    float on the other, keys with a tab, `;`, `,`, `}` and a line break): one events.parquet
    with one schema, which DuckDB reads as one table, every key a column and every value there."""
    import json

    keys = ["a\tb;c", "x,y", "}z", "line\nbreak"]
    with tempfile.TemporaryDirectory() as tmp:
        run = Path(tmp) / "run"
        run.mkdir()
        for rank in (0, 1):
            args = {k: i for i, k in enumerate(keys)} if rank == 0 else {"mixed": 2.5, "only_1": "t"}
            if rank == 0:
                args["mixed"] = 1
            ev = {"ph": "X", "cat": "cpu_op", "name": f"op{rank}", "ts": 1, "dur": 2, "pid": 1, "tid": 1, "args": args}
            doc = {"distributedInfo": {"rank": rank}, "traceEvents": [ev]}
            (run / f"rank{rank}.json").write_text(json.dumps(doc))
        out = Path(tmp) / "events.parquet"
        subprocess.run([tracediff, "events", str(run), "--args", "all", "-o", str(out)], check=True)
        con = duckdb.connect()
        got = con.execute(f"SELECT * FROM '{out}' ORDER BY rank")
        cols = [d[0] for d in got.description]
        rows = got.fetchall()
        for k in keys + ["mixed", "only_1"]:
            assert k in cols, (k, cols)
        row = [dict(zip(cols, r)) for r in rows]
        assert row[0]["mixed"] == 1.0 and row[1]["mixed"] == 2.5, row
        assert row[0]["x,y"] == 1 and row[1]["x,y"] is None, row
        assert row[1]["only_1"] == "t" and row[0]["only_1"] is None, row
    print(f"DuckDB reads one events.parquet over ranks with differing attributes: {len(cols)} columns")


def main() -> None:
    tracediff, readme, *pairs = sys.argv[1:]
    tracediff = str(Path(tracediff).resolve())
    sql = readme_sql(Path(readme))
    for control, test in zip(pairs[::2], pairs[1::2]):
        check(tracediff, sql, control, test)
    check_differing_attributes(tracediff)


if __name__ == "__main__":
    main()
