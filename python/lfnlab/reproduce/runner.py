"""Runs an experiment's scenarios in parallel, each into ``OUT/runs/<label>/``.

The native run releases the GIL, so threads run scenarios side by side. Results
depend only on the scenarios: they are returned and recorded in label order,
whatever the number of workers or the order in which runs finish.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Optional

from ..result import Result, run
from ..scenario import Scenario
from .outcome import RunRecord

__all__ = ["Job", "RunContext", "run_all", "default_workers"]

#: A label becomes a directory name: keep it portable.
_LABEL = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")
#: Where raw results go, inside the experiment's output directory.
RUNS_DIR = "runs"


@dataclass(frozen=True)
class Job:
    """One scenario to run; ``label`` names its result directory."""

    label: str
    scenario: Scenario


def default_workers() -> int:
    return max(1, os.cpu_count() or 1)


def run_all(
    jobs: Sequence[Job],
    runs_dir: Path,
    workers: int,
    keep: Optional[Callable[[Result], Any]] = None,
) -> dict[str, Any]:
    """Run every job with up to ``workers`` threads; write each to ``runs_dir/<label>``.

    Returns ``{label: keep(result)}`` (the Result itself without ``keep``) in label
    order. ``keep`` runs in the worker thread, so a large trace can be reduced before
    the next run starts. If runs fail, the error of the first failing label is raised.
    """
    labels = [j.label for j in jobs]
    bad = [lab for lab in labels if not _LABEL.match(lab)]
    if bad:
        raise ValueError(f"run labels must match {_LABEL.pattern}: {bad}")
    if len(set(labels)) != len(labels):
        raise ValueError(f"duplicate run labels: {sorted(labels)}")
    if workers < 1:
        raise ValueError(f"workers must be ≥ 1, got {workers}")
    runs_dir.mkdir(parents=True, exist_ok=True)

    def one(job: Job) -> Any:
        result = run(job.scenario, out=runs_dir / job.label)
        return result if keep is None else keep(result)

    ordered = sorted(jobs, key=lambda j: j.label)
    with ThreadPoolExecutor(max_workers=min(workers, max(1, len(ordered)))) as pool:
        futures: list[tuple[str, Future[Any]]] = [(j.label, pool.submit(one, j)) for j in ordered]
        errors = [f.exception() for _, f in futures]  # waits for every run
    for error in errors:  # label order: the same error whatever finished first
        if error is not None:
            raise error
    return {label: f.result() for label, f in futures}


@dataclass
class RunContext:
    """What an experiment's ``run`` gets: where to write, how many workers, and a
    log of every run it made (reported with the outcome)."""

    out: Path
    workers: int
    quick: bool
    records: list[RunRecord] = field(default_factory=list)

    @property
    def runs_dir(self) -> Path:
        return self.out / RUNS_DIR

    def run(self, jobs: Sequence[Job], keep: Optional[Callable[[Result], Any]] = None) -> dict[str, Any]:
        """:func:`run_all` into ``OUT/runs``, recording each run's summary."""
        summaries: dict[str, dict[str, Any]] = {}

        def keep_and_log(result: Result) -> Any:
            summaries[result.out_dir.name if result.out_dir else ""] = result.summary
            return result if keep is None else keep(result)

        kept = run_all(jobs, self.runs_dir, self.workers, keep_and_log)
        for label in kept:
            self.records.append(RunRecord(label, f"{RUNS_DIR}/{label}", summaries[label]))
        self.records.sort(key=lambda r: r.label)
        return kept
