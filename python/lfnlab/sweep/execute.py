"""Where a sweep's runs execute: a local process pool (default) or a Dask cluster.

A backend takes the base scenario and the jobs and yields a :class:`Finished` for each
job, in completion order. A run that fails is an :class:`~lfnlab.sweep.task.Outcome`
with status ``failed``; ``lost`` is set only when the worker itself was lost (killed,
crashed, or the cluster went away), and such a run is left for the next sweep.

- :class:`LocalPool`: ``concurrent.futures.ProcessPoolExecutor`` with the ``spawn``
  start method (the native module holds threads, which ``fork`` would not copy). It
  shares the client's disk: each run writes its result into a staging directory of
  the store.
- :class:`DaskCluster`: a ``distributed.Client`` on a running scheduler
  (``--scheduler tcp://host:port``, e.g. one started by dask-jobqueue on Slurm) or on a
  ``LocalCluster`` (``--dask local``). Workers need not share the client's disk: each
  run's files come back as bytes. The base scenario is scattered to every worker once.
  When a worker dies, the scheduler runs its tasks elsewhere (Dask's
  ``distributed.scheduler.allowed-failures``, default 3); a task that keeps killing
  workers comes back as lost.
"""

from __future__ import annotations

import logging
import multiprocessing
import os
import secrets
import signal
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future, ProcessPoolExecutor, as_completed
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional, Protocol, Union

from ..errors import LfnlabError
from .plan import BaseScenario, Point
from .task import Outcome, run_point, run_resolved, run_resolved_bench

__all__ = ["Job", "ResolvedJob", "Finished", "Backend", "LocalPool", "DaskCluster", "SweepBackendError", "make_backend", "default_workers"]


class SweepBackendError(LfnlabError, RuntimeError):
    """The executor could not be used: Dask missing, or no connection to the scheduler."""


@dataclass(frozen=True)
class Job:
    """A run to execute, and where a worker on the client's disk writes it."""

    point: Point
    stage_dir: Optional[Path] = None


@dataclass(frozen=True)
class ResolvedJob:
    """A run of an already resolved scenario (``lfnlab reproduce``'s jobs): its name, the
    scenario TOML, the origin that names it in errors, and a staging directory as for :class:`Job`."""

    run_id: str
    toml: str
    origin: str
    stage_dir: Optional[Path] = None
    #: Run it on the generator bench loop (:func:`.task.run_resolved_bench`): no result
    #: directory, the files always come back as bytes.
    bench: bool = False


@dataclass(frozen=True)
class Finished:
    """A job that came back: its outcome, or why the worker was lost."""

    job: Union[Job, ResolvedJob]
    outcome: Optional[Outcome]
    lost: Optional[str] = None


#: One call for a worker: the job, the task function and its arguments.
_Call = tuple[Union[Job, ResolvedJob], Callable[..., Outcome], tuple[Any, ...]]


def _stage(job: Union[Job, ResolvedJob]) -> Optional[str]:
    return None if job.stage_dir is None else os.fspath(job.stage_dir)


def _resolved_call(job: ResolvedJob, stage_dir: Optional[str]) -> _Call:
    """The worker's call for a resolved job: a scenario run, or a bench run."""
    if job.bench:
        return (job, run_resolved_bench, (job.run_id, job.toml, job.origin))
    return (job, run_resolved, (job.run_id, job.toml, job.origin, stage_dir))


class Backend(Protocol):
    #: True if workers write into the client's store directly (staging directories).
    shares_disk: bool

    def describe(self) -> str: ...

    def run(self, base: BaseScenario, jobs: Sequence[Job]) -> Iterator[Finished]: ...

    def run_resolved(self, jobs: Sequence[ResolvedJob]) -> Iterator[Finished]: ...


def default_workers() -> int:
    return max(1, os.cpu_count() or 1)


def _worker_init() -> None:
    # A run happens in Rust, which never looks at Python's SIGINT flag: Ctrl-C on the
    # terminal ends the worker at once; the client records what finished.
    signal.signal(signal.SIGINT, signal.SIG_DFL)


class LocalPool:
    """Runs on up to ``workers`` local processes."""

    shares_disk = True

    def __init__(self, workers: int) -> None:
        if workers < 1:
            raise ValueError(f"workers must be at least 1, got {workers}")
        self.workers = workers

    def describe(self) -> str:
        return f"{self.workers} local worker{'s' if self.workers != 1 else ''}"

    def run(self, base: BaseScenario, jobs: Sequence[Job]) -> Iterator[Finished]:
        return self._execute([(job, run_point, (base, job.point.run_id, job.point.sets, _stage(job))) for job in jobs])

    def run_resolved(self, jobs: Sequence[ResolvedJob]) -> Iterator[Finished]:
        return self._execute([_resolved_call(job, _stage(job)) for job in jobs])

    def _execute(self, calls: Sequence[_Call]) -> Iterator[Finished]:
        if not calls:
            return
        pool = ProcessPoolExecutor(
            max_workers=min(self.workers, len(calls)),
            mp_context=multiprocessing.get_context("spawn"),
            initializer=_worker_init,
        )
        finished = False
        try:
            futures: dict[Future[Outcome], Union[Job, ResolvedJob]] = {}
            for job, fn, args in calls:
                futures[pool.submit(fn, *args)] = job
            for future in as_completed(futures):
                job = futures.pop(future)
                try:
                    yield Finished(job, future.result())
                except Exception as e:  # BrokenProcessPool: a worker died (crash, kill, memory)
                    yield Finished(job, None, f"the worker process was lost ({type(e).__name__}: {e})")
            finished = True
        finally:
            if finished:
                pool.shutdown(wait=True)
            else:
                _terminate(pool)


