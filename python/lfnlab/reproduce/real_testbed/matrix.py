"""What real.M1 and real.M2 share: a matrix of cells, each a scenario of the testbed's
subset run N times by the simulator and N times by the kernel (docs/compare.md).

:class:`TestbedExperiment` runs the simulator's cases through the reproduction engine,
then the kernel's runs on the testbed (one transfer at a time, the repetitions
interleaved across cells), then the analysis over both. The tables, checks and figures
of a matrix are built here from the cells' :class:`~lfnlab.compare.cell.Collected` rows.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Optional

import pandas as pd

from ...compare import runs as compare_runs
from ...compare.cell import RUNS_DIR, Cell, Collected
from ...compare.figures import goodput_axes, trace_axes
from ...compare.runs import KERNEL, KernelJob, KernelOutcome
from ...sweep.execute import Backend
from ...sweep.progress import Progress
from ..engine import Experiment
from ..figures import new_figure
from ..outcome import Check, Figure, Outcome, RunRecord

__all__ = [
    "TESTBED_LABS",
    "DROPS_RETRANS_BAND",
    "TestbedExperiment",
    "interleaved",
    "identity_holds",
    "band_note",
    "matrix_checks",
    "goodput_figure",
    "trace_figure",
]

#: Testbed transfers at a time (run_kernel's staggered schedule).
TESTBED_LABS = 1
#: The drops = retransmissions identity of a valid kernel run (issue 11's ± 2 %, at least
#: one frame): a frame lost in the last round trip of iperf3's window can be retransmitted
#: after iperf3 reads its count, hence the band. On an overloaded host it mostly holds
#: too, but is not judged there.
DROPS_RETRANS_BAND = 0.02


def interleaved(cells: Sequence[Cell], out: Path) -> list[KernelJob]:
    """Repetition 1 of every cell, then repetition 2, … (a slow spell of the host then
    does not fall on one cell)."""
    per_cell = [c.kernel_jobs(out) for c in cells]
    return [jobs[r] for r in range(max((len(j) for j in per_cell), default=0)) for jobs in per_cell if r < len(jobs)]


def say(line: str) -> None:
    print(f"  {line}", flush=True)


def identity_holds(r: Any) -> bool:
    """The relay drops (its queue's drops and its random losses) what the kernel
    retransmits, within :data:`DROPS_RETRANS_BAND` and at least one frame. A
    retransmission the receiver reported as a duplicate (D-SACK, RFC 2883: the original
    arrived too) was not dropped, so it counts on the drops' side (real.M1 at 77c9f13:
    a BBR run retransmitted 4555 segments for 4440 relay drops, and reported 115 D-SACKs)."""
    lost = r.drops + max(getattr(r, "losses", 0), 0)
    spurious = max(getattr(r, "dsacks", 0), 0)
    return bool(abs(lost + spurious - r.retransmitted) <= max(DROPS_RETRANS_BAND * lost, 1))


def band_note(matrix: pd.DataFrame, tolerance: float) -> str:
    """The report's line on the cells whose simulator median goodput lies outside the band
    (columns ``cell``, ``outside_band``, ``goodput_difference`` of a matrix table)."""
    from ...compare.report import percent

    flagged = matrix[matrix["outside_band"]]
    if not len(flagged):
        return f"Every cell's simulator goodput lies within ± {tolerance:.0%} of the kernel's median."
    cells = "; ".join(f"{r.cell} ({percent(r.goodput_difference)})" for r in flagged.itertuples())
    return f"{len(flagged)} of {len(matrix)} cells have a simulator median goodput outside ± {tolerance:.0%} of the kernel's: {cells}."


def matrix_checks(cells: Sequence[Cell], sims: Sequence[Any], runs: pd.DataFrame) -> list[Check]:
    """Packet conservation in every simulator run; every testbed run completed; the
    drops = retransmissions identity in every valid testbed run."""
    n = sum(c.repetitions for c in cells)
    ker = runs[runs["side"] == KERNEL]
    done = ker[ker["status"] == "done"]
    valid = done[done["valid"].astype(bool)]
    return [
        Check.equal("simulator runs whose packet conservation holds",
                    sum(1 for r in sims if r.summary["conservation"]["holds"]), n, criterion=f"= {n} (every run)"),
        Check.equal("testbed runs completed", len(done), n, criterion=f"= {n} (every run)"),
        # Issue 11: a run on an overloaded host is reported, not judged (its identity is
        # in the runs table; one relay 12 ms late dropped 3 % more than was retransmitted).
        Check.equal(
            f"valid testbed runs whose bottleneck drops, random losses and D-SACKed retransmissions equal their retransmitted segments "
            f"± {DROPS_RETRANS_BAND:.0%} (at least 1)",
            int(sum(identity_holds(r) for r in valid.itertuples())),
            len(valid),
            criterion=f"= {len(valid)} (every valid run: the relay drops what the kernel retransmits)",
        ),
    ]  # fmt: skip


def _small_title(ax: Any, n: int) -> None:
    """Cell keys of a large matrix (real.M2) are long: their panels' titles get small type."""
    if n > 12:
        ax.title.set_fontsize("x-small")


