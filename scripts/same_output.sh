#!/usr/bin/env bash
# Runs every command over the fixtures and (when present) ../shared/traces with two builds of
# tracediff and says whether their output is byte-identical: stdout, stderr, exit status and the
# files a command writes. A refactor that promises "same output" is checked with this, not by eye.
#
#   scripts/same_output.sh OLD_BINARY NEW_BINARY [--quick]
#
# --quick: the fixtures only (a minute on two cores); without it the shared traces too.
# SAME_OUTPUT_ONLY=REGEX runs only the commands that match it (grep -E), to check one result
# while moving it; the whole list is the check that counts.
# Exit status 0 when every output is the same, 1 when any differs (the differing cases are listed
# and the two output folders kept), 2 on bad usage.
set -u
if [ $# -lt 2 ]; then
    echo "usage: scripts/same_output.sh OLD_BINARY NEW_BINARY [--quick]" >&2
    exit 2
fi
quick=${3:-}
work=$(mktemp -d)
# Each build runs as `tracediff` (clap's usage lines name the binary it was started as).
mkdir -p "$work/bin-old" "$work/bin-new"
cp "$1" "$work/bin-old/tracediff" && cp "$2" "$work/bin-new/tracediff" || exit 2
old=$work/bin-old/tracediff new=$work/bin-new/tracediff
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

pairs=(fixtures/basic fixtures/views fixtures/modules fixtures/breakdown fixtures/idle
    fixtures/serving fixtures/amd fixtures/cpuranks fixtures/ranks fixtures/nosteps
    fixtures/replicates/aa fixtures/replicates/fused fixtures/scenarios/resnet fixtures/classes fixtures/gate)
if [ "$quick" != "--quick" ] && [ -d ../shared/traces ]; then
    pairs+=(../shared/traces/hta_trace_diff ../shared/traces/torch_cpu/fused_op
        ../shared/traces/torch_cpu/multi_rank ../shared/traces/kineto_resnet50_workers
        ../shared/traces/gpu_h100/resnet ../shared/traces/replicates/fused
        ../shared/traces/inference/sglang_qwen3moe_decode_mi300_b300)
fi

# The two sides of a pair: control/test, base/test, w0/w4, or the first two entries.
sides() {
    local d=$1
    for p in "control test" "base test" "w0 w4" "h100 mi300" "mi300 b300"; do
        set -- $p
        if [ -e "$d/$1" ] && [ -e "$d/$2" ]; then echo "$d/$1 $d/$2"; return; fi
    done
    ls -d "$d"/* | grep -v README | head -2 | tr '\n' ' '
}

commands=(
    "compare" "compare --iteration all" "compare --hta" "compare --format csv"
    "compare --format json" "compare --format markdown" "compare --device gpu --top 20"
    "compare --totals" "ops-diff" "ops-diff --hta"
    "operators" "operators --format json" "kernels" "kernels --by-operator" "kernels --by-class"
    "overview" "overview --format json" "overview --per-step" "overview --iteration all --rank all"
    "modules --time device" "kernels --aligned" "events --format csv"
    "modules" "modules --format json" "flamegraph --folded"
    "gate --max-step-time-regression 5% --max-op-regression 10%"
    "compare --iteration all --format csv" "compare --iteration all --format json"
    "compare --iteration all --format markdown"
    "operators --format csv" "operators --format markdown" "operators --iteration all"
    "operators --iteration all --format csv" "operators --iteration all --format json"
    "operators --time host-self --top 5 --format markdown"
    "kernels --format csv" "kernels --format json" "kernels --format markdown"
    "kernels --by-operator --format csv" "kernels --by-operator --format json"
    "kernels --by-operator --format markdown" "kernels --by-class --format csv"
    "kernels --by-class --format json" "kernels --by-class --format markdown"
    "kernels --iteration all" "kernels --iteration all --format csv"
    "overview --format csv" "overview --format markdown" "overview --per-step --format markdown"
    "overview --iteration all --rank all --format csv" "overview --iteration all --rank all --format markdown"
    "gate --max-step-time-regression 5% --max-op-regression 10% --format markdown"
    "gate --max-step-time-regression 5% --max-op-regression 10% --format csv"
    "gate --max-step-time-regression 5% --max-op-regression 10% --format json"
    "kernels --aligned --format csv" "kernels --aligned --format json" "kernels --aligned --format markdown"
    "modules --format csv" "modules --format markdown" "modules --time device --format markdown"
    "modules --time device --format csv"
)
# Commands given the control side alone (one run's view).
one_commands=("operators" "operators --format csv" "operators --format json" "operators --format markdown"
    "kernels" "kernels --format csv" "kernels --by-operator --format json" "kernels --iteration all --format csv"
    "overview" "overview --format csv" "overview --format json" "overview --format markdown"
    "modules" "modules --format csv" "modules --format json" "modules --format markdown"
    "modules --time device" "events" "events --format csv" "events --format json" "events --format jsonl")
# Commands run again at a narrow width (columns dropped, names cut).
narrow_commands=("compare" "compare --iteration all" "operators" "kernels --by-operator" "kernels --by-class"
    "ONE operators" "ONE modules" "overview" "overview --per-step --iteration all --rank all" "kernels --aligned"
    "gate --max-step-time-regression 5% --max-op-regression 10%" "modules" "modules --time device" "ONE events")
# Commands that write a file: the file is compared too.
file_commands=("report -o OUTFILE.html" "flamegraph -o OUTFILE.svg" "plot -o OUTFILE.svg")

run_all() {
    local bin=$1 out=$2 n=0
    mkdir -p "$out"
    for pair in "${pairs[@]}"; do
        [ -d "$pair" ] || continue
        read -r c t <<<"$(sides "$pair")"
        for cmd in "${commands[@]}" "${file_commands[@]}" "${one_commands[@]/#/ONE }" \
            "${narrow_commands[@]/#/COLUMNS=40 }"; do
            if [ -n "${SAME_OUTPUT_ONLY:-}" ] && ! grep -qE -- "$SAME_OUTPUT_ONLY" <<<"$cmd"; then
                continue
            fi
            n=$((n + 1))
            local columns=100
            if [[ $cmd == COLUMNS=* ]]; then
                columns=${cmd%% *} columns=${columns#COLUMNS=} cmd=${cmd#* }
            fi
            # ONE: the control side alone.
            local test=$t
            if [[ $cmd == ONE\ * ]]; then
                cmd=${cmd#ONE } test=
            fi
            local case="$out/$n"
            local file="$out/$n.file"
            echo "COLUMNS=$columns $cmd $c $test" >"$case.cmd"
            # shellcheck disable=SC2086
            COLUMNS=$columns timeout 300 "$bin" ${cmd/OUTFILE/$file} "$c" $test \
                >"$case.stdout" 2>"$case.stderr" </dev/null
            echo $? >"$case.rc"
            # A written file is named by its case, so the two folders compare by name.
            sed -i "s#$out#OUT#g" "$case.stderr" "$case.stdout" 2>/dev/null
        done
    done
}

run_all "$old" "$work/old"
run_all "$new" "$work/new"
rm -rf "$work/bin-old" "$work/bin-new"
if diff -rq "$work/old" "$work/new" >"$work/differ"; then
    echo "same output: $(ls "$work/old" | grep -c '\.cmd$') cases"
    rm -rf "$work"
    exit 0
fi
echo "output differs (folders kept in $work):"
sed -E 's#.*/(old|new)/([0-9]+)\..*#\2#' "$work/differ" | sort -un | while read -r n; do
    echo "  case $n: $(cat "$work/old/$n.cmd")"
done
exit 1
