"""tracediff's own Python API: the command line's options as keyword arguments."""

import math
import os
import pathlib
import sys
from typing import (
    TYPE_CHECKING,
    Any,
    Dict,
    Iterable,
    Iterator,
    List,
    Literal,
    Mapping,
    Optional,
    Sequence,
    Tuple,
    TypedDict,
    TypeVar,
    Union,
    cast,
    overload,
)

if sys.version_info >= (3, 11):
    from typing import Unpack
elif TYPE_CHECKING:
    # Before 3.11 only the type checker needs it: the annotations naming it are strings.
    from typing_extensions import Unpack

# The enumerated options, as the type checker sees them (the values are checked at run time too).
Device = Literal["cpu", "gpu", "all", "CPU", "GPU", "ALL"]
Backend = Literal["pandas", "polars"]
PlotMetric = Literal["counts", "duration", "breakdown"]
PlotSort = Literal["abs-diff-duration", "diff-duration", "abs-diff-counts", "diff-counts", "duration", "counts", "name"]

from . import _native
from ._frames import _import, check_backend, frame

Pick = Optional[Union[int, str, Iterable[int]]]
PathLike = Union[str, "os.PathLike[str]"]
# One side of a pair: one path (a run, or a directory of runs), or a list of runs, one path each.
SidePath = Union[PathLike, Sequence[PathLike]]

CATEGORIES = ("added", "deleted", "increased", "decreased", "unchanged")

# A DataFrame: pandas' or polars', as `backend` says (both are imported lazily, neither is needed
# to import tracediff).
Frame = Any


# The keyword options of the comparing functions, as the type checker sees them (private: the
# docstrings and docs/python.md name them; `make_options` checks them at run time too).
class _Steps(TypedDict, total=False):
    """The options every comparing function takes: which ranks and steps of each side (`rank`
    and `iteration` for both), raw or normalised names, and rows summed over the steps."""

    rank: Pick
    iteration: Pick
    control_rank: Pick
    test_rank: Pick
    control_iteration: Pick
    test_iteration: Pick
    normalize_names: Optional[bool]
    totals: bool


class _Selection(_Steps, total=False):
    """`compare`'s selection options: `_Steps` and the options that shape or filter rows by
    name or device (ROW_OPTIONS)."""

    device: Device
    short_names: bool
    include: Sequence[str]
    exclude: Sequence[str]


class _Significance(TypedDict, total=False):
    """The option of the functions that mark significance (SIGNIFICANCE_OPTIONS)."""

    no_run_shift: bool


class _Marked(_Selection, _Significance, total=False):
    """The selection options of `operators`, `kernels`, `explain` and `report`."""


class _ModuleSelection(_Steps, _Significance, total=False):
    """The selection options of `modules`: no row options (it has no rows by name or device)."""


class _OpsDiffOptions(_Selection, total=False):
    """`ops_diff`'s options: `compare`'s, with `labels` and `backend` taken and left unused."""

    labels: Tuple[str, str]
    backend: Backend


class _Options(_Marked, total=False):
    """Every keyword `make_options` takes."""

    labels: Optional[Tuple[str, str]]
    by_operator: bool
    zoom: Optional[str]
    why: bool


def pick_text(value: Pick, what: str) -> Optional[str]:
    """A rank or iteration choice in the command line's syntax: None (the lowest), an int, a
    list of ints, or "all"."""
    if value is None:
        return None
    if isinstance(value, bool):
        raise TypeError(f"{what} must be an int, a list of ints, 'all' or None, not a bool")
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        return value
    try:
        items = list(value)
    except TypeError:
        raise TypeError(f"{what} must be an int, a list of ints, 'all' or None, not {type(value).__name__}") from None
    for item in items:
        if isinstance(item, bool) or not isinstance(item, int):
            raise TypeError(f"{what} must hold ints, not {item!r}")
    if not items:
        raise ValueError(f"{what} is an empty list")
    return ",".join(str(i) for i in items)


def path_arg(value: Any, what: str) -> Union[str, "os.PathLike[str]"]:
    """A path argument as given, when it is one: a `str` or an `os.PathLike` (a `pathlib.Path`).
    Anything else (None, a number, a list) is a TypeError, not a file named "None"."""
    if isinstance(value, (str, os.PathLike)):
        return value
    if value is None:
        raise TypeError(f"{what} must be a path (str or os.PathLike), not None")
    raise TypeError(f"{what} must be a path (str or os.PathLike), not {type(value).__name__}")