def _grid(n: int) -> tuple[int, int]:
    cols = min(n, 6)
    return math.ceil(n / cols), cols


def goodput_figure(name: str, experiment: str, cells: Sequence[Cell], collected: Mapping[str, Collected]) -> Figure:
    rows, cols = _grid(len(cells))
    fig, axes = new_figure(rows, cols, width=2.3 * cols, height=2.6 * rows)
    for ax, c in zip(axes, cells):
        goodput_axes(ax, collected[c.key].rows, c.key)
        ax.tick_params(labelsize="x-small")
        _small_title(ax, len(cells))
    for ax in axes[len(cells):]:
        ax.set_visible(False)
    fig.suptitle(f"{experiment}: goodput per run, simulator vs kernel (hollow: a kernel run marked invalid)", fontsize="medium")
    return Figure(name, "Goodput of every run per cell (dots; hollow: invalid: host overloaded) and each side's median (bar).", fig)


def trace_figure(name: str, experiment: str, cells: Sequence[Cell], collected: Mapping[str, Collected], column: str) -> Figure:
    rows, cols = _grid(len(cells))
    fig, axes = new_figure(rows, cols, width=2.6 * cols, height=2.4 * rows, sharex=True)
    for i, (ax, c) in enumerate(zip(axes, cells)):
        trace_axes(ax, collected[c.key].traces, column, c.key, legend=i == 0)
        ax.tick_params(labelsize="x-small")
        _small_title(ax, len(cells))
    for ax in axes[len(cells):]:
        ax.set_visible(False)
    what = {"cwnd": "cwnd", "pacing_rate": "pacing rate"}[column]
    fig.suptitle(f"{experiment}: {what}, simulator (blue) vs kernel (red; dashed: invalid run)", fontsize="medium")
    return Figure(name, f"The {what} of every run per cell against time (kernel: `ss -tin` at 10 Hz).", fig)


@dataclass(frozen=True)
class TestbedExperiment(Experiment):
    """An :class:`~..engine.Experiment` with a second side on the testbed: after the engine
    has run the simulator's cases, and before the analysis, the kernel runs
    ``kernel_jobs(params, out)`` (:func:`~lfnlab.compare.runs.run_kernel`, one transfer
    at a time whatever ``workers`` says: it sets the simulator's workers; two labs at once
    overload a small host and skew the kernel's side, docs/compare.md). Their outcomes
    join ``kept`` under the kernel labels; their results go to ``runs/`` beside the
    simulator's and into the run records."""

    kernel_jobs: Optional[Callable[[Any, Path], list[KernelJob]]] = None

    def run(
        self, quick: bool, workers: int, out: Path, resume: bool = False, progress: Optional[Progress] = None, backend: Optional[Backend] = None
    ) -> Outcome:
        from ...testbed.lab import check_host

        assert self.kernel_jobs is not None, f"{self.id}: a testbed experiment names its kernel jobs"
        jobs_of = self.kernel_jobs
        check_host()  # before any run: no testbed, no half-made output
        wall0 = time.monotonic()
        kernel: dict[str, KernelOutcome] = {}

        def then_kernel(p: Any, sims: Mapping[str, Any]) -> Outcome:
            sim_s = time.monotonic() - wall0
            (out / RUNS_DIR).mkdir(parents=True, exist_ok=True)
            kernel.update((k.job.label, k) for k in compare_runs.run_kernel(jobs_of(p, out), TESTBED_LABS, say))
            wall_s = time.monotonic() - wall0
            outcome = self.analyse(p, dict(sorted({**sims, **kernel}.items())))
            outcome.notes.insert(
                0,
                f"Wall time: {wall_s:.0f} s for the whole matrix ({sim_s:.0f} s of it the simulator's runs, on {workers} "
                "worker(s)); the testbed ran one transfer at a time, each run's setup overlapping the previous run's close.",
            )
            return outcome

        outcome = Experiment.run(replace(self, analyse=then_kernel), quick, workers, out, resume, progress, backend)
        done = [RunRecord(label, f"{RUNS_DIR}/{label}", k.result.summary) for label, k in sorted(kernel.items()) if k.result is not None]
        outcome.runs = sorted([*outcome.runs, *done], key=lambda r: r.label)
        return outcome
