"""Errors as exceptions with the command line's message, the `tracediff` command, the charts,
and tracediff's own API."""

import subprocess
import sys
from pathlib import Path

import pytest

import tracediff
from tracediff import TraceDiff, TraceError


# The command the wheel installed, beside this interpreter (a venv need not be activated).
TRACEDIFF = str(Path(sys.executable).with_name("tracediff"))


def cli(*args):
    return subprocess.run([TRACEDIFF, *args], capture_output=True, text=True)


@pytest.mark.parametrize(
    "bad",
    ["bad/truncated.json", "bad/not_a_trace.json", "bad/empty.json", "bad/invalid_utf8.json", "missing.json"],
)
def test_bad_input_raises_trace_error_with_the_clis_message(fixtures, bad):
    path = str(fixtures / bad)
    good = str(fixtures / "basic/test")
    with pytest.raises(TraceError) as raised:
        TraceDiff.compare_traces(path, good)
    assert isinstance(raised.value, ValueError)
    message = str(raised.value)
    assert "\n" not in message
    run = cli("compare", path, good, "--no-save")
    assert run.returncode == 2
    assert run.stderr.strip().splitlines()[-1] == f"tracediff: {message}"


def test_a_step_that_does_not_exist_is_a_trace_error(fixtures):
    with pytest.raises(TraceError, match="iteration"):
        TraceDiff.compare_traces(str(fixtures / "basic/control"), str(fixtures / "basic/test"), control_iteration=99)


def test_the_command_comes_from_the_wheel(fixtures, tmp_path):
    run = subprocess.run(
        [TRACEDIFF, "compare", str(fixtures / "basic/control"), str(fixtures / "basic/test"), "--format", "csv"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    assert run.returncode == 0, run.stderr
    assert run.stdout.startswith("name,control_count,control_total_us,test_count,test_total_us")
    assert cli("--version").stdout.strip() == f"tracediff {tracediff.__version__}"
    assert cli("compare").returncode == 2


def test_charts_without_plotly_are_pngs(fixtures, tmp_path, monkeypatch):
    import builtins

    real_import = builtins.__import__

    def no_plotly(name, *args, **kwargs):
        if name.startswith("plotly"):
            raise ImportError(name)
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_plotly)
    df = TraceDiff.compare_traces(str(fixtures / "basic/control"), str(fixtures / "basic/test"))
    for method, name in ((TraceDiff.visualize_counts_diff, "counts.png"), (TraceDiff.visualize_duration_diff, "dur.png")):
        method(df.head(10), show_image=False, export_image_path=str(tmp_path / name))
        assert (tmp_path / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    with pytest.raises(ValueError, match="PNG"):
        TraceDiff.visualize_counts_diff(df, show_image=False, export_image_path=str(tmp_path / "x.svg"))


def test_own_api_compare_and_ops_diff(fixtures):
    c, t = fixtures / "basic/control", fixtures / "basic/test"
    df = tracediff.compare(c, t, device="gpu", labels=("base", "new"))
    assert list(df.columns)[:2] == ["base_counts", "base_total_duration"]
    assert all(df.index.str.contains("Kernel|Memcpy|Memset|at::native", regex=True))
    ops = tracediff.ops_diff(c, t)
    assert set(ops) == {"added", "deleted", "increased", "decreased", "unchanged"}
    assert "aten::gelu" in ops["added"] and "aten::relu" in ops["deleted"]
    only_add = tracediff.compare(c, t, include=["^aten::add$"])
    assert list(only_add.index) == ["aten::add"]
    with pytest.raises(TypeError):
        tracediff.compare(c, t, control_rank=1.5)


def test_polars_backend(fixtures):
    polars = pytest.importorskip("polars")
    df = tracediff.compare(fixtures / "basic/control", fixtures / "basic/test", backend="polars")
    assert isinstance(df, polars.DataFrame)
    assert df.columns[0] == "name"
    with pytest.raises(ValueError, match="backend"):
        tracediff.compare(fixtures / "basic/control", fixtures / "basic/test", backend="arrow")


def test_the_gil_is_released_while_rust_reads(shared):
    import threading
    import time

    pair = shared / "traces/hta_trace_diff"
    done = threading.Event()
    worker = threading.Thread(
        target=lambda: (tracediff.compare(pair / "control", pair / "test"), done.set()), daemon=True
    )
    ticks = 0
    worker.start()
    start = time.perf_counter()
    # Count main-thread steps while the worker is inside the Rust call; a held GIL would
    # freeze this loop for the whole call.
    while not done.is_set():
        ticks += 1
        time.sleep(0.001)
    elapsed = time.perf_counter() - start
    worker.join()
    assert elapsed < 0.05 or ticks > elapsed * 100, (ticks, elapsed)