def _terminate(pool: ProcessPoolExecutor) -> None:
    """Stop the pool and its processes now: an interrupted sweep must not wait for its
    runs, and no worker may write into the store after the client has given up on it."""
    terminate = getattr(pool, "terminate_workers", None)  # Python ≥ 3.14
    if terminate is not None:
        terminate()
        return
    # Before shutdown, which forgets them (Python < 3.14 has no public way).
    processes: list[Any] = list((getattr(pool, "_processes", None) or {}).values())
    pool.shutdown(wait=False, cancel_futures=True)
    for p in processes:
        if p.is_alive():
            p.terminate()
    for p in processes:
        p.join(timeout=5)


class DaskCluster:
    """Runs on a Dask cluster: the scheduler at ``scheduler``, or a LocalCluster of
    ``workers`` single-threaded processes when ``scheduler`` is None."""

    shares_disk = False
    #: Seconds to wait for the scheduler to answer.
    connect_timeout_s = 10.0

    def __init__(self, scheduler: Optional[str], workers: Optional[int] = None) -> None:
        self.scheduler = scheduler
        self.workers = workers if workers is not None else default_workers()

    def describe(self) -> str:
        if self.scheduler is None:
            return f"a local Dask cluster of {self.workers} worker{'s' if self.workers != 1 else ''}"
        return f"the Dask scheduler at {self.scheduler}"

    def _client(self) -> tuple[Any, Any]:
        try:
            from distributed import Client, LocalCluster
        except ImportError:
            raise SweepBackendError(
                "Dask is not installed; install it with `pip install 'lfnlab[dask]'` (dask[distributed])"
            ) from None
        if self.scheduler is None:
            cluster = LocalCluster(
                n_workers=self.workers,
                threads_per_worker=1,
                processes=True,
                dashboard_address=None,
                silence_logs=logging.ERROR,
            )
            return Client(cluster), cluster
        try:
            return Client(self.scheduler, timeout=self.connect_timeout_s), None
        except Exception as e:  # OSError, TimeoutError, ValueError (a malformed address)
            raise SweepBackendError(f"cannot connect to the Dask scheduler at {self.scheduler}: {e}") from None

    def run(self, base: BaseScenario, jobs: Sequence[Job]) -> Iterator[Finished]:
        if not jobs:
            return iter(())

        def calls(client: Any) -> list[tuple[str, _Call]]:
            (shared,) = client.scatter([base], broadcast=True, hash=False)
            return [(job.point.run_id, (job, run_point, (shared, job.point.run_id, job.point.sets, None))) for job in jobs]

        return self._execute(calls)

    def run_resolved(self, jobs: Sequence[ResolvedJob]) -> Iterator[Finished]:
        """Each job's files come back as bytes (the workers may not share the client's disk)."""
        if not jobs:
            return iter(())
        return self._execute(lambda client: [(job.run_id, _resolved_call(job, None)) for job in jobs])

    def _execute(self, make_calls: Callable[[Any], list[tuple[str, _Call]]]) -> Iterator[Finished]:
        from distributed import as_completed as dask_completed

        client, cluster = self._client()
        try:
            token = secrets.token_hex(4)
            futures: dict[str, tuple[Any, Union[Job, ResolvedJob]]] = {}
            for name, (job, fn, args) in make_calls(client):
                key = f"lfnlab-sweep-{name}-{token}"
                future = client.submit(fn, *args, key=key, pure=False)
                futures[key] = (future, job)
            for future in dask_completed([f for f, _ in futures.values()]):
                _, job = futures.pop(future.key)
                try:
                    yield Finished(job, future.result())
                except Exception as e:  # KilledWorker, CancelledError, lost connection
                    yield Finished(job, None, f"the Dask task was lost ({type(e).__name__}: {e})")
                finally:
                    future.release()  # the result's bytes are no longer held by the cluster
        finally:
            client.close()
            if cluster is not None:
                cluster.close()


def make_backend(workers: Optional[int] = None, scheduler: Optional[str] = None, dask_local: bool = False) -> Backend:
    """The local pool, or Dask when given a scheduler address or ``dask_local``."""
    if scheduler is not None and dask_local:
        raise ValueError("give a Dask scheduler address or a local Dask cluster, not both")
    if scheduler is not None:
        return DaskCluster(scheduler)
    if dask_local:
        return DaskCluster(None, workers)
    return LocalPool(workers if workers is not None else default_workers())
