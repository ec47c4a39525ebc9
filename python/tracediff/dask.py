"""The map/reduce of a many-rank job on Dask (``pip install tracediff[dask]``).

The map summarises every rank's trace where a worker can read it, into a summary dataset
(``OUT/run=<label>/rank=<r>.parquet``); the reduce compares two runs of the dataset with the
command line's own code, so its tables are the command line's, byte for byte::

    from distributed import Client
    import tracediff.dask as td

    client = Client("scheduler:8786")               # or a LocalCluster
    td.summarize(["/runs/control", "/runs/test"], "/summaries", client=client)
    out = td.compare("/summaries/run=control", "/summaries/run=test", client=client,
                     rank="all", iteration="all", format="csv")
    print(out.text)                                  # what `tracediff compare … ` prints

Each task runs the command line (``python -m tracediff``) in a child process of its worker:
the work is in Rust and holds no GIL (the worker's thread waits on the child, which releases
it), a trace's memory goes back to the system when its child ends, and a crash on a hostile
trace fails that task, not the worker. Paths must be ones the workers can read and write (a
shared file system). ``client=None`` takes the current client (``distributed.get_client()``)
when there is one, else runs here. Options are the command line's long options with ``_`` for
``-`` (``rank="all"``, ``short_names=True``, ``fail_on_added=["nccl", "memcpy"]``);
docs/summaries.md has the recipe.
"""

from __future__ import annotations

import dataclasses
import os
import pathlib
import subprocess
import sys
from typing import Any, Callable, Dict, Iterable, List, Mapping, Optional, Tuple, TypeVar, Union

from ._native import TraceError

PathLike = Union[str, "os.PathLike[str]"]

_NOTE = "tracediff: note: "

_R = TypeVar("_R")

__all__ = ["Output", "summarize", "compare", "overview", "gate"]


@dataclasses.dataclass(frozen=True)
class Output:
    """What one command printed: ``data`` (standard output, the bytes of the command line's
    table), its ``notes`` (the ``tracediff: note:`` lines of standard error, without the
    prefix) and ``exit_code`` (0; 1 where a gate failed)."""

    data: bytes
    notes: List[str]
    exit_code: int

    @property
    def text(self) -> str:
        """The output as text (UTF-8, as the command line writes it)."""
        return self.data.decode("utf-8", "surrogateescape")

    @property
    def passed(self) -> bool:
        """Whether the command passed: exit code 0 (a gate's verdict)."""
        return self.exit_code == 0

    def __str__(self) -> str:
        return self.text


def _flags(options: Mapping[str, object]) -> List[str]:
    """The command line's options for keyword arguments, in the order given."""
    args: List[str] = []
    for key, value in options.items():
        flag = "--" + key.replace("_", "-")
        if value is None or value is False:
            continue
        if value is True:
            args.append(flag)
        elif isinstance(value, (list, tuple)):
            for v in value:
                args += [flag, os.fspath(v) if isinstance(v, os.PathLike) else str(v)]
        else:
            args += [flag, os.fspath(value) if isinstance(value, os.PathLike) else str(value)]
    return args


