"""The differential flame graph (``tracediff flamegraph``) from Python."""

import pathlib
import sys
from typing import TYPE_CHECKING, Literal, Optional, Tuple

if sys.version_info >= (3, 11):
    from typing import Unpack
elif TYPE_CHECKING:
    # Before 3.11 only the type checker needs it: the annotations naming it are strings.
    from typing_extensions import Unpack

FlameTime = Literal["host", "device"]
Side = Literal["control", "test"]

from . import _native
from ._api import PathLike, SidePath, _Steps, make_options, path_arg, side_arg, without_row_options, without_significance_options, without_why


def flamegraph(
    control: SidePath,
    test: SidePath,
    path: PathLike,
    *,
    time: Optional[FlameTime] = None,
    side: Optional[Side] = None,
    widths: Side = "test",
    labels: Tuple[str, str] = ("control", "test"),
    **options: "Unpack[_Steps]",
) -> pathlib.Path:
    """`tracediff flamegraph -o PATH`: writes the differential flame graph of the pair to `path`
    (an SVG: width = the test run's time, or the control run's with ``widths="control"``, which
    shows what shrank or vanished; each frame coloured by the change of its time with all above
    it, red more, blue less; or one side's plain graph with ``side="control"|"test"``) and
    returns `path`. ``time`` is ``"host"`` (self time) or ``"device"`` (kernels under their
    operators); by default device on a pair with kernels, host otherwise. Takes `modules`' selection options."""
    path = path_arg(path, "path")
    if not str(path).lower().endswith(".svg"):
        # As the command line's `-o`: an SVG in `y.png` opens as a broken image.
        raise _native.TraceError(f"{path}: the flame graph is an SVG (name the file .svg); folded_stacks() gives text")
    options = without_why("flamegraph", without_significance_options("flamegraph", options))
    opts = make_options(labels=labels, **without_row_options("flamegraph", options))
    svg = _native.flamegraph(
        side_arg(control, "control"), side_arg(test, "test"), opts, time, side, False, widths
    )
    with open(path, "w", encoding="utf-8") as f:
        f.write(svg)
    return pathlib.Path(path)


def folded_stacks(
    control: SidePath,
    test: SidePath,
    *,
    time: Optional[FlameTime] = None,
    side: Optional[Side] = None,
    **options: "Unpack[_Steps]",
) -> str:
    """`tracediff flamegraph --folded`: the flame graph's stacks as text, ``frame;frame;…
    CONTROL_NS TEST_NS`` lines (inferno's and FlameGraph's differential format), or one side's
    ``frame;… NS`` lines with ``side="control"|"test"``."""
    options = without_why("folded_stacks", without_significance_options("folded_stacks", options))
    opts = make_options(**without_row_options("folded_stacks", options))
    return _native.flamegraph(side_arg(control, "control"), side_arg(test, "test"), opts, time, side, True)
