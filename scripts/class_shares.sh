#!/usr/bin/env bash
# The share of each trace's device time per kernel class (docs/kernel-classes.md#how-well-the-rules-cover-real-traces):
# `kernels --by-class` of every trace file under a folder against itself, every step, as a Markdown
# table with the `other` share first (the rules' goal: at most 3% on every trace).
#
#   scripts/class_shares.sh                       # ../shared/traces
#   scripts/class_shares.sh DIR [--kernel-classes FILE]
#
# Environment: TRACEDIFF (the binary; default target/release/tracediff, else target/debug/tracediff).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=${1:-../shared/traces}
shift || true
BIN=${TRACEDIFF:-target/release/tracediff}
[ -x "$BIN" ] || BIN=target/debug/tracediff
[ -x "$BIN" ] || { echo "class_shares: build tracediff first (cargo build)" >&2; exit 2; }
[ -d "$ROOT" ] || { echo "class_shares: $ROOT not found" >&2; exit 2; }
CLASSES="gemm attention conv norm elementwise reduce index copy communication moe optimizer other"
printf '| trace | device time | other |'
for c in $CLASSES; do [ "$c" = other ] || printf ' %s |' "$c"; done
printf '\n|---|---:|---:|'
for c in $CLASSES; do [ "$c" = other ] || printf -- '---:|'; done
printf '\n'
find "$ROOT" -type f \( -name '*.json' -o -name '*.json.gz' \) | LC_ALL=C sort | while read -r f; do
  csv=$("$BIN" kernels --by-class "$f" "$f" --iteration all --format csv "$@" 2>/dev/null) || continue
  # name,…,control_device_total_us,… (docs/fields.md): the sums, found by name.
  echo "$csv" | awk -F, -v name="${f#"$ROOT"/}" -v classes="$CLASSES" '
    NR == 1 { for (i = 1; i <= NF; i++) if ($i == "control_device_total_us") k = i }
    NR > 1 { t[$1] = $k; total += $k }
    END {
      if (total == 0) exit
      n = split(classes, c, " ")
      printf "| %s | %.0f µs | %.2f%% |", name, total, 100 * t["other"] / total
      for (i = 1; i <= n; i++) if (c[i] != "other") printf " %.1f%% |", 100 * t[c[i]] / total
      printf "\n"
    }'
done
