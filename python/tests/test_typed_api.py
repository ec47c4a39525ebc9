"""The typed package: stubs shipped, arguments checked at the boundary (a `str` where a list
belongs, a path that is not one), one options object across the FFI, no panic reaching Python,
and the functions beyond HTA's API (summarize, report, events)."""

import pathlib
import subprocess
import sys

import pytest

import tracediff
from tracediff import TraceError, _native

PACKAGE = pathlib.Path(tracediff.__file__).parent
TRACEDIFF = str(pathlib.Path(sys.executable).with_name("tracediff"))


def test_the_wheel_ships_the_type_stubs():
    assert (PACKAGE / "py.typed").is_file()
    stub = (PACKAGE / "_native.pyi").read_text()
    for name in ("class Options", "def compare", "def view", "def summarize", "def report", "def events", "def history_gate"):
        assert name in stub


@pytest.mark.parametrize("call", ["compare", "ops_diff", "operators", "kernels"])
@pytest.mark.parametrize("option", ["include", "exclude"])
def test_a_str_for_a_list_option_is_a_type_error(fixtures, call, option):
    with pytest.raises(TypeError, match=option):
        getattr(tracediff, call)(fixtures / "basic/control", fixtures / "basic/test", **{option: "mm"})


@pytest.mark.parametrize("call", ["overview", "modules", "folded_stacks"])
@pytest.mark.parametrize("option", [{"include": ["mm"]}, {"exclude": ["mm"]}, {"device": "gpu"}, {"short_names": True}])
def test_calls_without_rows_by_name_refuse_row_options(fixtures, call, option):
    # Accepted, they changed nothing: a user could believe the result filtered.
    (name,) = option
    with pytest.raises(TypeError, match=f"{call}\\(\\) does not take {name}"):
        getattr(tracediff, call)(fixtures / "basic/control", fixtures / "basic/test", **option)
    getattr(tracediff, call)(fixtures / "basic/control", fixtures / "basic/test", normalize_names=True)


def test_the_options_object_refuses_a_str_for_a_list_itself():
    with pytest.raises(TypeError):
        _native.Options(include="mm")
    with pytest.raises(TraceError, match="device"):
        _native.Options(device="tpu")
    options = _native.Options(include=["mm"], labels=("a", "b"))
    assert options.include == ["mm"] and options.labels == ("a", "b")


@pytest.mark.parametrize("labels", [("a",), ("a", "b", "c")])
def test_labels_are_two_names(fixtures, labels):
    with pytest.raises(ValueError, match="labels must be two names"):
        tracediff.operators(fixtures / "basic/control", fixtures / "basic/test", labels=labels)


# A list of paths is a side of runs (test_sides.py); a list holding anything else is refused.
@pytest.mark.parametrize("bad", [None, 123, [123], b"fixtures"])
@pytest.mark.parametrize("call", ["compare", "ops_diff", "operators", "kernels", "overview", "modules"])
def test_a_path_that_is_not_one_is_a_type_error(fixtures, call, bad):
    with pytest.raises(TypeError, match="path"):
        getattr(tracediff, call)(bad, fixtures / "basic/test")
    with pytest.raises(TypeError, match="path"):
        getattr(tracediff, call)(str(fixtures / "basic/control"), bad)


@pytest.mark.parametrize("bad", [None, 123, ["x.json"]])
def test_the_one_path_functions_check_their_paths(fixtures, tmp_path, bad):
    with pytest.raises(TypeError, match="path"):
        tracediff.summarize(bad, tmp_path / "s.parquet")
    with pytest.raises(TypeError, match="path"):
        tracediff.summarize(fixtures / "basic/control/trace.json", bad)
    with pytest.raises(TypeError, match="path"):
        tracediff.events(bad)
    with pytest.raises(TypeError, match="path"):
        tracediff.report(fixtures / "modules/control", fixtures / "modules/test", bad)


def test_a_panic_in_the_core_arrives_as_a_trace_error():
    with pytest.raises(TraceError, match="internal error"):
        _native._fault_for_tests()


def test_path_objects_and_strings_give_the_same_table(fixtures):
    a = tracediff.compare(fixtures / "basic/control", fixtures / "basic/test")
    b = tracediff.compare(str(fixtures / "basic/control"), str(fixtures / "basic/test"))
    assert a.equals(b)


