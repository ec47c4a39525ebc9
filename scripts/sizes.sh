#!/usr/bin/env bash
# Size limits of the code: no Rust file over 800 lines and no function over 80 lines
# (counted from the line of its `fn` to its closing brace, both included; unit tests count too,
# they are code of the same file). Prints each offender as `path: N lines` or
# `path:LINE: fn NAME is N lines`, and exits 1 if there is any, 0 if none.
#
#   scripts/sizes.sh [PATH...]
#
# Without paths it checks all of it: src/ (the libraries' layers and the command line), the
# crates under crates/ and the Python bindings in python/src. The code is formatted by rustfmt,
# so a function ends at the first `}` line at the indentation of its `fn` line.
set -u
max_file=800
max_fn=80
cd "$(dirname "$0")/.."
if [ $# -eq 0 ]; then
    set -- src crates python/src
fi
files=$(find "$@" -name '*.rs' | sort)
[ -n "$files" ] || { echo "sizes.sh: no Rust files under $*" >&2; exit 2; }
# shellcheck disable=SC2086
awk -v max_file="$max_file" -v max_fn="$max_fn" '
    function report_file() {
        if (path != "" && lines > max_file) { printf "%s: %d lines\n", path, lines; bad = 1 }
    }
    FNR == 1 { report_file(); path = FILENAME; lines = 0; open = 0 }
    { lines++ }
    # The end of the open function: a closing brace at the indentation of its `fn` line, or a
    # bodiless declaration (`fn f(...);` over several lines).
    open && index($0, indent "}") == 1 && substr($0, length(indent) + 1, 1) == "}" {
        n = FNR - start + 1
        if (n > max_fn) { printf "%s:%d: fn %s is %d lines\n", path, start, name, n; bad = 1 }
        open = 0
    }
    open && index($0, indent ")") == 1 && $0 ~ /;[ \t]*$/ { open = 0 }
    !open && /^[ \t]*(pub(\([a-z:_ ]+\))? )?(const )?(async )?(unsafe )?(extern "[^"]*" )?fn [A-Za-z_]/ {
        if ($0 ~ /[;}][ \t]*$/) next
        match($0, /^[ \t]*/); indent = substr($0, 1, RLENGTH)
        rest = $0; sub(/.*fn /, "", rest); match(rest, /^[A-Za-z0-9_]+/)
        name = substr(rest, 1, RLENGTH); start = FNR; open = 1
    }
    END { report_file(); exit bad }
' $files
