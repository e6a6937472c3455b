"""real.M2: the simulator against real Linux TCP over a wider matrix (issue 38 item 6,
docs/compare.md).

Seven paths, each a scenario of the testbed's subset: bottleneck rate 50–400 Mbit/s,
base RTT 40–300 ms, a drop-tail buffer of 0.1–2 BDP, and Bernoulli loss of 0, 1e-4 or
1e-3 per data frame after the bottleneck (the simulator's ``link.loss`` on the link to
the receiver; the relay's ``--loss``). Each path is run by five senders: reno and cubic,
unpaced and with TCP's internal pacing, and bbr (which paces itself; real.M1 showed its
"unpaced" runs to be replicates). 15 s per run, 3 repetitions on each side, the
simulator with ``linux-modern`` and the kernel through ``lfnlab emu``. Per cell: both
sides' median goodput, drops, losses and retransmissions, and whether the simulator's
goodput lies outside ± 15 % of the kernel's: a finding, reported, not a failed check.

Before the matrix, the relay's ceiling on this host: one cubic transfer at each of a
series of rising bottleneck rates (kernel only), each judged valid or not by the relay's
lateness (T-M2-ceiling).

CHOICES (docs/compare.md): the paths are a designed subset of the issue's ranges (each
varies one or two dimensions of a 200 Mbit/s base; the full product would take days of
kernel runs); the hosts' socket buffers are 4 × (BDP + buffer), at least 32 MiB, so that
neither side is window-limited (the kernel autotunes up to them, the simulator's twin
too); the host link is 1 Gbit/s, as in real.M1.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

import pandas as pd

from ... import build as b
from ...compare.cell import Cell, Collected, collect, plan_cell
from ...compare.report import KNOWN_CAUSES, MEASURED
from ...compare.runs import KERNEL, KernelJob, KernelOutcome, failed_row, figures_row
from ...compare.summary import matrix_row
from ...scenario import Scenario
from ..engine import Case
from ..figures import new_figure
from ..outcome import Figure, Outcome, Table
from .matrix import TestbedExperiment, band_note, goodput_figure, interleaved, matrix_checks, trace_figure

__all__ = ["EXPERIMENT", "Params", "PathCell", "cell_scenario", "cases", "analyse", "FULL", "QUICK"]

MIB = 2**20
#: The host link (sender to emulator), as real.M1's.
HOST_LINK = "1Gbps"
#: The smallest socket-buffer maximum (real.M1's).
MIN_HOST_BUFFER_BYTES = 32 * MIB


class PathCell(NamedTuple):
    """One path: bottleneck rate, base RTT, drop-tail buffer in BDPs, Bernoulli loss per data frame."""

    rate_bps: int
    rtt_s: float
    buffer_bdp: float
    loss: float

    @property
    def bdp_bytes(self) -> float:
        return self.rate_bps * self.rtt_s / 8

    @property
    def limit_bytes(self) -> int:
        return max(1518, round(self.buffer_bdp * self.bdp_bytes))

    @property
    def key(self) -> str:
        return f"{self.rate_bps / 1e6:g}M-{self.rtt_s * 1e3:g}ms-{self.buffer_bdp:g}bdp-p{self.loss:g}"


@dataclass(frozen=True)
class Params:
    paths: tuple[PathCell, ...] = field(
        metadata={"label": "paths (bottleneck rate, base RTT, buffer in BDP, loss per data frame)", "unit": ("bps", "s", "× BDP", "")}
    )
    senders: tuple[str, ...] = field(metadata={"label": "senders (cc-pacing)"})
    duration_s: int = field(metadata={"label": "duration per run", "unit": "s"})
    repetitions: int = field(metadata={"label": "repetitions on each side"})
    tolerance: float = field(metadata={"label": "goodput band (fraction of the kernel's median)"})
    ceiling_rates_bps: tuple[int, ...] = field(metadata={"label": "relay ceiling probe: bottleneck rates", "unit": "bps"})
    ceiling_rtt_s: float = field(metadata={"label": "relay ceiling probe: base RTT (buffer 1 BDP, cubic unpaced)", "unit": "s"})
    ceiling_duration_s: int = field(metadata={"label": "relay ceiling probe: duration per run", "unit": "s"})


SENDERS = ("reno-off", "reno-internal", "cubic-off", "cubic-internal", "bbr-internal")

FULL = Params(
    paths=(
        PathCell(50_000_000, 0.040, 1.0, 0.0),
        PathCell(100_000_000, 0.300, 0.5, 0.0),
        PathCell(200_000_000, 0.100, 0.1, 0.0),
        PathCell(200_000_000, 0.100, 2.0, 0.0),
        PathCell(400_000_000, 0.040, 0.5, 0.0),
        PathCell(200_000_000, 0.040, 1.0, 1e-4),
        PathCell(200_000_000, 0.040, 1.0, 1e-3),
    ),
    senders=SENDERS,
    duration_s=15,
    repetitions=3,
    tolerance=0.15,
    ceiling_rates_bps=(200_000_000, 400_000_000, 600_000_000, 800_000_000, 1_000_000_000),
    ceiling_rtt_s=0.040,
    ceiling_duration_s=10,
)
QUICK = Params(
    paths=(PathCell(200_000_000, 0.040, 1.0, 1e-3),),
    senders=("cubic-off", "bbr-internal"),
    duration_s=3,
    repetitions=1,
    tolerance=0.15,
    ceiling_rates_bps=(400_000_000,),
    ceiling_rtt_s=0.040,
    ceiling_duration_s=3,
)


def host_buffer_bytes(path: PathCell) -> int:
    """sndbuf = rcvbuf (the kernel's tcp_wmem/tcp_rmem maximum): 4 × (BDP + buffer), whole
    MiB, at least 32 MiB. The receive window is about half the buffer (Linux's
    scaling_ratio, the profile's φ), so the window can reach twice what the path holds."""
    need = 4 * (path.bdp_bytes + path.limit_bytes)
    return max(MIN_HOST_BUFFER_BYTES, math.ceil(need / MIB) * MIB)


def cell_key(path: PathCell, sender: str) -> str:
    return f"{path.key}-{sender}"


def cell_scenario(p: Params, path: PathCell, sender: str, duration_s: int | None = None, name: str = "real.M2") -> Scenario:
    """A cell: sender ─(1 Gbit/s, 0 ms)─ emulator ─(rate, RTT/2, drop-tail, loss)─ receiver,
    one tcp_bulk flow, a monitor at the bottleneck (100 ms bins)."""
    cc, pacing = sender.split("-")
    key = cell_key(path, sender)
    net = b.Network(b.Sim(f"{name}-{key}", duration=f"{duration_s or p.duration_s}s", seed=1))
    snd, wan, rcv = net.add(b.Host("snd")), net.add(b.Emulator("wan")), net.add(b.Host("rcv"))
    net.add(b.Link(snd, wan, rate=HOST_LINK, delay="0ms"))
    loss = {"kind": "bernoulli", "p": path.loss} if path.loss > 0 else None
    net.add(
        b.Link(
            wan, rcv, rate=f"{path.rate_bps}bps", delay=f"{path.rtt_s * 1e3 / 2:g}ms",
            queue=b.DropTail(limit=f"{path.limit_bytes}B"), loss=loss,
        )
    )  # fmt: skip
    buffer = f"{host_buffer_bytes(path) // MIB}MiB"
    net.add(b.Flow("bulk", snd, rcv, kind="tcp_bulk", cc=cc, pacing={"kind": pacing}, sndbuf=buffer, rcvbuf=buffer))
    net.add(b.Monitor(wan, rcv, bin="100ms"))
    return net.scenario(origin=f"<{name} {key}>")


def _cells(p: Params) -> list[Cell]:
    return [plan_cell(cell_scenario(p, path, s), p.repetitions, cell_key(path, s)) for path in p.paths for s in p.senders]


def _ceiling_path(p: Params, rate_bps: int) -> PathCell:
    return PathCell(rate_bps, p.ceiling_rtt_s, 1.0, 0.0)


def _ceiling_cell(p: Params, rate_bps: int) -> Cell:
    """The probe at one rate: cubic unpaced, 1 BDP, no loss; one kernel run, no simulator side."""
    sc = cell_scenario(p, _ceiling_path(p, rate_bps), "cubic-off", p.ceiling_duration_s, name="real.M2-ceiling")
    return plan_cell(sc, 1, _ceiling_key(rate_bps))


def _ceiling_jobs(p: Params, out: Path) -> list[KernelJob]:
    """One kernel run per probed rate: labels ``ceiling-<rate>M-kernel-r1``."""
    return [job for rate in p.ceiling_rates_bps for job in _ceiling_cell(p, rate).kernel_jobs(out)]


def _ceiling_key(rate_bps: int) -> str:
    return f"ceiling-{rate_bps / 1e6:g}M"


def kernel_jobs(p: Params, out: Path) -> list[KernelJob]:
    """The relay's ceiling probe first (rising rates), then the matrix, interleaved."""
    return [*_ceiling_jobs(p, out), *interleaved(_cells(p), out)]


def cases(p: Params) -> list[Case]:
    """The simulator's side: every cell's repetitions (the kernel's side runs after them, on
    the testbed: :class:`~.matrix.TestbedExperiment`)."""
    return [Case(label, sc) for c in _cells(p) for label, sc in c.sim_scenarios().items()]


def analyse(p: Params, kept: Mapping[str, Any]) -> Outcome:
    """``kept``: the simulator's Results under the cells' simulator labels and the testbed's
    KernelOutcomes under their kernel labels (the ceiling probe's too)."""
    cells = _cells(p)
    collected = {c.key: collect(c, kept, kept) for c in cells}
    out = Outcome()
    matrix = _matrix(p, cells, collected)
    runs = pd.concat([col.rows for col in collected.values()], ignore_index=True)
    ceiling = _ceiling_table(p, kept)
    out.tables += [
        Table(
            "T-M2",
            f"Per cell (path: bottleneck rate, base RTT, buffer in BDP, loss; sender: cc and pacing): the simulator's and "
            f"the kernel's median goodput over {p.repetitions} repetition(s), the kernel's median over its valid runs "
            f"alone, the difference and whether it lies outside ± {p.tolerance:.0%}; median bottleneck drops, random "
            "losses and retransmitted segments on each side; kernel runs completed and valid, and the median of their "
            "relays' lateness p99 (µs; above 200 the run is marked invalid).",
            matrix,
            digits=4,
        ),
        Table(
            "T-M2-ceiling",
            "The relay on this host: one kernel transfer (cubic, unpaced, buffer 1 BDP, no loss) per bottleneck rate; "
            "its goodput as a fraction of the rate, the relay's lateness p99 (µs) and the testbed's verdict. The highest "
            "valid rate is the highest at which this host's relay measured the path rather than itself.",
            ceiling,
            digits=4,
        ),
        Table(
            "T-M2-runs",
            "Every run: side, repetition, goodput (bit/s), retransmitted segments, RTOs (−1: not known), bottleneck drops, "
            "random losses, the testbed's verdict on the host and the relay's lateness p99.",
            runs,
            digits=5,
        ),
    ]
    out.checks += matrix_checks(cells, [kept[label] for c in cells for label in c.sim_labels], runs)
    out.figures += [
        _difference_figure(p, matrix),
        goodput_figure("F-M2b", "real.M2", cells, collected),
        trace_figure("F-M2c", "real.M2", cells, collected, "cwnd"),
    ]
    valid = ceiling[ceiling["valid"]]
    out.notes += [
        band_note(matrix, p.tolerance),
        (
            f"The relay's highest valid rate on this host (T-M2-ceiling): {valid['rate_Mbps'].max():g} Mbit/s of the "
            f"probed {', '.join(f'{r:g}' for r in ceiling['rate_Mbps'])} Mbit/s."
            if len(valid)
            else "No probed rate gave a valid relay run on this host (T-M2-ceiling): every kernel figure here measured "
            "the host as much as the path."
        ),
        "Runs at a low packet rate (a lossy path, a small window) can be marked invalid on a virtual machine even "
        "though the host is idle: the relay sleeps between departures and an idle virtual CPU wakes late, so its "
        "lateness p99 rises above 200 µs. Their figures are reported (the kernel's median is over every completed run) "
        "and the median over valid runs stands beside it.",
        *MEASURED,
        KNOWN_CAUSES,
    ]
    return out


def _matrix(p: Params, cells: Sequence[Cell], collected: Mapping[str, Collected]) -> pd.DataFrame:
    by_key = {cell_key(path, s): (path, s) for path in p.paths for s in p.senders}
    rows = []
    for c in cells:
        path, sender = by_key[c.key]
        row = {
            "cell": c.key,
            "path": path.key,
            "rate_Mbps": path.rate_bps / 1e6,
            "rtt_ms": path.rtt_s * 1e3,
            "buffer_bdp": path.buffer_bdp,
            "loss": path.loss,
            "sender": sender,
        }
        row.update(matrix_row(collected[c.key].rows, p.tolerance))
        rows.append(row)
    return pd.DataFrame(rows)


def _ceiling_table(p: Params, kept: Mapping[str, Any]) -> pd.DataFrame:
    rows = []
    for rate in p.ceiling_rates_bps:
        cell = _ceiling_cell(p, rate)
        label = cell.kernel_labels[0]
        k: KernelOutcome = kept[label]
        r = failed_row(KERNEL, 1, label, k.error or "no result") if k.result is None else figures_row(k.result, cell.plan, KERNEL, 1, label)
        rows.append(
            {
                "rate_Mbps": rate / 1e6,
                "goodput_Mbps": r["goodput_bps"] / 1e6,
                "goodput_fraction": r["goodput_bps"] / rate,
                "lateness_p99_us": r["lateness_p99_us"],
                "valid": bool(r["valid"]),
                "status": r["status"] if r["status"] != "done" else (r["reason"] or "valid"),
            }
        )
    return pd.DataFrame(rows)


def _difference_figure(p: Params, matrix: pd.DataFrame) -> Figure:
    """Per path, the simulator's goodput relative to the kernel's for each sender, with the band."""
    senders = list(p.senders)
    paths = list(dict.fromkeys(matrix["path"]))
    fig, axes = new_figure(1, 1, width=max(6.0, 1.1 * len(paths) + 2), height=3.6)
    ax = axes[0]
    width = 0.8 / len(senders)
    for j, s in enumerate(senders):
        m = matrix[matrix["sender"] == s]
        xs = [paths.index(k) + (j - (len(senders) - 1) / 2) * width for k in m["path"]]
        ys = [100 * d if math.isfinite(d) else math.nan for d in m["goodput_difference"]]
        ax.bar(xs, ys, width=width, label=s)
    ax.axhspan(-100 * p.tolerance, 100 * p.tolerance, color="0.9", zorder=0, label=f"± {p.tolerance:.0%}")
    ax.axhline(0, color="0.3", linewidth=0.8)
    ax.set_xticks(range(len(paths)))
    ax.set_xticklabels(paths, rotation=20, ha="right", fontsize="x-small")
    ax.set_ylabel("simulator vs kernel goodput (%)")
    ax.legend(fontsize="x-small", ncol=3)
    fig.suptitle("real.M2: the simulator's median goodput relative to the kernel's, per path and sender", fontsize="medium")
    return Figure(
        "F-M2a",
        "(simulator − kernel) / kernel of the median goodputs per cell, grouped by path; the grey band is the tolerance.",
        fig,
    )


EXPERIMENT = TestbedExperiment(
    id="real.M2",
    title="simulator vs real Linux TCP, wider matrix",
    summary="7 paths (50–400 Mbit/s, RTT 40–300 ms, buffer 0.1–2 BDP, Bernoulli loss 0/1e-4/1e-3) × reno/cubic "
    "unpaced and paced and bbr, 15 s, 3 repetitions each side, and the relay's valid-rate ceiling on this host "
    "(T-M2, T-M2-ceiling, F-M2a–c); root and network namespaces needed",
    reference="issue 38 item 6; docs/compare.md; docs/testbed.md",
    checks=(
        "The comparison itself is reported, not judged: the matrix gives each cell's medians and flags the cells whose "
        "simulator goodput lies outside ± 15 % of the kernel's; the ceiling table gives the highest rate at which the "
        "relay's runs stay valid here. Checks: packet conservation in every simulator run; every testbed run of the "
        "matrix completed; in every valid testbed run the relay's bottleneck drops and random losses plus the "
        "retransmissions the receiver reported as duplicates (D-SACK) equal the kernel's retransmitted segments within 2 % "
        "and at least 1 (a run on an overloaded host is reported, not judged)."
    ),
    full=FULL,
    quick=QUICK,
    cases=cases,
    analyse=analyse,
    kernel_jobs=kernel_jobs,
)
