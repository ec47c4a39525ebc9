"""The diff run's views from Python equal the command line's."""

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


@pytest.mark.parametrize("pair", ["modules", "views"])
@pytest.mark.parametrize("zoom", [None, "Net/Sequential"])
def test_operators_and_kernels_equal_the_clis_csv(fixtures, pair, zoom):
    c, t = str(fixtures / pair / "control"), str(fixtures / pair / "test")
    if zoom and pair != "modules":
        pytest.skip("only the module fixtures have modules")
    extra = ["--zoom", zoom] if zoom else []
    for view, frame in (("operators", tracediff.operators(c, t, zoom=zoom)), ("kernels", tracediff.kernels(c, t, zoom=zoom))):
        rows = list(csv.DictReader(io.StringIO(cli(view, c, t, "--format", "csv", *extra))))
        assert sorted(r["name"] for r in rows) == sorted(frame.index), view
        for r in rows:
            for col, text in r.items():
                if col == "name" or col not in frame.columns:
                    continue
                got = frame.at[r["name"], col]
                if col == "significant":
                    assert {"true": True, "false": False, "": None}[text] == got, (view, r["name"])
                elif text == "":
                    assert math.isnan(got), (view, r["name"], col)
                else:
                    assert math.isclose(float(text), float(got), abs_tol=1e-9), (view, r["name"], col)


def test_significance_is_the_clis_column(fixtures):
    c, t = str(fixtures / "basic/control"), str(fixtures / "basic/test")
    for view, frame in (
        # Names normalised as the command line's are by default (a kernel launched straight
        # from the step is owned by `ProfilerStep#* [annotation]`).
        ("operators", tracediff.operators(c, t, iteration="all", normalize_names=True)),
        ("kernels", tracediff.kernels(c, t, iteration="all", normalize_names=True)),
    ):
        rows = csv.DictReader(io.StringIO(cli(view, c, t, "--iteration", "all", "--format", "csv")))
        want = {r["name"]: {"true": True, "false": False, "": None}[r["significant"]] for r in rows}
        assert want == frame["significant"].to_dict(), view
        assert any(v is not None for v in want.values()), view


def as_cli_json(tree):
    """A `modules()` tree in the command line's JSON form: every node with its `path`, no
    `segment`, `significant` only where it was estimated."""
    estimated = "significance_measure" in tree["compared"]
    for path, node in tracediff.module_paths(tree):
        node.pop("segment")
        node["path"] = path
        if not estimated:
            assert node.pop("significant") is None
    return tree


def test_modules_and_overview_are_the_clis_json(fixtures):
    c, t = str(fixtures / "modules/control"), str(fixtures / "modules/test")
    tree = tracediff.modules(c, t)
    assert tree["significant"] is None, "one step a side: not estimated"
    assert as_cli_json(tree) == json.loads(cli("modules", c, t, "--format", "json", "--order", "logical"))
    zoomed = tracediff.modules(c, t, zoom="Net/Sequential")
    assert zoomed["path"] == "Net[0]/Sequential[0]"
    assert [k["status"] for k in zoomed["children"]][-3:] == ["added", "added", "unknown"]
    assert [k["segment"] for k in zoomed["children"]][-1] == "(unknown)[0]"
    paths = [p for p, _ in tracediff.module_paths(zoomed)]
    assert paths[0] == "Net[0]/Sequential[0]" and paths[1].startswith("Net[0]/Sequential[0]/")
    over = tracediff.overview(c, t)
    per_step, per_rank = over.pop("per_step"), over.pop("per_rank")
    assert over == json.loads(cli("overview", c, t, "--format", "json", "--per-step"))
    assert len(per_step) == len(over["control"]["per_step"]) + len(over["test"]["per_step"])
    assert len(per_rank) == 0


def test_overview_breakdown_and_its_frames(fixtures):
    c, t = str(fixtures / "breakdown/control"), str(fixtures / "breakdown/test")
    over = tracediff.overview(c, t)
    b = over["control"]["breakdown"]
    keys = ("step_time", "compute", "comm_exposed", "memory_exposed", "idle")
    assert tuple(b[f"{k}_per_step_us"] for k in keys) == (
        100,
        22.5,
        20,
        10,
        47.5,
    )
    assert over["control"]["steps_used"] == [1, 2]
    frame = over["per_step"]
    assert list(frame["side"]) == ["control", "control", "test"]
    assert list(frame["compute_per_step_us"]) == [35, 10, 80]
    narrowed = tracediff.overview(c, t, control_iteration=2)["per_step"]
    assert list(narrowed["compute_per_step_us"]) == [10, 80]


