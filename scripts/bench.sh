#!/usr/bin/env bash
# The goal lines of the reading pipeline (issues 10 and 26), each measured side by side in one run:
# medians of RUNS, peak RSS from /usr/bin/time, the machine's load, and the ratio to the goal.
#
#   scripts/bench.sh                    # every goal line
#   scripts/bench.sh core two-big       # some of them: core threads big-small two-big hta ranks gzip
#                                       # whitespace memory nsight rocprof explain gate-fail
#   RUNS=9 BASELINE=/path/to/old/tracediff scripts/bench.sh core   # also time another build
#
# Inputs are made with ../shared/tools/scale_trace.py and cached outside the repository.
# Environment: RUNS (default 5), BIG_MB (default 1000), RANK_MB (size of each rank file,
# default 20), BENCH_CACHE (default ~/.cache/tracediff-bench), SHARED (default ../shared),
# BASELINE (another tracediff binary to time beside this one), NO_HTA=1 to skip HTA.
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${RUNS:-5}
BIG_MB=${BIG_MB:-1000}
RANK_MB=${RANK_MB:-20}
CACHE=${BENCH_CACHE:-$HOME/.cache/tracediff-bench}
SHARED=${SHARED:-../shared}
PAIR_C=$SHARED/traces/hta_trace_diff/control
PAIR_T=$SHARED/traces/hta_trace_diff/test
[ -d "$PAIR_C" ] || { echo "bench: $PAIR_C not found (set SHARED)" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "bench: /usr/bin/time is needed for peak RSS (apt-get install time)" >&2; exit 2; }
mkdir -p "$CACHE"
GOALS=("$@")
[ ${#GOALS[@]} -gt 0 ] || GOALS=(memory core threads big-small two-big explain gate-fail gzip whitespace hta ranks nsight rocprof)

cargo build --release --quiet --bin tracediff --example store_memory --example thread_cpu
# CARGO_TARGET_DIR is honoured (a release build kept outside the worktree, e.g. in /tmp).
TARGET=${CARGO_TARGET_DIR:-$PWD/target}
BIN=$TARGET/release/tracediff

load() { awk '{print $1, $2, $3}' /proc/loadavg; }

# measure NAME CMD...: runs CMD $RUNS times; medians of wall seconds, peak RSS (KB) and CPU
# seconds (user + system, all threads) in T, M and C. On a busy machine the CPU time is the
# steadier figure: MB per CPU second is the throughput of one core.
declare -A T M C
median() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
measure() {
  local name=$1; shift
  local times=() mems=() cpus=() out tmp
  tmp=$(mktemp)
  for _ in $(seq "$RUNS"); do
    /usr/bin/time -o "$tmp" -f "%e %M %U %S" "$@" >/dev/null 2>&1 || { echo "bench: '$*' failed" >&2; exit 2; }
    read -r e m u s < <(tail -1 "$tmp")
    times+=("$e"); mems+=("$m"); cpus+=("$(echo "$u + $s" | bc -l)")
  done
  rm -f "$tmp"
  T[$name]=$(median "${times[@]}"); M[$name]=$(median "${mems[@]}"); C[$name]=$(median "${cpus[@]}")
  printf '  %-44s median %7.3f s  CPU %7.3f s  peak RSS %7.1f MB  (runs: %s; load %s)\n' "$name" "${T[$name]}" \
    "${C[$name]}" "$(echo "${M[$name]} / 1024" | bc -l)" "${times[*]}" "$(load)"
}

# fine NAME CMD...: /usr/bin/time counts 10 ms: for commands of a tenth of a second, times CMD
# max(15, 3 x RUNS) times more with a finer clock (Python's perf_counter, and the children's
# CPU from getrusage) and replaces T and C with those medians (M stays from `measure`).
fine() {
  local name=$1 wall cpu; shift
  read -r wall cpu < <(python3 - "$(( RUNS * 3 > 15 ? RUNS * 3 : 15 ))" "$@" <<'PY'
import resource, statistics, subprocess, sys, time
n, cmd = int(sys.argv[1]), sys.argv[2:]
walls, cpus = [], []
for _ in range(n):
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    walls.append(time.perf_counter() - t0)
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpus.append(r1.ru_utime - r0.ru_utime + r1.ru_stime - r0.ru_stime)
print(f"{statistics.median(walls):.4f} {statistics.median(cpus):.4f}")
PY
)
  T[$name]=$wall; C[$name]=$cpu
  printf '  %-44s median %8.4f s  CPU %8.4f s  (finer clock; load %s)\n' "$name" "${T[$name]}" "${C[$name]}" "$(load)"
}

# fine_pair NAME BASELINE_NAME ARGS...: as `fine`, for "$BIN ARGS" and "$BASELINE ARGS" run in
# turn (A B, then B A, ...), so that a machine that speeds up or slows down meanwhile moves both
# alike: the two builds' ratio is then that of the same minutes.
fine_pair() {
  local name=$1 base=$2 out tw tc bw bc; shift 2
  out=$(python3 - "$(( RUNS * 3 > 15 ? RUNS * 3 : 15 ))" "$BIN" "$BASELINE" "$@" <<'PY'
import resource, statistics, subprocess, sys, time
n, bins, args = int(sys.argv[1]), sys.argv[2:4], sys.argv[4:]
walls, cpus = {b: [] for b in bins}, {b: [] for b in bins}
for k in range(n):
    for b in (bins if k % 2 == 0 else bins[::-1]):
        r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.perf_counter()
        subprocess.run([b, *args], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
        walls[b].append(time.perf_counter() - t0)
        r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpus[b].append(r1.ru_utime - r0.ru_utime + r1.ru_stime - r0.ru_stime)
print(" ".join(f"{statistics.median(walls[b]):.4f} {statistics.median(cpus[b]):.4f}" for b in bins))
PY
)
  read -r tw tc bw bc <<<"$out"
  T[$name]=$tw; C[$name]=$tc; T[$base]=$bw; C[$base]=$bc
  printf '  %-44s median %8.4f s  CPU %8.4f s  (finer clock, in turn with the baseline; load %s)\n' \
    "$name" "${T[$name]}" "${C[$name]}" "$(load)"
  printf '  %-44s median %8.4f s  CPU %8.4f s  (finer clock, in turn with this build)\n' \
    "$base" "${T[$base]}" "${C[$base]}"
}

# goal LINE VALUE OP TARGET UNIT: prints the goal line with the measured value and the ratio.
goal() {
  local line=$1 value=$2 op=$3 target=$4 unit=$5 ok
  if [ "$op" = ">=" ]; then ok=$(echo "$value >= $target" | bc -l); else ok=$(echo "$value <= $target" | bc -l); fi
  printf '  GOAL %-52s %10.2f %s (goal %s %s; ratio %.2f) %s\n' "$line" "$value" "$unit" "$op" "$target" \
    "$(echo "$value / $target" | bc -l)" "$([ "$ok" = 1 ] && echo MET || echo 'not met')"
}

mb() { echo "$(stat -c %s "$@" | paste -sd+ | bc) / 1000000" | bc -l; }

# big SIDE: a scaled trace of ~BIG_MB from the demo pair's SIDE, cached.
big() {
  local dest=$CACHE/big-$BIG_MB/$1/$1.json
  if [ ! -s "$dest" ]; then
    mkdir -p "$(dirname "$dest")"
    echo "bench: making $dest (~$BIG_MB MB) with scale_trace.py ..." >&2
    python3 "$SHARED/tools/scale_trace.py" "$SHARED/traces/hta_trace_diff/$1/$1.json.gz" "$dest" --target-mb "$BIG_MB" >&2
  fi
  echo "$dest"
}

small() {
  local dest=$CACHE/small/test.json
  [ -s "$dest" ] || { mkdir -p "$(dirname "$dest")"; zcat "$PAIR_T/test.json.gz" > "$dest"; }
  echo "$dest"
}

echo "== machine: $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo), load $(load)"
echo "== tracediff $($BIN --version | cut -d' ' -f2)${BASELINE:+, baseline $BASELINE}"

for g in "${GOALS[@]}"; do
  echo
  case $g in
  memory)
    echo "== store memory per kept event, by attribute preset (examples/store_memory.rs)"
    "$TARGET"/release/examples/store_memory "$PAIR_C"/*.json.gz
    ;;
  core)
    B=$(big control); size=$(mb "$B")
    echo "== per core: one file read once (the same path on both sides), pinned to one CPU, $(printf %.0f "$size") MB"
    measure "tracediff, 1 CPU" taskset -c 0 "$BIN" compare "$B" "$B" --no-save --format csv --iteration all
    [ -n "${BASELINE:-}" ] && measure "baseline, 1 CPU" taskset -c 0 "$BASELINE" compare "$B" "$B" --no-save --format csv --iteration all
    goal "per core (MB/s of JSON, wall)" "$(echo "$size / ${T[tracediff, 1 CPU]}" | bc -l)" ">=" 500 "MB/s"
    goal "per core (MB per CPU second)" "$(echo "$size / ${C[tracediff, 1 CPU]}" | bc -l)" ">=" 500 "MB/s"
    if [ -n "${BASELINE:-}" ]; then
      goal "  baseline, per core (MB/s of JSON, wall)" "$(echo "$size / ${T[baseline, 1 CPU]}" | bc -l)" ">=" 500 "MB/s"
      goal "  baseline, per core (MB per CPU second)" "$(echo "$size / ${C[baseline, 1 CPU]}" | bc -l)" ">=" 500 "MB/s"
    fi
    ;;
  threads)
    B=$(big control)
    echo "== the busiest thread: one big file read as compare reads it, 16 pool threads (examples/thread_cpu.rs)"
    busiest=()
    for _ in $(seq "$RUNS"); do
      out=$(RAYON_NUM_THREADS=16 "$TARGET"/release/examples/thread_cpu "$B" 2>/dev/null)
      busiest+=("$(echo "$out" | awk '/^busiest thread/ {print $3}')")
    done
    echo "$out" | sed 's/^/  /'
    echo "  (runs: ${busiest[*]}; load $(load))"
    goal "busiest thread, 16 pool threads (CPU s per GB)" "$(median "${busiest[@]}")" "<=" 0.25 "s/GB"
    ;;
  big-small)
    B=$(big control); S=$(small); size=$(mb "$B")
    echo "== one big file against a small one: compare big.json small.json ($(printf %.0f "$size") MB + 35 MB)"
    measure "tracediff compare big small" "$BIN" compare "$B" "$S" --no-save --format csv --iteration all
    [ -n "${BASELINE:-}" ] && measure "baseline compare big small" "$BASELINE" compare "$B" "$S" --no-save --format csv --iteration all
    goal "one big file uses both cores (MB/s of the big file)" "$(echo "$size / ${T[tracediff compare big small]}" | bc -l)" ">=" 800 "MB/s"
    echo "  (CPU: $(printf %.0f "$(echo "($size + 35) / ${C[tracediff compare big small]}" | bc -l)") MB of JSON per CPU second)"
    ;;
  two-big)
    C=$(big control); Tt=$(big test); size=$(mb "$C" "$Tt")
    echo "== two big files: compare control.json test.json ($(printf %.0f "$size") MB in all)"
    measure "tracediff compare big big" "$BIN" compare "$C" "$Tt" --no-save --format csv --iteration all
    [ -n "${BASELINE:-}" ] && measure "baseline compare big big" "$BASELINE" compare "$C" "$Tt" --no-save --format csv --iteration all
    goal "two big files (MB/s of JSON)" "$(echo "$size / ${T[tracediff compare big big]}" | bc -l)" ">=" 900 "MB/s"
    goal "two big files, peak RSS" "$(echo "${M[tracediff compare big big]} / 1024" | bc -l)" "<=" 160 "MB"
    echo "  (CPU: $(printf %.0f "$(echo "$size / ${C[tracediff compare big big]}" | bc -l)") MB of JSON per CPU second)"
    ;;
  explain)
    C=$(big control); Tt=$(big test); size=$(mb "$C" "$Tt")
    echo "== explain against compare on the two big files ($(printf %.0f "$size") MB in all)"
    measure "tracediff compare big big (table)" "$BIN" compare "$C" "$Tt" --no-save --format csv
    measure "tracediff explain big big" "$BIN" explain "$C" "$Tt" --format csv
    measure "tracediff compare --why big big" "$BIN" compare "$C" "$Tt" --no-save --why --format csv
    goal "explain / compare, time" "$(echo "${T[tracediff explain big big]} / ${T[tracediff compare big big (table)]}" | bc -l)" "<=" 1.2 "x"
    goal "explain / compare, peak RSS" "$(echo "${M[tracediff explain big big]} / ${M[tracediff compare big big (table)]}" | bc -l)" "<=" 1.2 "x"
    echo "  (compare --why / compare: time $(printf %.2f "$(echo "${T[tracediff compare --why big big]} / ${T[tracediff compare big big (table)]}" | bc -l)")x, peak RSS $(printf %.2f "$(echo "${M[tracediff compare --why big big]} / ${M[tracediff compare big big (table)]}" | bc -l)")x)"
    ;;
  gate-fail)
    C=$(big control); Tt=$(big test)
    echo "== a failing gate (with its cause lines) against a passing one, on the big files"
    # The gate exits 1 when it fails: that is its answer here, not the benchmark's failure.
    measure "tracediff gate big big (passes: A/A)" "$BIN" gate "$C" "$C" --config examples/tracediff-gate.toml --format json
    measure "tracediff gate big big (fails)" sh -c "\"\$0\" gate \"\$1\" \"\$2\" --config examples/tracediff-gate.toml --format json; [ \$? -eq 1 ]" "$BIN" "$C" "$Tt"
    echo "  (failing / passing: time $(printf %.2f "$(echo "${T[tracediff gate big big (fails)]} / ${T[tracediff gate big big (passes: A/A)]}" | bc -l)")x, peak RSS $(printf %.2f "$(echo "${M[tracediff gate big big (fails)]} / ${M[tracediff gate big big (passes: A/A)]}" | bc -l)")x)"
    ;;
  gzip)
    GC=$CACHE/big-$BIG_MB-gz/control.json.gz; GT=$CACHE/big-$BIG_MB-gz/test.json.gz
    if [ ! -s "$GT" ]; then
      mkdir -p "$(dirname "$GC")"
      echo "bench: gzipping the big pair (gzip -1) ..." >&2
      gzip -1 -c "$(big control)" > "$GC"; gzip -1 -c "$(big test)" > "$GT"
    fi
    size=$(mb "$(big control)" "$(big test)")
    echo "== the two big files gzipped ($(printf %.0f "$(mb "$GC" "$GT")") MB compressed, $(printf %.0f "$size") MB of JSON)"
    measure "tracediff compare big.gz big.gz" "$BIN" compare "$GC" "$GT" --no-save --format csv --iteration all
    measure "zcat of both, in parallel" sh -c "zcat $GC >/dev/null & zcat $GT >/dev/null; wait"
    goal "gzip input, two big files (MB/s of JSON)" "$(echo "$size / ${T[tracediff compare big.gz big.gz]}" | bc -l)" ">=" 900 "MB/s"
    goal "gzip: tracediff / zcat" "$(echo "${T[tracediff compare big.gz big.gz]} / ${T[zcat of both, in parallel]}" | bc -l)" "<=" 1 "x"
    ;;
  nsight)
    N=$CACHE/nsight-100000.sqlite
    [ -s "$N" ] || python3 scripts/make_nsight_fixtures.py --big "$N" 100000
    size=$(mb "$N")
    echo "== an Nsight Systems export: kernels export.sqlite ($(printf %.0f "$size") MB, scripts/make_nsight_fixtures.py --big)"
    measure "tracediff kernels export" "$BIN" kernels "$N" --format csv
    goal "Nsight export (MB/s of the file)" "$(echo "$size / ${T[tracediff kernels export]}" | bc -l)" ">=" 100 "MB/s"
    goal "Nsight export, peak RSS / file size" "$(echo "${M[tracediff kernels export]} / 1024 / $size" | bc -l)" "<=" 2 "x"
    ;;
  rocprof)
    # rocprofv3's JSON is read whole (serde): held to the Nsight export's goals.
    R=$CACHE/rocprof-20000.json
    [ -s "$R" ] || python3 scripts/make_rocprof_fixtures.py --big "$R" 20000
    size=$(mb "$R")
    echo "== rocprofv3's JSON: kernels results.json ($(printf %.0f "$size") MB, scripts/make_rocprof_fixtures.py --big)"
    measure "tracediff kernels rocprofv3" "$BIN" kernels "$R" --format csv
    goal "rocprofv3 JSON (MB/s of the file)" "$(echo "$size / ${T[tracediff kernels rocprofv3]}" | bc -l)" ">=" 100 "MB/s"
    goal "rocprofv3 JSON, peak RSS / file size" "$(echo "${M[tracediff kernels rocprofv3]} / 1024 / $size" | bc -l)" "<=" 2 "x"
    ;;
  whitespace)
    W=$CACHE/whitespace-500.json.gz
    if [ ! -s "$W" ]; then
      echo "bench: making $W (500 MB of spaces inside traceEvents, gzipped) ..." >&2
      { printf '{"traceEvents": [{"cat": "c", "name": "n", "ts": 1, "dur": 1}'; head -c 500000000 /dev/zero | tr '\0' ' ';
        printf ']}'; } | gzip -1 > "$W"
    fi
    echo "== a gzip of 500 MB of white space: compare W W (read once)"
    measure "tracediff compare white white" "$BIN" compare "$W" "$W" --no-save --format csv
    goal "500 MB of white space, peak RSS" "$(echo "${M[tracediff compare white white]} / 1024" | bc -l)" "<=" 200 "MB"
    ;;
  hta)
    echo "== HTA's demo pair (2 x 35 MB JSON, gzipped), default compare"
    measure "tracediff compare" "$BIN" compare "$PAIR_C" "$PAIR_T" --no-save --format csv
    if [ -n "${BASELINE:-}" ]; then
      fine_pair "tracediff compare" "baseline compare" compare "$PAIR_C" "$PAIR_T" --no-save --format csv
    else
      fine "tracediff compare" "$BIN" compare "$PAIR_C" "$PAIR_T" --no-save --format csv
    fi
    measure "zcat both files" sh -c "zcat $PAIR_C/*.gz >/dev/null; zcat $PAIR_T/*.gz >/dev/null"
    fine "zcat both files" sh -c "zcat $PAIR_C/*.gz >/dev/null; zcat $PAIR_T/*.gz >/dev/null"
    goal "demo pair: tracediff / zcat" "$(echo "${T[tracediff compare]} / ${T[zcat both files]}" | bc -l)" "<=" 0.5 "x"
    goal "demo pair: peak RSS" "$(echo "${M[tracediff compare]} / 1024" | bc -l)" "<=" 40 "MB"
    VENV=$CACHE/hta-venv
    if [ "${NO_HTA:-0}" != 1 ] && { [ -x "$VENV/bin/python" ] && "$VENV/bin/python" -c 'import hta' 2>/dev/null ||
        { echo "bench: installing HolisticTraceAnalysis into $VENV ..." >&2
          python3 -m venv "$VENV" && "$VENV/bin/pip" install -q HolisticTraceAnalysis "pandas<3" >&2; }; }; then
      cat > "$CACHE/hta_compare.py" <<'PY'
import sys, logging
logging.disable(logging.WARNING)
from hta.trace_diff import TraceDiff, LabeledTrace
TraceDiff.compare_traces(LabeledTrace(label="control", trace_dir=sys.argv[1]), LabeledTrace(label="test", trace_dir=sys.argv[2]))
PY
      measure "HTA compare_traces" "$VENV/bin/python" "$CACHE/hta_compare.py" "$PAIR_C" "$PAIR_T"
      goal "demo pair: speed-up over HTA" "$(echo "${T[HTA compare_traces]} / ${T[tracediff compare]}" | bc -l)" ">=" 60 "x"
      if [ -n "${BASELINE:-}" ]; then
        goal "  baseline: speed-up over HTA" "$(echo "${T[HTA compare_traces]} / ${T[baseline compare]}" | bc -l)" ">=" 60 "x"
      fi
    else
      echo "  (HTA not measured: NO_HTA=1, or it could not be installed)"
    fi
    ;;
  ranks)
    RD=$CACHE/ranks-$RANK_MB
    if [ ! -s "$RD/r16/rank15.json" ]; then
      mkdir -p "$RD/r2" "$RD/r16"
      echo "bench: making 16 rank files of ~$RANK_MB MB in $RD ..." >&2
      python3 "$SHARED/tools/scale_trace.py" "$PAIR_C/control.json.gz" "$RD/base.json" --target-mb "$RANK_MB" >/dev/null
      for r in $(seq 0 15); do
        sed "0,/\"distributedInfo\": *{[^}]*}/s//\"distributedInfo\": {\"backend\": \"nccl\", \"rank\": $r, \"world_size\": 16}/" \
          "$RD/base.json" > "$RD/r16/rank$r.json"
        [ "$r" -lt 2 ] && cp "$RD/r16/rank$r.json" "$RD/r2/"
      done
      rm -f "$RD/base.json"
      # The test side: the same files under another path (hard links), so each side is read.
      for n in 2 16; do mkdir -p "$RD/t$n"; cp -l "$RD/r$n"/*.json "$RD/t$n/"; done
    fi
    echo "== many ranks: --rank all over 2 and 16 files a side (~$RANK_MB MB each)"
    measure "tracediff --rank all, 2 ranks" "$BIN" compare "$RD/r2" "$RD/t2" --no-save --format csv --rank all
    measure "tracediff --rank all, 16 ranks" "$BIN" compare "$RD/r16" "$RD/t16" --no-save --format csv --rank all
    goal "16 ranks / 2 ranks, peak RSS" "$(echo "${M[tracediff --rank all, 16 ranks]} / ${M[tracediff --rank all, 2 ranks]}" | bc -l)" "<=" 1.5 "x"
    ;;
  *) echo "bench: unknown goal '$g' (core threads big-small two-big gzip whitespace hta ranks memory)" >&2; exit 2 ;;
  esac
done
echo
echo "== load at the end: $(load)"