def side_arg(value: Any, what: str) -> List[PathLike]:
    """A side as the Rust core takes it: a list of paths. One path (a `str` or an `os.PathLike`)
    is a list of one; a list or tuple of paths is that side's runs, one path each (an empty list
    is a ValueError; a directory of runs inside a list is a TraceError: a list holds runs). Anything
    else is a TypeError."""
    if isinstance(value, (str, os.PathLike)):
        return [value]
    if isinstance(value, (list, tuple)):
        if not value:
            raise ValueError(f"{what} is an empty list of runs: give a path, or one path per run")
        return [path_arg(item, f"{what}[{i}]") for i, item in enumerate(value)]
    if value is None:
        raise TypeError(f"{what} must be a path or a list of paths (one per run), not None")
    raise TypeError(f"{what} must be a path or a list of paths (one per run), not {type(value).__name__}")


def str_list(value: Any, what: str) -> List[str]:
    """A list-typed option: a list or tuple of strings. A bare `str` is refused (TypeError)
    rather than read as a list of its characters (`include="mm"` would match any "m")."""
    if isinstance(value, (str, bytes)):
        raise TypeError(f"{what} must be a list of str, not a str: write {what}=[{value!r}]")
    try:
        items = list(value)
    except TypeError:
        raise TypeError(f"{what} must be a list of str, not {type(value).__name__}") from None
    for item in items:
        if not isinstance(item, str):
            raise TypeError(f"{what} must hold str, not {item!r}")
    return items


# The keyword arguments every comparing function takes (and `labels`, `by_operator`, `zoom` where
# they apply), named in the error for one it does not know.
SELECTION_OPTIONS = (
    "rank",
    "iteration",
    "control_rank",
    "test_rank",
    "control_iteration",
    "test_iteration",
    "device",
    "short_names",
    "normalize_names",
    "include",
    "exclude",
    "no_run_shift",
    "totals",
)


# The options that shape or filter rows by name or device. `overview`, `modules` and the flame
# graph have no such rows: given there, they changed nothing, so they are refused (as the command
# line refuses `--include` there).
ROW_OPTIONS = ("device", "short_names", "include", "exclude")


_OptionsT = TypeVar("_OptionsT", bound=Mapping[str, object])


def _refusing(command: str, options: _OptionsT, names: Tuple[str, ...], why: str) -> _OptionsT:
    """`options`, after refusing the first of `names` given as a TypeError: `command`() does not
    take it, `why`."""
    given = [name for name in names if name in options]
    if given:
        raise TypeError(f"{command}() does not take {given[0]}: {why}")
    return options


def without_row_options(command: str, options: _OptionsT) -> _OptionsT:
    """`options`, after refusing any of ROW_OPTIONS as a TypeError that says why."""
    why = "it has no rows by name or device to shape or filter (compare(), operators() and kernels() take it)"
    return _refusing(command, options, ROW_OPTIONS, why)


# The options of significance: only the functions that mark it (operators, kernels, modules,
# report) take them; elsewhere they would change nothing, so they are refused.
SIGNIFICANCE_OPTIONS = ("no_run_shift",)


def without_significance_options(command: str, options: _OptionsT) -> _OptionsT:
    """`options`, after refusing any of SIGNIFICANCE_OPTIONS as a TypeError that says why."""
    why = "it marks no significance (operators(), kernels(), modules() and report() take it)"
    return _refusing(command, options, SIGNIFICANCE_OPTIONS, why)


def make_options(
    control_rank: Pick = None,
    test_rank: Pick = None,
    control_iteration: Pick = None,
    test_iteration: Pick = None,
    device: Device = "all",
    short_names: bool = False,
    normalize_names: Optional[bool] = None,
    include: Sequence[str] = (),
    exclude: Sequence[str] = (),
    labels: Optional[Tuple[str, str]] = None,
    by_operator: bool = False,
    zoom: Optional[str] = None,
    rank: Pick = None,
    iteration: Pick = None,
    no_run_shift: bool = False,
    totals: bool = False,
    why: bool = False,
    **unknown: object,
) -> "_native.Options":
    """The keyword arguments as the one typed options object the Rust core takes. `rank` and
    `iteration` pick both sides, as the command line's `--rank` and `--iteration` do (its notes
    say `--iteration all`); `control_*` and `test_*` override them per side. `no_run_shift`, as
    the command line's `--no-run-shift`, judges significance against no change even where the
    whole run moved by one factor (docs/significance.md#a-run-wide-shift). `normalize_names`
    None is the function's default: raw names for `compare` and `ops_diff` (HTA's table),
    normalised for the views (the command line's). `totals=True`, as `--totals`, gives the
    views' rows as sums over the selected steps and runs instead of per step. `why=True`, as
    `--why`, adds the why columns to `compare`, `operators` and `kernels` (docs/fields.md#why)."""
    if unknown:
        names = ", ".join(sorted(unknown))
        raise TypeError(f"unknown keyword argument {names}: the selection options are {', '.join(SELECTION_OPTIONS)}")
    control_rank = rank if control_rank is None else control_rank
    test_rank = rank if test_rank is None else test_rank
    control_iteration = iteration if control_iteration is None else control_iteration
    test_iteration = iteration if test_iteration is None else test_iteration
    if not isinstance(device, str):
        raise TypeError(f"device must be 'cpu', 'gpu' or 'all', not {type(device).__name__}")
    if zoom is not None and not isinstance(zoom, str):
        raise TypeError(f"zoom must be a module path (str) or None, not {type(zoom).__name__}")
    return _native.Options(
        control_rank=pick_text(control_rank, "control_rank"),
        test_rank=pick_text(test_rank, "test_rank"),
        control_iteration=pick_text(control_iteration, "control_iteration"),
        test_iteration=pick_text(test_iteration, "test_iteration"),
        device=device,
        short_names=bool(short_names),
        normalize_names=None if normalize_names is None else bool(normalize_names),
        include=str_list(include, "include"),
        exclude=str_list(exclude, "exclude"),
        labels=_label_pair(labels),
        by_operator=bool(by_operator),
        zoom=zoom,
        no_run_shift=bool(no_run_shift),
        totals=bool(totals),
        why=_flag(why, "why"),
    )


