"""`tracediff.History`: a history store of runs (docs/history.md) from Python: runs added,
listed, drawn as series with their change points, and a candidate gated against them. Every
call is the library's command (`history add`, `history show`, `gate --history`), run by the
Rust core; this module only checks arguments and builds the frames."""

import json
import os
import pathlib
from typing import Any, Dict, List, Mapping, Optional, Sequence, Union

from . import _native
from ._api import Backend, Frame, Pick, path_arg, pick_text
from ._frames import _import, check_backend, frame

PathLike = Union[str, "os.PathLike[str]"]
# What `add` takes as metadata: a mapping of key → value, or `k=v` texts.
Meta = Optional[Union[Mapping[str, Any], Sequence[str]]]

# The characters the Rust core's regular expressions treat as syntax (what `regex::escape`
# escapes): a series' name is matched as itself.
_REGEX_META = set("\\.+*?()|[]{}^$#&-~")


def _exact(name: str) -> str:
    return "^" + "".join("\\" + c if c in _REGEX_META else c for c in name) + "$"


def _meta_pairs(meta: Meta) -> List[str]:
    if meta is None:
        return []
    if isinstance(meta, Mapping):
        pairs = []
        for k, v in meta.items():
            if not isinstance(k, str):
                raise TypeError(f"meta keys must be str, not {type(k).__name__}")
            pairs.append(f"{k}={v}")
        return pairs
    if isinstance(meta, str):
        raise TypeError("meta must be a mapping or a list of 'k=v' texts, not a str")
    pairs = list(meta)
    for p in pairs:
        if not isinstance(p, str):
            raise TypeError(f"meta must hold 'k=v' texts, not {p!r}")
    return pairs


def _optional_str(value: Any, what: str) -> Optional[str]:
    if value is not None and not isinstance(value, str):
        raise TypeError(f"{what} must be a str or None, not {type(value).__name__}")
    return value


