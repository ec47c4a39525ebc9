"""`tracediff.explain`: why each operator row changed, as a DataFrame (docs/cost-model.md)."""

import json
import sys
from typing import TYPE_CHECKING, Any, Dict, List, Tuple

if sys.version_info >= (3, 11):
    from typing import Unpack
elif TYPE_CHECKING:
    # Before 3.11 only the type checker needs it: the annotations naming it are strings.
    from typing_extensions import Unpack

from ._api import Backend, Frame, SidePath, _Marked, _view
from ._frames import check_backend, frame


def explain(
    control: SidePath,
    test: SidePath,
    *,
    labels: Tuple[str, str] = ("control", "test"),
    backend: Backend = "pandas",
    **options: "Unpack[_Marked]",
) -> Frame:
    """The explanation of a pair (`tracediff explain --format json`) as a DataFrame: a row per
    operator whose self time per step changed (device self time where the pair has device
    events, else host self time), largest change first, indexed by `name`. Each row's change
    (`delta`, µs per step) is split into `calls_part`, `work_part` and `efficiency_part`, which
    sum to it exactly; the ratios of calls, work per call, efficiency and time per call; the work
    per call on each side (`unit`: FLOP or bytes; None where the cost model has no figure for the
    op, the trace has no shapes, or the row ran on one side only, where `calls_part` is its change); `significant`; `causes` (the shapes, dtypes and kernels that
    changed, achieved rates and share of peak) and `line` (the command's one-line reading).

    The document's other fields (`summary`, the paragraph; `measure`; `shapes_recorded`;
    `mean_step_time_us`; `changed_rows`; ...) are in pandas' `attrs` (polars frames have no attrs:
    `explain(..., backend="polars")` returns the frame only; the same fields come from
    `tracediff explain --format json`). Takes `compare`'s selection options; a side may be a
    directory of runs (`run1/ … runN/`), its rows then judged between runs."""
    check_backend(backend)
    doc = json.loads(_view("explain", control, test, labels=labels, **options))
    rows: List[Dict[str, Any]] = doc.pop("rows")
    keys: List[str] = []
    for row in rows:
        for k in row:
            if k not in keys:
                keys.append(k)
    if not keys:
        keys = ["name"]
    columns = {k: [row.get(k) for row in rows] for k in keys}
    df = frame(columns, "name", backend)
    if backend == "pandas":
        df.attrs.update(doc)
    return df