def _flag(value: object, what: str) -> bool:
    """A boolean option as given: True or False (a string such as "no" is a TypeError, not True)."""
    if not isinstance(value, bool):
        raise TypeError(f"{what} must be True or False, not {value!r}")
    return value


# The why columns (docs/fields.md#why) that hold numbers: floats throughout (the JSON writes
# 100 and 12.5, and polars refuses an integer column that meets a float), NaN where a row has none.
_WHY_TEXT = ("work_unit", "causes", "causes_via")


def why_columns(
    cols: Dict[str, List[Any]], order: Optional[List[int]] = None
) -> Tuple[Dict[str, List[Any]], Dict[str, str]]:
    """The why columns of the core's `cols` (none without `why=True`), named and valued as
    the command line's `--why --format json` writes them, rows taken in `order` (None: as
    given); and their dtypes (float64 for the numbers, object for the text)."""
    keys = [k for k in cols if k.startswith(("ratio_", "diff_calls_part", "diff_work_part", "diff_efficiency_part"))]
    keys += [k for k in ("work_unit", "control_work_per_call", "test_work_per_call", "causes", "causes_via") if k in cols]
    out: Dict[str, List[Any]] = {}
    dtypes: Dict[str, str] = {}
    for key in keys:
        values = cols[key] if order is None else [cols[key][i] for i in order]
        if key in _WHY_TEXT:
            out[key] = values
            dtypes[key] = "object"
        else:
            out[key] = [None if v is None else float(v) for v in values]
            dtypes[key] = "float64"
    return out, dtypes


def without_why(command: str, options: _OptionsT) -> _OptionsT:
    """`options`, after refusing `why` as a TypeError that says why."""
    return _refusing(command, options, ("why",), "the why columns are compare(), operators() and kernels()'s")


def _columns(control: SidePath, test: SidePath, **selection: "Unpack[_Options]") -> Dict[str, List[Any]]:
    return _native.compare(side_arg(control, "control"), side_arg(test, "test"), make_options(**selection))


def table_columns(
    cols: Dict[str, List[Any]], labels: Tuple[str, str], naming: str
) -> Tuple[Dict[str, List[Any]], Dict[str, str]]:
    """The comparison table in HTA's layout and row order, and the dtype HTA would give each
    column. HTA joins the two sides' tables (each sorted by name) without sorting again, so the
    control side's names come first, sorted, then the names only the test side has, sorted. A
    side's counts are float64 when some row is absent on that side (HTA fills the gaps with 0
    after its outer join), int64 otherwise. Durations are always float64 µs: HTA's are int64 or
    float64 depending on how the trace file writes its numbers, and a float holds both exactly."""
    c, t = labels
    names = cols["name"]
    control_counts = cols["control_counts"]
    order = sorted(range(len(names)), key=lambda i: (control_counts[i] == 0, names[i]))
    out: Dict[str, List[Any]] = {naming: [names[i] for i in order]}
    dtypes: Dict[str, str] = {}
    for label, side in ((c, "control"), (t, "test")):
        counts = [cols[f"{side}_counts"][i] for i in order]
        dur_ns = [cols[f"{side}_dur_ns"][i] for i in order]
        complete = all(n > 0 for n in counts)
        out[f"{label}_counts"] = counts
        out[f"{label}_total_duration"] = [d / 1000 for d in dur_ns]
        dtypes[f"{label}_counts"] = "int64" if complete else "float64"
        dtypes[f"{label}_total_duration"] = "float64"
    out["diff_counts"] = [b - a for a, b in zip(out[f"{c}_counts"], out[f"{t}_counts"])]
    out["diff_duration"] = [b - a for a, b in zip(out[f"{c}_total_duration"], out[f"{t}_total_duration"])]
    both_int = dtypes[f"{c}_counts"] == "int64" and dtypes[f"{t}_counts"] == "int64"
    dtypes["diff_counts"] = "int64" if both_int else "float64"
    dtypes["diff_duration"] = "float64"
    out["counts_change_categories"] = ["+" if d > 0 else "-" if d < 0 else "=" for d in out["diff_counts"]]
    why, why_dtypes = why_columns(cols, order)
    out.update(why)
    dtypes.update(why_dtypes)
    return out, dtypes


