"""One default selection (docs/semantics.md#defaults): Python's gate reads the ranks and steps the
command line's commands read, the lowest rank and every step."""

import json
import subprocess
import sys
from pathlib import Path

import tracediff

TRACEDIFF = str(Path(sys.executable).with_name("tracediff"))


def test_gate_and_compare_read_the_same_ranks_and_steps(fixtures):
    c, t = str(fixtures / "cpuranks/control"), str(fixtures / "cpuranks/test")
    gate = tracediff.gate(c, t, max_step_time_regression="500%")["report"]
    run = subprocess.run([TRACEDIFF, "compare", c, t, "--no-save", "--format", "json"], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    compare = json.loads(run.stdout)
    assert gate["baseline"]["ranks"] == compare["control"]["ranks"] == [0]
    assert gate["candidate"]["iterations"] == compare["test"]["iterations"] == [1, 2, 3]
    every = tracediff.gate(c, t, rank="all", max_step_time_regression="500%")["report"]
    assert every["baseline"]["ranks"] == [0, 1, 2]
