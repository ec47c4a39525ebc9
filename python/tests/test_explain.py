"""`tracediff.explain`: each changed row's Δ split into calls, work and efficiency (summing to
it exactly), with its causes, as a pandas or polars frame, on `fixtures/explain` (a Linear layer
widened from 512 to 768: more work per call)."""

import json
import subprocess
import sys

import pytest

import tracediff


def test_the_widened_layer_is_more_work_and_the_parts_sum_to_the_change(fixtures):
    df = tracediff.explain(fixtures / "explain/control", fixtures / "explain/test")
    mm = df.loc["aten::mm"]
    assert mm["work_ratio"] == pytest.approx(2.25)
    assert mm["unit"] == "FLOP"
    assert "[64, 512]×[512, 512] → [64, 768]×[768, 768]" in mm["causes"]
    # A row on one side only has no work part (None): its calls part carries the change.
    parts = df[["calls_part", "work_part", "efficiency_part"]].fillna(0).sum(axis=1)
    assert parts.tolist() == df["delta"].tolist()
    assert df.loc["aten::bmm", "calls_part"] == df.loc["aten::bmm", "delta"]
    assert df.attrs["shapes_recorded"] == [True, True]
    assert "work" in df.attrs["summary"]
    # Largest change first, as the command line lists them.
    assert list(df.index)[0] == "aten::mm"


def test_the_frame_holds_what_the_command_line_writes(fixtures):
    c, t = str(fixtures / "explain/control"), str(fixtures / "explain/test")
    out = subprocess.run(
        [sys.executable, "-m", "tracediff", "explain", c, t, "--format", "json", "--top", "1000"],
        capture_output=True, text=True, check=True,
    ).stdout
    rows = json.loads(out)["rows"]
    df = tracediff.explain(c, t)
    assert list(df.index) == [r["name"] for r in rows]
    assert df["delta"].tolist() == [r["delta"] for r in rows]
    assert df["line"].tolist() == [r["line"] for r in rows]


def test_polars_and_a_trace_without_shapes(fixtures):
    pl = pytest.importorskip("polars")
    df = tracediff.explain(fixtures / "explain/control", fixtures / "explain/test", backend="polars")
    assert isinstance(df, pl.DataFrame)
    assert df["name"][0] == "aten::mm"
    plain = tracediff.explain(fixtures / "explain/noshapes/control", fixtures / "explain/noshapes/test")
    assert plain.attrs["shapes_recorded"] == [False, False]
    assert plain["work_part"].fillna(0).eq(0).all()
