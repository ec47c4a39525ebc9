"""One meaning per field name (docs/fields.md): the Python frames' fields hold the numbers the
command line's CSV and JSON hold under the same names, sums without `_per_step`, means per step
with it."""

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


def pair(fixtures):
    # 3 steps a side: the rows are per step, so sums and per-step values differ.
    return str(fixtures / "basic/control"), str(fixtures / "basic/test")


@pytest.mark.parametrize("view", ["operators", "kernels"])
def test_view_frames_hold_the_clis_json_fields(fixtures, view):
    c, t = pair(fixtures)
    frame = getattr(tracediff, view)(c, t)
    rows = {r["name"]: r for r in json.loads(cli(view, c, t, "--format", "json"))["rows"]}
    assert sorted(rows) == sorted(frame.index)
    compared = 0
    for name, row in rows.items():
        for field, value in row.items():
            if field not in frame.columns or not isinstance(value, (int, float)) or isinstance(value, bool):
                continue
            got = float(frame.at[name, field])
            assert math.isclose(got, float(value), abs_tol=1e-9), (view, name, field, got, value)
            compared += 1
    assert compared > 0
    assert "control_calls_per_step" in frame.columns
    assert any(c.endswith("_per_step_us") for c in frame.columns)
    assert not any(c.startswith("per_step") for c in frame.columns)


def test_sums_and_per_step_values_have_their_own_names(fixtures):
    c, t = pair(fixtures)
    ops = tracediff.operators(c, t)
    # 3 steps: the sum is three times the value per step, each under its own name.
    assert ops.at["aten::mm", "control_calls"] == 3
    assert ops.at["aten::mm", "control_calls_per_step"] == 1.0
    assert ops.at["aten::mm", "control_device_total_us"] == 600.0
    assert ops.at["aten::mm", "control_device_total_per_step_us"] == 200.0
    csv_rows = {r["name"]: r for r in csv.DictReader(io.StringIO(cli("operators", c, t, "--format", "csv")))}
    for field in ("control_calls", "control_calls_per_step", "control_device_total_us", "control_device_total_per_step_us"):
        assert float(csv_rows["aten::mm"][field]) == float(ops.at["aten::mm", field]), field


def test_htas_frames_keep_htas_names(fixtures):
    c, t = pair(fixtures)
    df = tracediff.compare(c, t)
    assert list(df.columns)[:4] == ["control_counts", "control_total_duration", "test_counts", "test_total_duration"]
    hta = {r["name"]: r for r in csv.DictReader(io.StringIO(cli("compare", c, t, "--hta", "--no-save", "--format", "csv")))}
    assert df.loc["aten::mm", "control_counts"] == int(hta["aten::mm"]["control_counts"])
