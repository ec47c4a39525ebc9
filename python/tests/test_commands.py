"""What the command line has, Python has by construction: each binding calls the library's
command, so its notes arrive as `TracediffWarning`s and its files are written whole or not at
all."""

import os
import warnings

import pytest

import tracediff
from tracediff import TracediffWarning


def test_notes_are_warnings_with_the_clis_text(fixtures):
    c, t = str(fixtures / "basic/control"), str(fixtures / "basic/test")
    # One step a side (every step is the default, as on the command line).
    with pytest.warns(TracediffWarning, match=r"significant is null: it needs 3 or more steps"):
        tracediff.operators(c, t, iteration=1)
    # A warning, not an error: the result still comes back.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", TracediffWarning)
        assert len(tracediff.operators(c, t)) > 0


def test_the_warning_class_is_a_user_warning():
    assert issubclass(TracediffWarning, UserWarning)
    assert tracediff.TracediffWarning is tracediff._native.TracediffWarning


def test_a_report_that_cannot_be_written_leaves_the_previous_file(fixtures, tmp_path):
    c, t = str(fixtures / "basic/control"), str(fixtures / "basic/test")
    out = tmp_path / "report.html"
    out.write_text("previous")
    os.chmod(tmp_path, 0o500)
    try:
        if os.access(tmp_path, os.W_OK):
            pytest.skip("running as a user who can write anywhere (root)")
        with pytest.raises(tracediff.TraceError, match="cannot write"):
            tracediff.report(c, t, out)
    finally:
        os.chmod(tmp_path, 0o700)
    assert out.read_text() == "previous"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report.html"]


def test_a_report_is_written_whole(fixtures, tmp_path):
    c, t = str(fixtures / "basic/control"), str(fixtures / "basic/test")
    out = tmp_path / "report.html"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", TracediffWarning)
        tracediff.report(c, t, out)
    page = out.read_text()
    assert page.startswith("<!DOCTYPE html>") and page.rstrip().endswith("</html>")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report.html"]
