#!/usr/bin/env bash
# A 1,024-rank job's traces compared without one machine reading them all: each Slurm array task
# summarises one rank where the traces lie (the map), then one small job compares the summaries
# (the reduce). tracediff schedules nothing; Slurm does.
#
#   # one task per rank, for each run, into one summary dataset:
#   sbatch --array=0-1023 examples/slurm-array.sh summarize /runs/control /summaries
#   sbatch --array=0-1023 examples/slurm-array.sh summarize /runs/test    /summaries
#   # then, once both arrays are done (sbatch --dependency=afterok:JOBID …), anywhere:
#   examples/slurm-array.sh compare /summaries/run=control /summaries/run=test --rank all --iteration all
#
# `summarize RUN_DIR OUT_DIR` takes the trace with index $SLURM_ARRAY_TASK_ID among RUN_DIR's
# trace files (*.json, *.json.gz, sorted by name) and writes the dataset file
# OUT_DIR/run=<RUN_DIR's name>/rank=<its rank>.parquet (docs/summaries.md#datasets).
# `compare …` is `tracediff compare …`. Set TRACEDIFF to the binary if it is not on PATH.
set -euo pipefail
tracediff=${TRACEDIFF:-tracediff}

case "${1:-}" in
summarize)
    run_dir=${2:?usage: slurm-array.sh summarize RUN_DIR OUT_DIR}
    out_dir=${3:?usage: slurm-array.sh summarize RUN_DIR OUT_DIR}
    task=${SLURM_ARRAY_TASK_ID:?SLURM_ARRAY_TASK_ID is not set: run this as an array job (sbatch --array=0-N)}
    traces=()
    while IFS= read -r f; do traces+=("$f"); done < <(
        find "$run_dir" -maxdepth 1 -type f \( -name '*.json' -o -name '*.json.gz' \) | LC_ALL=C sort
    )
    if ((task < 0 || task >= ${#traces[@]})); then
        echo "slurm-array.sh: task $task, but $run_dir holds ${#traces[@]} traces" >&2
        exit 2
    fi
    trace=${traces[$task]}
    label=$(basename "$(cd "$run_dir" && pwd)")
    "$tracediff" summarize "$trace" -o "$out_dir/" --label "$label"
    ;;
compare)
    shift
    exec "$tracediff" compare "$@"
    ;;
*)
    echo "usage: slurm-array.sh summarize RUN_DIR OUT_DIR | compare CONTROL TEST [options]" >&2
    exit 2
    ;;
esac
