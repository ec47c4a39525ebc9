"""The differential flame graph (``tracediff flamegraph``) from Python."""

import os
from typing import Optional, Tuple, Union

from . import _native
from ._api import Pick, pick_text

PathLike = Union[str, "os.PathLike[str]"]


def _flame(control, test, *, time, side, folded, labels, control_rank, test_rank, control_iteration, test_iteration):
    return _native.flamegraph(
        os.fspath(control),
        os.fspath(test),
        pick_text(control_rank, "control_rank"),
        pick_text(test_rank, "test_rank"),
        pick_text(control_iteration, "control_iteration"),
        pick_text(test_iteration, "test_iteration"),
        time,
        side,
        folded,
        tuple(labels) if labels is not None else None,
    )


def flamegraph(
    control: PathLike,
    test: PathLike,
    path: PathLike,
    *,
    time: str = "host",
    side: Optional[str] = None,
    labels: Optional[Tuple[str, str]] = None,
    control_rank: Pick = None,
    test_rank: Pick = None,
    control_iteration: Pick = None,
    test_iteration: Pick = None,
) -> str:
    """Writes the differential flame graph of two runs to ``path`` (an SVG: width = test time,
    red grew, blue shrank; or one side's with ``side="control"|"test"``) and returns the path.
    ``time`` is ``"host"`` (self time) or ``"device"`` (kernels under their operators)."""
    svg = _flame(
        control, test, time=time, side=side, folded=False, labels=labels,
        control_rank=control_rank, test_rank=test_rank,
        control_iteration=control_iteration, test_iteration=test_iteration,
    )
    with open(path, "w", encoding="utf-8") as f:
        f.write(svg)
    return os.fspath(path)


def folded_stacks(
    control: PathLike,
    test: PathLike,
    *,
    time: str = "host",
    side: Optional[str] = None,
    control_rank: Pick = None,
    test_rank: Pick = None,
    control_iteration: Pick = None,
    test_iteration: Pick = None,
) -> str:
    """The flame graph's folded stacks as text: ``frame;frame;… CONTROL_NS TEST_NS`` lines
    (inferno's and FlameGraph's differential format), or one side's ``frame;… NS`` lines with
    ``side="control"|"test"``."""
    return _flame(
        control, test, time=time, side=side, folded=True, labels=None,
        control_rank=control_rank, test_rank=test_rank,
        control_iteration=control_iteration, test_iteration=test_iteration,
    )