def compare(
    control: SidePath,
    test: SidePath,
    *,
    control_rank: Pick = None,
    test_rank: Pick = None,
    control_iteration: Pick = None,
    test_iteration: Pick = None,
    device: Device = "all",
    short_names: bool = False,
    normalize_names: Optional[bool] = None,
    include: Sequence[str] = (),
    exclude: Sequence[str] = (),
    labels: Tuple[str, str] = ("control", "test"),
    backend: Backend = "pandas",
    why: bool = False,
) -> Frame:
    """The comparison table (`tracediff compare`) as a DataFrame: one row per name, indexed by
    `name` (or `short_name`), with HTA's columns named after `labels`; with `why=True` the why
    columns after them (`tracediff compare --why`, docs/fields.md#why: the ratios, the three
    parts of each row's Δ in µs, the work per call and the causes).

    `control` and `test` are directories of traces, single trace files, directories of runs, or
    lists of runs (one path each). HTA's table (`compare_traces`'s defaults): ranks and
    iterations are an int, a list of ints, "all", or None (the lowest); raw names, Python frames.
    With runs on a side, rows are per step and judged between runs. `device` is "cpu", "gpu" or "all".
    `backend="polars"` gives a polars DataFrame (the name as the first column)."""
    check_backend(backend)
    if len(labels) != 2 or labels[0] == labels[1]:
        raise ValueError("labels must be two different names")
    cols = _columns(
        control,
        test,
        control_rank=control_rank,
        test_rank=test_rank,
        control_iteration=control_iteration,
        test_iteration=test_iteration,
        device=device,
        short_names=short_names,
        normalize_names=normalize_names,
        include=include,
        exclude=exclude,
        why=why,
    )
    naming = "short_name" if short_names else "name"
    table, dtypes = table_columns(cols, (labels[0], labels[1]), naming)
    return frame(table, naming, backend, dtypes)


def categories(names: List[str], control: List[float], test: List[float]) -> Dict[str, List[str]]:
    """HTA's ops_diff lists from a table's names and both sides' counts, in table order."""
    out: Dict[str, List[str]] = {c: [] for c in CATEGORIES}
    for name, c, t in zip(names, control, test):
        if c == 0 and t > 0:
            out["added"].append(name)
        elif c > 0 and t == 0:
            out["deleted"].append(name)
        elif t > c:
            out["increased"].append(name)
        elif t < c:
            out["decreased"].append(name)
        else:
            out["unchanged"].append(name)
    return out


def ops_diff(control: SidePath, test: SidePath, **options: "Unpack[_OpsDiffOptions]") -> Dict[str, List[str]]:
    """`tracediff ops-diff`: the names in each category — added, deleted, increased,
    decreased, unchanged — sorted by name. Takes `compare`'s selection options."""
    options.pop("labels", None)
    options.pop("backend", None)
    # Without `labels` and `backend` now: the rest are `compare`'s selection options.
    selection = cast(_Selection, without_why("ops_diff", without_significance_options("ops_diff", options)))
    cols = _columns(control, test, **selection)
    table, _ = table_columns(cols, ("control", "test"), "name")
    return categories(table["name"], table["control_counts"], table["test_counts"])


def _label_pair(labels: Optional[Sequence[str]]) -> Optional[Tuple[str, str]]:
    """The two sides' labels as the core takes them: exactly two (control, test)."""
    if labels is None:
        return None
    if len(labels) != 2:
        raise ValueError(f"labels must be two names (control, test), not {len(labels)}")
    return (labels[0], labels[1])


ViewName = Literal["operators", "kernels", "overview", "modules", "explain"]


