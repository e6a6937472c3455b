"""Runs an experiment's scenarios in parallel, each into ``OUT/runs/<label>/``.

The native run releases the GIL, so threads run scenarios side by side. Results
depend only on the scenarios: they are returned and recorded in label order,
whatever the number of workers or the order in which runs finish.

With a sweep backend (``--dask local``, ``--scheduler tcp://HOST:PORT``: the executors of
``lfnlab sweep``, :mod:`lfnlab.sweep.execute`) the runs go to its workers instead, each
as its resolved scenario; a worker that shares the disk writes the result into a staging
directory under ``runs/``, any other sends the files back as bytes. Either way the client
puts the directory in place, stamps it and reads it: the same files as a local run.

Resuming (``lfnlab reproduce --resume``): each finished run gets a stamp,
``runs/<label>/reproduce.json``, naming the SHA-256 of its scenario TOML and of the
engine (the native module's file). A later run of the same job reuses that result
only when both match: the engine is deterministic (spec 06 §7), so the stored result
is byte for byte the one a new run would write. Any other directory is run again.
Bench-loop runs have no directory: what the experiment keeps of each goes to the bench
journal, ``runs/bench.journal`` (:mod:`lfnlab.reproduce.bench_journal`), under the same
stamp and the digest of the analysis code that kept it.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import tempfile
import threading
from collections.abc import Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Optional

from ..bench_run import BenchResult, bench_result, run_bench
from ..errors import SimulationError
from ..result import Result, load_result, run, stopped_early
from ..scenario import Scenario
from ..sweep.execute import Backend, ResolvedJob
from ..sweep.progress import NoProgress, Progress, Tally
from ..sweep.task import BENCH_FILES, DONE, write_tree
from .bench_journal import BenchJournal
from .outcome import RunRecord

__all__ = ["Job", "RunContext", "run_all", "default_workers"]

#: A label becomes a directory name: keep it portable.
_LABEL = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")
#: Where raw results go, inside the experiment's output directory.
RUNS_DIR = "runs"
#: The stamp a finished run gets inside its result directory (see the module notes).
STAMP = "reproduce.json"
_ENGINE_ID: Optional[str] = None


def engine_id() -> str:
    """SHA-256 of the native engine module: any rebuild that could change results changes it."""
    global _ENGINE_ID
    if _ENGINE_ID is None:
        from .. import _native

        digest = hashlib.sha256()
        with open(str(_native.__file__), "rb") as f:
            for chunk in iter(lambda: f.read(1 << 20), b""):
                digest.update(chunk)
        _ENGINE_ID = digest.hexdigest()
    return _ENGINE_ID


def _stamp(scenario: Scenario) -> dict[str, str]:
    return {
        "scenario_sha256": hashlib.sha256(scenario.to_toml().encode("utf-8")).hexdigest(),
        "engine_sha256": engine_id(),
    }


def _reusable(job: Job, run_dir: Path) -> Optional[Result]:
    """The stored result of ``job`` in ``run_dir`` if its stamp matches, else None."""
    try:
        stored = json.loads((run_dir / STAMP).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if stored != _stamp(job.scenario):
        return None
    try:
        return load_result(run_dir)
    except Exception:  # an incomplete or damaged directory: run it again
        return None


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
    resume: bool = False,
    finished: Optional[Callable[[bool], None]] = None,
    backend: Optional[Backend] = None,
) -> dict[str, Any]:
    """Run every job with up to ``workers`` threads; write each to ``runs_dir/<label>``.

    With ``resume``, a job whose directory holds a stamped result of the same scenario
    and engine is not run again: the stored result is loaded instead.

    Returns ``{label: keep(result)}`` (the Result itself without ``keep``) in label
    order. ``keep`` runs in the worker thread, so a large trace can be reduced before
    the next run starts. If runs fail, the error of the first failing label is raised.
    ``finished(reused)`` is called from the worker as each run is done. With ``backend``
    the runs go to its workers (see the module notes) and ``keep`` runs in this process.
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
        run_dir = runs_dir / job.label
        result = _reusable(job, run_dir) if resume else None
        reused = result is not None
        if result is None:
            result = run(job.scenario, out=run_dir)
            (run_dir / STAMP).write_text(json.dumps(_stamp(job.scenario), indent=1) + "\n", encoding="utf-8")
        kept = result if keep is None else keep(result)
        if finished is not None:
            finished(reused)
        return kept

    by_label = {j.label: j for j in jobs}
    if backend is not None:
        return _on_backend(by_label, runs_dir, backend, keep, resume, finished)
    return _in_pool(sorted(by_label), lambda label: one(by_label[label]), workers)


