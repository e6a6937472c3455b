"""real.M1: the simulator against real Linux TCP, a 12-cell matrix (issue 11, docs/compare.md).

100 Mbit/s, base RTT 100 ms, drop-tail bottleneck of 128 KiB or 512 KiB; cc ∈ {reno,
cubic, bbr} × {unpaced, internal pacing}; 15 s per run, 3 repetitions on each side.
Every cell is a scenario of the testbed's subset (two hosts around one emulator node):
the simulator runs it with the ``linux-modern`` profile (seeds 1 … N, ``--workers`` at
a time), the testbed runs it with the kernel's TCP through ``lfnlab emu`` (one transfer
at a time, the repetitions interleaved across cells so that a slow spell of the host does
not fall on one cell). Per cell: both sides' median goodput, drops and retransmissions, and whether
the simulator's goodput lies outside ± 15 % of the kernel's. Nothing is tuned to the
kernel: a cell outside the band is a finding, reported, not a failed check.
"""

from __future__ import annotations

import math
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Optional

import pandas as pd

from ...compare.cell import RUNS_DIR, Cell, Collected, collect, plan_cell
from ...compare.figures import goodput_axes, trace_axes
from ...compare.report import MEASURED, percent
from ...compare.runs import KernelJob, KernelOutcome, run_kernel
from ...compare.summary import matrix_row
from ... import build as b
from ...scenario import Scenario
from ...sweep.execute import Backend
from ...sweep.progress import Progress
from ..engine import Case, Experiment
from ..figures import new_figure
from ..outcome import Check, Figure, Outcome, RunRecord, Table

__all__ = ["EXPERIMENT", "Params", "cell_scenario", "cases", "analyse", "TestbedExperiment", "FULL", "QUICK"]

KIB = 1024


@dataclass(frozen=True)
class Params:
    rate_bps: int = field(metadata={"label": "bottleneck rate", "unit": "bit/s"})
    rtt_ms: int = field(metadata={"label": "base RTT", "unit": "ms"})
    buffers_kib: tuple[int, ...] = field(metadata={"label": "bottleneck drop-tail limit", "unit": "KiB"})
    ccs: tuple[str, ...] = field(metadata={"label": "congestion control"})
    pacings: tuple[str, ...] = field(metadata={"label": "pacing (off: unpaced; internal: TCP's own)"})
    duration_s: int = field(metadata={"label": "duration per run", "unit": "s"})
    repetitions: int = field(metadata={"label": "repetitions on each side"})
    host_buffer_mib: int = field(metadata={"label": "sndbuf = rcvbuf (autotuning limit)", "unit": "MiB"})
    tolerance: float = field(metadata={"label": "goodput band (fraction of the kernel's median)"})


FULL = Params(
    rate_bps=100_000_000,
    rtt_ms=100,
    buffers_kib=(128, 512),
    ccs=("reno", "cubic", "bbr"),
    pacings=("off", "internal"),
    duration_s=15,
    repetitions=3,
    host_buffer_mib=32,
    tolerance=0.15,
)
QUICK = Params(
    rate_bps=100_000_000,
    rtt_ms=100,
    buffers_kib=(128,),
    ccs=("cubic",),
    pacings=("off", "internal"),
    duration_s=3,
    repetitions=1,
    host_buffer_mib=32,
    tolerance=0.15,
)

#: Testbed transfers at a time (run_kernel's staggered schedule).
TESTBED_LABS = 1
#: The drops = retransmissions identity of a valid kernel run (the issue's ± 2 %): a drop in
#: the last round trip of iperf3's window can be retransmitted after iperf3 reads its count,
#: hence the band. On an overloaded host it mostly holds too, but is not judged there.
DROPS_RETRANS_BAND = 0.02


def cell_key(buffer_kib: int, cc: str, pacing: str) -> str:
    return f"b{buffer_kib}k-{cc}-{pacing}"


def cell_scenario(p: Params, buffer_kib: int, cc: str, pacing: str) -> Scenario:
    """A cell: sender ─(1 Gbit/s, 0 ms)─ emulator ─(rate, RTT/2, drop-tail)─ receiver,
    one tcp_bulk flow, a monitor at the bottleneck (100 ms bins)."""
    net = b.Network(b.Sim(f"real.M1-{cell_key(buffer_kib, cc, pacing)}", duration=f"{p.duration_s}s", seed=1))
    snd, wan, rcv = net.add(b.Host("snd")), net.add(b.Emulator("wan")), net.add(b.Host("rcv"))
    net.add(b.Link(snd, wan, rate="1Gbps", delay="0ms"))
    net.add(b.Link(wan, rcv, rate=f"{p.rate_bps}bps", delay=f"{p.rtt_ms / 2:g}ms", queue=b.DropTail(limit=f"{buffer_kib}KiB")))
    buffer = f"{p.host_buffer_mib}MiB"
    net.add(b.Flow("bulk", snd, rcv, kind="tcp_bulk", cc=cc, pacing={"kind": pacing}, sndbuf=buffer, rcvbuf=buffer))
    net.add(b.Monitor(wan, rcv, bin="100ms"))
    return net.scenario(origin=f"<real.M1 {cell_key(buffer_kib, cc, pacing)}>")


