"""A sweep's output directory: layout, atomic commits of runs, and the run index.

Layout (read by ``lfnlab report``; docs/sweep.md)::

    OUT/
      plan.toml            the plan as given (a dict plan written as TOML)
      index.parquet        one row per recorded run (rebuilt from the run records)
      index.csv            the same, for people
      runs/<run_id>/       a normal result directory (summary.json, *.parquet,
                           scenario.toml) and sweep.json, the run's record;
                           a failed run's directory holds only sweep.json
      .lock                held while a sweep writes OUT

Only the client (the process running the sweep) writes here. A run is committed by
writing it into ``runs/.tmp-<run_id>-<nonce>/`` and renaming that into place, so
``runs/<run_id>`` is always complete or absent. A directory whose record says
``done`` (with every result file present) is never rewritten; a failed run's
directory is replaced when the run is redone. The index is derived from the records,
so it can always be rebuilt: a crash never loses a committed run.
"""

from __future__ import annotations

import datetime
import json
import os
import secrets
import shutil
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Optional

from ..errors import InvalidInputError, OutputError
from ..result import RESULT_FILES
from .metrics import flatten
from .plan import Plan, Point
from .task import DONE, FAILED, Outcome, write_tree

if TYPE_CHECKING:
    import pyarrow as pa

__all__ = ["Store", "PLAN_FILE", "INDEX_FILE", "INDEX_CSV", "RUNS_DIR", "RECORD_FILE", "INDEX_LEAD_COLUMNS"]

PLAN_FILE = "plan.toml"
INDEX_FILE = "index.parquet"
INDEX_CSV = "index.csv"
RUNS_DIR = "runs"
RECORD_FILE = "sweep.json"
LOCK_FILE = ".lock"
_TMP = ".tmp-"
_OLD = ".old-"
#: The index's first columns, in order; then one per axis (named by its key path),
#: ``wall_seconds`` and the summary metrics (lfnlab.sweep.metrics).
INDEX_LEAD_COLUMNS = ("run_id", "status", "error", "repetition", "seed")

try:  # POSIX: an advisory lock, released by the kernel if the process dies
    import fcntl
except ImportError:  # pragma: no cover - Windows: no lock
    fcntl = None  # type: ignore[assignment]


def _all_integers(values: Sequence[Any]) -> bool:
    """True if every value is an integer or None, and one is not None."""
    present = [v for v in values if v is not None]
    return bool(present) and all(isinstance(v, int) and not isinstance(v, bool) for v in present)


def _write_atomic(path: Path, data: bytes) -> None:
    tmp = path.with_name(f"{_TMP}{path.name}-{secrets.token_hex(4)}")
    tmp.write_bytes(data)
    os.replace(tmp, path)


