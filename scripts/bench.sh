#!/usr/bin/env bash
# Times tracediff and HTA 0.5.0 on the same inputs in one run, and prints medians, ratios and
# peak RSS (from /usr/bin/time). Inputs: the shared HTA demo pair, and (unless BENCH_LARGE_MB=0)
# a pair of large traces made with ../shared/tools/scale_trace.py, cached outside the repository.
#
#   scripts/bench.sh                 # 5 runs each; HTA in a throwaway venv if pip can install it
#   RUNS=9 BENCH_LARGE_MB=2000 scripts/bench.sh
#
# Environment: RUNS (default 5), BENCH_LARGE_MB (default 2000; 0 skips), BENCH_RANKS_MB (size of
# each of 8 rank files, default 250; 0 skips), BENCH_CACHE (default ~/.cache/tracediff-bench),
# SHARED (default ../shared), NO_HTA=1 to skip HTA.
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${RUNS:-5}
LARGE_MB=${BENCH_LARGE_MB:-2000}
CACHE=${BENCH_CACHE:-$HOME/.cache/tracediff-bench}
SHARED=${SHARED:-../shared}
PAIR_C=$SHARED/traces/hta_trace_diff/control
PAIR_T=$SHARED/traces/hta_trace_diff/test
[ -d "$PAIR_C" ] || { echo "bench: $PAIR_C not found (set SHARED)" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "bench: /usr/bin/time is needed for peak RSS (apt-get install time)" >&2; exit 2; }
mkdir -p "$CACHE"

cargo build --release --quiet
BIN=$PWD/target/release/tracediff

