"""One run of a sweep, as a worker executes it (a local process or a Dask worker).

The task never raises for a run's own failure: an invalid point, a simulation error or
any other exception becomes an :class:`Outcome` with ``status = "failed"`` and the error
text. An exception that reaches the caller therefore means the worker itself was lost
(killed, crashed, disconnected): the run is then not recorded, and a later sweep of the
same plan runs it again.

Where the files go: with ``stage_dir`` (a local pool, sharing the client's disk) the
core writes the result directory there and the client renames it into place; without
(Dask: the workers may not share a filesystem with the client) it runs into a private
temporary directory and the files come back as bytes, for the client alone to write.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import socket
import tempfile
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Optional

from .. import _native
from ..errors import LfnlabError, OutputError
from .plan import BaseScenario

__all__ = ["Outcome", "run_point", "run_resolved", "run_resolved_bench", "BENCH_FILES", "DONE", "FAILED"]

DONE = "done"
FAILED = "failed"


@dataclass(frozen=True)
class Outcome:
    """What a worker reports about one run."""

    run_id: str
    #: ``"done"`` or ``"failed"``.
    status: str
    #: The error text of a failed run (an InvalidInputError names the file and key path).
    error: Optional[str]
    #: Wall time of the task: building the scenario, running it, writing its files.
    wall_seconds: float
    #: SHA-256 of the resolved scenario TOML, when it was valid.
    scenario_sha256: Optional[str]
    #: The lfnlab version of the worker.
    engine: str
    #: The worker's host name.
    host: str
    #: The result files by relative path (``/``-separated), when not staged on shared disk.
    files: Optional[dict[str, bytes]] = None


def _error_text(e: BaseException) -> str:
    if isinstance(e, LfnlabError):
        return str(e) or type(e).__name__
    return f"{type(e).__name__}: {e}" if str(e) else type(e).__name__


def _read_tree(root: Path) -> dict[str, bytes]:
    """The files under ``root`` as ``{relative POSIX name: bytes}``: how a worker that does
    not share the client's disk sends a result directory back (:func:`write_tree` undoes it)."""
    files: dict[str, bytes] = {}
    for directory, _, names in os.walk(root):
        for name in sorted(names):
            p = Path(directory) / name
            files[p.relative_to(root).as_posix()] = p.read_bytes()
    return files


def write_tree(root: Path, files: Mapping[str, bytes], run_id: str) -> None:
    """Write ``files`` (as :func:`_read_tree` gives them) under the existing directory
    ``root``. The names come from a worker, so one that is empty, absolute or climbs out
    with ``..`` is refused: OutputError naming the run ``run_id``."""
    for name, data in files.items():
        rel = PurePosixPath(name)
        if rel.is_absolute() or ".." in rel.parts or not rel.parts:
            raise OutputError(f"run {run_id}: refusing the result file name {name!r}")
        target = root.joinpath(*rel.parts)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)


def run_point(base: BaseScenario, run_id: str, sets: tuple[str, ...], stage_dir: Optional[str] = None) -> Outcome:
    """Build the run's scenario from ``base`` and ``sets``, run it, and report.

    With ``stage_dir`` (which must not exist) the result directory is written there;
    otherwise the files are returned in :attr:`Outcome.files`.
    """
    started = time.perf_counter()
    try:
        scenario = base.scenario(sets)
    except Exception as e:  # an invalid point: recorded, never raised
        return _outcome(run_id, started, None, FAILED, _error_text(e), None)
    return run_resolved(run_id, scenario.to_toml(), scenario.origin, stage_dir, started)


def run_resolved(run_id: str, toml: str, origin: str, stage_dir: Optional[str] = None, started: Optional[float] = None) -> Outcome:
    """Run the resolved scenario ``toml`` (``origin`` names it in errors) and report, as
    :func:`run_point` does; ``lfnlab reproduce`` hands its jobs to the backends this way."""
    started = time.perf_counter() if started is None else started
    scenario_sha256 = hashlib.sha256(toml.encode("utf-8")).hexdigest()
    files: Optional[dict[str, bytes]] = None
    try:
        if stage_dir is not None:
            _native.run_scenario(toml, stage_dir, origin)
        else:
            scratch = Path(tempfile.mkdtemp(prefix="lfnlab-sweep-"))
            try:
                _native.run_scenario(toml, os.fspath(scratch / "run"), origin)
                files = _read_tree(scratch / "run")
            finally:
                shutil.rmtree(scratch, ignore_errors=True)
        status, error = DONE, None
    except Exception as e:  # the run's own failure: recorded, never raised
        status, error, files = FAILED, _error_text(e), None
    return _outcome(run_id, started, scenario_sha256, status, error, files)


#: The files of a generator bench run (no result directory: spec 05 §2.6): its summary
#: JSON and its per-bin flow counters as an Arrow IPC stream (:mod:`lfnlab.bench_run`).
BENCH_FILES = ("summary.json", "flows.arrows")


def run_resolved_bench(run_id: str, toml: str, origin: str) -> Outcome:
    """Run the resolved generator bench scenario ``toml`` on the bench loop and report its
    two parts as :data:`BENCH_FILES` (05.E5.2's grid on a sweep backend)."""
    started = time.perf_counter()
    scenario_sha256 = hashlib.sha256(toml.encode("utf-8")).hexdigest()
    try:
        summary_json, flows = _native.run_bench(toml, origin)
        files: Optional[dict[str, bytes]] = dict(zip(BENCH_FILES, (summary_json.encode("utf-8"), bytes(flows))))
        status, error = DONE, None
    except Exception as e:  # the run's own failure: recorded, never raised
        status, error, files = FAILED, _error_text(e), None
    return _outcome(run_id, started, scenario_sha256, status, error, files)


def _outcome(run_id: str, started: float, scenario_sha256: Optional[str], status: str, error: Optional[str], files: Optional[dict[str, bytes]]) -> Outcome:
    return Outcome(
        run_id=run_id,
        status=status,
        error=error,
        wall_seconds=time.perf_counter() - started,
        scenario_sha256=scenario_sha256,
        engine=str(_native.__version__),
        host=socket.gethostname(),
        files=files,
    )
