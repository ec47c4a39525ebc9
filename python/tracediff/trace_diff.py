"""HTA's ``TraceDiff`` API (HolisticTraceAnalysis 0.5.0): the same classes, methods, arguments
and DataFrames, computed by tracediff.

Replacing HTA in a notebook is a change of import::

    from tracediff import TraceDiff, LabeledTrace, DeviceType

Where tracediff deliberately differs from HTA (nanosecond durations kept exact, stream-0 kernels
kept, …) the README's "Where tracediff deliberately differs from HTA" lists every point.
"""

import os
import warnings
from enum import Enum
from typing import TYPE_CHECKING, Dict, List, Literal, Optional, Tuple, Union, cast

from . import _native
from ._api import _columns, categories, table_columns
from ._frames import frame

if TYPE_CHECKING:
    import pandas

TraceDir = str
DeviceName = Literal["cpu", "gpu", "all"]


class DeviceType(Enum):
    """HTA's DeviceType, with the same values. HTA's own enum, its names ("GPU") and values (2)
    are accepted wherever this is."""

    CPU = 1
    GPU = 2
    ALL = 3


def device_name(device_type: object) -> DeviceName:
    """'cpu', 'gpu' or 'all' from a DeviceType (ours or HTA's), its name, or its value."""
    name = getattr(device_type, "name", device_type)
    # A member's name in lower case is one of DeviceName.
    if isinstance(name, str) and name.upper() in DeviceType.__members__:
        return cast(DeviceName, name.lower())
    if isinstance(name, int) and not isinstance(name, bool):
        for member in DeviceType:
            if member.value == name:
                return cast(DeviceName, member.name.lower())
    raise ValueError(f"invalid device_type {device_type!r}: expected DeviceType.CPU, GPU or ALL")


class LabeledTrace:
    """A trace (a directory of rank files, or one file) with a label for the columns.

    Unlike HTA's, it reads nothing when made: tracediff reads the files it needs on each call,
    faster than HTA reads them once. ``t`` may be an HTA ``Trace`` (its ``trace_path`` is used)."""

    def __init__(self, label: Optional[str] = None, t: object = None, trace_dir: Optional[str] = None) -> None:
        if t is not None:
            path = getattr(t, "trace_path", None) or getattr(t, "trace_dir", None)
            if path is None:
                raise ValueError("a trace object must have a trace_path")
            self.trace_dir = os.fspath(path)
        elif trace_dir is not None:
            self.trace_dir = os.fspath(trace_dir)
        else:
            raise ValueError(
                "either a trace object or a valid trace dir must be provided in LabeledTrace.__init__()"
            )
        self.label = label

    def __repr__(self) -> str:
        return f"LabeledTrace(label={self.label!r}, trace_dir={self.trace_dir!r})"


def _adapt(t: Union[LabeledTrace, TraceDir], default_label: str) -> LabeledTrace:
    if isinstance(t, LabeledTrace):
        return LabeledTrace(label=t.label or default_label, trace_dir=t.trace_dir)
    if isinstance(t, (str, os.PathLike)):
        return LabeledTrace(label=default_label, trace_dir=os.fspath(t))
    if hasattr(t, "trace_path"):
        return LabeledTrace(label=default_label, t=t)
    raise ValueError(f"Invalid argument type for ({t}).")


def _labels(control: LabeledTrace, test: LabeledTrace) -> Tuple[str, str]:
    # Both traces come from `_adapt`, which gives each a label.
    c, t = cast(str, control.label), cast(str, test.label)
    if c == t:
        t = f"{t}_test"
        warnings.warn(f"The two traces have the same label. change test_trace's label to {t}", stacklevel=3)
    return c, t



