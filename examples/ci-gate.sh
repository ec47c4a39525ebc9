#!/usr/bin/env bash
# The whole CI flow: profile a few training steps of the baseline and of the candidate, then let
# `tracediff gate` decide. Exit status: 0 pass, 1 a rule failed (the job fails), 2 bad input.
#
#   examples/ci-gate.sh train.py            # uses git's main as baseline, the working tree as candidate
#
# Expects a training script that records traces with torch.profiler into $TRACE_DIR, e.g.
#   prof = torch.profiler.profile(schedule=torch.profiler.schedule(wait=1, warmup=1, active=5),
#            on_trace_ready=torch.profiler.tensorboard_trace_handler(os.environ["TRACE_DIR"]))
set -euo pipefail
script=${1:?usage: ci-gate.sh TRAIN_SCRIPT}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# 1. Baseline: the main branch, profiled.
git worktree add -q "$work/main" origin/main
(cd "$work/main" && TRACE_DIR="$work/baseline" python "$script")
git worktree remove --force "$work/main"

# 2. Candidate: this change, profiled the same way.
TRACE_DIR="$work/candidate" python "$script"

# 3. The gate: a Markdown report for the job summary, and the verdict as the exit status.
status=0
tracediff gate "$work/baseline" "$work/candidate" \
  --config examples/tracediff-gate.toml --format markdown -o "$work/gate.md" || status=$?
cat "$work/gate.md" >> "${GITHUB_STEP_SUMMARY:-/dev/stdout}"
exit "$status"