def _count(value: Any, what: str, least: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{what} must be an int, not {type(value).__name__}")
    if value < least:
        raise ValueError(f"{what} must be at least {least}, not {value}")
    return value


def _typed(df: Frame, backend: str, types: Dict[str, str]) -> Frame:
    """A polars frame's columns cast to `types` (a column of nothing but nulls, or of no rows,
    is typed as the column is, not as Null); pandas frames as they are."""
    if backend != "polars":
        return df
    pl = _import(backend)
    names = {"str": pl.Utf8, "int": pl.Int64, "float": pl.Float64, "bool": pl.Boolean}
    return df.cast({k: names[v] for k, v in types.items()})


def _times(df: Frame, backend: str) -> Frame:
    """The `time` column as UTC datetimes."""
    lib = _import(backend)
    if backend == "polars":
        return df.with_columns(lib.col("time").str.to_datetime(time_zone="UTC"))
    df["time"] = lib.to_datetime(df["time"], utc=True)
    return df


class History:
    """A history store: a directory of run summaries, `STORE/run=<seq>/rank=<r>.parquet`, with
    each run's line (label, time, branch, metadata, tracediff version) and `STORE/runs.csv`.
    DuckDB and pandas read it without tracediff (docs/history.md#the-store).

    ``History(path)`` reads nothing: `add` makes the store where the directory is absent or
    empty, the other calls read it (an absent store is a TraceError). An entry that cannot be
    read is named in a `TracediffWarning` and left out, as on the command line."""

    def __init__(self, path: PathLike) -> None:
        self._path = pathlib.Path(path_arg(path, "path"))

    @property
    def path(self) -> pathlib.Path:
        """The store's directory."""
        return self._path

    def __repr__(self) -> str:
        return f"History({str(self._path)!r})"

    def add(
        self,
        run: PathLike,
        *,
        label: str,
        branch: Optional[str] = None,
        meta: Meta = None,
        time: Optional[str] = None,
    ) -> Dict[str, Any]:
        """`tracediff history add STORE RUN --label LABEL`: summarises `run` (a directory of
        one job's traces, one trace file, or summaries) and appends it whole, with a seq of its
        own even when another process appends at once. `label` (a commit id) is unique in the
        store; `meta` is a mapping (or `k=v` texts) kept with the run; `time` (RFC 3339) is when
        it was recorded, now by default. Returns the run's line as a dict (`seq`, `label`,
        `time`, `branch`, `meta`, `tool_version`, `ranks`, `source`)."""
        if not isinstance(label, str):
            raise TypeError(f"label must be a str, not {type(label).__name__}")
        text = _native.history_add(
            self._path,
            path_arg(run, "run"),
            label,
            _optional_str(branch, "branch"),
            _meta_pairs(meta),
            _optional_str(time, "time"),
        )
        entry: Dict[str, Any] = json.loads(text)
        return entry

    def _entries(self) -> List[Dict[str, Any]]:
        entries: List[Dict[str, Any]] = json.loads(_native.history_runs(self._path))
        return entries

    def __len__(self) -> int:
        return len(self._entries())

    def runs(self, *, backend: Backend = "pandas") -> Frame:
        """The runs table as a DataFrame, one row per readable run in seq order: indexed by
        `seq`, with `label`, `time` (UTC datetimes), `branch`, `meta` (a dict per run),
        `tool_version`, `ranks` (a list per run) and `source`. `backend="polars"` gives a
        polars DataFrame (`seq` as the first column; `meta` a list of `{key, value}` structs
        per run, as Arrow keeps a map)."""
        check_backend(backend)
        entries = self._entries()
        names = ("seq", "label", "time", "branch", "meta", "tool_version", "ranks", "source")
        columns: Dict[str, List[Any]] = {n: [e.get(n) for e in entries] for n in names}
        if backend == "polars":
            columns["meta"] = [[{"key": k, "value": v} for k, v in m.items()] for m in columns["meta"]]
        df = frame(columns, "seq", backend)
        types = {"seq": "int", "label": "str", "time": "str", "branch": "str", "tool_version": "str", "source": "str"}
        return _times(_typed(df, backend, types), backend)

    def _show(self, top: int, name: Optional[str], branch: Optional[str]) -> Dict[str, Any]:
        view: Dict[str, Any] = json.loads(_native.history_show(self._path, top, name, _optional_str(branch, "branch")))
        return view

    def series(self, name: str = "step time", *, branch: Optional[str] = None, backend: Backend = "pandas") -> Frame:
        """One series over the runs as a DataFrame indexed by `seq`: ``"step time"``,
        ``"gpu busy time"`` or a row's name as the gate keys it (``"aten::mm"``), each run's
        mean per step in µs (0 where the row did not run), as `tracediff history show --format
        csv` writes them. Columns: `label`, `value_us`, `segment` (0 up to the first change
        point, then 1, …), `change_point` (True at the run where a change starts) and
        `segment_median_us`. With pandas, ``df.attrs`` holds the last segment's `median_us`,
        `spread_us` (1.4826 × MAD), `band_upper_us` (a new run above it is slower than the
        history predicts; None with fewer than 3 runs) and `since_seq`, `since_label` (the run
        it starts at). A name the recent runs never ran is a KeyError."""
        check_backend(backend)
        if not isinstance(name, str):
            raise TypeError(f"name must be a str, not {type(name).__name__}")
        fixed = name in ("step time", "gpu busy time")
        view = self._show(0 if fixed else 1, None if fixed else _exact(name), branch)
        found = [s for s in view["series"] if s["name"] == name]
        if not found:
            known = ", ".join(repr(s["name"]) for s in view["series"])
            raise KeyError(f"no series {name!r} in the history {str(self._path)!r} (shown: {known})")
        s = found[0]
        starts = {c["seq"] for c in s["change_points"]}
        seqs = [r["seq"] for r in view["runs"]]
        segment, segments = 0, []
        for seq in seqs:
            segment += seq in starts
            segments.append(segment)
        medians = [c["before_us"] for c in s["change_points"]] + [s["median_us"]]
        columns = {
            "seq": seqs,
            "label": [r["label"] for r in view["runs"]],
            "value_us": [float(v) for v in s["values_us"]],
            "segment": segments,
            "change_point": [seq in starts for seq in seqs],
            "segment_median_us": [float(medians[g]) for g in segments],
        }
        df = frame(columns, "seq", backend)
        if backend == "pandas":
            df.attrs.update(
                {
                    "name": s["name"],
                    "median_us": s["median_us"],
                    "spread_us": s["spread_us"],
                    "band_upper_us": s["band_upper_us"],
                    "since_seq": s["since_seq"],
                    "since_label": s["since_label"],
                }
            )
        return df

    def change_points(
        self,
        *,
        top: int = 5,
        name: Optional[str] = None,
        branch: Optional[str] = None,
        backend: Backend = "pandas",
    ) -> Frame:
        """Every change point of the step time, the GPU's busy time and the `top` rows
        (largest first; only those matching `name`, a regular expression, where given), as
        `tracediff history show` finds them (E-Divisive means with a seeded permutation test):
        one row per change with `series`, `kind` (``step``, ``gpu_busy`` or ``row``), `seq` and
        `label` (the first run after it), `before_us` and `after_us` (the medians of the
        segments around it, µs per step), `relative_change` and `p_value`; oldest first within
        a series."""
        check_backend(backend)
        top = _count(top, "top", 0)
        view = self._show(top, _optional_str(name, "name"), branch)
        keys = ("series", "kind", "seq", "label", "before_us", "after_us", "relative_change", "p_value")
        columns: Dict[str, List[Any]] = {k: [] for k in keys}
        for s in view["series"]:
            for c in s["change_points"]:
                row = (s["name"], s["kind"], c["seq"], c["label"], c["before_us"], c["after_us"])
                for k, v in zip(keys, row + (c["relative_change"], c["p_value"])):
                    columns[k].append(v)
        df = frame(columns, None, backend, dtypes={"seq": "int64", "before_us": "float64", "after_us": "float64"})
        types = {"series": "str", "kind": "str", "seq": "int", "label": "str", "before_us": "float"}
        return _typed(df, backend, {**types, "after_us": "float", "relative_change": "float", "p_value": "float"})

    def gate(
        self,
        candidate: PathLike,
        *,
        window: int = 20,
        min_history: Optional[int] = None,
        branch: Optional[str] = None,
        add_on_pass: Optional[str] = None,
        rank: Pick = None,
        iteration: Pick = None,
        **rules: Any,
    ) -> Dict[str, Any]:
        """`tracediff gate --history STORE CANDIDATE --format json` as a dict: judges the
        candidate run against the store's runs since their last change point (at most
        `window`; only `branch`'s where given), each rule given as a keyword argument named as
        the config file's keys (`max_step_time_regression="5%"`, `max_op_regression="10%"`,
        …). With fewer than `min_history` runs (5 by default) it judges by the pair rule
        against the latest run and says so in a warning; given, a smaller store is a
        TraceError. `add_on_pass` appends the candidate with that label when it passes.
        `result["report"]["verdict"]` is "pass" or "fail"."""
        for rule, value in rules.items():
            if value is None:
                raise TypeError(f"gate rule {rule} is None: leave it out instead")
        window = _count(window, "window", 1)
        if min_history is not None:
            min_history = _count(min_history, "min_history", 1)
        text = _native.history_gate(
            self._path,
            path_arg(candidate, "candidate"),
            json.dumps(rules),
            window,
            min_history,
            _optional_str(branch, "branch"),
            _optional_str(add_on_pass, "add_on_pass"),
            None if rank is None else pick_text(rank, "rank"),
            None if iteration is None else pick_text(iteration, "iteration"),
        )
        result: Dict[str, Any] = json.loads(text)
        return result