@overload
def _view(
    view: Literal["operators", "kernels"], control: SidePath, test: SidePath, **selection: "Unpack[_Options]"
) -> Dict[str, Any]: ...
@overload
def _view(
    view: Literal["overview", "modules", "explain"], control: SidePath, test: SidePath, **selection: "Unpack[_Options]"
) -> str: ...
def _view(
    view: ViewName, control: SidePath, test: SidePath, **selection: "Unpack[_Options]"
) -> Union[Dict[str, Any], str]:
    if view not in ("operators", "kernels"):
        selection = without_why(view, selection)
    return _native.view(view, side_arg(control, "control"), side_arg(test, "test"), make_options(**selection))


def _rounded(v: float) -> float:
    """`v` to the nearest whole, halves away from zero (as the command line rounds)."""
    return math.copysign(math.floor(abs(v) + 0.5), v)


def field_name(side: str, measure: str, per_step: bool = False) -> str:
    """The name of a view's field (docs/fields.md): ``<side>_<measure>[_per_step][_us]``, the
    unit last for durations, none for ``calls``."""
    step = "_per_step" if per_step else ""
    unit = "" if measure == "calls" else "_us"
    return f"{side}_{measure}{step}{unit}"


def _view_frame(cols: Dict[str, Any], labels: Sequence[str], backend: str) -> Frame:
    """`<side>_<measure>[_per_step]` columns (ns) → the fields of docs/fields.md: per measure
    control, test and diff summed over the steps used (`control_calls`, `control_host_self_us`),
    then where the rows are per step the same per step (`control_calls_per_step`,
    `control_host_self_per_step_us`); durations in µs (NaN where a side has no value), `calls`
    summed as integers (per step they may be fractions)."""
    c, t = labels
    measures = [k[len("control_"):] for k in cols if k.startswith("control_") and not k.endswith("_per_step")]
    out: Dict[str, List[Any]] = {}
    for key in ("operator", "name"):
        if key in cols:
            out[key] = cols[key]
    dtypes: Dict[str, str] = {}
    nan = float("nan")
    for step in (False, True):
        suffix = "_per_step" if step else ""
        for m in measures:
            if f"control_{m}{suffix}" not in cols:
                continue
            cv, tv = cols[f"control_{m}{suffix}"], cols[f"test_{m}{suffix}"]
            dv = [b - a if a is not None and b is not None else None for a, b in zip(cv, tv)]
            for label, values in ((c, cv), (t, tv), ("diff", dv)):
                name = field_name(label, m, step)
                if m == "calls" and not step:
                    out[name] = [v if v is not None else 0 for v in values]
                    dtypes[name] = "int64"
                elif m == "calls":
                    out[name] = [_rounded(v * 100) / 100 if v is not None else nan for v in values]
                    dtypes[name] = "float64"
                else:
                    out[name] = [_rounded(v) / 1000 if v is not None else nan for v in values]
                    dtypes[name] = "float64"
    if "significant" in cols:
        # True, False, or None where it cannot be estimated (fewer than 3 steps per side).
        out["significant"] = cols["significant"]
        dtypes["significant"] = "object"
    why, why_dtypes = why_columns(cols)
    out.update(why)
    dtypes.update(why_dtypes)
    index = "name" if "operator" not in out else None
    df = frame(out, index, backend, dtypes)
    if "run_shift" in cols and backend == "pandas":
        import json

        # The run-wide shifts of host and device time (null where none) and whether rows were
        # judged beyond them (`applied`), as the JSON's `run_shift` (docs/significance.md).
        # The core sends the shifts as one JSON text beside the columns' lists.
        df.attrs["run_shift"] = json.loads(cast(str, cols["run_shift"]))
    return df


def operators(
    control: SidePath,
    test: SidePath,
    *,
    zoom: Optional[str] = None,
    labels: Tuple[str, str] = ("control", "test"),
    backend: Backend = "pandas",
    why: bool = False,
    **options: "Unpack[_Marked]",
) -> Frame:
    """The operator view (`tracediff operators`): per cpu_op name, calls and host/device
    self/total time (µs) per side and their difference. `zoom` narrows it to one node of
    `modules` (a path such as "ResNet/Sequential[2]"). Takes `compare`'s selection options.
    `why=True` adds the why columns (`tracediff operators --why`, docs/fields.md#why): each
    row's change of device total time (host total without device events) split into calls,
    work and efficiency, with its causes.
    Where significance was estimated (3 or more steps a side), pandas frames carry the run-wide
    shift in `attrs["run_shift"]` (docs/significance.md#a-run-wide-shift)."""
    check_backend(backend)
    cols = _view("operators", control, test, zoom=zoom, labels=labels, why=why, **options)
    return _view_frame(cols, tuple(labels), backend)


