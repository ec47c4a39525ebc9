"""`tracediff.History`: a store of runs added, listed as a frame, drawn as series with their
change points, and a candidate gated against it (docs/history.md), on `fixtures/history`
(one program recorded run after run, A/A candidates, a real slowdown, runs after an accepted
change)."""

import csv
import io
import subprocess
import sys
import warnings
from pathlib import Path

import pandas as pd
import pytest

import tracediff
from tracediff import History, TraceError, TracediffWarning

RULES = {"max_step_time_regression": "5%", "max_op_regression": "10%"}
TRACEDIFF = str(Path(sys.executable).with_name("tracediff"))


def _store(fixtures, path, after=False):
    h = History(path)
    runs = [fixtures / f"history/runs/c{i:02}" for i in range(1, 11)]
    if after:
        runs += [fixtures / f"history/after/c{i}" for i in range(11, 17)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", TracediffWarning)
        for run in runs:
            h.add(run, label=run.name, branch="main", meta={"host": "ci-1"})
    return h


@pytest.fixture
def history(fixtures, tmp_path):
    return _store(fixtures, tmp_path / "hist")


@pytest.fixture
def changed(fixtures, tmp_path):
    return _store(fixtures, tmp_path / "hist", after=True)


def test_add_returns_the_runs_line_and_runs_is_a_frame_by_seq(fixtures, tmp_path):
    h = History(tmp_path / "hist")
    assert h.path == tmp_path / "hist" and "hist" in repr(h)
    line = h.add(fixtures / "history/runs/c01", label="c01", branch="main", meta={"host": "ci-1", "n": 3})
    assert (line["seq"], line["label"], line["branch"], line["ranks"]) == (1, "c01", "main", [0])
    assert line["meta"] == {"host": "ci-1", "n": "3"}
    h.add(fixtures / "history/runs/c02", label="c02", meta=["gpu=h100"], time="2026-05-01T12:00:00Z")
    df = h.runs()
    assert df.index.name == "seq" and list(df.index) == [1, 2]
    assert list(df.columns) == ["label", "time", "branch", "meta", "tool_version", "ranks", "source"]
    assert list(df["label"]) == ["c01", "c02"]
    assert df.loc[1, "branch"] == "main" and pd.isna(df.loc[2, "branch"])
    assert df.loc[2, "meta"] == {"gpu": "h100"}
    assert str(df["time"].dtype).startswith("datetime64") and df.loc[2, "time"].year == 2026
    assert df.loc[1, "tool_version"] == tracediff.__version__
    assert len(h) == 2


def test_runs_as_polars(history):
    pl = pytest.importorskip("polars")
    df = history.runs(backend="polars")
    assert df.columns[0] == "seq" and df["seq"].to_list() == list(range(1, 11))
    assert df.schema["time"] == pl.Datetime(time_zone="UTC", time_unit=df.schema["time"].time_unit)
    assert df["meta"][0].to_list() == [{"key": "host", "value": "ci-1"}]
    none = history.change_points(top=1, backend="polars")
    assert none.height == 0 and none.schema["seq"] == pl.Int64 and none.schema["series"] == pl.Utf8
    assert history.series("aten::mm", backend="polars")["seq"].to_list() == list(range(1, 11))


def test_reruns_pass_and_a_slowdown_fails_naming_its_row(history, fixtures):
    for aa in ("a1", "a2", "a3", "a4"):
        result = history.gate(fixtures / f"history/aa/{aa}", **RULES)
        assert result["report"]["verdict"] == "pass", (aa, result["report"]["rules"])
        assert "judged against 10 runs (c01–c10)" in result["report"]["noise_note"]
    result = history.gate(fixtures / "history/slow", **RULES)
    report = result["report"]
    assert report["verdict"] == "fail" and report["baseline"]["label"] == "history"
    failed = [r["subject"] for r in report["rules"] if r["verdict"] == "fail" and r["unit"] == "us"]
    assert "aten::mm" in failed
    assert report["rules"][0]["note"].startswith("history: median")


def test_the_window_and_add_on_pass(history, fixtures):
    result = history.gate(fixtures / "history/aa/a1", window=6, **RULES)
    assert "judged against 6 runs (c05–c10)" in result["report"]["noise_note"]
    history.gate(fixtures / "history/aa/a2", add_on_pass="a2", branch="main", **RULES)
    assert list(history.runs()["label"])[-1] == "a2"
    # A failing candidate is not added.
    history.gate(fixtures / "history/slow", add_on_pass="slow", **RULES)
    assert "slow" not in list(history.runs()["label"])


def test_series_marks_the_change_where_it_starts(changed):
    step = changed.series("step time")
    assert step.index.name == "seq" and len(step) == 16
    assert list(step.columns) == ["label", "value_us", "segment", "change_point", "segment_median_us"]
    assert list(step.loc[step["change_point"], "label"]) == ["c11"]
    assert list(step["segment"]) == [0] * 10 + [1] * 6
    assert step["value_us"].iloc[-1] > step["value_us"].iloc[0] * 1.1
    # µs, as the command line writes them: the fixtures' steps are a few ms.
    assert 100 < step["value_us"].iloc[0] < 100_000
    assert step.attrs["name"] == "step time" and step.attrs["band_upper_us"] > step.attrs["median_us"]
    assert (step.attrs["since_seq"], step.attrs["since_label"]) == (11, "c11")
    mm = changed.series("aten::mm")
    assert list(mm.loc[mm["change_point"], "label"]) == ["c11"]
    assert mm["segment_median_us"].iloc[-1] > mm["segment_median_us"].iloc[0] * 1.3
    with pytest.raises(KeyError, match="no series 'aten::nothing'"):
        changed.series("aten::nothing")


def test_series_holds_the_numbers_of_history_shows_csv(changed):
    """Issue 53: the frame's columns are the command line's, with the same numbers."""
    run = subprocess.run(
        [TRACEDIFF, "history", "show", str(changed.path), "--format", "csv"], capture_output=True, text=True
    )
    assert run.returncode == 0, run.stderr
    rows = [r for r in csv.DictReader(io.StringIO(run.stdout)) if r["series"] == "step time"]
    step = changed.series("step time")
    assert [int(r["seq"]) for r in rows] == list(step.index)
    for r in rows:
        seq = int(r["seq"])
        assert float(r["value_us"]) == step.loc[seq, "value_us"], r
        assert float(r["segment_median_us"]) == step.loc[seq, "segment_median_us"], r
        assert (r["change_point"] == "true") == step.loc[seq, "change_point"], r


def test_change_points_lists_each_series_change(changed):
    df = changed.change_points(top=3)
    assert list(df.columns) == ["series", "kind", "seq", "label", "before_us", "after_us", "relative_change", "p_value"]
    step = df[df["series"] == "step time"]
    assert list(step["label"]) == ["c11"] and list(step["seq"]) == [11]
    assert step["relative_change"].iloc[0] > 0.1 and step["p_value"].iloc[0] < 0.05
    assert "aten::mm" in set(df["series"])
    only = changed.change_points(top=3, name="^aten::mm$")
    assert set(only["series"]) == {"step time", "aten::mm"}


def test_a_history_without_change_has_none(history):
    df = history.change_points(top=2)
    assert len(df) == 0 and "series" in df.columns
    assert not history.series().change_point.any()


def test_bad_input_is_refused_and_nothing_written(fixtures, tmp_path, history):
    with pytest.raises(TraceError, match="no history store here"):
        History(tmp_path / "absent").runs()
    (tmp_path / "file").write_text("x")
    with pytest.raises(TraceError, match="this is a file"):
        History(tmp_path / "file").add(fixtures / "history/runs/c01", label="c01")
    with pytest.raises(TraceError, match="c01"):
        history.add(fixtures / "history/runs/c02", label="c01")
    assert len(history) == 10
    with pytest.raises(TypeError, match="label"):
        history.add(fixtures / "history/runs/c02", label=3)
    with pytest.raises(TypeError, match="meta"):
        history.add(fixtures / "history/runs/c02", label="x", meta="a=b")
    with pytest.raises(TypeError, match="path"):
        History(None)
    with pytest.raises(ValueError, match="window"):
        history.gate(fixtures / "history/aa/a1", window=0)
    with pytest.raises(TraceError, match="min-history 50"):
        history.gate(fixtures / "history/aa/a1", min_history=50, window=60, **RULES)
    with pytest.raises(TypeError, match="is None"):
        history.gate(fixtures / "history/aa/a1", max_op_regression=None)
    with pytest.raises(TraceError, match="gate rules"):
        history.gate(fixtures / "history/aa/a1", max_op_regresion="10%")
    assert len(history) == 10


def test_a_skipped_entry_is_a_warning(history):
    (history.path / "run=000011").mkdir()
    with pytest.warns(TracediffWarning, match="run=000011 skipped"):
        df = history.runs()
    assert len(df) == 10


def test_a_short_history_falls_back_with_a_warning(fixtures, tmp_path):
    h = History(tmp_path / "short")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", TracediffWarning)
        for i in (1, 2):
            h.add(fixtures / f"history/runs/c{i:02}", label=f"c{i:02}")
    with pytest.warns(TracediffWarning, match="fewer than --min-history 5"):
        h.gate(fixtures / "history/aa/a1", **RULES)