def test_summarize_then_compare_the_summary(fixtures, tmp_path):
    trace = fixtures / "ranks/control/rank1.json"
    out = tracediff.summarize(trace, tmp_path / "rank1.parquet")
    assert out == tmp_path / "rank1.parquet" and out.stat().st_size > 0
    over_trace = tracediff.compare(trace, fixtures / "ranks/test/rank1.pt.trace.json")
    over_summary = tracediff.compare(out, fixtures / "ranks/test/rank1.pt.trace.json")
    assert over_trace.equals(over_summary)
    with pytest.raises(TraceError, match="one trace file"):
        tracediff.summarize(fixtures / "ranks/control", tmp_path / "x.parquet")


def test_report_writes_the_page(fixtures, tmp_path):
    out = tracediff.report(fixtures / "modules/control", fixtures / "modules/test", tmp_path / "r.html", labels=("a", "b"))
    page = out.read_text()
    assert page.startswith("<!DOCTYPE html>") or "<html" in page[:200]
    assert len(page) > 10_000
    with pytest.raises(ValueError, match="html"):
        tracediff.report(fixtures / "modules/control", fixtures / "modules/test", tmp_path / "r.txt")


@pytest.mark.parametrize("backend", ["pandas", "polars"])
def test_events_is_the_clis_table_as_a_dataframe(fixtures, backend):
    if backend == "polars":
        pytest.importorskip("polars")
    path = fixtures / "basic/control"
    df = tracediff.events(path, backend=backend)
    csv = subprocess.run([TRACEDIFF, "events", str(path), "--format", "csv"], capture_output=True, text=True, check=True)
    lines = csv.stdout.strip().splitlines()
    assert list(df.columns) == lines[0].split(",")
    assert len(df) == len(lines) - 1
    kernels = tracediff.events(path, device="gpu", name="Kernel", backend=backend)
    assert 0 < len(kernels) < len(df)
    with pytest.raises(TypeError, match="cat"):
        tracediff.events(path, cat="kernel")
    with pytest.raises(TraceError):
        tracediff.events(path, iteration=99)


def test_gate_judges_as_the_command_line(fixtures):
    base, slow = fixtures / "gate/base", fixtures / "gate/kernel2x"
    failed = tracediff.gate(base, slow, max_step_time_regression="5%", max_op_regression="10%")
    assert failed["report"]["verdict"] == "fail"
    run = subprocess.run(
        [TRACEDIFF, "gate", str(base), str(slow), "--max-step-time-regression", "5%", "--max-op-regression", "10%", "--format", "json"],
        capture_output=True,
        text=True,
    )
    assert run.returncode == 1
    import json

    assert json.loads(run.stdout) == failed
    assert tracediff.gate(base, fixtures / "gate/noise", max_step_time_regression="5%")["report"]["verdict"] == "pass"
    with pytest.raises(TraceError, match="unknown field"):
        tracediff.gate(base, slow, max_step_regression="5%")
    with pytest.raises(TraceError, match="%"):
        tracediff.gate(base, slow, max_step_time_regression="5")
    with pytest.raises(TypeError, match="path"):
        tracediff.gate(None, slow)


def test_gate_judges_beyond_a_run_wide_shift_unless_told_otherwise(fixtures):
    base, slow = fixtures / "shift/base", fixtures / "shift/slow"
    absolute = tracediff.gate(base, slow, max_step_time_regression="5%", beyond_run_shift=False)["report"]
    assert absolute["verdict"] == "fail" and absolute["run_shift"]["applied"] is False
    beyond = tracediff.gate(base, slow, max_step_time_regression="5%")["report"]
    assert beyond["verdict"] == "pass" and beyond["run_shift"]["applied"] is True
    step = beyond["rules"][0]
    assert step["expected"] > step["baseline"] and abs(step["relative_change"]) < 0.05


def test_rank_and_iteration_pick_both_sides_as_on_the_command_line(fixtures):
    pair = (fixtures / "basic/control", fixtures / "basic/test")
    both = tracediff.operators(*pair, iteration="all")
    per_side = tracediff.operators(*pair, control_iteration="all", test_iteration="all")
    assert both.equals(per_side)
    # A side's own option overrides the shorthand, as --control-iteration overrides --iteration.
    first = tracediff.operators(*pair, control_iteration=1, test_iteration=1)
    assert tracediff.operators(*pair, iteration="all", control_iteration=1, test_iteration=1).equals(first)


def test_an_unknown_keyword_names_the_selection_options(fixtures):
    with pytest.raises(TypeError, match=r"unknown keyword argument itertion: the selection options are rank, iteration"):
        tracediff.operators(fixtures / "basic/control", fixtures / "basic/test", itertion="all")


def test_a_report_not_named_html_is_a_trace_error(fixtures, tmp_path):
    with pytest.raises(tracediff.TraceError, match="the report is an HTML page"):
        tracediff.report(fixtures / "basic/control", fixtures / "basic/test", tmp_path / "r.txt")
