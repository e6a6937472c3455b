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

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from ...compare.cell import Cell, Collected, collect, plan_cell
from ...compare.report import KNOWN_CAUSES, MEASURED
from ...compare.summary import matrix_row
from ... import build as b
from ...scenario import Scenario
from ..engine import Case
from ..outcome import Outcome, Table
from .matrix import TestbedExperiment, band_note, goodput_figure, interleaved, matrix_checks, trace_figure

__all__ = ["EXPERIMENT", "Params", "cell_scenario", "cases", "analyse", "FULL", "QUICK"]

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
    out.checks += matrix_checks(cells, [kept[label] for c in cells for label in c.sim_labels], runs)
    out.figures += [
        goodput_figure("F-M1a", "real.M1", cells, collected),
        trace_figure("F-M1b", "real.M1", cells, collected, "cwnd"),
        trace_figure("F-M1c", "real.M1", cells, collected, "pacing_rate"),
    ]
    out.notes += [
        band_note(matrix, p.tolerance),
        "BBR paces itself: its `off` cells load as internal pacing (the scenario loader and Linux alike), so in the "
        "simulator they are the same runs as the `internal` cells, and on the testbed they differ only in iperf3's "
        "`--fq-rate` (a 100 Gbit/s cap that never binds): replicates, not a second setting.",
        *MEASURED,
        KNOWN_CAUSES,
    ]
    return out


def _matrix(p: Params, cells: Sequence[Cell], collected: dict[str, Collected]) -> pd.DataFrame:
    rows = []
    for c in cells:
        pacing = c.key.rsplit("-", 1)[1]  # as the cell asks it: bbr paces itself either way (the loader says internal)
        row = {"cell": c.key, "buffer_KiB": c.plan.a_to_b.limit_bytes // KIB, "cc": c.plan.cc, "pacing": pacing}
        row.update(matrix_row(collected[c.key].rows, p.tolerance))
        rows.append(row)
    return pd.DataFrame(rows)


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
        "testbed run completed; in every valid testbed run the relay's bottleneck drops plus the retransmissions the "
        "receiver reported as duplicates (D-SACK) equal the kernel's retransmitted segments within 2 % and at least 1 (a run on an overloaded host is reported, not judged)."
    ),
    full=FULL,
    quick=QUICK,
    cases=cases,
    analyse=analyse,
    kernel_jobs=lambda p, out: interleaved(_cells(p), out),
)
