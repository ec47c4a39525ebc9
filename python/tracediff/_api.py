"""tracediff's own Python API: the command line's options as keyword arguments."""

from typing import Dict, Iterable, List, Optional, Sequence, Tuple, Union

from . import _native
from ._frames import check_backend, frame

Pick = Optional[Union[int, str, Iterable[int]]]

CATEGORIES = ("added", "deleted", "increased", "decreased", "unchanged")


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


def _selection(
    control_rank: Pick = None,
    test_rank: Pick = None,
    control_iteration: Pick = None,
    test_iteration: Pick = None,
    device: str = "all",
    short_names: bool = False,
    normalize_names: bool = False,
    include: Sequence[str] = (),
    exclude: Sequence[str] = (),
) -> tuple:
    """The selection options, in the order the Rust functions take them after the two paths."""
    return (
        pick_text(control_rank, "control_rank"),
        pick_text(test_rank, "test_rank"),
        pick_text(control_iteration, "control_iteration"),
        pick_text(test_iteration, "test_iteration"),
        device,
        bool(short_names),
        bool(normalize_names),
        list(include),
        list(exclude),
    )


def _columns(control, test, **selection) -> Dict[str, list]:
    return _native.compare(str(control), str(test), *_selection(**selection))


def table_columns(cols: Dict[str, list], labels: Tuple[str, str], naming: str) -> Tuple[Dict[str, list], Dict[str, str]]:
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
    out: Dict[str, list] = {naming: [names[i] for i in order]}
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
    return out, dtypes


def compare(
    control,
    test,
    *,
    control_rank: Pick = None,
    test_rank: Pick = None,
    control_iteration: Pick = None,
    test_iteration: Pick = None,
    device: str = "all",
    short_names: bool = False,
    normalize_names: bool = False,
    include: Sequence[str] = (),
    exclude: Sequence[str] = (),
    labels: Tuple[str, str] = ("control", "test"),
    backend: str = "pandas",
):
    """The comparison table (`tracediff compare`) as a DataFrame: one row per name, indexed by
    `name` (or `short_name`), with HTA's columns named after `labels`.

    `control` and `test` are directories of traces or single trace files. Ranks and iterations
    are an int, a list of ints, "all", or None (the lowest). `device` is "cpu", "gpu" or "all".
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


def ops_diff(control, test, **options) -> Dict[str, List[str]]:
    """`tracediff ops-diff`: the names in each category — added, deleted, increased,
    decreased, unchanged — sorted by name. Takes `compare`'s selection options."""
    options.pop("labels", None)
    options.pop("backend", None)
    cols = _columns(control, test, **options)
    table, _ = table_columns(cols, ("control", "test"), "name")
    return categories(table["name"], table["control_counts"], table["test_counts"])


def _view(view: str, control, test, *, labels=None, by_operator: bool = False, zoom=None, **selection):
    return _native.view(
        view,
        str(control),
        str(test),
        *_selection(**selection),
        tuple(labels) if labels is not None else None,
        bool(by_operator),
        zoom,
    )


def _view_frame(cols: Dict[str, list], labels: Tuple[str, str], backend: str):
    """`<side>_<measure>` columns (ns) → the CSV layout of docs/semantics.md#operator-and-kernel-views: per measure control,
    test and diff, durations in µs (NaN where a side has no value), `calls` as integers."""
    c, t = labels
    measures = [k[len("control_"):] for k in cols if k.startswith("control_")]
    out: Dict[str, list] = {}
    for key in ("operator", "name"):
        if key in cols:
            out[key] = cols[key]
    dtypes: Dict[str, str] = {}
    nan = float("nan")
    for m in measures:
        cv, tv = cols[f"control_{m}"], cols[f"test_{m}"]
        dv = [b - a if a is not None and b is not None else None for a, b in zip(cv, tv)]
        for label, values in ((c, cv), (t, tv), ("diff", dv)):
            name = f"{label}_{m}"
            if m == "calls":
                out[name] = [v if v is not None else 0 for v in values]
                dtypes[name] = "int64"
            else:
                out[name] = [v / 1000 if v is not None else nan for v in values]
                dtypes[name] = "float64"
    index = "name" if "operator" not in out else None
    return frame(out, index, backend, dtypes)


def operators(control, test, *, zoom: Optional[str] = None, labels=("control", "test"), backend: str = "pandas", **options):
    """The operator view (`tracediff operators`): per cpu_op name, calls and host/device
    self/total time (µs) per side and their difference. `zoom` narrows it to one node of
    `modules` (a path such as "ResNet/Sequential[2]"). Takes `compare`'s selection options."""
    check_backend(backend)
    cols = _view("operators", control, test, zoom=zoom, labels=labels, **options)
    return _view_frame(cols, tuple(labels), backend)


def kernels(
    control, test, *, by_operator: bool = False, zoom: Optional[str] = None, labels=("control", "test"), backend: str = "pandas", **options
):
    """The kernel view (`tracediff kernels`): per kernel (or per launching operator and
    kernel), calls, total, mean, min and max duration (µs) per side."""
    check_backend(backend)
    cols = _view("kernels", control, test, by_operator=by_operator, zoom=zoom, labels=labels, **options)
    return _view_frame(cols, tuple(labels), backend)


def overview(control, test, *, labels=("control", "test"), **options) -> dict:
    """The overview (`tracediff overview --format json`) as a dict: per side the device, steps,
    mean step time, GPU busy time and utilisation, memory; values a trace cannot give are None."""
    import json

    text = _view("overview", control, test, labels=labels, **options)
    return json.loads(text)


def modules(control, test, *, zoom: Optional[str] = None, labels=("control", "test"), **options) -> dict:
    """The module-aligned diff (`tracediff modules --format json`) as nested dicts: kind, key,
    path, status, control/test {calls, host_total_us, device_total_us} and children."""
    import json

    text = _view("modules", control, test, zoom=zoom, labels=labels, **options)
    return json.loads(text)
