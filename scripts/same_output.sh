#!/usr/bin/env bash
# Runs every command over the fixtures and (when present) ../shared/traces with two builds of
# tracediff and says whether their output is byte-identical: stdout, stderr, exit status and the
# files a command writes. A refactor that promises "same output" is checked with this, not by eye.
#
#   scripts/same_output.sh OLD_BINARY NEW_BINARY [--quick]
#
# SAME_OUTPUT_OLD_DIR=DIR: see below (a baseline computed once).
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
# Without --quick: every set of ../shared/traces, each folder that holds a pair (control/test,
# base/test, …) or traces of its own (the first two entries are the sides; one alone is one run).
if [ "$quick" != "--quick" ] && [ -d ../shared/traces ]; then
    while read -r d; do
        # A folder of sets (gpu_h100/) is not a pair itself: its sets are listed on their own.
        if [ -d "$d/control" ] || [ -d "$d/base" ] || [ -d "$d/w0" ] || [ -d "$d/h100" ] ||
            find "$d" -maxdepth 1 -type f -name '*.json*' | grep -q .; then
            pairs+=("$d")
        fi
    done < <(find ../shared/traces -mindepth 1 -maxdepth 2 -type d \
        ! -name control ! -name test ! -name base ! -name w0 ! -name w4 ! -name h100 ! -name mi300 \
        ! -name capture_traces | sort)
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
            # A case is named by its command line, so that saved outputs match whatever the list.
            local line="COLUMNS=$columns $cmd $c $test"
            local id
            id=$(printf '%s' "$line" | md5sum | cut -c1-12)
            local case="$out/$id"
            local file="$out/$id.file"
            [ -e "$case.rc" ] && continue
            echo "$line" >"$case.cmd"
            # shellcheck disable=SC2086
            COLUMNS=$columns timeout 300 "$bin" ${cmd/OUTFILE/$file} "$c" $test \
                >"$case.stdout" 2>"$case.stderr" </dev/null
            echo $? >"$case.rc"
            # A written file is named by its case, so the two folders compare by name.
            sed -i "s#$out#OUT#g" "$case.stderr" "$case.stdout" 2>/dev/null
        done
    done
}

# SAME_OUTPUT_OLD_DIR=DIR keeps the old build's outputs in DIR and reuses them on the next run
# with the same DIR (the old build then is not run again): the baseline of a long refactor is
# computed once. The case list must not change between the two runs.
if [ -n "${SAME_OUTPUT_OLD_DIR:-}" ]; then
    if [ ! -e "$SAME_OUTPUT_OLD_DIR/.complete" ]; then
        rm -rf "$SAME_OUTPUT_OLD_DIR"
        run_all "$old" "$SAME_OUTPUT_OLD_DIR"
        touch "$SAME_OUTPUT_OLD_DIR/.complete"
    fi
    cp -r "$SAME_OUTPUT_OLD_DIR" "$work/old" && rm -f "$work/old/.complete"
fi
# With saved outputs, only the cases added since are run with the old build.
run_all "$old" "$work/old"
run_all "$new" "$work/new"
# Saved cases no longer in the list are not compared.
for f in "$work/old"/*.cmd; do
    [ -e "$work/new/$(basename "$f")" ] || rm -f "${f%.cmd}".*
done
rm -rf "$work/bin-old" "$work/bin-new"
if diff -rq "$work/old" "$work/new" >"$work/differ"; then
    echo "same output: $(ls "$work/old" | grep -c '\.cmd$') cases"
    rm -rf "$work"
    exit 0
fi
echo "output differs (folders kept in $work):"
sed -E -e 's#^Only in .*: ([0-9a-f]+)\..*#\1#' -e 's#.*/(old|new)/([0-9a-f]+)\..*#\2#' "$work/differ" | sort -u | while read -r n; do
    echo "  case $n: $(cat "$work/new/$n.cmd" 2>/dev/null || cat "$work/old/$n.cmd")"
done
exit 1
