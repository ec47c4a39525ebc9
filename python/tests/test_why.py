"""`why=True` on `compare`, `operators` and `kernels`: the why columns (docs/fields.md#why) with
the names and values of the command line's `--why --format json`, on `fixtures/explain` (a pair
whose changes are known: a Linear layer widened, an op in bf16, a relu called twice as often, an
op replaced); `why=False` leaves them out."""

import json
import math
import subprocess
import sys

import pytest

import tracediff

PAIR = ("explain/control", "explain/test")

WHY_FIELDS = [
    "ratio_calls",
    "ratio_work",
    "ratio_efficiency",
    "ratio_time_per_call",
    "diff_calls_part{step}_us",
    "diff_work_part{step}_us",
    "diff_efficiency_part{step}_us",
    "work_unit",
    "control_work_per_call",
    "test_work_per_call",
    "causes",
    "causes_via",
]


def fields(per_step: bool):
    step = "_per_step" if per_step else ""
    return [f.format(step=step) for f in WHY_FIELDS]


def cli_rows(*args: str) -> list:
    out = subprocess.run(
        [sys.executable, "-m", "tracediff", *args, "--why", "--format", "json"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return json.loads(out)["rows"]


def same(frame_value, cli_value) -> bool:
    """A frame's cell against the JSON's: NaN or None where the JSON has null."""
    if cli_value is None:
        return frame_value is None or (isinstance(frame_value, float) and math.isnan(frame_value))
    return frame_value == cli_value


def pair(fixtures):
    return [str(fixtures / p) for p in PAIR]


@pytest.mark.parametrize("view,extra", [("operators", {}), ("kernels", {}), ("kernels", {"by_operator": True})])
def test_the_views_why_columns_are_the_command_lines(fixtures, view, extra):
    c, t = pair(fixtures)
    flags = ["--by-operator"] if extra else []
    rows = cli_rows(view, c, t, *flags)
    df = getattr(tracediff, view)(c, t, why=True, **extra)
    names = fields(per_step=True)
    assert list(df.columns[-len(names):]) == names
    assert len(df) == len(rows)
    for i, row in enumerate(rows):
        for name in names:
            assert same(df[name].iloc[i], row[name]), (row["name"], name, df[name].iloc[i], row[name])


def test_the_operators_values_on_the_widened_layer(fixtures):
    df = tracediff.operators(*pair(fixtures), why=True)
    mm = df.loc["aten::mm"]
    assert mm["ratio_work"] == 2.25
    assert mm["work_unit"] == "FLOP"
    assert mm["causes"] == "dims [64, 512]×[512, 512] → [64, 768]×[768, 768]"
    # The parts sum to the change of the time they split (device total here).
    parts = mm[["diff_calls_part_per_step_us", "diff_work_part_per_step_us", "diff_efficiency_part_per_step_us"]]
    assert parts.sum() == pytest.approx(mm["diff_device_total_per_step_us"])
    assert mm["causes_via"] is None


def test_kernel_rows_name_the_operator_their_causes_come_from(fixtures):
    df = tracediff.kernels(*pair(fixtures), why=True, backend="polars")
    row = df.filter(df["name"] == "sm90_xmma_gemm_bf16bf16_bf16f32").row(0, named=True)
    assert row["causes"] == "float → c10::BFloat16"
    assert row["causes_via"] == "aten::addmm"
    assert row["work_unit"] is None


def test_compare_why_columns_are_the_command_lines(fixtures):
    # HTA's table (the lowest step, raw names, Python frames), as the command line's `--hta`.
    c, t = pair(fixtures)
    rows = {r["name"]: r for r in cli_rows("compare", c, t, "--no-save", "--hta")}
    df = tracediff.compare(c, t, why=True)
    names = fields(per_step=False)
    assert list(df.columns[-len(names):]) == names
    assert sorted(df.index) == sorted(rows)
    for name, row in rows.items():
        for field in names:
            assert same(df.loc[name, field], row[field]), (name, field, df.loc[name, field], row[field])
    assert df.loc["aten::mm", "ratio_work"] == 2.25


def test_every_step_gives_the_parts_of_the_sums(fixtures):
    # HTA's table sums the steps: the parts split the sums' change, as `--hta --iteration all`.
    c, t = pair(fixtures)
    rows = {r["name"]: r for r in cli_rows("compare", c, t, "--no-save", "--hta", "--iteration", "all")}
    df = tracediff.compare(c, t, why=True, control_iteration="all", test_iteration="all", backend="polars")
    names = fields(per_step=False)
    assert df.columns[-len(names):] == names
    got = {r["name"]: r for r in df.iter_rows(named=True)}
    assert sorted(got) == sorted(rows)
    for name, row in rows.items():
        for field in names:
            assert same(got[name][field], row[field]), (name, field)


@pytest.mark.parametrize("call", ["compare", "operators", "kernels"])
def test_without_why_there_are_no_why_columns(fixtures, call):
    df = getattr(tracediff, call)(*pair(fixtures))
    assert not set(df.columns) & set(fields(True) + fields(False))
    df = getattr(tracediff, call)(*pair(fixtures), why=False)
    assert not set(df.columns) & set(fields(True) + fields(False))


def test_a_side_without_shapes_is_a_warning_and_empty_work_columns(fixtures):
    c, t = fixtures / "explain/noshapes/control", fixtures / "explain/noshapes/test"
    with pytest.warns(tracediff.TracediffWarning, match="record_shapes=True"):
        df = tracediff.operators(c, t, why=True)
    assert df["ratio_work"].isna().all()
    assert df["diff_work_part_per_step_us"].isna().all()


@pytest.mark.parametrize("call", ["overview", "modules", "explain", "ops_diff", "folded_stacks"])
def test_the_functions_without_why_columns_refuse_it(fixtures, call):
    with pytest.raises(TypeError, match=f"{call}\\(\\) does not take why"):
        getattr(tracediff, call)(*pair(fixtures), why=True)


def test_why_is_a_bool(fixtures):
    with pytest.raises(TypeError, match="why must be True or False"):
        tracediff.operators(*pair(fixtures), why="yes")


def test_why_takes_sides_of_runs_in_the_views_not_in_compare(fixtures):
    runs = [fixtures / PAIR[0], fixtures / PAIR[0]]
    frame = tracediff.operators(runs, [fixtures / PAIR[1], fixtures / PAIR[1]], why=True)
    pair = tracediff.operators(fixtures / PAIR[0], fixtures / PAIR[1], why=True)
    for column in ["diff_work_part_per_step_us", "ratio_work", "causes"]:
        assert frame[column].sort_index().equals(pair[column].sort_index()), column
    with pytest.raises(tracediff.TraceError, match="compare --why explains one run per side"):
        tracediff.compare(runs, fixtures / PAIR[1], why=True)
