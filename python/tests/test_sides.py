"""A side given as a list of runs, and the views' defaults, equal the command line's."""

import csv
import io
import json
import math
import subprocess
import sys
from pathlib import Path

import pytest

import tracediff

TRACEDIFF = str(Path(sys.executable).with_name("tracediff"))


def cli(*args):
    run = subprocess.run([TRACEDIFF, *args], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    return run.stdout


def runs(fixtures, side):
    return [str(fixtures / "replicates/fused" / side / f"run{i}") for i in (1, 2, 3)]


def given(flag, paths):
    return [a for p in paths for a in (flag, p)]


def assert_csv_equal(frame, text):
    rows = list(csv.DictReader(io.StringIO(text)))
    assert sorted(r["name"] for r in rows) == sorted(frame.index)
    for r in rows:
        for col, value in r.items():
            if col == "name" or col not in frame.columns:
                continue
            got = frame.at[r["name"], col]
            if col == "significant":
                assert {"true": True, "false": False, "": None}[value] == got, (r["name"], col)
            else:
                # The CSV gives times to the nanosecond (per-step means are fractions of one).
                assert math.isclose(float(value), float(got), abs_tol=5e-4), (r["name"], col)


def test_operators_of_lists_of_runs_are_the_clis(fixtures):
    c, t = runs(fixtures, "control"), runs(fixtures, "test")
    frame = tracediff.operators(c, t)
    text = cli("operators", *given("--control-run", c), *given("--test-run", t), "--format", "csv")
    assert_csv_equal(frame, text)
    # Per step, averaged per run then over runs, and judged between runs (exact values).
    assert frame.at["aten::mul", "control_calls_per_step"] == 3
    assert frame.at["aten::mul", "test_calls_per_step"] == 0
    assert math.isclose(frame.at["aten::mul", "control_host_self_per_step_us"], 362.617, abs_tol=5e-4)
    assert frame.at["aten::mul", "significant"] is True
    assert frame.at["aten::mm", "significant"] is False
    # A list of the runs is the directory of runs.
    whole = tracediff.operators(str(fixtures / "replicates/fused/control"), str(fixtures / "replicates/fused/test"))
    assert whole.equals(frame)


def test_kernels_overview_and_modules_of_runs_are_the_clis(fixtures):
    c, t = runs(fixtures, "control"), runs(fixtures, "test")
    args = [*given("--control-run", c), *given("--test-run", t)]
    assert_csv_equal(tracediff.kernels(c, t), cli("kernels", *args, "--format", "csv"))
    over = tracediff.overview(c, t)
    over.pop("per_step"), over.pop("per_rank")
    want = json.loads(cli("overview", *args, "--format", "json", "--per-step"))
    assert over["control"]["mean_step_time_us"] == want["control"]["mean_step_time_us"]
    assert over["control"]["runs"] == 3 and over["control"]["steps_used"] == [1, 2, 3]


def test_the_views_use_every_step_and_totals_sums_them(fixtures):
    c, t = str(fixtures / "replicates/fused/control/run1"), str(fixtures / "replicates/fused/test/run1")
    per_step = tracediff.operators(c, t)
    assert_csv_equal(per_step, cli("operators", c, t, "--format", "csv"))
    sums = tracediff.operators(c, t, totals=True)
    assert_csv_equal(sums, cli("operators", c, t, "--totals", "--format", "csv"))
    assert sums.at["aten::mul", "control_calls"] == 3 * per_step.at["aten::mul", "control_calls_per_step"]
    assert sums.at["aten::mul", "control_calls"] == per_step.at["aten::mul", "control_calls"]


def test_compare_keeps_htas_table_for_one_path_and_takes_runs(fixtures):
    c, t = str(fixtures / "replicates/fused/control/run1"), str(fixtures / "replicates/fused/test/run1")
    # HTA's compare_traces defaults: the lowest step, sums.
    hta = tracediff.compare(c, t)
    rows = {r["name"]: r for r in csv.DictReader(io.StringIO(cli("compare", c, t, "--hta", "--no-save", "--format", "csv")))}
    assert hta.loc["aten::mul", "control_counts"] == int(rows["aten::mul"]["control_counts"])
    assert hta.loc["aten::mul", "control_counts"] == 3
    # Runs given one by one: the command line's rows (operations, normalised names, every step),
    # summed as HTA's table is (`compare --totals`).
    cr, tr = runs(fixtures, "control"), runs(fixtures, "test")
    of_runs = tracediff.compare(cr, tr)
    args = [*given("--control-run", cr), *given("--test-run", tr)]
    rows = {r["name"]: r for r in csv.DictReader(io.StringIO(cli("compare", *args, "--totals", "--no-save", "--format", "csv")))}
    assert sorted(rows) == sorted(of_runs.index)
    assert of_runs.loc["aten::mul", "control_counts"] == 27 == int(rows["aten::mul"]["control_count"])
    assert math.isclose(of_runs.loc["aten::mul", "control_total_duration"], 3263.553, abs_tol=1e-9)


def test_a_bad_side_is_refused(fixtures):
    t = str(fixtures / "replicates/fused/test")
    with pytest.raises(ValueError, match="empty list of runs"):
        tracediff.operators([], t)
    with pytest.raises(TypeError, match="list of paths"):
        tracediff.operators(3, t)
    with pytest.raises(TypeError, match=r"control\[1\]"):
        tracediff.operators([t, None], t)
    # A directory of runs inside a list of runs.
    with pytest.raises(tracediff.TraceError, match="is a directory of runs"):
        tracediff.operators([t, str(fixtures / "replicates/fused/control/run1")], t)