def kernels(
    control: SidePath,
    test: SidePath,
    *,
    by_operator: bool = False,
    zoom: Optional[str] = None,
    labels: Tuple[str, str] = ("control", "test"),
    backend: Backend = "pandas",
    why: bool = False,
    **options: "Unpack[_Marked]",
) -> Frame:
    """The kernel view (`tracediff kernels`): per kernel (or per launching operator and
    kernel), calls, total, mean, min and max duration (µs) per side. `why=True` adds the why
    columns (`tracediff kernels --why`, docs/fields.md#why): each row's change of total time
    split into calls and time per launch, with the causes of the operator that launched it
    (`causes_via`)."""
    check_backend(backend)
    cols = _view("kernels", control, test, by_operator=by_operator, zoom=zoom, labels=labels, why=why, **options)
    return _view_frame(cols, tuple(labels), backend)


_BREAKDOWN_KEYS = (
    "step_time_per_step_us",
    "compute_per_step_us",
    "comm_total_per_step_us",
    "comm_overlapped_per_step_us",
    "comm_exposed_per_step_us",
    "memory_exposed_per_step_us",
    "idle_per_step_us",
    "overlap_ratio",
)

# The causes of GPU idle (docs/breakdown.md#why-the-gpu-was-idle), flattened from each row's
# `idle` object into `idle_<cause>_per_step_us` columns.
_IDLE_CAUSES = ("host_communication", "synchronize", "launch", "dataloader", "host_compute", "untraced")
_IDLE_KEYS = tuple(f"idle_{c}_per_step_us" for c in _IDLE_CAUSES)


def _parts_frame(doc: Dict[str, Any], key: str, first: Tuple[str, ...], backend: str) -> Frame:
    """Both sides' `key` rows (per_step or per_rank) as one frame with a `side` column. The
    parts are NaN (polars: null) on a side without device events, where only `step_time_per_step_us` is
    known."""
    columns: Dict[str, List[Any]] = {c: [] for c in ("side",) + first + _BREAKDOWN_KEYS + _IDLE_KEYS}
    for side in ("control", "test"):
        for row in doc[side].get(key) or []:
            columns["side"].append(doc[side]["label"])
            for c in first:
                columns[c].append(row.get(c))
            # Floats throughout: JSON writes 1000 and 1066.666, and polars refuses an integer
            # column that meets a float.
            for c in _BREAKDOWN_KEYS:
                v = row.get(c)
                columns[c].append(None if v is None else float(v))
            idle = row.get("idle") or {}
            for cause, c in zip(_IDLE_CAUSES, _IDLE_KEYS):
                v = idle.get(f"{cause}_per_step_us")
                columns[c].append(None if v is None else float(v))
    return frame(columns, None, backend, dtypes={k: "float64" for k in _BREAKDOWN_KEYS + _IDLE_KEYS})


def overview(
    control: SidePath,
    test: SidePath,
    *,
    labels: Tuple[str, str] = ("control", "test"),
    backend: Backend = "pandas",
    **options: "Unpack[_Steps]",
) -> Dict[str, Any]:
    """The overview (`tracediff overview --format json --per-step`) as a dict: per side the
    device, steps (`steps_used` names them; every step by default), mean step time, GPU busy
    time and utilisation, host communication, memory, and `breakdown` (where the step time went:
    compute, exposed communication, exposed memory copies, idle and, under `idle`, why: host
    communication, synchronize, launch, dataloader, host compute, untraced; in µs per step;
    docs/breakdown.md); values a
    trace cannot give are None. Two frames beside them: `per_step` (a row per side, rank and
    step) and `per_rank` (a row per side and rank, with two ranks or more on a side): the step
    time, and its parts with the idle causes as `idle_<cause>_per_step_us` columns (NaN on a side without
    device events, a CPU-only run)."""
    import json

    check_backend(backend)
    options = without_significance_options("overview", without_row_options("overview", options))
    text = _view("overview", control, test, labels=labels, **options)
    doc: Dict[str, Any] = json.loads(text)
    doc["per_step"] = _parts_frame(doc, "per_step", ("rank", "step"), backend)
    doc["per_rank"] = _parts_frame(doc, "per_rank", ("rank", "windows"), backend)
    return doc