# measure NAME CMD...: runs CMD $RUNS times, records wall seconds and peak RSS (KB).
declare -A MED_T MED_M
measure() {
  local name=$1; shift
  local times=() mems=() out tmp
  tmp=$(mktemp)
  for _ in $(seq "$RUNS"); do
    /usr/bin/time -o "$tmp" -f "%e %M" "$@" >/dev/null 2>&1 || { echo "bench: '$*' failed" >&2; exit 2; }
    out=$(tail -1 "$tmp")
    times+=("${out% *}"); mems+=("${out#* }")
  done
  rm -f "$tmp"
  MED_T[$name]=$(printf '%s\n' "${times[@]}" | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')
  MED_M[$name]=$(printf '%s\n' "${mems[@]}" | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')
  printf '%-34s median %8.3f s   peak RSS %8.1f MB   (%s runs: %s)\n' "$name" "${MED_T[$name]}" \
    "$(echo "${MED_M[$name]} / 1024" | bc -l)" "$RUNS" "${times[*]}"
}

HTA_PY=""
if [ "${NO_HTA:-0}" != 1 ]; then
  VENV=$CACHE/hta-venv
  if [ ! -x "$VENV/bin/python" ] || ! "$VENV/bin/python" -c 'import hta' 2>/dev/null; then
    echo "bench: installing HolisticTraceAnalysis and pandas<3 into $VENV ..." >&2
    if python3 -m venv "$VENV" && "$VENV/bin/pip" install -q HolisticTraceAnalysis "pandas<3" >&2; then :; else
      echo "bench: could not install HTA (no pip or no network): skipping HTA" >&2
      VENV=""
    fi
  fi
  [ -n "$VENV" ] && HTA_PY=$VENV/bin/python
fi
HTA_SCRIPT=$CACHE/hta_compare.py
cat > "$HTA_SCRIPT" <<'PY'
import sys, logging
logging.disable(logging.WARNING)
from hta.trace_diff import TraceDiff, LabeledTrace
c = LabeledTrace(label="control", trace_dir=sys.argv[1])
t = LabeledTrace(label="test", trace_dir=sys.argv[2])
TraceDiff.compare_traces(c, t)
PY

echo "== machine: $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo), $(uname -m)"
echo "== tracediff $($BIN --version | cut -d' ' -f2), HTA: ${HTA_PY:+$("$HTA_PY" -c 'import importlib.metadata as m; print(m.version("HolisticTraceAnalysis"))')}"
echo
echo "== event store memory per kept event, by attribute preset (examples/store_memory.rs)"
cargo run --quiet --release --example store_memory -- "$PAIR_C"/*.json.gz
echo
echo "== pair: hta_trace_diff (2 x 35 MB JSON, gzipped), default compare"
measure "tracediff compare" "$BIN" compare "$PAIR_C" "$PAIR_T" --no-save --format csv
measure "zcat both files" sh -c "zcat $PAIR_C/*.gz >/dev/null; zcat $PAIR_T/*.gz >/dev/null"
if [ -n "$HTA_PY" ]; then
  measure "HTA 0.5.0 compare_traces" "$HTA_PY" "$HTA_SCRIPT" "$PAIR_C" "$PAIR_T"
  echo "   speed-up vs HTA: $(echo "${MED_T[HTA 0.5.0 compare_traces]} / ${MED_T[tracediff compare]}" | bc -l | xargs printf '%.0f')x"
fi
echo "   tracediff / zcat: $(echo "${MED_T[tracediff compare]} / ${MED_T[zcat both files]}" | bc -l | xargs printf '%.2f')"

if [ "$LARGE_MB" != 0 ]; then
  echo
  LC=$CACHE/large-$LARGE_MB/control; LT=$CACHE/large-$LARGE_MB/test
  mkdir -p "$LC" "$LT"
  for side in control test; do
    dest=$CACHE/large-$LARGE_MB/$side/$side.json
    if [ ! -s "$dest" ]; then
      echo "bench: making $dest (~$LARGE_MB MB) with scale_trace.py ..." >&2
      python3 "$SHARED/tools/scale_trace.py" "$SHARED/traces/hta_trace_diff/$side/$side.json.gz" "$dest" --target-mb "$LARGE_MB" >&2
    fi
  done
  bytes=$(( $(stat -c %s "$LC/control.json") + $(stat -c %s "$LT/test.json") ))
  echo "== large pair: $((bytes / 1000000)) MB of JSON in all, --iteration all"
  measure "tracediff compare (large)" "$BIN" compare "$LC" "$LT" --no-save --format csv --iteration all
  echo "   throughput: $(echo "$bytes / 1000000 / ${MED_T[tracediff compare (large)]}" | bc -l | xargs printf '%.0f') MB/s of JSON"

  GC=$CACHE/large-$LARGE_MB-gz/control; GT=$CACHE/large-$LARGE_MB-gz/test
  if [ ! -s "$GT/test.json.gz" ]; then
    echo "bench: gzipping the large pair (gzip -1) ..." >&2
    mkdir -p "$GC" "$GT"
    gzip -1 -c "$LC/control.json" > "$GC/control.json.gz" &
    gzip -1 -c "$LT/test.json" > "$GT/test.json.gz"
    wait
  fi
  echo "== the same pair gzipped ($(( ($(stat -c %s "$GC/control.json.gz") + $(stat -c %s "$GT/test.json.gz")) / 1000000 )) MB compressed)"
  measure "tracediff compare (large, gz)" "$BIN" compare "$GC" "$GT" --no-save --format csv --iteration all
  measure "zcat of both, in parallel" sh -c "zcat $GC/control.json.gz >/dev/null & zcat $GT/test.json.gz >/dev/null; wait"
  echo "   throughput: $(echo "$bytes / 1000000 / ${MED_T[tracediff compare (large, gz)]}" | bc -l | xargs printf '%.0f') MB/s of JSON"
fi

RANKS_MB=${BENCH_RANKS_MB:-250}
if [ "$RANKS_MB" != 0 ]; then
  echo
  RD=$CACHE/ranks-$RANKS_MB
  if [ ! -s "$RD/rank7.json" ]; then
    mkdir -p "$RD"
    echo "bench: making 8 rank files of ~$RANKS_MB MB in $RD ..." >&2
    python3 "$SHARED/tools/scale_trace.py" "$SHARED/traces/hta_trace_diff/control/control.json.gz" "$RD/base.json" \
      --target-mb "$RANKS_MB" >/dev/null
    for r in 0 1 2 3 4 5 6 7; do
      # Same events, another rank in distributedInfo.
      python3 - "$RD/base.json" "$RD/rank$r.json" "$r" <<'PY'
import json, sys
src, dst, rank = sys.argv[1], sys.argv[2], int(sys.argv[3])
with open(src) as f:
    head = f.read(1 << 20)
    rest = f.read()
key = '"distributedInfo"'
i = head.index(key)
j = head.index("}", i) + 1
head = head[:i] + key + ': {"backend": "nccl", "rank": %d, "world_size": 8}' % rank + head[j:]
with open(dst, "w") as f:
    f.write(head)
    f.write(rest)
PY
    done
    rm -f "$RD/base.json"
  fi
  bytes=$(cat "$RD"/rank*.json | wc -c)
  echo "== 8 ranks x ~$RANKS_MB MB per side ($((bytes / 1000000)) MB per side), the same directory on both sides"
  measure "tracediff --rank all" "$BIN" compare "$RD" "$RD" --no-save --format csv --rank all
  echo "   throughput: $(echo "$bytes / 1000000 / ${MED_T[tracediff --rank all]}" | bc -l | xargs printf '%.0f') MB/s of JSON (each file read once)"
  # The default step is the lowest of the whole side (as in HTA): the other ranks' steps are read.
  measure "--control-rank 3 --test-rank 5" "$BIN" compare "$RD" "$RD" --no-save --format csv --control-rank 3 --test-rank 5
  # With the steps given, the other ranks are read only up to their distributedInfo.
  measure "--control-rank 3 --test-rank 5 --iteration all" "$BIN" compare "$RD" "$RD" --no-save --format csv \
    --control-rank 3 --test-rank 5 --iteration all
fi
