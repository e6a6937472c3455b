"""``report.md`` of ``lfnlab compare``: the path, the flags, the runs, the figures and how
each figure is measured."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import pandas as pd

from ..reproduce.report import markdown_table

if TYPE_CHECKING:
    from .compare import Comparison

__all__ = ["REPORT", "write", "MEASURED", "KNOWN_CAUSES", "percent"]

REPORT = "report.md"

#: How the compared figures are measured (shared with the real.M1 and real.M2 reports).
MEASURED = [
    "**Goodput**: the simulator's flow goodput (bytes delivered to the receiving application over the run); the "
    "kernel's is iperf3's receiver figure (bytes received over its measurement time, which starts at the first data "
    "segment; the simulator's run also contains the handshake, one base RTT).",
    "**Bottleneck drops**: drop-tail drops at the emulator's queue toward the receiver. The kernel's count is the "
    "relay's, inside iperf3's window shifted one base RTT earlier (a drop is retransmitted about one RTT later).",
    "**Random losses**: frames the path's Bernoulli loss dropped after the bottleneck queue (the simulator's "
    "`link.loss`, the relay's `--loss`), counted the same way; 0 on a path without random loss.",
    "**Retransmitted segments**: TCP's own count (the simulator's flow; iperf3's `retransmits`, the kernel's "
    "`tcpi_total_retrans`).",
    "**Validity**: a testbed run is `invalid: host overloaded` when the relay's lateness p99 exceeds 200 µs (it "
    "then measured the host, not the path); its figures are reported, not judged. The kernel's median is over every "
    "completed run; the median over valid runs alone is given beside it (NaN when no run was valid).",
    "**Difference**: (simulator − kernel) / kernel of the medians; outside the band when its magnitude exceeds the "
    "tolerance. Nothing in the simulator is fitted to the kernel's figures: a difference is a finding (docs/compare.md "
    "lists the known causes).",
]


#: Known causes of a difference between the two sides (docs/compare.md), for the matrix reports.
KNOWN_CAUSES = (
    "Known causes of a difference (docs/compare.md): the host itself when its runs are marked invalid (late relay "
    "departures add delay spikes and extra losses); ACK compression by the relay's batches; HyStart's delay samples "
    "and ACK trains, both sensitive to the host's timing; the pacing rate ratio·max(cwnd, packets_out)/srtt, computed "
    "from each side's own srtt; features of the running kernel the linux-modern profile does not model (its version is "
    "in each kernel run's summary.json). TSO autosizing plays no part (offloads are off). The simulator's twin of each "
    "cell runs the testbed's socket buffers unlocked, autotuned up to sndbuf/rcvbuf as the kernel's tcp_wmem/tcp_rmem "
    "maxima (compare/runs.py UNLOCKED_BUFFERS)."
)


def percent(x: float) -> str:
    if math.isnan(x):
        return "—"
    if math.isinf(x):
        return "+∞" if x > 0 else "−∞"
    return f"{x * 100:+.1f} %"


def _summary_rows(summary: pd.DataFrame, tolerance: float) -> list[list[Any]]:
    rows = []
    for r in summary.itertuples(index=False):
        scale = 1e-6 if r.unit == "bit/s" else 1.0
        unit = "Mbit/s" if r.unit == "bit/s" else r.unit
        rows.append(
            [
                f"{r.metric} ({unit})",
                r.simulator_median * scale,
                r.kernel_median * scale,
                f"{r.kernel_min * scale:.4g}–{r.kernel_max * scale:.4g}",
                r.kernel_valid_median * scale,
                percent(r.difference),
                f"**outside ±{tolerance * 100:g} %**" if r.outside_band else "within",
            ]
        )
    return rows


def write(c: Comparison, command: str) -> None:
    p = c.cell.plan
    ab = p.a_to_b
    runs = c.runs.copy()
    runs["goodput_bps"] = runs["goodput_bps"] / 1e6
    runs = runs.rename(columns={"goodput_bps": "goodput_Mbps"})
    flagged = c.flagged
    lines = [
        f"# Comparison: {p.name}",
        "",
        f"`{command}`",
        "",
        f"Scenario `{p.origin}`: {ab.rate_bps / 1e6:g} Mbit/s bottleneck, base RTT {p.base_rtt_ns / 1e6:g} ms, "
        f"drop-tail limit {ab.limit_bytes} B toward the receiver; flow `{p.flow}`: cc `{p.cc}` (Linux `{p.kernel_cc}`), "
        f"pacing `{p.pacing}`, sndbuf {p.sndbuf_bytes} B, rcvbuf {p.rcvbuf_bytes} B, {p.duration_s} s. "
        f"{c.cell.repetitions} repetition(s) on each side; simulator profile `linux-modern`; tolerance ± "
        f"{c.tolerance * 100:g} %. Wall time {c.wall_seconds:.0f} s.",
        "",
        "## Side by side",
        "",
        markdown_table(
            ["metric", "simulator (median)", "kernel (median)", "kernel min–max", "kernel, valid runs (median)",
             "difference", "band"],
            _summary_rows(c.summary, c.tolerance),
            digits=5,
        ),
        "",
        ("Outside the band: " + ", ".join(flagged) + ".") if flagged else "Every metric is within the band.",
        "",
        "## Runs",
        "",
        markdown_table(list(runs.columns), runs.astype(object).values.tolist(), digits=5),
        "",
        "## Figures",
        "",
        "![goodput per run](goodput.png)",
        "",
        "Goodput of every run (hollow: a kernel run marked invalid) and each side's median (bar).",
        "",
        "![cwnd](cwnd.png)",
        "",
        "cwnd against time, every run (dashed: a kernel run marked invalid); the kernel's is `ss -tin` at 10 Hz.",
        "",
        "![pacing rate](pacing_rate.png)",
        "",
        "Pacing rate against time (0 when the flow is not paced).",
        "",
        "## How it is measured",
        "",
        *[f"- {m}" for m in MEASURED],
        "",
    ]  # fmt: skip
    (c.out / REPORT).write_text("\n".join(lines), encoding="utf-8")
