"""Columns from the Rust core → pandas or polars frames. Both libraries are imported lazily."""

import types
from typing import Any, Iterable, List, Mapping, Optional, Sequence, TypeVar

_T = TypeVar("_T")

BACKENDS = ("pandas", "polars")


def check_backend(backend: str) -> str:
    if backend not in BACKENDS:
        raise ValueError(f"unknown backend {backend!r} (expected 'pandas' or 'polars')")
    return backend


def _import(backend: str) -> types.ModuleType:
    try:
        if backend == "polars":
            import polars

            return polars
        import pandas

        return pandas
    except ImportError as e:  # pragma: no cover - depends on the environment
        raise ImportError(
            f"tracediff needs {backend} for DataFrames: pip install 'tracediff[{backend}]'"
        ) from e


def frame(
    columns: Mapping[str, Sequence[Any]],
    index: Optional[str],
    backend: str = "pandas",
    dtypes: Optional[Mapping[str, str]] = None,
) -> Any:
    """A frame of `columns` (insertion order kept): a pandas DataFrame, or a polars one with
    `backend="polars"`. With pandas, `index` becomes the index and `dtypes` maps column → numpy
    dtype name."""
    lib = _import(check_backend(backend))
    if backend == "polars":
        return lib.DataFrame(columns)
    data = {k: v for k, v in columns.items() if k != index}
    df = lib.DataFrame(data)
    if dtypes:
        df = df.astype({k: v for k, v in dtypes.items() if k in df.columns})
    if index is not None:
        df.index = lib.Index(columns[index], name=index)
    return df


def as_list(value: Optional[Iterable[_T]]) -> List[_T]:
    return list(value) if value is not None else []