class TraceDiff:
    @classmethod
    def compare_traces(
        cls,
        control: Union[LabeledTrace, TraceDir],
        test: Union[LabeledTrace, TraceDir],
        control_rank: Optional[Union[int, List[int]]] = None,
        test_rank: Optional[Union[int, List[int]]] = None,
        control_iteration: Optional[Union[int, List[int]]] = None,
        test_iteration: Optional[Union[int, List[int]]] = None,
        device_type: DeviceType = DeviceType.ALL,
        use_short_name: bool = False,
    ) -> "pandas.DataFrame":
        """Counts and total durations (µs) per operator/kernel name on both sides, as HTA's:
        indexed by ``name`` (or ``short_name``), columns ``<label>_counts``,
        ``<label>_total_duration`` for each side, ``diff_counts``, ``diff_duration``,
        ``counts_change_categories``. Labels default to "Control" and "Test" as in HTA."""
        control_trace = _adapt(control, "Control")
        test_trace = _adapt(test, "Test")
        labels = _labels(control_trace, test_trace)
        cols = _columns(
            control_trace.trace_dir,
            test_trace.trace_dir,
            control_rank=control_rank,
            test_rank=test_rank,
            control_iteration=control_iteration,
            test_iteration=test_iteration,
            device=device_name(device_type),
            short_names=use_short_name,
        )
        naming = "short_name" if use_short_name else "name"
        table, dtypes = table_columns(cols, labels, naming)
        df: "pandas.DataFrame" = frame(table, naming, "pandas", dtypes)
        return df

    @classmethod
    def ops_diff(
        cls,
        control: Union[LabeledTrace, TraceDir],
        test: Union[LabeledTrace, TraceDir],
        control_rank: Optional[Union[int, List[int]]] = None,
        test_rank: Optional[Union[int, List[int]]] = None,
        control_iteration: Optional[Union[int, List[int]]] = None,
        test_iteration: Optional[Union[int, List[int]]] = None,
        device_type: DeviceType = DeviceType.ALL,
    ) -> Dict[str, List[str]]:
        """The names per change: added, deleted, increased, decreased, unchanged (HTA's)."""
        control_trace = _adapt(control, "Control")
        test_trace = _adapt(test, "Test")
        cols = _columns(
            control_trace.trace_dir,
            test_trace.trace_dir,
            control_rank=control_rank,
            test_rank=test_rank,
            control_iteration=control_iteration,
            test_iteration=test_iteration,
            device=device_name(device_type),
        )
        table, _ = table_columns(cols, ("control", "test"), "name")
        return categories(table["name"], table["control_counts"], table["test_counts"])

    @classmethod
    def visualize_counts_diff(cls, df: "pandas.DataFrame", show_image: bool = True, export_image_path: Optional[str] = None) -> None:
        """HTA's grouped bar chart of counts: plotly's when plotly is installed, else a PNG
        drawn by tracediff (shown in IPython, written to ``export_image_path``)."""
        _visualize(df, "counts", "Ops Count Comparison", show_image, export_image_path)

    @classmethod
    def visualize_duration_diff(
        cls, df: "pandas.DataFrame", show_image: bool = True, export_image_path: Optional[str] = None
    ) -> None:
        """HTA's grouped bar chart of total durations (see ``visualize_counts_diff``)."""
        _visualize(df, "total_duration", "Ops Duration Comparison", show_image, export_image_path)


def _visualize(df: "pandas.DataFrame", metric: str, title: str, show_image: bool, export_image_path: Optional[str]) -> None:
    labels = [col[: -len("_total_duration")] for col in df.columns if col.endswith("_total_duration")]
    if len(labels) < 2:
        raise ValueError("expected a DataFrame from TraceDiff.compare_traces (two <label>_total_duration columns)")
    diff = "diff_counts" if metric == "counts" else "diff_duration"
    try:
        import plotly.graph_objects as go
    except ImportError:
        go = None
    if go is not None:
        fig = go.Figure(
            data=[
                go.Bar(name=labels[0], x=df.index, y=df[f"{labels[0]}_{metric}"]),
                go.Bar(name=labels[1], x=df.index, y=df[f"{labels[1]}_{metric}"]),
                go.Bar(name="Difference", x=df.index, y=df[diff]),
            ]
        )
        if metric == "counts":
            fig.update_layout(barmode="group", title_text=title)
        else:
            fig.update_layout(
                barmode="group",
                title_text=title,
                yaxis_title="Total Duration (us)",
                autosize=True,
                width=1000,
                height=1000,
            )
        if show_image:  # pragma: no cover - opens a viewer
            fig.show()
        if export_image_path:
            fig.write_image(export_image_path)
        return
    duration = metric != "counts"
    scale = 1000.0 if duration else 1.0  # the renderer takes nanoseconds
    png = _native.bar_chart_png(
        title,
        (labels[0], labels[1]),
        [str(n) for n in df.index],
        [float(v) * scale for v in df[f"{labels[0]}_{metric}"]],
        [float(v) * scale for v in df[f"{labels[1]}_{metric}"]],
        duration,
    )
    if export_image_path:
        if not str(export_image_path).lower().endswith(".png"):
            raise ValueError("without plotly, tracediff writes PNG only: give export_image_path a .png name")
        with open(export_image_path, "wb") as f:
            f.write(png)
    if show_image:
        try:
            from IPython.display import Image, display
        except ImportError:
            return
        display(Image(png))
