"""The run index as a data frame, and runs' results read lazily from the store.

:class:`SweepIndex` is a ``pandas.DataFrame`` (one row per run; see
:mod:`lfnlab.sweep.store` for the columns) that knows its output directory:
``index.result(run_id)`` gives a :class:`RunResult`, whose tables are read from the
run's Parquet files only when first used. ``attrs["sweep_dir"]`` holds the directory
(pandas carries ``attrs`` through most operations, so :func:`load_run` works on a
filtered copy too) and ``attrs["sweep"]`` the counts of the sweep that returned it.
"""

from __future__ import annotations

import json
import os
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any, Union

import pandas as pd

from ..errors import OutputError
from ..result import RESULT_FILES, TABLES, Result, _frame_from_parquet, load_result
from .store import INDEX_FILE, INDEX_LEAD_COLUMNS, RECORD_FILE, RUNS_DIR

if TYPE_CHECKING:
    import pyarrow as pa

__all__ = ["SweepIndex", "RunResult", "load_run", "read_index"]


class RunResult:
    """One run's result directory, read on demand (the same names as :class:`lfnlab.Result`).

    ``summary`` and ``scenario_toml`` are read on first use, each table on first use
    of its attribute or :meth:`table`; :meth:`load` reads everything into a Result.
    """

    def __init__(self, out_dir: Path, run_id: str) -> None:
        self.out_dir = out_dir
        self.run_id = run_id
        self._tables: dict[str, pd.DataFrame] = {}

    def __repr__(self) -> str:
        return f"RunResult(run_id={self.run_id!r}, out_dir={os.fspath(self.out_dir)!r})"

    @cached_property
    def record(self) -> dict[str, Any]:
        """The run's ``sweep.json`` (params, seed, status, error, wall time, ...)."""
        data: dict[str, Any] = json.loads((self.out_dir / RECORD_FILE).read_text(encoding="utf-8"))
        return data

    @cached_property
    def summary(self) -> dict[str, Any]:
        data: dict[str, Any] = json.loads((self.out_dir / "summary.json").read_text(encoding="utf-8"))
        return data

    @cached_property
    def scenario_toml(self) -> str:
        return (self.out_dir / "scenario.toml").read_text(encoding="utf-8")

    @property
    def name(self) -> str:
        return str(self.summary.get("scenario", ""))

    @property
    def loaded_tables(self) -> tuple[str, ...]:
        """The tables read so far."""
        return tuple(self._tables)

    def table(self, name: str) -> pd.DataFrame:
        """A table by name (``flows``, ``tcp``, ``queues``, ...), read once."""
        if name not in TABLES:
            raise KeyError(f"no table {name!r}; tables: {', '.join(TABLES)}")
        if name not in self._tables:
            self._tables[name] = _frame_from_parquet(self.out_dir / f"{name}.parquet")
        return self._tables[name]

    @property
    def flows(self) -> pd.DataFrame:
        return self.table("flows")

    @property
    def tcp(self) -> pd.DataFrame:
        return self.table("tcp")

    @property
    def queues(self) -> pd.DataFrame:
        return self.table("queues")

    @property
    def packets(self) -> pd.DataFrame:
        return self.table("packets")

    @property
    def hosts(self) -> pd.DataFrame:
        return self.table("hosts")

    @property
    def busy(self) -> pd.DataFrame:
        return self.table("busy")

    @property
    def objects(self) -> pd.DataFrame:
        return self.table("objects")

    def load(self) -> Result:
        """Every table at once, as :func:`lfnlab.load_result` reads it."""
        return load_result(self.out_dir)


def _sweep_dir(where: Union[str, os.PathLike[str], pd.DataFrame]) -> Path:
    if isinstance(where, pd.DataFrame):
        d = where.attrs.get("sweep_dir")
        if d is None:
            raise ValueError("this data frame carries no sweep directory (attrs['sweep_dir']); pass the directory")
        return Path(d)
    return Path(where)


def load_run(where: Union[str, os.PathLike[str], pd.DataFrame], run_id: str) -> RunResult:
    """The result of run ``run_id`` of the sweep in ``where`` (its output directory, or an
    index returned by :func:`lfnlab.sweep`), read lazily.

    Raises KeyError if the sweep has no such run, OutputError if the run failed (with
    its error) or its directory is incomplete.
    """
    run_dir = _sweep_dir(where) / RUNS_DIR / run_id
    if not run_id or run_id.startswith(".") or "/" in run_id or os.sep in run_id or not run_dir.is_dir():
        raise KeyError(f"no run {run_id!r} in {run_dir.parent}")
    try:
        record = json.loads((run_dir / RECORD_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        raise OutputError(f"{run_dir}: no readable {RECORD_FILE}; not a run of a sweep") from None
    if record.get("status") != "done":
        raise OutputError(f"{run_dir}: the run failed: {record.get('error')}")
    missing = [f for f in RESULT_FILES if not (run_dir / f).is_file()]
    if missing:
        raise OutputError(f"{run_dir}: incomplete result (missing {', '.join(missing)})")
    return RunResult(run_dir, run_id)


class SweepIndex(pd.DataFrame):
    """The run index (a DataFrame) of a sweep, with access to each run's result."""

    @property
    def _constructor(self) -> type[SweepIndex]:
        return SweepIndex

    @property
    def sweep_dir(self) -> Path:
        """The sweep's output directory."""
        return _sweep_dir(self)

    @property
    def counts(self) -> dict[str, int]:
        """``total``, ``done``, ``failed``, ``lost``, ``reused`` and ``ran`` of the sweep that
        returned this index (empty when read with :func:`read_index`)."""
        counts: dict[str, int] = self.attrs.get("sweep", {})
        return counts

    def result(self, run_id: str) -> RunResult:
        """Run ``run_id``'s result, its tables read on first use."""
        return load_run(self, run_id)


def index_frame(table: pa.Table, sweep_dir: Path, counts: dict[str, int]) -> SweepIndex:
    """The index as a DataFrame. Each axis column (between the lead columns and
    ``wall_seconds``, ``store.index_table``) is an ordered categorical in the plan's
    order, as the rows (in grid order) first show its values: a sort or a pivot then
    follows the plan (``32KiB, 128KiB, 512KiB``), not the text (issue 40)."""
    frame = SweepIndex(table.to_pandas())
    columns = list(frame.columns)
    if "wall_seconds" in columns:
        for key in columns[len(INDEX_LEAD_COLUMNS) : columns.index("wall_seconds")]:
            values = frame[key]
            order = list(dict.fromkeys(v for v in values if isinstance(v, str)))
            frame[key] = pd.Categorical(values, categories=order, ordered=True)
    frame.attrs["sweep_dir"] = os.fspath(sweep_dir)
    frame.attrs["sweep"] = dict(counts)
    return frame


def read_index(sweep_dir: Union[str, os.PathLike[str]]) -> SweepIndex:
    """The index of a sweep's output directory, as written by the last sweep."""
    import pyarrow.parquet as pq

    d = Path(sweep_dir)
    path = d / INDEX_FILE
    if not path.is_file():
        raise OutputError(f"{d}: no {INDEX_FILE}; not the output of `lfnlab sweep`")
    return index_frame(pq.read_table(path), d, {})
