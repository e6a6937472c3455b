"""Drives one sweep: the plan's points, the store, a backend, the progress reporter.

1. Open the store (lock it, drop half-written staging directories, save the plan).
2. Every point whose run is committed as done is reused; every other point (failed,
   missing, incomplete) is run again.
3. Each run that comes back is committed at once, so an interruption loses at most the
   runs in flight; the index is rebuilt at the end, also after an interruption or error.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Optional

from .execute import Backend, Job
from .plan import Plan, Point
from .progress import Progress, Tally
from .store import Store
from .task import DONE

if TYPE_CHECKING:
    import pyarrow as pa

__all__ = ["SweepReport", "run_sweep"]


@dataclass
class SweepReport:
    """What one sweep invocation did."""

    plan: Plan
    out: Path
    tally: Tally
    #: Runs that failed in this sweep, with their error.
    failures: list[tuple[Point, str]] = field(default_factory=list)
    #: Runs whose worker was lost, with the reason (not recorded: run again next time).
    lost: list[tuple[Point, str]] = field(default_factory=list)
    #: Run directories in ``OUT/runs`` that belong to no point of this plan (kept).
    stale: list[str] = field(default_factory=list)
    #: The index as written.
    index: Optional[pa.Table] = None

    def counts(self) -> dict[str, int]:
        t = self.tally
        return {"total": t.total, "done": t.done, "failed": t.failed, "lost": t.lost, "reused": t.reused, "ran": t.executed}


def run_sweep(
    plan: Plan,
    out: Path,
    backend: Backend,
    progress: Progress,
    announce: Optional[Callable[[str], None]] = None,
    out_argument: str = "--out",
) -> SweepReport:
    """Run every point of ``plan`` not yet done in ``out``; return what happened.

    Raises InvalidInputError (``out`` is not a sweep directory), OutputError (the store
    cannot be written, or another sweep holds it), SweepBackendError, and lets
    KeyboardInterrupt through after writing the index.
    """
    points = plan.points()
    with Store.open(out, plan, out_argument) as store:
        todo = [p for p in points if not store.is_done(p.run_id)]
        tally = Tally(total=len(points), reused=len(points) - len(todo))
        report = SweepReport(plan, out, tally, stale=store.stale_runs(points))
        if announce is not None:
            where = f" on {backend.describe()}" if todo else ""
            announce(
                f"sweep {plan.name}: {plan.describe()}; {tally.reused} already done, "
                f"{len(todo)} to run{where}; output in {out}"
            )
        jobs = [Job(p, store.stage_dir(p.run_id) if backend.shares_disk else None) for p in todo]
        progress.start(tally)
        try:
            for finished in backend.run(plan.base, jobs):
                point = finished.job.point
                if finished.outcome is None:
                    tally.lost += 1
                    report.lost.append((point, finished.lost or "lost"))
                    if finished.job.stage_dir is not None:
                        shutil.rmtree(finished.job.stage_dir, ignore_errors=True)
                else:
                    store.commit(point, finished.outcome, finished.job.stage_dir)
                    if finished.outcome.status == DONE:
                        tally.done_now += 1
                    else:
                        tally.failed += 1
                        report.failures.append((point, finished.outcome.error or "failed"))
                progress.update(tally)
        finally:
            # The backend has stopped its workers: what they staged but did not hand
            # back (an interruption, a lost worker) is debris.
            for job in jobs:
                if job.stage_dir is not None and job.stage_dir.exists():
                    shutil.rmtree(job.stage_dir, ignore_errors=True)
            report.index = store.write_index(plan, points)
            progress.finish(tally)
    return report
