"""The differential flame graph from Python equals the command line's."""

import subprocess
import sys
import xml.dom.minidom
from pathlib import Path

import tracediff

TRACEDIFF = str(Path(sys.executable).with_name("tracediff"))


def cli(*args):
    run = subprocess.run([TRACEDIFF, *args], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    return run.stdout


def test_folded_stacks_equal_the_clis(fixtures):
    c, t = str(fixtures / "modules" / "control"), str(fixtures / "modules" / "test")
    assert tracediff.folded_stacks(c, t) == cli("flamegraph", c, t, "--folded")
    assert tracediff.folded_stacks(c, t, time="device", side="test") == cli(
        "flamegraph", c, t, "--folded", "--time", "device", "--side", "test"
    )


def test_flamegraph_writes_an_svg(fixtures, tmp_path):
    c, t = fixtures / "modules" / "control", fixtures / "modules" / "test"
    out = tmp_path / "diff.svg"
    assert tracediff.flamegraph(c, t, out, labels=("base", "new")) == out
    text = out.read_text(encoding="utf-8")
    xml.dom.minidom.parseString(text.encode("utf-8"))
    assert "new vs base" in text and "Block[4]" in text


def test_bad_options_are_trace_errors(fixtures, tmp_path):
    c, t = fixtures / "modules" / "control", fixtures / "modules" / "test"
    for kwargs in ({"time": "wall"}, {"side": "both"}):
        try:
            tracediff.folded_stacks(c, t, **kwargs)
        except tracediff.TraceError as e:
            assert "expected" in str(e)
        else:
            raise AssertionError(kwargs)


def test_control_widths_equal_the_clis(fixtures, tmp_path):
    c, t = str(fixtures / "modules" / "control"), str(fixtures / "modules" / "test")
    out = tmp_path / "gone.svg"
    tracediff.flamegraph(c, t, out, time="device", widths="control")
    expected = cli("flamegraph", c, t, "--time", "device", "--widths", "control")
    assert out.read_text(encoding="utf-8") == expected
    assert "width: control time" in out.read_text(encoding="utf-8")
    try:
        tracediff.flamegraph(c, t, tmp_path / "x.svg", widths="both")
    except tracediff.TraceError as e:
        assert "expected test or control" in str(e)
    else:
        raise AssertionError("widths='both' was accepted")


def test_a_flame_graph_file_not_named_svg_is_refused(fixtures, tmp_path):
    # It wrote the SVG into `diff.png` (the command line refuses that name).
    c, t = fixtures / "modules" / "control", fixtures / "modules" / "test"
    out = tmp_path / "diff.png"
    try:
        tracediff.flamegraph(c, t, out)
    except tracediff.TraceError as e:
        assert "name the file .svg" in str(e)
    else:
        raise AssertionError("diff.png was accepted")
    assert not out.exists()
    assert tracediff.flamegraph(c, t, tmp_path / "diff.SVG").exists()
