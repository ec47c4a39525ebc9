"""tracediff: compare two sets of PyTorch profiler (Kineto) traces.

HTA's ``TraceDiff`` API with the same names, signatures and DataFrames, backed by tracediff's
Rust core::

    from tracediff import TraceDiff          # instead of: from hta.trace_diff import TraceDiff
    df = TraceDiff.compare_traces("control/", "test/")
    ops = TraceDiff.ops_diff("control/", "test/", device_type="GPU")

and the command line (``tracediff compare control/ test/``) from the same code.
"""

from ._native import TraceError, TracediffWarning, __version__
from ._native import Options
from ._api import (
    compare,
    events,
    gate,
    kernels,
    module_paths,
    modules,
    operators,
    ops_diff,
    overview,
    plot,
    report,
    summarize,
)
from ._cli import main
from ._explain import explain
from ._flame import flamegraph, folded_stacks
from ._history import History
from .trace_diff import DeviceType, LabeledTrace, TraceDiff

__all__ = [
    "DeviceType",
    "History",
    "LabeledTrace",
    "Options",
    "TraceDiff",
    "TraceError",
    "TracediffWarning",
    "__version__",
    "compare",
    "flamegraph",
    "folded_stacks",
    "events",
    "explain",
    "gate",
    "kernels",
    "main",
    "module_paths",
    "modules",
    "operators",
    "ops_diff",
    "overview",
    "plot",
    "report",
    "summarize",
]