def _threads_per_task() -> Optional[int]:
    """On a worker that runs several tasks at once, each child gets its share of the cores."""
    try:
        from distributed import get_worker

        worker = get_worker()
    except (ImportError, ValueError):
        return None
    state = getattr(worker, "state", worker)
    nthreads = getattr(state, "nthreads", None) or getattr(worker, "nthreads", 1) or 1
    return max(1, (os.cpu_count() or 1) // int(nthreads))


def run_command(argv: List[str]) -> Output:
    """Runs ``tracediff ARGV…`` in a child process and returns what it printed; raises
    `TraceError` with the command line's one-line message when it fails (exit 2, or a crash)."""
    env = dict(os.environ)
    threads = _threads_per_task()
    if threads is not None and "RAYON_NUM_THREADS" not in env:
        env["RAYON_NUM_THREADS"] = str(threads)
    proc = subprocess.run([sys.executable, "-m", "tracediff", *argv], capture_output=True, env=env)
    err = proc.stderr.decode("utf-8", "replace").splitlines()
    notes = [line[len(_NOTE):] for line in err if line.startswith(_NOTE)]
    if proc.returncode in (0, 1):
        return Output(proc.stdout, notes, proc.returncode)
    why = [line for line in err if not line.startswith(_NOTE)]
    message = why[-1] if why else f"exit status {proc.returncode}"
    prefix = "tracediff: "
    raise TraceError(message[len(prefix):] if message.startswith(prefix) else message)


def _current_client(client: Any) -> Any:
    if client is not None:
        return client
    try:
        from distributed import get_client

        return get_client()
    except (ImportError, ValueError):
        return None


def _is_trace(p: pathlib.Path) -> bool:
    return p.is_file() and p.name.endswith((".json", ".json.gz", ".sqlite"))


def _traces(files: Union[PathLike, Iterable[PathLike]]) -> List[pathlib.Path]:
    """The trace files to summarise: each file as given; a directory's trace files (a directory
    of runs: each run's), sorted."""
    if isinstance(files, (str, os.PathLike)):
        files = [files]
    found: List[pathlib.Path] = []
    for f in files:
        p = pathlib.Path(f)
        if not p.is_dir():
            found.append(p)
            continue
        own = sorted(q for q in p.iterdir() if _is_trace(q))
        if not own:
            own = sorted(q for sub in sorted(p.iterdir()) if sub.is_dir() for q in sub.iterdir() if _is_trace(q))
        if not own:
            raise TraceError(f"no trace files (Kineto or rocprofv3 *.json, *.json.gz; Nsight *.sqlite) in this directory nor its runs ({p})")
        found.extend(own)
    return found


def summarize_one(trace: PathLike, out_dir: PathLike, label: Optional[str] = None) -> str:
    """The map's task: ``tracediff summarize TRACE -o OUT_DIR/ [--label LABEL]``, one trace to
    ``OUT_DIR/run=<label>/rank=<r>.parquet`` (the label defaults to the trace's directory
    name). Returns the path written."""
    out = os.fspath(out_dir)
    argv = ["summarize", os.fspath(trace), "-o", out if out.endswith(os.sep) else out + os.sep]
    if label is not None:
        argv += ["--label", label]
    return run_command(argv).text.strip()


def _caught(task: Callable[..., _R], *args: Any, **kwargs: Any) -> Tuple[Optional[_R], Optional[str]]:
    """Runs ``task`` on a worker and hands back ``(result, None)`` or ``(None, message)``: the
    extension's `TraceError` does not cross a worker's pickling as itself, so the client raises
    it again (see `_raised`)."""
    try:
        return task(*args, **kwargs), None
    except TraceError as e:
        return None, str(e)


def _raised(outcome: Tuple[Any, Optional[str]]) -> Any:
    # `outcome` crossed a worker's pickling: `_caught`'s pair, typed by nothing on the way.
    result, error = outcome
    if error is not None:
        raise TraceError(error)
    return result


def summarize(
    files: Union[PathLike, Iterable[PathLike]],
    out_dir: PathLike,
    client: Any = None,
    label: Optional[str] = None,
) -> List[pathlib.Path]:
    """Summarises every trace of ``files`` (trace files, or directories of them, or of runs)
    into the summary dataset ``out_dir``, one task per trace on ``client``'s workers. Each
    trace's run is ``label``, or the name of its directory. Returns the written summaries,
    sorted; two traces of one rank of one run raise `TraceError` naming both."""
    traces = _traces(files)
    client = _current_client(client)
    if client is None:
        written = [summarize_one(t, out_dir, label) for t in traces]
    else:
        futures = client.map(_caught, [summarize_one] * len(traces), traces, out_dir=out_dir, label=label, pure=False)
        written = [_raised(outcome) for outcome in client.gather(futures)]
    seen: Dict[str, pathlib.Path] = {}
    for trace, path in zip(traces, written):
        if path in seen:
            raise TraceError(f"{seen[path]} and {trace} are one rank of one run: both wrote {path}")
        seen[path] = trace
    return sorted(pathlib.Path(p) for p in written)


def _reduce(client: Any, argv: List[str]) -> Output:
    client = _current_client(client)
    if client is None:
        return run_command(argv)
    output: Output = _raised(client.submit(_caught, run_command, argv, pure=False).result())
    return output


def compare(control: PathLike, test: PathLike, client: Any = None, **options: object) -> Output:
    """``tracediff compare CONTROL TEST [options]`` on a worker (or here): the table, byte for
    byte. CONTROL and TEST: a summary dataset (one run, or a set of runs), one of its
    ``run=<label>`` directories, summaries or traces."""
    return _reduce(client, ["compare", os.fspath(control), os.fspath(test), *_flags(options)])


def overview(control: PathLike, test: PathLike, client: Any = None, **options: object) -> Output:
    """``tracediff overview CONTROL TEST [options]`` on a worker (or here)."""
    return _reduce(client, ["overview", os.fspath(control), os.fspath(test), *_flags(options)])


def gate(baseline: PathLike, candidate: PathLike, client: Any = None, **options: object) -> Output:
    """``tracediff gate BASELINE CANDIDATE [rules]`` on a worker (or here); ``exit_code`` 1
    (``passed`` false) where a rule failed."""
    return _reduce(client, ["gate", os.fspath(baseline), os.fspath(candidate), *_flags(options)])
