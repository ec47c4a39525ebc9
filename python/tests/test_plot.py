"""`tracediff.plot` writes the command line's charts, through the library."""

import subprocess
import sys
import xml.dom.minidom
from pathlib import Path

import pytest

import tracediff

TRACEDIFF = str(Path(sys.executable).with_name("tracediff"))
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def cli(*args):
    run = subprocess.run([TRACEDIFF, *args], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    return run.stdout


def basic(fixtures):
    return fixtures / "basic" / "control", fixtures / "basic" / "test"


def test_plot_writes_the_clis_chart_byte_for_byte(fixtures, tmp_path):
    """The rows are the command line's defaults (the operations, normalised names, every step,
    per step), as the views' are in Python."""
    c, t = basic(fixtures)
    hta_rows = ()
    for metric, ext in (("counts", "png"), ("duration", "svg")):
        mine = tmp_path / f"py-{metric}.{ext}"
        theirs = tmp_path / f"cli-{metric}.{ext}"
        assert tracediff.plot(c, t, mine, metric=metric, top=5, exclude=["ProfilerStep"]) == mine
        cli("plot", str(c), str(t), "--metric", metric, "--top", "5", "--exclude", "ProfilerStep", *hta_rows, "-o", str(theirs))
        assert mine.read_bytes() == theirs.read_bytes(), metric
    assert (tmp_path / "py-counts.png").read_bytes().startswith(PNG_MAGIC)
    svg = (tmp_path / "py-duration.svg").read_text(encoding="utf-8")
    xml.dom.minidom.parseString(svg.encode("utf-8"))
    assert "Duration per step per name" in svg
    sums, cli_sums = tmp_path / "py-sums.svg", tmp_path / "cli-sums.svg"
    tracediff.plot(c, t, sums, metric="duration", top=5, exclude=["ProfilerStep"], totals=True)
    cli("plot", str(c), str(t), "--metric", "duration", "--top", "5", "--exclude", "ProfilerStep", "--totals", "-o", str(cli_sums))
    assert sums.read_bytes() == cli_sums.read_bytes()
    assert "Total duration per name" in sums.read_text(encoding="utf-8")


def test_plot_options_reach_the_chart(fixtures, tmp_path):
    c, t = basic(fixtures)
    out = tracediff.plot(
        str(c), str(t), str(tmp_path / "gpu.svg"), metric="duration", sort="name", top=3,
        width=800, height=500, labels=("fp32", "bf16"), device="gpu", short_names=True,
    )
    assert out == tmp_path / "gpu.svg"
    svg = out.read_text(encoding="utf-8")
    assert "fp32 vs bf16" in svg and "by name" in svg and 'width="800"' in svg
    # GPU rows only: no CPU operator among the bars.
    assert "aten::" not in svg


def test_plot_breakdown_is_the_waterfall(fixtures, tmp_path):
    c, t = fixtures / "breakdown" / "control", fixtures / "breakdown" / "test"
    mine, theirs = tmp_path / "py.png", tmp_path / "cli.png"
    tracediff.plot(c, t, mine, metric="breakdown")
    cli("plot", str(c), str(t), "--metric", "breakdown", "-o", str(theirs))
    assert mine.read_bytes().startswith(PNG_MAGIC)
    assert mine.read_bytes() == theirs.read_bytes()


def test_plot_refuses_bad_arguments_before_writing(fixtures, tmp_path):
    c, t = basic(fixtures)
    out = tmp_path / "chart.png"
    with pytest.raises(TypeError):
        tracediff.plot(c, t, out, include="mm")
    with pytest.raises(TypeError):
        tracediff.plot(c, t, None)
    with pytest.raises(TypeError):
        tracediff.plot(c, t, out, top="5")
    with pytest.raises(TypeError):
        tracediff.plot(c, t, out, 5)  # the options are keyword-only
    with pytest.raises(ValueError, match="metric"):
        tracediff.plot(c, t, out, metric="both")
    with pytest.raises(ValueError, match="sort"):
        tracediff.plot(c, t, out, sort="biggest")
    with pytest.raises(tracediff.TraceError, match=r"\.png or \.svg"):
        tracediff.plot(c, t, tmp_path / "chart.jpg")
    with pytest.raises(tracediff.TraceError, match="pixels"):
        tracediff.plot(c, t, out, width=100)
    with pytest.raises(tracediff.TraceError, match="nothing to plot"):
        tracediff.plot(c, t, out, include=["no such name"])
    assert not out.exists()
