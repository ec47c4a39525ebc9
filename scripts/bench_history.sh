#!/usr/bin/env bash
# The history benchmark (docs/performance.md#history): `history add` of a 64-rank run,
# `gate --history` over a store of 100 runs of 64 ranks, `history show` over 1,000 runs.
# Runs are copies of runs made from fixtures/history (each rank a copy with its
# distributedInfo), so the figures measure the store and the statistics, not the traces.
# usage: scripts/bench_history.sh [WORKDIR]   (TRACEDIFF=path/to/binary, default target/release)
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${TRACEDIFF:-target/release/tracediff}
[ -x "$bin" ] || cargo build --release --quiet
work=${1:-$(mktemp -d)}
mkdir -p "$work"
python3 - "$work" <<'PY'
import json, os, sys
work = sys.argv[1]
for name, src in (("job", "fixtures/history/runs/c01/trace.json"), ("cand", "fixtures/history/aa/a1/trace.json")):
    doc = json.load(open(src))
    os.makedirs(f"{work}/{name}", exist_ok=True)
    for r in range(64):
        doc["distributedInfo"] = {"backend": "gloo", "rank": r, "world_size": 64}
        json.dump(doc, open(f"{work}/{name}/rank{r}.json", "w"))
PY
# Each copy takes a seq, a label and a run.jsonl of its own.
copies() {
    local store=$1 n=$2 src
    src=$(ls -d "$store"/run=* | head -1)
    for i in $(seq 2 "$n"); do
        local dir
        dir=$(printf '%s/run=%06d' "$store" "$i")
        cp -r "$src" "$dir"
        sed -i "s/\"seq\":1,\"label\":\"[^\"]*\"/\"seq\":$i,\"label\":\"r$i\"/" "$dir/run.jsonl"
    done
}
timed() {
    echo "$*"
    /usr/bin/time -f "  %e s wall, %U s user, %M KiB peak" "$@" >/dev/null 2>"$work/time.txt" || true
    tail -1 "$work/time.txt"
}
rm -rf "$work/s64" "$work/s1000"
timed "$bin" history add "$work/s64" "$work/job" --label r1
copies "$work/s64" 100
timed "$bin" gate --history "$work/s64" "$work/cand" --max-step-time-regression 5% --max-op-regression 10%
"$bin" history add "$work/s1000" fixtures/history/runs/c01 --label r1 2>/dev/null >/dev/null
copies "$work/s1000" 1000
timed "$bin" history show "$work/s1000" --top 5