def test_overview_frames_of_a_cpu_only_pair_have_step_times_and_nan_parts(fixtures):
    c, t = str(fixtures / "cpuranks/control"), str(fixtures / "cpuranks/test")
    over = tracediff.overview(c, t, rank="all")
    assert over["test"]["breakdown"] is None
    assert over["test"]["straggler"]["rank"] == 2
    steps = over["per_step"]
    assert len(steps) == 18
    test_rank2 = steps[(steps["side"] == "test") & (steps["rank"] == 2)]
    assert list(test_rank2["step_time_per_step_us"]) == [1000, 1600, 1400]
    assert test_rank2["compute_per_step_us"].isna().all() and test_rank2["idle_per_step_us"].isna().all()
    ranks = over["per_rank"]
    assert list(ranks["rank"]) == [0, 1, 2, 0, 1, 2]
    assert ranks["compute_per_step_us"].isna().all()
    # polars: the parts are null; step times 1000 and 1066.666 in one float column.
    pytest.importorskip("polars")
    ranks = tracediff.overview(c, t, rank="all", backend="polars")["per_rank"]
    assert ranks["step_time_per_step_us"].to_list()[3:] == [1000.0, 1066.666, 1333.333]
    assert ranks["compute_per_step_us"].null_count() == 6
    gpu = tracediff.overview(str(fixtures / "breakdown/control"), str(fixtures / "breakdown/test"), backend="polars")
    assert gpu["per_step"]["compute_per_step_us"].to_list() == [35.0, 10.0, 80.0]


def test_view_errors_are_trace_errors(fixtures):
    c, t = str(fixtures / "modules/control"), str(fixtures / "modules/test")
    with pytest.raises(tracediff.TraceError, match="no such node"):
        tracediff.operators(c, t, zoom="Nope")
    with pytest.raises(TypeError):
        tracediff.operators(c, t, colour="blue")


def test_module_significance(fixtures):
    """Over 5 steps a side the linear layers' device time doubled: significant, the ReLUs not;
    as the command line's JSON."""
    c, t = str(fixtures / "gate/base"), str(fixtures / "gate/kernel2x")
    tree = tracediff.modules(c, t, control_iteration="all", test_iteration="all")
    by_path = {p: n for p, n in tracediff.module_paths(tree)}
    assert by_path["aten::linear[0]"]["significant"] is True
    assert by_path["aten::relu[0]"]["significant"] is False
    assert tree["compared"]["significance_measure"] == "device_total"
    assert as_cli_json(tree) == json.loads(cli("modules", c, t, "--format", "json", "--order", "logical", "--iteration", "all"))


def deep_trace(path, depth):
    """A step with `depth` nested nn.Module frames and one operator at the bottom."""
    events = [{"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": 1, "tid": 1, "ts": 0, "dur": 4 * depth + 100}]
    for k in range(depth):
        events.append({"ph": "X", "cat": "python_function", "name": f"nn.Module: Block_{k}", "pid": 1, "tid": 1,
                       "ts": 1 + 2 * k, "dur": 4 * depth + 50 - 4 * k})
    events.append({"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 2 * depth + 5, "dur": 10})
    path.write_text(json.dumps({"traceEvents": events}))
    return str(path)


def test_modules_of_a_deep_model(tmp_path):
    """6,000 nested modules: no RecursionError, and no path per node (their total size would
    grow with the square of the depth); module_paths builds them one at a time."""
    import tracemalloc

    depth = 6000
    trace = deep_trace(tmp_path / "deep.json", depth)
    tracemalloc.start()
    tree = tracediff.modules(trace, trace)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    # Every node's path would hold about 6,000² / 2 segments of 10 bytes: 180 MB.
    assert peak < 40_000_000, peak
    node, levels = tree, 0
    while node["children"] and node["children"][0]["kind"] == "module":
        node, levels = node["children"][0], levels + 1
        assert "path" not in node
    assert levels == depth
    assert node["segment"] == "Block[0]" and node["status"] == "matched"
    deepest = max(path.count("/") + 1 for path, _ in tracediff.module_paths(tree))
    assert deepest == depth


def test_no_run_shift_as_the_clis_flag(fixtures, tmp_path):
    """`no_run_shift=True` judges against no change, as `--no-run-shift`: on a host 40% slower
    nothing is significant beyond the shift, and every operator is against no change
    (docs/significance.md#a-run-wide-shift)."""
    c, t = str(fixtures / "shift/base"), str(fixtures / "shift/slow")
    for view in ("operators", "kernels"):
        for flag in (False, True):
            frame = getattr(tracediff, view)(c, t, iteration="all", no_run_shift=flag)
            args = [view, c, t, "--iteration", "all", "--format", "csv"] + (["--no-run-shift"] if flag else [])
            rows = csv.DictReader(io.StringIO(cli(*args)))
            want = {r["name"]: {"true": True, "false": False, "": None}[r["significant"]] for r in rows}
            assert want == frame["significant"].to_dict(), (view, flag)
            if view == "operators":
                assert frame.attrs["run_shift"]["applied"] is (not flag)
                assert (sum(v is True for v in want.values()) > 0) is flag
    for flag in (False, True):
        tree = tracediff.modules(c, t, iteration="all", no_run_shift=flag)
        assert tree["compared"]["run_shift"]["applied"] is (not flag)
        marked = [p for p, n in tracediff.module_paths(tree) if n["significant"]]
        assert (len(marked) > 0) is flag, marked
    page = tmp_path / "r.html"
    tracediff.report(c, t, page, iteration="all", no_run_shift=True)
    assert "as --no-run-shift asks" in page.read_text()
    for call in ("overview", "ops_diff", "folded_stacks"):
        with pytest.raises(TypeError, match=f"{call}\\(\\) does not take no_run_shift"):
            getattr(tracediff, call)(c, t, no_run_shift=True)
