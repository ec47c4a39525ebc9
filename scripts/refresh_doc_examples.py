#!/usr/bin/env python3
"""Rewrites the output under each `$ tracediff …` example of a docs page with what the binary
prints today, the way tests/docs.rs runs it (repository root, COLUMNS=100, a fresh state
directory). Examples that write files (-o) or read files the page makes first (summaries_…)
are left as they are. Usage: scripts/refresh_doc_examples.py [PAGE] [BINARY]
(default docs/commands.md, target/debug/tracediff). Review the diff before committing."""
import os
import shlex
import subprocess
import sys
import tempfile

page = sys.argv[1] if len(sys.argv) > 1 else "docs/commands.md"
binary = os.path.abspath(sys.argv[2] if len(sys.argv) > 2 else "target/debug/tracediff")
lines = open(page, encoding="utf-8").read().split("\n")
out, i, in_code, changed = [], 0, False, 0
while i < len(lines):
    line = lines[i]
    out.append(line)
    i += 1
    if line.startswith("```"):
        in_code = not in_code
        continue
    if not (in_code and line.startswith("$ tracediff ")):
        continue
    command = line[len("$ tracediff "):]
    while command.endswith("\\"):
        command = command[:-1] + " " + lines[i].strip()
        out.append(lines[i])
        i += 1
    start = i
    while i < len(lines) and not lines[i].startswith("$ ") and not lines[i].startswith("```"):
        i += 1
    shown = lines[start:i]
    trailing = []
    while shown and shown[-1] == "":
        trailing.append(shown.pop())
    args = shlex.split(command)
    if any(a == "-o" or a.startswith("summaries_") for a in args):
        out.extend(shown + trailing)
        continue
    with tempfile.TemporaryDirectory() as state:
        env = dict(os.environ, COLUMNS="100", TRACEDIFF_STATE_DIR=state)
        run = subprocess.run([binary] + args, env=env, capture_output=True, text=True)
    if run.returncode != 0:
        sys.exit(f"{page}: `tracediff {command}` failed: {run.stderr.strip()}")
    new = run.stdout.rstrip("\n").split("\n") if run.stdout else []
    if new != shown:
        changed += 1
    out.extend(new + trailing)
open(page, "w", encoding="utf-8").write("\n".join(out))
print(f"{page}: {changed} example(s) rewritten")