def modules(
    control: SidePath,
    test: SidePath,
    *,
    zoom: Optional[str] = None,
    labels: Tuple[str, str] = ("control", "test"),
    **options: "Unpack[_ModuleSelection]",
) -> Dict[str, Any]:
    """The module-aligned diff (`tracediff modules --format json`, siblings as they ran) as
    nested dicts: kind, key, segment, status, control/test {calls, host_total_us,
    device_total_us} (None on a side without the node), wrappers (where aligned through
    them), significant (True/False where the node's time changed beyond run-to-run noise or
    not, docs/significance.md; None when not estimated: fewer than 3 steps per side) and
    children. `segment` is the node's key with its ordinal among same-key siblings
    (`Bottleneck[4]`; "" for the top node): a node's path is its ancestors' segments joined by
    "/", and only the top node carries its `path` (on a model thousands of modules deep,
    every node's path would take memory growing with the square of the depth). `compared`
    sits beside the top node's fields, as in the JSON. Built without recursion: any depth
    works."""
    import json

    text = _view("modules", control, test, zoom=zoom, labels=labels, **without_row_options("modules", options))
    flat: Dict[str, Any] = json.loads(text)
    nodes: List[Dict[str, Any]] = flat["nodes"]
    for node in nodes:
        node.setdefault("significant", None)
        node["children"] = []
    for node in nodes:
        parent = node.pop("parent")
        if parent is not None:
            nodes[parent]["children"].append(node)
    top = nodes[0]
    top["path"] = flat["top_path"]
    top["compared"] = flat["compared"]
    return top


def module_paths(tree: Dict[str, Any]) -> Iterator[Tuple[str, Dict[str, Any]]]:
    """Every node of a `modules()` tree with its path, depth first (parents before children,
    siblings in order), as (path, node) pairs, without recursion. Each path is built when its
    pair is yielded, from a stack of segments: memory stays linear in the depth."""
    top = tree.get("path", "")
    segments: List[str] = [top] if top else []
    base = len(segments)
    todo = [(tree, 0)]
    while todo:
        node, level = todo.pop()
        del segments[base + max(level - 1, 0):]
        if level > 0:
            segments.append(node["segment"])
        yield "/".join(segments), node
        todo.extend((child, level + 1) for child in reversed(node["children"]))


def summarize(trace: PathLike, output: PathLike) -> pathlib.Path:
    """`tracediff summarize`: one trace file to a small Parquet summary at `output`, which
    `compare`, `ops_diff` and `overview` read in the trace's place. Returns `output`."""
    _native.summarize(path_arg(trace, "trace"), path_arg(output, "output"))
    return pathlib.Path(output)


