"""The runs of a comparison: the simulator's and the testbed's, and the figures read
from each result directory (docs/compare.md).

A *cell* is one scenario of the testbed's supported subset. Its simulator runs are the
scenario with ``sim.seed`` = seed, seed + 1, … (one per repetition); its kernel runs are
``lfnlab testbed run`` repetitions 1 … N. Testbed runs are started by :func:`run_kernel`:
one transfer at a time (the next run's setup overlapping the current one's close) or
``workers`` runs at once, each in its own namespaces; SIGINT/SIGTERM stop them all and
each removes what it created.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional

from ..result import Result
from ..scenario import Scenario
from ..testbed.subset import Plan

__all__ = [
    "SIMULATOR",
    "KERNEL",
    "KernelJob",
    "KernelOutcome",
    "run_kernel",
    "simulator_scenario",
    "figures_row",
    "failed_row",
]

SIMULATOR = "simulator"
KERNEL = "kernel"


#: The simulator's twin of the testbed's socket buffers: the testbed sets ``sndbuf`` and
#: ``rcvbuf`` as the maxima of tcp_wmem/tcp_rmem and lets the kernel autotune up to them
#: (iperf3 sets no SO_SNDBUF/SO_RCVBUF, testbed/lab.py ``host_sysctls``), so the simulator
#: runs them unlocked: they start at the profile's ``wmem_default``/``rmem_default``
#: (16 KiB / 128 KiB, the kernel's tcp_wmem[1]/tcp_rmem[1]) and grow (issue 38).
UNLOCKED_BUFFERS = {"flow[0].tcp.sndbuf_lock": False, "flow[0].tcp.rcvbuf_lock": False}


def simulator_scenario(scenario: Scenario, plan: Plan, repetition: int) -> Scenario:
    """The simulator's run ``repetition`` (1-based): the scenario with seed + repetition − 1
    and its socket buffers autotuned as the testbed's (:data:`UNLOCKED_BUFFERS`). The
    testbed accepts only the default profile, ``linux-modern``, so the simulator runs
    the same TCP profile the scenario names."""
    return scenario.with_set({"sim.seed": plan.seed + repetition - 1, **UNLOCKED_BUFFERS})


@dataclass(frozen=True)
class KernelJob:
    """One testbed run: its label (the result directory's name), scenario, repetition
    and transfer length (iperf3's ``-t``)."""

    label: str
    scenario: Scenario
    out: Path
    repetition: int
    duration_s: float


@dataclass(frozen=True)
class KernelOutcome:
    """A testbed run's result, or the error that ended it."""

    job: KernelJob
    result: Optional[Result]
    error: Optional[str]


#: In the one-transfer-at-a-time schedule, the next run starts this long after the
#: current run's transfer should have ended (its iperf3 client start + duration), s.
#: Its setup (namespaces, relay, iperf3 server: about 0.3 s) and iperf3's handshake
#: (several round trips) then overlap only the current run's closing exchange and
#: the reading of its results, never its transfer.
STAGGER_MARGIN_S = 0.2


class _Gates:
    """The one-transfer-at-a-time schedule: run k + 1 may start once run k's transfer
    has run for its duration (+ margin), or once run k ended, whichever comes first."""

    def __init__(self, n: int) -> None:
        self._open = [threading.Event() for _ in range(n)]
        if n:
            self._open[0].set()
        self._timers: list[threading.Timer] = []
        self._lock = threading.Lock()

    def wait(self, k: int, stopped: Callable[[], bool]) -> None:
        while not self._open[k].wait(0.1):
            if stopped():
                return

    def open_after(self, k: int, delay_s: float) -> None:
        if k < len(self._open):
            t = threading.Timer(delay_s, self._open[k].set)
            t.daemon = True
            with self._lock:
                self._timers.append(t)
            t.start()

    def open(self, k: int) -> None:
        if k < len(self._open):
            self._open[k].set()

    def cancel(self) -> None:
        with self._lock:
            for t in self._timers:
                t.cancel()


def run_kernel(
    jobs: Sequence[KernelJob], workers: int, say: Callable[[str], None] = lambda _line: None
) -> list[KernelOutcome]:
    """Runs the testbed jobs in job order; a run that fails is recorded with its error
    and the others go on.

    ``workers = 1``: one transfer at a time, staggered: the next run builds its lab and
    starts iperf3 while the current one closes (:data:`STAGGER_MARGIN_S`), so a run
    costs its transfer and little more. ``workers > 1``: that many runs at once, each in
    its own namespaces (their transfers share the host).

    SIGINT/SIGTERM stop every run (each removes its namespaces and processes) and raise
    :class:`~lfnlab.testbed.registry.Interrupted`."""
    from ..errors import LfnlabError
    from ..testbed.lab import TestbedUnavailableError, check_host
    from ..testbed.registry import Interrupted, guarded_threads, stop_requested
    from ..testbed.run import run_testbed

    check_host()
    staggered = workers <= 1
    gates = _Gates(len(jobs)) if staggered else None
    lock = threading.Lock()
    done = 0

    def one(k: int, job: KernelJob) -> KernelOutcome:
        nonlocal done
        if gates is not None:
            gates.wait(k, lambda: stop_requested() is not None)
        if stop_requested() is not None:
            return KernelOutcome(job, None, "not started: stopped")

        def on_transfer() -> None:
            if gates is not None:
                gates.open_after(k + 1, job.duration_s + STAGGER_MARGIN_S)

        try:
            result = run_testbed(job.scenario, job.out, repetition=job.repetition, on_transfer=on_transfer)
            outcome = KernelOutcome(job, result, None)
        except (Interrupted, TestbedUnavailableError):
            raise
        except LfnlabError as e:
            outcome = KernelOutcome(job, None, str(e))
        finally:
            if gates is not None:
                gates.open(k + 1)  # a run that ended early (or failed) lets the next one go
        with lock:
            done += 1
            n = done
        state = "failed: " + outcome.error if outcome.error else _state(outcome.result)
        say(f"testbed {n}/{len(jobs)}: {job.label}: {state}")
        return outcome

    threads = 2 if staggered else workers
    try:
        with guarded_threads(), ThreadPoolExecutor(max_workers=threads, thread_name_prefix="testbed") as pool:
            futures = [pool.submit(one, k, job) for k, job in enumerate(jobs)]
            outcomes = [f.result() for f in futures]
            signum = stop_requested()
    finally:
        if gates is not None:
            gates.cancel()
    if signum is not None:
        raise Interrupted(signum)
    return outcomes


def _state(result: Optional[Result]) -> str:
    if result is None:
        return "no result"
    tb = result.summary.get("testbed") or {}
    goodput = result.summary["flows"][0]["goodput_bps"] / 1e6
    return f"{goodput:.2f} Mbit/s, {'valid' if tb.get('valid') else tb.get('reason', 'invalid')}"


def _queue_drops(summary: dict[str, Any], name: str) -> int:
    for q in summary.get("queues", []):
        if q["name"] == name:
            return int(q["dropped"])
    raise KeyError(f"no queue {name!r} in the summary")


def _last_dsacks(result: Result) -> int:
    """The data sender's D-SACK count at its last TCP trace sample (0 without a trace)."""
    tcp = result.tcp
    if "dsacks" not in tcp.columns or not len(tcp):
        return 0
    return int(tcp["dsacks"].max())


def figures_row(result: Result, plan: Plan, side: str, repetition: int, label: str) -> dict[str, Any]:
    """One run's figures for the comparison table.

    - ``goodput_bps``: the simulator's flow goodput; the kernel's is iperf3's receiver
      figure (bytes over its 15-s-style measurement window from the first data frame).
    - ``drops``: drop-tail drops at the emulator's queue toward the receiver; the kernel's
      counts those inside iperf3's window shifted one base RTT earlier (docs/testbed.md).
    - ``losses``: random losses after that queue (the link's Bernoulli loss), counted the
      same way.
    - ``retransmitted``, ``timeouts``: TCP's own counts (the kernel's: iperf3, TcpExt).
    - ``dsacks``: duplicate arrivals the receiver reported with D-SACK (RFC 2883), the
      sender's count at its last TCP sample (the kernel's: ``ss`` ``dsack_dups`` at 10 Hz):
      retransmissions that were not needed, because the original was not lost.
    - ``valid``, ``reason``, ``lateness_p99_us``: the testbed's verdict on the host; the
      simulator's runs are always valid.
    """
    s = result.summary
    flow = s["flows"][0]
    row: dict[str, Any] = {
        "side": side,
        "repetition": repetition,
        "run": label,
        "status": "done",
        "goodput_bps": float(flow["goodput_bps"]),
        "retransmitted": int(flow["retransmitted_segments"]),
        "timeouts": int(flow["timeouts"]) if flow.get("timeouts") is not None else -1,
        "dsacks": _last_dsacks(result),
    }
    if side == KERNEL:
        tb = s["testbed"]
        row.update(
            drops=int(tb["bottleneck_drops_in_window"]),
            losses=int(tb.get("link_losses_in_window", 0)),
            valid=bool(tb["valid"]),
            reason=str(tb.get("reason") or ""),
            lateness_p99_us=float(tb["lateness_p99_us"]) if tb.get("lateness_p99_us") is not None else math.nan,
        )
    else:
        row.update(
            drops=_queue_drops(s, f"{plan.emulator}->{plan.receiver}"),
            losses=sum(int(l["dropped"]) for l in s.get("link_losses", []) if l["link"] == plan.a_to_b.queue),
            valid=True,
            reason="",
            lateness_p99_us=math.nan,
        )
    return row


def failed_row(side: str, repetition: int, label: str, error: str) -> dict[str, Any]:
    """The row of a run that produced no result."""
    return {
        "side": side,
        "repetition": repetition,
        "run": label,
        "status": f"failed: {error}",
        "goodput_bps": math.nan,
        "retransmitted": -1,
        "timeouts": -1,
        "dsacks": -1,
        "drops": -1,
        "losses": -1,
        "valid": False,
        "reason": "failed",
        "lateness_p99_us": math.nan,
    }