def _cells(p: Params) -> list[Cell]:
    return [
        plan_cell(cell_scenario(p, b, cc, pacing), p.repetitions, cell_key(b, cc, pacing))
        for b in p.buffers_kib
        for cc in p.ccs
        for pacing in p.pacings
    ]


def _interleaved(cells: Sequence[Cell], out: Path) -> list[KernelJob]:
    """Repetition 1 of every cell, then repetition 2, …"""
    per_cell = [c.kernel_jobs(out) for c in cells]
    return [jobs[r] for r in range(max(len(j) for j in per_cell)) for jobs in per_cell if r < len(jobs)]


def cases(p: Params) -> list[Case]:
    """The simulator's side: every cell's repetitions (the kernel's side runs after them, on
    the testbed: :class:`TestbedExperiment`)."""
    return [Case(label, sc) for c in _cells(p) for label, sc in c.sim_scenarios().items()]


def analyse(p: Params, kept: Mapping[str, Any]) -> Outcome:
    """``kept``: the simulator's Results under the cells' simulator labels and the testbed's
    KernelOutcomes under their kernel labels."""
    cells = _cells(p)
    collected = {c.key: collect(c, kept, kept) for c in cells}
    out = Outcome()
    matrix = _matrix(p, cells, collected)
    runs = pd.concat([col.rows for col in collected.values()], ignore_index=True)
    out.tables += [
        Table(
            "T-M1",
            f"Per cell (bottleneck limit, cc, pacing): the simulator's and the kernel's median goodput over "
            f"{p.repetitions} repetition(s), the kernel's median over its valid runs alone, the difference and whether "
            f"it lies outside ± {p.tolerance:.0%}; median bottleneck drops and retransmitted segments on each side; "
            "kernel runs completed and valid, and the median of their relays' lateness p99 (µs; above 200 the run is "
            "marked invalid: host overloaded).",
            matrix,
            digits=4,
        ),
        Table(
            "T-M1-runs",
            "Every run: side, repetition, goodput (bit/s), retransmitted segments, RTOs (−1: not known), bottleneck drops, "
            "the testbed's verdict on the host and the relay's lateness p99.",
            runs,
            digits=5,
        ),
    ]
    out.checks += _checks(p, cells, [kept[label] for c in cells for label in c.sim_labels], runs)
    out.figures += [_goodput_figure(cells, collected), _trace_figure(cells, collected, "cwnd"), _trace_figure(cells, collected, "pacing_rate")]
    flagged = matrix[matrix["outside_band"]]
    out.notes += [
        (
            "Cells where the simulator's median goodput lies outside ± "
            f"{p.tolerance:.0%} of the kernel's: "
            + "; ".join(f"{r.cell} ({percent(r.goodput_difference)})" for r in flagged.itertuples())
            + "."
        )
        if len(flagged)
        else f"Every cell's simulator goodput lies within ± {p.tolerance:.0%} of the kernel's median.",
        "BBR paces itself: its `off` cells load as internal pacing (the scenario loader and Linux alike), so in the "
        "simulator they are the same runs as the `internal` cells, and on the testbed they differ only in iperf3's "
        "`--fq-rate` (a 100 Gbit/s cap that never binds): replicates, not a second setting.",
        *MEASURED,
        "Known causes of a difference (docs/compare.md): the host itself when its runs are marked invalid (late relay "
        "departures add delay spikes and extra losses); lost retransmissions, which the simulator finds only by RTO "
        "(spec 06 §2.5, §8: RACK is not modelled) while Linux's RACK finds them within a round trip; the pacing rate "
        "ratio·max(cwnd, packets_out)/srtt of both, which grows while a hole stays unrepaired; ACK compression by the "
        "relay's batches; HyStart's delay samples; TSO autosizing plays no part (offloads are off).",
    ]
    return out


def _say(line: str) -> None:
    print(f"  {line}", flush=True)