def _on_backend(
    by_label: Mapping[str, Job],
    runs_dir: Path,
    backend: Backend,
    keep: Optional[Callable[[Result], Any]],
    resume: bool,
    finished: Optional[Callable[[bool], None]],
) -> dict[str, Any]:
    """:func:`run_all` on a sweep backend: reused runs first, the rest as they come back."""
    kept: dict[str, Any] = {}

    def take(label: str, result: Result, reused: bool) -> None:
        kept[label] = result if keep is None else keep(result)
        if finished is not None:
            finished(reused)

    todo: list[Job] = []
    for label in sorted(by_label):
        stored = _reusable(by_label[label], runs_dir / label) if resume else None
        if stored is None:
            todo.append(by_label[label])
        else:
            take(label, stored, True)
    staging = Path(tempfile.mkdtemp(prefix=".staging-", dir=runs_dir)) if backend.shares_disk and todo else None
    errors: dict[str, Exception] = {}
    try:
        jobs = [ResolvedJob(j.label, j.scenario.to_toml(), j.scenario.origin, None if staging is None else staging / j.label) for j in todo]
        for done in backend.run_resolved(jobs):
            label = done.job.run_id
            if done.outcome is None or done.outcome.status != DONE:
                why = done.lost if done.outcome is None else done.outcome.error
                errors[label] = SimulationError(f"run {label} on {backend.describe()}: {why}")
                continue
            run_dir = runs_dir / label
            _place(run_dir, done.job.stage_dir, done.outcome.files)
            job = by_label[label]
            (run_dir / STAMP).write_text(json.dumps(_stamp(job.scenario), indent=1) + "\n", encoding="utf-8")
            result = load_result(run_dir)
            stopped = stopped_early(result.summary, job.scenario.origin, run_dir)  # as lfnlab.run reports it
            if stopped is not None:
                errors[label] = stopped
                continue
            take(label, result, False)
    finally:
        if staging is not None:
            shutil.rmtree(staging, ignore_errors=True)
    for label in sorted(errors):  # label order: the same error whatever finished first
        raise errors[label]
    return {label: kept[label] for label in sorted(by_label)}


def _place(run_dir: Path, stage_dir: Optional[Path], files: Optional[Mapping[str, bytes]]) -> None:
    """Put a finished run's result directory at ``run_dir``, replacing an earlier one: the
    staged directory a worker wrote, or ``files`` written out here."""
    if run_dir.exists():
        shutil.rmtree(run_dir)
    if stage_dir is not None:
        stage_dir.rename(run_dir)
        return
    tmp = Path(tempfile.mkdtemp(prefix=f".{run_dir.name}-", dir=run_dir.parent))
    try:
        write_tree(tmp, files or {}, run_dir.name)
        tmp.rename(run_dir)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise


