"""Parameter sweeps: ``lfnlab sweep PLAN.toml`` and :func:`lfnlab.sweep` (docs/sweep.md).

>>> import lfnlab
>>> index = lfnlab.sweep("examples/sweep-buffers.toml", out="out/buffers")
>>> index[["run_id", "status", "link[1].queue.limit", "goodput_bps"]]
>>> index.result(index.run_id[0]).tcp        # read from the run's Parquet file on first use

A plan is a base scenario and axes of ``--set`` key paths with values; the grid (the
Cartesian product of the axes, × repetitions over seeds) runs on a local process pool or
a Dask cluster, into a store of one result directory per run and a run index. Re-running
a plan resumes it: runs already done are kept, failed and missing ones run again.

Modules: :mod:`~lfnlab.sweep.plan` (plan format, points, run ids), :mod:`~lfnlab.sweep.store`
(output layout, atomic commits, index), :mod:`~lfnlab.sweep.task` (one run on a worker),
:mod:`~lfnlab.sweep.execute` (process pool, Dask), :mod:`~lfnlab.sweep.driver` (one sweep),
:mod:`~lfnlab.sweep.progress` (terminal, JSON), :mod:`~lfnlab.sweep.frame` (the index as a
data frame, lazy run results), :mod:`~lfnlab.sweep.command` (the command line).

Note: ``lfnlab.sweep`` (the attribute of the :mod:`lfnlab` package) is the function
:func:`sweep`; import this package's names with ``from lfnlab.sweep import ...``.
This module imports nothing heavy (pandas, pyarrow, Dask load when a sweep runs).
"""

from __future__ import annotations

import os
import warnings
from pathlib import Path
from typing import TYPE_CHECKING, Optional, Union

from ..errors import InvalidInputError

if TYPE_CHECKING:
    import pandas as pd

    from .execute import SweepBackendError as SweepBackendError
    from .frame import RunResult, SweepIndex
    from .plan import Plan, PlanSource

__all__ = ["sweep", "load_plan", "load_run", "read_index", "SweepBackendError"]


def sweep(
    plan: PlanSource,
    out: Union[str, os.PathLike[str], None] = None,
    *,
    workers: Optional[int] = None,
    scheduler: Optional[str] = None,
    dask_local: bool = False,
    progress: Union[str, Callable[[dict[str, object]], object]] = "auto",
) -> SweepIndex:
    """Run (or resume) the sweep ``plan`` into ``out``; return its run index.

    Args:
        plan: a plan file, or a dict of the same shape (``sweep.scenario`` relative to
            the working directory), or a :class:`~lfnlab.sweep.plan.Plan`.
        out: the output directory (default ``out/<plan name>``). Runs already done
            there are reused; failed and missing runs run again.
        workers: local worker processes (default: the number of CPUs); with
            ``dask_local``, the LocalCluster's workers.
        scheduler: a Dask scheduler address (``tcp://host:port``): run there.
        dask_local: run on a Dask ``LocalCluster``.
        progress: ``"auto"`` (a status line when stderr is a terminal), ``"json"``
            (JSON lines on stderr), ``"none"``, or a callable, called with a dict of the
            JSON line's fields (``done``, ``failed``, ``remaining``, ``total``,
            ``reused``, ``lost``, ``elapsed_s``, ``eta_s``, ``kind``) at the start, after
            each run and at the end, e.g. for a notebook's progress bar.

    Returns:
        The run index, a pandas DataFrame (:class:`~lfnlab.sweep.frame.SweepIndex`): one
        row per recorded run; ``.result(run_id)`` reads a run's tables lazily;
        ``.attrs["sweep"]`` holds this sweep's counts (total, done, failed, lost,
        reused, ran). A failed run is a row with ``status == "failed"``, not an exception.

    Raises:
        InvalidInputError: the plan (naming the plan file and key path) or an argument.
        OutputError: the output directory cannot be written or another sweep holds it.
        SweepBackendError: Dask is missing or its scheduler cannot be reached.
    """
    from .driver import run_sweep
    from .execute import make_backend
    from .frame import index_frame
    from .plan import load_plan
    from .progress import MODES, CallbackProgress, make_progress

    if workers is not None and (isinstance(workers, bool) or not isinstance(workers, int) or workers < 1):
        raise InvalidInputError(f"expected a positive whole number, got {workers!r}", "<arguments>", "workers")
    if scheduler is not None and dask_local:
        raise InvalidInputError("give a Dask scheduler or dask_local, not both", "<arguments>", "scheduler")
    if not callable(progress) and progress not in MODES:
        raise InvalidInputError(
            f"expected one of {', '.join(MODES)} or a callable, got {progress!r}", "<arguments>", "progress"
        )
    checked = load_plan(plan)
    out_dir = Path(out) if out is not None else Path("out") / checked.name
    report = run_sweep(
        checked,
        out_dir,
        make_backend(workers, scheduler, dask_local),
        CallbackProgress(progress) if callable(progress) else make_progress(progress, name=checked.name),
        out_argument="out",
    )
    if report.lost:
        warnings.warn(
            f"{len(report.lost)} run(s) of {checked.name} were lost with their worker and not recorded; "
            "run the sweep again to complete it",
            RuntimeWarning,
            stacklevel=2,
        )
    assert report.index is not None
    return index_frame(report.index, out_dir, report.counts())


def load_plan(plan: PlanSource) -> Plan:
    """Read and check a plan without running it (see :func:`lfnlab.sweep.plan.load_plan`)."""
    from .plan import load_plan as _load

    return _load(plan)


def load_run(where: Union[str, os.PathLike[str], pd.DataFrame], run_id: str) -> RunResult:
    """A run's result, read lazily (see :func:`lfnlab.sweep.frame.load_run`)."""
    from .frame import load_run as _load

    return _load(where, run_id)


def read_index(sweep_dir: Union[str, os.PathLike[str]]) -> SweepIndex:
    """A sweep directory's run index (see :func:`lfnlab.sweep.frame.read_index`)."""
    from .frame import read_index as _read

    return _read(sweep_dir)


def __getattr__(name: str) -> object:
    # Loaded on first use: `import lfnlab` stays free of multiprocessing and the rest.
    if name == "SweepBackendError":
        from .execute import SweepBackendError

        return SweepBackendError
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
