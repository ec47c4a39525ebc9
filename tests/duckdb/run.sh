#!/usr/bin/env bash
# The DuckDB example of docs/commands.md over `events --format parquet`, checked against `tracediff compare`
# (counts and totals per name) on a fixture pair and, when ../shared is there, real pairs.
# Makes its own venv with the duckdb package; skips, saying why, only when that cannot be done.
# Not part of `cargo test` (which needs no Python); .ci/run runs it after `cargo test`.
set -euo pipefail
cd "$(dirname "$0")/../.."
venv=target/duckdb-venv
bin=${TRACEDIFF:-target/debug/tracediff}
[ -x "$bin" ] || cargo build --quiet
if ! "$venv/bin/python" -c 'import duckdb' 2>/dev/null; then
    if ! command -v python3 >/dev/null 2>&1; then
        echo "skipped the DuckDB example test: python3 is not installed"
        exit 0
    fi
    if ! python3 -m venv "$venv" >/dev/null || ! "$venv/bin/pip" install --quiet duckdb; then
        echo "skipped the DuckDB example test: the duckdb package could not be installed in $venv"
        exit 0
    fi
fi
pairs=(fixtures/ranks/control fixtures/ranks/test fixtures/basic/control fixtures/basic/test)
shared=../shared/traces
if [ -d "$shared" ]; then
    pairs+=("$shared/torch_cpu/multi_rank/control" "$shared/torch_cpu/multi_rank/test")
    pairs+=("$shared/hta_trace_diff/control" "$shared/hta_trace_diff/test")
else
    echo "the DuckDB example test runs on the fixtures only: $shared is absent"
fi
"$venv/bin/python" tests/duckdb/check_readme_sql.py "$bin" docs/commands.md "${pairs[@]}"
# The DuckDB queries of docs/summaries.md over a summary dataset of each pair, checked against
# compare and overview.
"$venv/bin/python" tests/duckdb/check_summaries_sql.py "$bin" docs/summaries.md "${pairs[@]}"
# The DuckDB query of docs/history.md over a history store of fixtures/history/runs, checked
# against history show.
"$venv/bin/python" tests/duckdb/check_history_sql.py "$bin" docs/history.md fixtures/history/runs/c*