def _in_pool(labels: Sequence[str], one: Callable[[str], Any], workers: int) -> dict[str, Any]:
    """``{label: one(label)}`` in the order of ``labels``, computed by up to ``workers``
    threads. If calls fail, the error of the first failing label is raised."""
    with ThreadPoolExecutor(max_workers=min(workers, max(1, len(labels)))) as pool:
        futures: list[tuple[str, Future[Any]]] = [(label, pool.submit(one, label)) for label in labels]
        errors = [f.exception() for _, f in futures]  # waits for every call
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
    resume: bool = False
    records: list[RunRecord] = field(default_factory=list)
    #: Where the runs' progress goes (``--progress``); the tally counts the planned runs (the engine sets its total) and the finished ones.
    progress: Progress = field(default_factory=NoProgress)
    #: Where the runs go: None for this process's threads, else a sweep backend (``--dask``, ``--scheduler``).
    backend: Optional[Backend] = None
    tally: Tally = field(default_factory=lambda: Tally(total=0, kind="reproduce"))
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def _finished(self, reused: bool) -> None:
        with self._lock:
            if reused:
                self.tally.reused += 1
            else:
                self.tally.done_now += 1
            self.progress.update(self.tally)

    @property
    def runs_dir(self) -> Path:
        return self.out / RUNS_DIR

    def run(self, jobs: Sequence[Job], keep: Optional[Callable[[Result], Any]] = None) -> dict[str, Any]:
        """:func:`run_all` into ``OUT/runs``, recording each run's summary. The tally's total
        is the engine's (it counts every case before the first run)."""
        summaries: dict[str, dict[str, Any]] = {}

        def keep_and_log(result: Result) -> Any:
            summaries[result.out_dir.name if result.out_dir else ""] = result.summary
            return result if keep is None else keep(result)

        kept = run_all(jobs, self.runs_dir, self.workers, keep_and_log, resume=self.resume, finished=self._finished, backend=self.backend)
        for label in kept:
            self.records.append(RunRecord(label, f"{RUNS_DIR}/{label}", summaries[label]))
        self.records.sort(key=lambda r: r.label)
        return kept

    def run_bench(
        self, builds: Mapping[str, Callable[[], Scenario]], keep: Callable[[str, BenchResult], Any], analysis_sha256: str
    ) -> dict[str, Any]:
        """Run generator bench scenarios with the bench loop (:func:`lfnlab.bench_run.run_bench`),
        each built by ``builds[label]()``: no result directories and no run records. On local
        threads the scenario is built in the worker thread; with a backend it is built here
        and sent to the workers, whose summary and flows come back. Returns
        ``{label: keep(label, result)}`` in label order; if runs fail, the error of the
        first failing label is raised.

        Each kept value goes to the bench journal (:mod:`lfnlab.reproduce.bench_journal`)
        under the run's stamp and ``analysis_sha256`` (the digest of the code that made it);
        with ``resume``, a run whose record matches is not run again."""
        journal = BenchJournal(self.runs_dir, self.resume)
        try:
            if self.backend is not None:
                return self._bench_on_backend(builds, keep, journal, analysis_sha256)

            def one(label: str) -> Any:
                scenario = builds[label]()
                key = {**_stamp(scenario), "analysis_sha256": analysis_sha256}
                found, kept = journal.stored(label, key)
                if not found:
                    kept = keep(label, run_bench(scenario))
                    journal.append(label, key, kept)
                self._finished(found)
                return kept

            return _in_pool(sorted(builds), one, self.workers)
        finally:
            journal.close()

    def _bench_on_backend(
        self, builds: Mapping[str, Callable[[], Scenario]], keep: Callable[[str, BenchResult], Any], journal: BenchJournal, analysis_sha256: str
    ) -> dict[str, Any]:
        assert self.backend is not None
        scenarios = {label: builds[label]() for label in sorted(builds)}
        keys = {label: {**_stamp(s), "analysis_sha256": analysis_sha256} for label, s in scenarios.items()}
        kept: dict[str, Any] = {}
        for label in sorted(scenarios):
            found, value = journal.stored(label, keys[label])
            if found:
                kept[label] = value
                self._finished(True)
        jobs = [ResolvedJob(label, s.to_toml(), s.origin, None, bench=True) for label, s in scenarios.items() if label not in kept]
        errors: dict[str, Exception] = {}
        for done in self.backend.run_resolved(jobs):
            label = done.job.run_id
            if done.outcome is None or done.outcome.status != DONE or done.outcome.files is None:
                why = done.lost if done.outcome is None else done.outcome.error
                errors[label] = SimulationError(f"bench run {label} on {self.backend.describe()}: {why}")
                continue
            summary_json, flows = (done.outcome.files[name] for name in BENCH_FILES)
            kept[label] = keep(label, bench_result(summary_json, flows))
            journal.append(label, keys[label], kept[label])
            self._finished(False)
        for label in sorted(errors):  # label order: the same error whatever finished first
            raise errors[label]
        return {label: kept[label] for label in sorted(builds)}
