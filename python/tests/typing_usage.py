"""Checked by mypy (`[tool.mypy]`'s `files`), never run: the documented calls type-check, and the
calls the functions refuse at run time are type errors too. Each refused call carries the
`# type: ignore[...]` of the error it must raise; `warn_unused_ignores` (part of `strict`) fails
the check where one is no longer an error, so a type that stops refusing it fails CI. pytest
does not collect it (not a `test_*.py`)."""

import pathlib
from typing import Any, Dict, Iterator, List, Tuple

import pandas

import tracediff
import tracediff.dask as td

c, t = pathlib.Path("control"), "test/"


def documented() -> None:
    """The calls of docs/python.md, with their results' types."""
    df: pandas.DataFrame = tracediff.TraceDiff.compare_traces("control/", t, control_rank=[0, 1], use_short_name=True)
    ops: Dict[str, List[str]] = tracediff.TraceDiff.ops_diff("control/", t, device_type=tracediff.DeviceType.GPU)
    tracediff.TraceDiff.visualize_counts_diff(df, show_image=False)
    tracediff.compare(c, t, device="gpu", short_names=True, include=["mm"], labels=("a", "b"), backend="polars")
    ops = tracediff.ops_diff(c, t, labels=("a", "b"), backend="pandas", device="cpu")
    tracediff.operators(c, t, zoom="ResNet/Sequential[2]", iteration="all", no_run_shift=True)
    tracediff.kernels([c, "control2"], t, by_operator=True, rank=[0, 1], totals=True)
    over: Dict[str, Any] = tracediff.overview(c, t, control_iteration=2, backend="polars", normalize_names=False)
    tree: Dict[str, Any] = tracediff.modules(c, t, zoom="Net", no_run_shift=True)
    paths: Iterator[Tuple[str, Dict[str, Any]]] = tracediff.module_paths(tree)
    tracediff.explain(c, t, labels=("fp32", "bf16"), test_rank=1, exclude=["ProfilerStep"])
    tracediff.events("run/", iteration=3, name="aten::mm", args=["input_dims"])
    summary: pathlib.Path = tracediff.summarize("run/rank17.json.gz", "summaries/rank17.parquet")
    page: pathlib.Path = tracediff.report(c, t, "report.html", labels=("fp32", "bf16"), iteration="all")
    verdict: Dict[str, Any] = tracediff.gate("baseline/", "candidate/", max_step_time_regression="5%", rank="all")
    chart: pathlib.Path = tracediff.plot(c, t, "counts.png", top=10, exclude=["ProfilerStep"], metric="breakdown")
    svg: pathlib.Path = tracediff.flamegraph(c, t, "diff.svg", time="device", widths="control", iteration="all")
    stacks: str = tracediff.folded_stacks(c, t, side="test", rank=0)
    history = tracediff.History("store/")
    run: Dict[str, Any] = history.add("run/", label="abc123", meta={"gpu": "H100"})
    history.series("aten::mm", branch="main", backend="polars")
    judged: Dict[str, Any] = history.gate("candidate/", window=10, max_op_regression="10%")
    out: td.Output = td.compare("summaries/run=a", "summaries/run=b", client=None, rank="all", format="csv")
    del ops, over, paths, summary, page, verdict, chart, svg, stacks, run, judged, out


def refused() -> None:
    """What the functions refuse (a TypeError or a TraceError at run time)."""
    tracediff.operators(c, t, itertion=2)  # type: ignore[call-arg]
    tracediff.operators(c, t, device="tpu")  # type: ignore[arg-type]
    tracediff.overview(c, t, device="gpu")  # type: ignore[call-arg]
    tracediff.overview(c, t, no_run_shift=True)  # type: ignore[call-arg]
    tracediff.modules(c, t, include=["mm"])  # type: ignore[call-arg]
    tracediff.ops_diff(c, t, no_run_shift=True)  # type: ignore[call-arg]
    tracediff.flamegraph(c, t, "diff.svg", short_names=True)  # type: ignore[call-arg]
    tracediff.folded_stacks(c, t, no_run_shift=True)  # type: ignore[call-arg]
    tracediff.report(c, t, "report.html", zoom="Net")  # type: ignore[call-arg]
    tracediff.explain(c, t, rank=1.5)  # type: ignore[arg-type]
