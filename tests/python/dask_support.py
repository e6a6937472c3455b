"""A Dask cluster for the tests: a scheduler and single-threaded workers as separate
processes on 127.0.0.1, without nannies, so that a SIGKILL really ends a worker."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

#: Seconds to wait for the cluster to come up.
STARTUP_S = 60


@dataclass
class Cluster:
    address: str
    scheduler: subprocess.Popen[bytes]
    workers: list[subprocess.Popen[bytes]]
    logs: Path

    def log_text(self) -> str:
        return "\n".join(f"--- {p.name}\n{p.read_text(errors='replace')[-3000:]}" for p in sorted(self.logs.glob("*.log")))


def _start(args: list[str], log: Path) -> subprocess.Popen[bytes]:
    with open(log, "wb") as f:
        return subprocess.Popen([sys.executable, "-m", *args], stdin=subprocess.DEVNULL, stdout=f, stderr=subprocess.STDOUT)


def _stop(processes: list[subprocess.Popen[bytes]]) -> None:
    for p in processes:
        if p.poll() is None:
            p.send_signal(signal.SIGTERM)
    deadline = time.monotonic() + 10
    for p in processes:
        try:
            p.wait(timeout=max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait(timeout=10)


@contextmanager
def dask_cluster(tmp_path: Path, n_workers: int = 2) -> Iterator[Cluster]:
    """A scheduler and ``n_workers`` workers; stopped (workers first) on exit."""
    from distributed import Client

    logs = tmp_path / "dask"
    logs.mkdir()
    scheduler_file = logs / "scheduler.json"
    started: list[subprocess.Popen[bytes]] = []
    try:
        started.append(
            _start(
                ["distributed.cli.dask_scheduler", "--host", "127.0.0.1", "--port", "0", "--no-dashboard", "--scheduler-file", str(scheduler_file)],
                logs / "scheduler.log",
            )
        )
        deadline = time.monotonic() + STARTUP_S
        while not scheduler_file.is_file() and time.monotonic() < deadline:
            assert started[0].poll() is None, (logs / "scheduler.log").read_text()
            time.sleep(0.05)
        address = json.loads(scheduler_file.read_text(encoding="utf-8"))["address"]
        for i in range(n_workers):
            started.append(
                _start(
                    [
                        "distributed.cli.dask_worker",
                        address,
                        "--nthreads", "1",
                        "--no-nanny",
                        "--no-dashboard",
                        "--host", "127.0.0.1",
                        "--name", f"w{i}",
                        "--local-directory", str(logs / f"w{i}"),
                        "--death-timeout", "60",
                    ],
                    logs / f"worker{i}.log",
                )
            )
        with Client(address, timeout=STARTUP_S) as client:
            client.wait_for_workers(n_workers, timeout=STARTUP_S)
        yield Cluster(address, started[0], started[1:], logs)
    finally:  # the workers first: a worker whose scheduler is gone waits for it
        _stop(started[1:])
        _stop(started[:1])


@dataclass
class KilledRun:
    """A command run while one worker was SIGKILLed: its exit status, how many of its runs
    were done when the worker was killed (None: it ended first), and its stderr."""

    returncode: int
    killed_after: Optional[int]
    stderr: str


def run_killing_a_worker(command: list[str], cluster: Cluster, done: Callable[[], int], after: int, logs: Path, timeout_s: float) -> KilledRun:
    """Run ``command``; once ``done()`` (its finished runs) reaches ``after``, SIGKILL the
    cluster's first worker. Output goes to ``logs/run.out`` and ``logs/run.err``."""
    with open(logs / "run.out", "wb") as stdout, open(logs / "run.err", "wb") as stderr:
        proc = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=stdout, stderr=stderr)
        killed_after = None
        try:
            deadline = time.monotonic() + timeout_s
            while proc.poll() is None and time.monotonic() < deadline:
                n = done()
                if killed_after is None and n >= after:
                    cluster.workers[0].send_signal(signal.SIGKILL)
                    killed_after = n
                time.sleep(0.01)
            proc.wait(timeout=max(1.0, deadline - time.monotonic()))
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
    return KilledRun(proc.returncode, killed_after, (logs / "run.err").read_text())
