"""Type stubs of `tracediff._native`, the Rust core (PyO3). The public API is `tracediff`'s own
modules; these functions take the paths and one `Options` object and return plain columns."""

import os
from typing import Any, Dict, List, Literal, Optional, Tuple, Union, overload

_Path = Union[str, "os.PathLike[str]"]
# A side as the core takes it: its paths (one path, or one per run given one by one).
_SidePaths = List[_Path]
_Device = Literal["cpu", "gpu", "all", "CPU", "GPU", "ALL"]
_View = Literal["operators", "kernels", "overview", "modules", "explain"]
_FlameTime = Literal["host", "device"]
_Side = Literal["control", "test"]
_Metric = Literal["counts", "duration", "breakdown"]
# The comparison table as columns: `name`, `<side>_counts`, `<side>_dur_ns` and `notes`, each a
# list (str, int or float values).
_Columns = Dict[str, List[Any]]
# A view's table as columns (lists; None where a side has no value) and, where significance was
# judged, `run_shift`: a JSON text, not a list.
_ViewColumns = Dict[str, Any]
_PlotSort = Literal[
    "abs-diff-duration", "diff-duration", "abs-diff-counts", "diff-counts", "duration", "counts", "name"
]

__version__: str

class TraceError(ValueError):
    """An unreadable or invalid trace, or a selection that does not fit the traces."""

class TracediffWarning(UserWarning):
    """A note on a result: what the command line prints as `tracediff: note: …`."""

class Options:
    """The options of a comparison, checked when built (a bad rank, device or pattern is an
    error before any trace is read)."""

    def __init__(
        self,
        *,
        control_rank: Optional[str] = None,
        test_rank: Optional[str] = None,
        control_iteration: Optional[str] = None,
        test_iteration: Optional[str] = None,
        device: _Device = "all",
        short_names: bool = False,
        normalize_names: Optional[bool] = None,
        include: List[str] = ...,
        exclude: List[str] = ...,
        labels: Optional[Tuple[str, str]] = None,
        by_operator: bool = False,
        zoom: Optional[str] = None,
        no_run_shift: bool = False,
        totals: bool = False,
        why: bool = False,
    ) -> None: ...
    @property
    def control_rank(self) -> Optional[str]: ...
    @property
    def test_rank(self) -> Optional[str]: ...
    @property
    def control_iteration(self) -> Optional[str]: ...
    @property
    def test_iteration(self) -> Optional[str]: ...
    @property
    def device(self) -> str: ...
    @property
    def short_names(self) -> bool: ...
    @property
    def normalize_names(self) -> Optional[bool]: ...
    @property
    def include(self) -> List[str]: ...
    @property
    def exclude(self) -> List[str]: ...
    @property
    def labels(self) -> Optional[Tuple[str, str]]: ...
    @property
    def by_operator(self) -> bool: ...
    @property
    def zoom(self) -> Optional[str]: ...
    @property
    def no_run_shift(self) -> bool: ...
    @property
    def totals(self) -> bool: ...
    @property
    def why(self) -> bool: ...

def compare(control: _SidePaths, test: _SidePaths, options: Options) -> _Columns: ...

# `operators` and `kernels` give their table as columns; `overview`, `modules` and `explain` their
# JSON text.
@overload
def view(
    view: Literal["operators", "kernels"], control: _SidePaths, test: _SidePaths, options: Options
) -> _ViewColumns: ...
@overload
def view(
    view: Literal["overview", "modules", "explain"], control: _SidePaths, test: _SidePaths, options: Options
) -> str: ...
@overload
def view(view: _View, control: _SidePaths, test: _SidePaths, options: Options) -> Union[_ViewColumns, str]: ...
def summarize(trace: _Path, output: _Path) -> None: ...
def report(
    control: _SidePaths,
    test: _SidePaths,
    output: _Path,
    options: Options,
    table_depth: int = 3,
    table_rows: int = 100,
) -> List[str]: ...
def flamegraph(
    control: _SidePaths,
    test: _SidePaths,
    options: Options,
    time: Optional[_FlameTime] = None,
    side: Optional[_Side] = None,
    folded: bool = False,
    widths: _Side = "test",
) -> str: ...
def events(
    path: _Path,
    ranks: Optional[str] = None,
    iterations: Optional[str] = None,
    device: _Device = "all",
    name: Optional[str] = None,
    cats: List[str] = ...,
    args: List[str] = ...,
) -> bytes: ...
def bar_chart_png(
    title: str,
    labels: Tuple[str, str],
    names: List[str],
    control: List[float],
    test: List[float],
    duration: bool,
    width: int = 1200,
    height: int = 700,
) -> bytes: ...
def main(argv: List[str]) -> int: ...
def _fault_for_tests() -> None: ...
def gate(
    baseline: _SidePaths,
    candidate: _SidePaths,
    rules_json: str,
    ranks: Optional[str] = None,
    iterations: Optional[str] = None,
) -> str: ...
def plot(
    control: _SidePaths,
    test: _SidePaths,
    output: _Path,
    options: Options,
    metric: _Metric = "counts",
    top: int = 10,
    sort: Optional[_PlotSort] = None,
    width: int = 1600,
    height: int = 900,
) -> List[str]: ...
def history_add(
    store: _Path,
    run: _Path,
    label: str,
    branch: Optional[str] = None,
    meta: List[str] = ...,
    time: Optional[str] = None,
) -> str: ...
def history_runs(store: _Path) -> str: ...
def history_show(
    store: _Path,
    top: int = 5,
    name: Optional[str] = None,
    branch: Optional[str] = None,
) -> str: ...
def history_gate(
    store: _Path,
    candidate: _Path,
    rules_json: str,
    window: Optional[int] = None,
    min_history: Optional[int] = None,
    branch: Optional[str] = None,
    add_on_pass: Optional[str] = None,
    ranks: Optional[str] = None,
    iterations: Optional[str] = None,
) -> str: ...