class Store:
    """The output directory of one sweep, opened (and locked) by :meth:`open`."""

    def __init__(self, root: Path, lock_fd: Optional[int]) -> None:
        self.root = root
        self.runs = root / RUNS_DIR
        self._lock_fd = lock_fd

    @classmethod
    def open(cls, root: Path, plan: Plan, out_argument: str = "--out") -> Store:
        """Create or reopen ``root`` for ``plan``: refuse a directory that is not a sweep
        output, take the lock, drop what an interrupted sweep left half-written, and
        save the plan."""
        if root.exists() and not root.is_dir():
            raise InvalidInputError(f"{root} exists and is not a directory", "<arguments>", out_argument)
        if root.is_dir() and any(root.iterdir()) and not (root / PLAN_FILE).is_file() and not (root / RUNS_DIR).is_dir():
            raise InvalidInputError(
                f"{root} is not empty and not the output of `lfnlab sweep`; refusing to write into it",
                "<arguments>",
                out_argument,
            )
        try:
            (root / RUNS_DIR).mkdir(parents=True, exist_ok=True)
            fd = os.open(root / LOCK_FILE, os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as e:
            raise OutputError(f"{root}: cannot create the sweep directory: {e.strerror or e}") from None
        if fcntl is not None:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                os.close(fd)
                raise OutputError(f"{root}: another sweep is writing this directory (it holds {LOCK_FILE})") from None
        store = cls(root, fd)
        try:
            store._clean()
            _write_atomic(root / PLAN_FILE, plan.text.encode("utf-8"))
        except OSError as e:
            store.close()
            raise OutputError(f"{root}: {e.strerror or e}") from None
        return store

    def close(self) -> None:
        if self._lock_fd is not None:
            os.close(self._lock_fd)  # releases the flock
            self._lock_fd = None

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _clean(self) -> None:
        """Remove staging directories of an interrupted sweep (we hold the lock)."""
        for p in self.runs.iterdir():
            if p.name.startswith((_TMP, _OLD)):
                if p.is_dir():
                    shutil.rmtree(p, ignore_errors=True)
                else:
                    p.unlink()
        for p in self.root.iterdir():
            if p.name.startswith(_TMP) and p.is_file():
                p.unlink()

    # Records ---------------------------------------------------------------------

    def record(self, run_id: str) -> Optional[dict[str, Any]]:
        """``runs/<run_id>/sweep.json``, or None if absent or unreadable."""
        try:
            rec = json.loads((self.runs / run_id / RECORD_FILE).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        if not isinstance(rec, dict) or rec.get("run_id") != run_id or rec.get("status") not in (DONE, FAILED):
            return None
        return rec

    def is_done(self, run_id: str) -> bool:
        """True if the run is committed as done with every result file present."""
        rec = self.record(run_id)
        return rec is not None and rec["status"] == DONE and all((self.runs / run_id / f).is_file() for f in RESULT_FILES)

    def stage_dir(self, run_id: str) -> Path:
        """A fresh, not yet existing staging directory for ``run_id`` inside ``runs/``."""
        return self.runs / f"{_TMP}{run_id}-{secrets.token_hex(4)}"

    def commit(self, point: Point, outcome: Outcome, staged: Optional[Path] = None) -> bool:
        """Move the run's result into ``runs/<run_id>`` with its record, atomically.

        ``staged`` is where a local worker wrote the result directory; otherwise the
        files come in ``outcome.files``. Returns False (and writes nothing) if the run
        is already committed as done: no result is written twice.
        """
        run_id = point.run_id
        if outcome.run_id != run_id:
            raise ValueError(f"outcome of {outcome.run_id} committed as {run_id}")
        if self.is_done(run_id):
            if staged is not None:
                shutil.rmtree(staged, ignore_errors=True)
            return False
        done = outcome.status == DONE
        if staged is not None and not (done and staged.is_dir()):
            shutil.rmtree(staged, ignore_errors=True)  # a failed run's partial output
            staged = None
        tmp = staged if staged is not None else self.stage_dir(run_id)
        try:
            tmp.mkdir(exist_ok=staged is not None)
            if done and outcome.files is not None:
                write_tree(tmp, outcome.files, run_id)
            (tmp / RECORD_FILE).write_text(json.dumps(self._record(point, outcome), indent=1) + "\n", encoding="utf-8")
            final = self.runs / run_id
            old = None
            if final.exists():  # a failed run's record (or debris): replaced
                old = self.runs / f"{_OLD}{run_id}-{secrets.token_hex(4)}"
                os.rename(final, old)
            os.rename(tmp, final)
            if old is not None:
                shutil.rmtree(old, ignore_errors=True)
        except OSError as e:
            shutil.rmtree(tmp, ignore_errors=True)
            raise OutputError(f"{self.runs / run_id}: cannot write the run: {e.strerror or e}") from None
        return True

    @staticmethod
    def _record(point: Point, outcome: Outcome) -> dict[str, Any]:
        return {
            "run_id": point.run_id,
            "status": outcome.status,
            "error": outcome.error,
            "params": dict(point.params),
            "repetition": point.repetition,
            "seed": point.seed,
            "sets": list(point.sets),
            "wall_seconds": outcome.wall_seconds,
            "scenario_sha256": outcome.scenario_sha256,
            "engine": outcome.engine,
            "host": outcome.host,
            "finished_utc": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        }

    # Index -----------------------------------------------------------------------

    def stale_runs(self, points: Iterable[Point]) -> list[str]:
        """Run directories of no point of the current plan (kept, not indexed)."""
        ids = {p.run_id for p in points}
        return sorted(p.name for p in self.runs.iterdir() if p.is_dir() and not p.name.startswith(".") and p.name not in ids)

    def index_table(self, plan: Plan, points: Sequence[Point]) -> pa.Table:
        """The run index of ``plan``: one row per point whose run is recorded (done with
        its result, or failed), in grid order."""
        import pyarrow as pa

        rows: list[dict[str, Any]] = []
        for p in points:
            rec = self.record(p.run_id)
            if rec is None or (rec["status"] == DONE and not self.is_done(p.run_id)):
                continue
            row: dict[str, Any] = {
                "run_id": p.run_id,
                "status": rec["status"],
                "error": rec.get("error") if rec["status"] == FAILED else None,
                "repetition": p.repetition,
                "seed": p.seed,
            }
            row.update(dict(p.params))
            wall = rec.get("wall_seconds")
            row["wall_seconds"] = float(wall) if isinstance(wall, (int, float)) else None
            if rec["status"] == DONE:
                try:
                    summary = json.loads((self.runs / p.run_id / "summary.json").read_text(encoding="utf-8"))
                except (OSError, ValueError):
                    continue
                row.update(flatten(summary))
            rows.append(row)
        columns: dict[str, None] = dict.fromkeys(INDEX_LEAD_COLUMNS)
        columns.update(dict.fromkeys(a.key for a in plan.axes))
        columns["wall_seconds"] = None
        for row in rows:
            columns.update(dict.fromkeys(row))
        strings = {"run_id", "status", "error", *(a.key for a in plan.axes)}
        arrays = []
        for name in columns:
            values = [row.get(name) for row in rows]
            if name in strings:
                kind = pa.string()
            elif name in ("repetition", "seed"):
                kind = pa.int64()
            elif name != "wall_seconds" and _all_integers(values):
                kind = pa.int64()
            else:
                kind = pa.float64()
            arrays.append(pa.array(values, type=kind))
        return pa.Table.from_arrays(arrays, names=list(columns))

    def write_index(self, plan: Plan, points: Sequence[Point]) -> pa.Table:
        """Rebuild ``index.parquet`` and ``index.csv`` from the run records, atomically."""
        import pyarrow as pa
        import pyarrow.csv as pa_csv
        import pyarrow.parquet as pq

        table = self.index_table(plan, points)
        try:
            sink = pa.BufferOutputStream()
            pq.write_table(table, sink)
            _write_atomic(self.root / INDEX_FILE, sink.getvalue().to_pybytes())
            sink = pa.BufferOutputStream()
            pa_csv.write_csv(table, sink)
            _write_atomic(self.root / INDEX_CSV, sink.getvalue().to_pybytes())
        except OSError as e:
            raise OutputError(f"{self.root / INDEX_FILE}: cannot write the index: {e.strerror or e}") from None
        return table