def report(
    control: SidePath,
    test: SidePath,
    output: PathLike,
    *,
    table_depth: int = 3,
    table_rows: int = 100,
    labels: Tuple[str, str] = ("control", "test"),
    **options: "Unpack[_Marked]",
) -> pathlib.Path:
    """`tracediff report`: the self-contained HTML page of the pair, written to `output`
    (a `.html` file). Takes `compare`'s selection options. Returns `output`."""
    output = path_arg(output, "output")
    if pathlib.Path(output).suffix.lower() not in (".html", ".htm"):
        raise _native.TraceError(f"{output}: the report is an HTML page; name it .html")
    for name, value in (("table_depth", table_depth), ("table_rows", table_rows)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise TypeError(f"{name} must be a non-negative int, not {value!r}")
    opts = make_options(labels=labels, **without_why("report", options))
    _native.report(side_arg(control, "control"), side_arg(test, "test"), output, opts, table_depth, table_rows)
    return pathlib.Path(output)


def events(
    path: PathLike,
    *,
    rank: Pick = None,
    iteration: Pick = None,
    device: Device = "all",
    name: Optional[str] = None,
    cat: Sequence[str] = (),
    args: Sequence[str] = (),
    backend: Backend = "pandas",
) -> Frame:
    """`tracediff events`: the event table of one side as a DataFrame, a row per counted event
    (index, rank, name, cat, pid, tid, ts and dur in µs, stream, correlation,
    index_correlation, iteration, then the attributes named in `args`, e.g. ["input_dims"]).
    Every rank and event by default; `rank`, `iteration`, `device`, `name` (a regular
    expression) and `cat` (exact categories) narrow it."""
    import io

    check_backend(backend)
    if name is not None and not isinstance(name, str):
        raise TypeError(f"name must be a regular expression (str) or None, not {type(name).__name__}")
    if not isinstance(device, str):
        raise TypeError(f"device must be 'cpu', 'gpu' or 'all', not {type(device).__name__}")
    csv = _native.events(
        path_arg(path, "path"),
        None if rank is None else pick_text(rank, "rank"),
        None if iteration is None else pick_text(iteration, "iteration"),
        device,
        name,
        str_list(cat, "cat"),
        str_list(args, "args"),
    )
    lib = _import(backend)
    # pid and tid may be text in traces: read them as text, as the Parquet output types them.
    if backend == "polars":
        return lib.read_csv(io.BytesIO(csv), schema_overrides={"pid": lib.Utf8, "tid": lib.Utf8})
    return lib.read_csv(io.BytesIO(csv), dtype={"pid": str, "tid": str, "name": str, "cat": str}, keep_default_na=False)


def gate(
    baseline: SidePath,
    candidate: SidePath,
    *,
    rank: Pick = None,
    iteration: Pick = None,
    **rules: Any,
) -> Dict[str, Any]:
    """`tracediff gate --format json` as a dict: judges the candidate against the baseline with
    the rules given as keyword arguments, named as the config file's keys
    (`max_step_time_regression="5%"`, `max_op_regression="10%"`, `min_op_time="200us"`,
    `fail_on_added="aten::copy_"`, `noise_k=3.0`, `relative=True`, `device="gpu"`,
    `beyond_run_shift=False`: judge the timing rules against no change, not beyond a run-wide
    shift as by default, ...). The lowest rank and every step of each side by default, as every
    command reads (`rank="all"`: every rank).
    `result["report"]["verdict"]` is "pass" or "fail"; an unknown rule or a bare number where a percentage belongs is a TraceError."""
    import json

    for name, value in rules.items():
        if value is None:
            raise TypeError(f"gate rule {name} is None: leave it out instead")
    text = _native.gate(
        side_arg(baseline, "baseline"),
        side_arg(candidate, "candidate"),
        json.dumps(rules),
        None if rank is None else pick_text(rank, "rank"),
        None if iteration is None else pick_text(iteration, "iteration"),
    )
    result: Dict[str, Any] = json.loads(text)
    return result


PLOT_METRICS = ("counts", "duration", "breakdown")
PLOT_SORTS = ("abs-diff-duration", "diff-duration", "abs-diff-counts", "diff-counts", "duration", "counts", "name")


def _positive_int(value: Any, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{what} must be an int, not {type(value).__name__}")
    if value < 1:
        raise ValueError(f"{what} must be at least 1, not {value}")
    return value


def plot(
    control: SidePath,
    test: SidePath,
    path: PathLike,
    *,
    metric: PlotMetric = "counts",
    top: int = 10,
    sort: Optional[PlotSort] = None,
    width: int = 1600,
    height: int = 900,
    labels: Tuple[str, str] = ("control", "test"),
    control_rank: Pick = None,
    test_rank: Pick = None,
    control_iteration: Pick = None,
    test_iteration: Pick = None,
    device: Device = "all",
    short_names: bool = False,
    normalize_names: Optional[bool] = None,
    include: Sequence[str] = (),
    exclude: Sequence[str] = (),
    totals: bool = False,
) -> pathlib.Path:
    """`tracediff plot -o PATH --metric METRIC`: writes one chart of the pair to `path`, a PNG or
    an SVG by its extension (``.png``, ``.svg``), and returns `path` as a `pathlib.Path`.

    `metric` is ``"counts"`` or ``"duration"`` (HTA's grouped bars, control / test / difference,
    of the `top` rows ranked by `sort`: by default the largest changes of the metric either
    way, per step unless `totals`) or ``"breakdown"`` (the waterfall of the mean step time:
    control step, the change of compute, exposed communication, exposed memory copies and GPU idle, test step;
    every step unless an iteration is given). `sort` takes the command line's keys
    (``"abs-diff-duration"``, ``"name"``, ...). `width` and `height` are pixels (400×300 to
    8192×8192; each row needs 30 pixels of width). The selection options are `compare`'s. A
    file name without a known extension, or rows that do not fit the size, is a TraceError,
    raised before anything is written."""
    path = path_arg(path, "path")
    if not isinstance(metric, str) or metric not in PLOT_METRICS:
        raise ValueError(f"metric must be one of {', '.join(PLOT_METRICS)}, not {metric!r}")
    if sort is not None and (not isinstance(sort, str) or sort not in PLOT_SORTS):
        raise ValueError(f"sort must be one of {', '.join(PLOT_SORTS)} or None, not {sort!r}")
    top = _positive_int(top, "top")
    width = _positive_int(width, "width")
    height = _positive_int(height, "height")
    if len(labels) != 2 or labels[0] == labels[1]:
        raise ValueError("labels must be two different names")
    opts = make_options(
        control_rank=control_rank,
        test_rank=test_rank,
        control_iteration=control_iteration,
        test_iteration=test_iteration,
        device=device,
        short_names=short_names,
        normalize_names=normalize_names,
        include=include,
        exclude=exclude,
        labels=(labels[0], labels[1]),
        totals=totals,
    )
    _native.plot(side_arg(control, "control"), side_arg(test, "test"), path, opts, metric, top, sort, width, height)
    return pathlib.Path(path)