def _matrix(p: Params, cells: Sequence[Cell], collected: dict[str, Collected]) -> pd.DataFrame:
    rows = []
    for c in cells:
        pacing = c.key.rsplit("-", 1)[1]  # as the cell asks it: bbr paces itself either way (the loader says internal)
        row = {"cell": c.key, "buffer_KiB": c.plan.a_to_b.limit_bytes // KIB, "cc": c.plan.cc, "pacing": pacing}
        row.update(matrix_row(collected[c.key].rows, p.tolerance))
        rows.append(row)
    return pd.DataFrame(rows)


def _checks(p: Params, cells: Sequence[Cell], sims: Sequence[Any], runs: pd.DataFrame) -> list[Check]:
    from ...compare.runs import KERNEL

    n = sum(c.repetitions for c in cells)
    ker = runs[runs["side"] == KERNEL]
    done = ker[ker["status"] == "done"]
    valid = done[done["valid"].astype(bool)]
    checks = [
        Check.equal("simulator runs whose packet conservation holds",
                    sum(1 for r in sims if r.summary["conservation"]["holds"]), n, criterion=f"= {n} (every run)"),
        Check.equal("testbed runs completed", len(done), n, criterion=f"= {n} (every run)"),
        # Issue 11: a run on an overloaded host is reported, not judged (its identity is
        # in T-M1-runs; one relay 12 ms late dropped 3 % more than was retransmitted).
        Check.equal(
            f"valid testbed runs whose bottleneck drops equal their retransmitted segments ± {DROPS_RETRANS_BAND:.0%}",
            int(sum(_identity_holds(r) for r in valid.itertuples())),
            len(valid),
            criterion=f"= {len(valid)} (every valid run: the relay drops what the kernel retransmits)",
        ),
    ]
    return checks


def _identity_holds(r: Any) -> bool:
    return bool(abs(r.drops - r.retransmitted) <= DROPS_RETRANS_BAND * max(r.drops, 1))


def _grid(n: int) -> tuple[int, int]:
    cols = min(n, 6)
    return math.ceil(n / cols), cols


def _goodput_figure(cells: Sequence[Cell], collected: dict[str, Collected]) -> Figure:
    rows, cols = _grid(len(cells))
    fig, axes = new_figure(rows, cols, width=2.3 * cols, height=2.6 * rows)
    for ax, c in zip(axes, cells):
        goodput_axes(ax, collected[c.key].rows, c.key)
        ax.tick_params(labelsize="x-small")
    for ax in axes[len(cells):]:
        ax.set_visible(False)
    fig.suptitle("real.M1: goodput per run, simulator vs kernel (hollow: a kernel run marked invalid)", fontsize="medium")
    return Figure("F-M1a", "Goodput of every run per cell (dots; hollow: invalid: host overloaded) and each side's median (bar).", fig)


def _trace_figure(cells: Sequence[Cell], collected: dict[str, Collected], column: str) -> Figure:
    rows, cols = _grid(len(cells))
    fig, axes = new_figure(rows, cols, width=2.6 * cols, height=2.4 * rows, sharex=True)
    for i, (ax, c) in enumerate(zip(axes, cells)):
        trace_axes(ax, collected[c.key].traces, column, c.key, legend=i == 0)
        ax.tick_params(labelsize="x-small")
    for ax in axes[len(cells):]:
        ax.set_visible(False)
    name = {"cwnd": "F-M1b", "pacing_rate": "F-M1c"}[column]
    what = {"cwnd": "cwnd", "pacing_rate": "pacing rate"}[column]
    fig.suptitle(f"real.M1: {what}, simulator (blue) vs kernel (red; dashed: invalid run)", fontsize="medium")
    return Figure(name, f"The {what} of every run per cell against time (kernel: `ss -tin` at 10 Hz).", fig)


@dataclass(frozen=True)
class TestbedExperiment(Experiment):
    """An :class:`~..engine.Experiment` with a second side on the testbed: after the engine
    has run the simulator's cases, and before the analysis, the kernel runs every cell
    (:func:`run_kernel`, one transfer at a time whatever ``workers`` says: it sets the
    simulator's workers; two labs at once overload a small host and skew the kernel's side,
    docs/compare.md). Their outcomes join ``kept`` under the kernel labels; their results go
    to ``runs/`` beside the simulator's and into the run records."""

    def run(
        self, quick: bool, workers: int, out: Path, resume: bool = False, progress: Optional[Progress] = None, backend: Optional[Backend] = None
    ) -> Outcome:
        from ...testbed.lab import check_host

        check_host()  # before any run: no testbed, no half-made output
        wall0 = time.monotonic()
        kernel: dict[str, KernelOutcome] = {}

        def then_kernel(p: Params, sims: Mapping[str, Any]) -> Outcome:
            sim_s = time.monotonic() - wall0
            (out / RUNS_DIR).mkdir(parents=True, exist_ok=True)
            kernel.update((k.job.label, k) for k in run_kernel(_interleaved(_cells(p), out), TESTBED_LABS, _say))
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


EXPERIMENT = TestbedExperiment(
    id="real.M1",
    title="simulator vs real Linux TCP",
    summary="100 Mbit/s, RTT 100 ms, 128 or 512 KiB drop-tail, reno/cubic/bbr unpaced and with internal pacing, 15 s: "
    "the simulator (linux-modern) against the kernel's TCP through lfnlab emu, 3 repetitions each (T-M1, F-M1a–c); "
    "root and network namespaces needed",
    reference="issue 11 (lfnlab-emu); docs/compare.md; docs/testbed.md",
    checks=(
        "The comparison itself is reported, not judged: the matrix gives each cell's medians and flags the cells whose "
        "simulator goodput lies outside ± 15 % of the kernel's. Checks: packet conservation in every simulator run; every "
        "testbed run completed; in every valid testbed run the relay's bottleneck drops equal the kernel's "
        "retransmitted segments within 2 % (a run on an overloaded host is reported, not judged)."
    ),
    full=FULL,
    quick=QUICK,
    cases=cases,
    analyse=analyse,
)
