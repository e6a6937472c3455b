"""03.F1: GbE vs FE on a long path, two txqueuelen values (spec 03 §3 F1; paper "Figure 1" /
Table 1).

One bulk NewReno flow crosses P-TM (spec 03 §2.10: N1 1 Gbit/s 1 ms → N2 600 Mbit/s 98 ms →
N3 1 Gbit/s 1 ms, RTT 200 ms; the real path: N2 a 1 MiB drop-tail FIFO, no random loss) from a sender
whose NIC is GbE (1 Gbit/s) or FE (100 Mbit/s), IPG 8 bytes, with an interface queue of 100
or 25000 packets and the ``cwr`` send-stall policy (§2.4). Every (NIC, txqueuelen) cell runs
seeds 1..N; the throughput of a trial is the payload delivered over the run.

Optional sensitivity variant P-TM-2.8 (§2.10): the authors' simulator loss model (§2.8,
random loss ≥ 1e-5 and RED) on every segment, the same grid, reported in its own table.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Optional

import numpy as np
import pandas as pd

from ...result import Result
from .. import quantities as q
from ..engine import Case, Experiment
from ..figures import finish_axes, new_figure
from ..outcome import Check, Figure, Outcome, Table, expectation, expectations_table
from ..paper import comparison
from .path03 import FE_BPS, FLOW, GBE_BPS, N2_BUFFER_BYTES, PTM, PTM_28
from .common03 import PREAMBLE_BYTES, drops_by_cause, throughput_mbps
from .f_common import MSS, flow_counters, ptm_case, run_checks, seeds, stats_row, trial_label

NIC_NAMES = {GBE_BPS: "GbE", FE_BPS: "FE"}
#: N2 forward (spec 03 §2.10): the real path's drop-tail bottleneck queue.
N2_FORWARD = "r1->r2"
#: P-TM bottleneck N2 (spec 03 §2.10).
N2_BPS = 600e6


@dataclass(frozen=True)
class Params:
    nic_rates_bps: tuple[float, ...] = field(metadata={"label": "sender NIC", "unit": "bps"})
    txqueuelens: tuple[int, ...] = field(metadata={"label": "txqueuelen", "unit": "packets"})
    trials: int = field(metadata={"label": "trials per cell (seeds 1..N)"})
    duration_s: float = field(metadata={"label": "duration per trial", "unit": "s"})
    ipg_bytes: int = field(default=8, metadata={"label": "NIC IPG", "unit": "B"})
    n2_buffer_bytes: float = field(default=N2_BUFFER_BYTES, metadata={"label": "P-TM: N2 drop-tail buffer", "unit": "B"})
    ptm28_variant: bool = field(default=False, metadata={"label": "also run the P-TM-2.8 variant (§2.8 loss model)"})
    trace_bin_s: float = field(default=1.0, metadata={"label": "tcp trace bin (send-stall counters)", "unit": "s"})


FULL = Params(
    nic_rates_bps=(GBE_BPS, FE_BPS),
    txqueuelens=(100, 25000),
    trials=11,
    duration_s=60.0,
    ptm28_variant=True,
)
QUICK = Params(
    nic_rates_bps=(GBE_BPS, FE_BPS),
    txqueuelens=(100, 25000),
    trials=2,
    duration_s=10.0,
    ptm28_variant=True,
)


def case_key(nic_bps: float, txqueuelen: int, variant: str = "") -> str:
    """``gbe-q00100``, or ``p28-gbe-q00100`` for the P-TM-2.8 variant."""
    base = f"{NIC_NAMES[nic_bps].lower()}-q{txqueuelen:05d}"
    return f"{variant}-{base}" if variant else base


def wire_bound_mbps(nic_bps: float, ipg_bytes: int) -> float:
    """Largest goodput of full-size segments: the NIC sends MSS payload per (1518 + 8 + IPG)
    byte-times (spec 03 §2.2), and N2 carries 1518 frame bytes per segment at 600 Mbit/s."""
    nic = nic_bps * MSS / (1518 + PREAMBLE_BYTES + ipg_bytes)
    n2 = N2_BPS * MSS / 1518
    return min(nic, n2) / 1e6


def _keep(r: Result) -> dict[str, Any]:
    tcp = r.tcp[r.tcp["flow"] == FLOW]
    last = tcp.iloc[-1] if len(tcp) else None
    return {
        "summary": r.summary,
        "send_stalls": int(last["send_stalls"]) if last is not None else 0,
        "cwr_entries": int(last["cwr_entries"]) if last is not None else 0,
    }


def trial_columns(k: dict[str, Any], duration_s: float) -> dict[str, Any]:
    """The columns of a trial kept by :func:`_keep` that F1 and F2 report: throughput (Mbps),
    the flow's counters, send stalls and CWR entries."""
    summ = k["summary"]
    return {
        "throughput_Mbps": throughput_mbps(summ, FLOW, duration_s),
        **flow_counters(summ),
        "send_stalls": k["send_stalls"],
        "cwr_entries": k["cwr_entries"],
    }


def paper_table1(trials: pd.DataFrame, txqueuelens: tuple[int, ...]) -> pd.DataFrame:
    """Rows GbE, FE; per txqueuelen Min / Max / Middle (median) throughput, Mbps (spec 03 F1)."""
    rows = []
    for nic in trials["nic"].drop_duplicates():
        row: dict[str, Any] = {"NIC": nic}
        for tq in txqueuelens:
            v = trials[(trials["nic"] == nic) & (trials["txqueuelen"] == tq)]["throughput_Mbps"]
            s = stats_row(v.to_list())
            row[f"q{tq}_Min_Mbps"] = s["min_Mbps"]
            row[f"q{tq}_Max_Mbps"] = s["max_Mbps"]
            row[f"q{tq}_Middle_Mbps"] = s["median_Mbps"]
        rows.append(row)
    return pd.DataFrame(rows)


def cell_stats(trials: pd.DataFrame) -> pd.DataFrame:
    rows = []
    for (path, nic, tq), g in trials.groupby(["path", "nic", "txqueuelen"], sort=False):
        rows.append({"path": path, "nic": nic, "txqueuelen": tq, **stats_row(g["throughput_Mbps"].to_list())})
    return pd.DataFrame(rows)


def expectations(trials: pd.DataFrame, txqueuelens: tuple[int, ...]) -> pd.DataFrame:
    """Spec 03 §4 (F1) against the P-TM trials (not checks)."""
    rows = []

    def cell(nic: str, tq: int) -> np.ndarray:
        return trials[(trials["nic"] == nic) & (trials["txqueuelen"] == tq)]["throughput_Mbps"].to_numpy()

    for tq in txqueuelens:
        g, f = cell("GbE", tq), cell("FE", tq)
        if not len(g) or not len(f):
            continue
        gs, fs = stats_row(list(g)), stats_row(list(f))
        fe_stable = fs["norm_std"] <= 0.05
        gbe_wider = gs["norm_std"] > 0 and gs["norm_std"] >= 2 * fs["norm_std"]
        rows.append(
            expectation(
                f"txqueuelen {tq}: GbE varies widely from trial to trial, FE is almost identical in every trial",
                f"GbE {gs['min_Mbps']:.1f}–{gs['max_Mbps']:.1f} Mbps (norm std {gs['norm_std']:.2f}); "
                f"FE {fs['min_Mbps']:.1f}–{fs['max_Mbps']:.1f} Mbps (norm std {fs['norm_std']:.2f})",
                "yes" if fe_stable and gbe_wider else ("partly" if gs["norm_std"] > fs["norm_std"] else "no"),
                "yes: FE norm std ≤ 0.05 and GbE's ≥ 2 × FE's; partly: GbE's only larger than FE's",
            )
        )
        below = float(np.mean(g < fs["median_Mbps"]))
        best_beats = gs["max_Mbps"] > fs["median_Mbps"]
        rows.append(
            expectation(
                f"txqueuelen {tq}: FE is better than GbE in most trials, although GbE's best trial can beat FE",
                f"{below:.0%} of GbE trials below FE's median {fs['median_Mbps']:.1f} Mbps; "
                f"GbE best {gs['max_Mbps']:.1f} Mbps",
                "yes" if below > 0.5 and best_beats else ("partly" if below > 0.5 else "no"),
                "most: > 50 % of GbE trials below FE's median (the claim; no without it); can beat: GbE's best above "
                "FE's median (yes with both, partly without this one)",
            )
        )
    if len(txqueuelens) >= 2:
        lo, hi = min(txqueuelens), max(txqueuelens)
        f_lo, f_hi = cell("FE", lo), cell("FE", hi)
        if len(f_lo) and len(f_hi):
            ratio = float(np.median(f_hi) / np.median(f_lo))
            rows.append(
                expectation(
                    f"a larger txqueuelen helps FE strongly (with {lo} packets FE is held back by send stalls)",
                    f"FE median {np.median(f_lo):.1f} Mbps at {lo} → {np.median(f_hi):.1f} Mbps at {hi} "
                    f"(× {ratio:.2f}); FE send stalls per trial at {lo}: "
                    f"{int(trials[(trials['nic'] == 'FE') & (trials['txqueuelen'] == lo)]['send_stalls'].min())}–"
                    f"{int(trials[(trials['nic'] == 'FE') & (trials['txqueuelen'] == lo)]['send_stalls'].max())}",
                    "yes" if ratio >= 1.5 else ("partly" if ratio > 1.05 else "no"),
                    "strongly: median × ≥ 1.5; partly: > 1.05",
                )
            )
    top = float(trials["throughput_Mbps"].max())
    rows.append(
        expectation(
            "(context) absolute throughputs of the real OC-12 path",
            f"largest trial {top:.1f} Mbps on a 600 Mbit/s bottleneck",
            "no",
            "not a §4 claim: how close the trials come to the 600 Mbit/s bottleneck (a drop-tail N2, no random "
            "loss; NewReno at 200 ms regains one segment per RTT after each reduction)",
        )
    )
    return expectations_table(rows)


def _trial_rows(kept: Mapping[str, Any], p: Params, variant: str) -> list[dict[str, Any]]:
    rows = []
    for nic in p.nic_rates_bps:
        for tq in p.txqueuelens:
            for s in seeds(p.trials):
                k = kept[trial_label(case_key(nic, tq, variant), s)]
                summ = k["summary"]
                drops = drops_by_cause(summ)
                rows.append(
                    {
                        "path": PTM_28 if variant else PTM,
                        "nic": NIC_NAMES[nic],
                        "txqueuelen": tq,
                        "seed": s,
                        **trial_columns(k, p.duration_s),
                        "drops_random_loss": drops.get("random_loss", 0),
                        "drops_red": drops.get("red", 0),
                        "drops_tail": drops.get("tail", 0),
                        "n2_drop_causes": ",".join(sorted(_queue(summ, N2_FORWARD).get("drops_by_cause", {}))),
                    }
                )
    return rows


def _queue(summary: dict[str, Any], name: str) -> dict[str, Any]:
    for qq in summary["queues"]:
        if qq["name"] == name:
            return dict(qq)
    raise KeyError(f"summary has no queue {name!r}")


def variants(p: Params) -> list[str]:
    """P-TM (``""``), and P-TM-2.8 (``"p28"``) when asked for."""
    return [""] + (["p28"] if p.ptm28_variant else [])


def cases(p: Params) -> list[Case]:
    """Every (path, NIC, txqueuelen) cell × seeds 1..N."""
    return [
        ptm_case(
            "03.F1",
            trial_label(case_key(nic, tq, v), s),
            _keep,
            nic_bps=nic,
            ipg_bytes=p.ipg_bytes,
            txqueuelen=tq,
            duration_s=p.duration_s,
            seed=s,
            path=PTM_28 if v else PTM,
            n2_buffer_bytes=p.n2_buffer_bytes,
            trace_bin_s=p.trace_bin_s,
        )
        for v in variants(p)
        for nic in p.nic_rates_bps
        for tq in p.txqueuelens
        for s in seeds(p.trials)
    ]


def analyse(p: Params, kept: Mapping[str, Any]) -> Outcome:
    out = Outcome()
    out.checks += run_checks({k: v["summary"] for k, v in kept.items()}, p.duration_s)

    trials = pd.DataFrame(_trial_rows(kept, p, ""))
    dt = pd.DataFrame(_trial_rows(kept, p, "p28")) if "p28" in variants(p) else trials.iloc[0:0]
    all_rows = pd.concat([trials, dt], ignore_index=True)
    for nic in p.nic_rates_bps:
        bound = wire_bound_mbps(nic, p.ipg_bytes)
        out.checks.append(
            Check.within(
                f"{NIC_NAMES[nic]}: largest trial throughput ≤ wire bound" + (" (P-TM and P-TM-2.8)" if len(dt) else ""),
                float(all_rows[all_rows["nic"] == NIC_NAMES[nic]]["throughput_Mbps"].max()),
                None,
                bound,
                unit="Mbps",
                criterion=f"≤ {bound:.2f} Mbps (min of NIC {q.show_rate(nic)} × 1448/(1526 + IPG) and "
                "N2 600 Mbit/s × 1448/1518)",
            )
        )
    fe_hi = trials[(trials["nic"] == "FE") & (trials["txqueuelen"] == max(p.txqueuelens))]["throughput_Mbps"]
    out.paper = comparison("03.F1", {"fe-q25000-median": float(fe_hi.median()) if max(p.txqueuelens) == 25000 else None}, {})
    out.tables.append(
        Table(
            "paper-table1",
            f"Throughput (Mbps of payload, {p.duration_s:g} s trials, seeds 1..{p.trials}) on P-TM: Min / Max / "
            "Middle (median) per NIC and txqueuelen (spec 03 F1; IPG 8 B, send_stall_policy cwr).",
            paper_table1(trials, p.txqueuelens),
            digits=4,
        )
    )
    out.tables.append(
        Table(
            "f1-stats",
            "Per path and cell: trials, min, max, median, mean, sample std and normalized std (std/mean) of the "
            "throughput (Mbps).",
            cell_stats(all_rows),
            digits=4,
        )
    )
    tail_only = int(((trials["drops_random_loss"] == 0) & (trials["drops_red"] == 0)).sum())
    out.checks.append(
        Check.equal(
            "P-TM runs with no random or RED drop anywhere",
            tail_only,
            len(trials),
            criterion=f"= {len(trials)} (the real path of spec 03 §2.10: drop-tail queues only, no random loss)",
        )
    )
    if len(dt):
        out.tables.append(
            Table(
                "f1-ptm28-table1",
                "SENSITIVITY VARIANT P-TM-2.8 (not the paper's real path): the authors' simulator loss model "
                "(spec 03 §2.8: random loss ≥ 1e-5 per segment, RED, BDP-sized FIFOs) on every segment in both "
                "directions, the default before issue 39. Same layout as paper-table1.",
                paper_table1(dt, p.txqueuelens),
                digits=4,
            )
        )
    out.tables.append(
        Table(
            "f1-trials",
            "Every trial: path, NIC, txqueuelen, seed, throughput (Mbps), retransmitted segments, RTOs, fast "
            "retransmits, send stalls and CWR entries (tcp trace at the end of the run), drops by cause over all "
            "queues, and the causes of N2's forward drops.",
            all_rows,
            digits=5,
        )
    )
    out.tables.append(
        Table(
            "expectations",
            "Spec 03 §4 (F1) against the P-TM trials: qualitative, not checks; `notes` says how `agrees` is read.",
            expectations(trials, p.txqueuelens),
        )
    )
    out.figures.append(
        Figure(
            "f1-trials",
            "Every trial's throughput per NIC and txqueuelen (P-TM; P-TM-2.8 as open markers when run); "
            "bars: Min–Max, tick: Middle.",
            _figure(all_rows, p),
        )
    )
    out.notes += [
        (
            "Throughput = payload bytes delivered to the receiving application over the run / duration "
            "(spec 03 §3). The sender's interface queue holds `txqueuelen` packets; with `cwr` a segment that "
            "finds it full stays in TCP and the connection enters CWR (ssthresh = cwnd/2, once per window, §2.4)."
        ),
        (
            f"P-TM is the real path of spec 03 §2.10: N2 a {q.show_size(p.n2_buffer_bytes)} drop-tail FIFO, every "
            "other segment lossless, no random loss (the paper's FE runs, 88.6–88.7 Mbps in every trial at "
            "txqueuelen 25000, rule out a per-packet loss near 1e-5 over 200 ms)."
        ),
    ]
    if "p28" in variants(p):
        out.notes.append(
            "P-TM-2.8 (table `f1-ptm28-table1`) puts the authors' simulator loss model (§2.8) on every segment: "
            "a sensitivity variant, not the paper's real path. With it every trial stays far below OC-12: each "
            "segment drops with probability ≥ 1e-5 on each of its six segment directions and NewReno at 200 ms "
            "regains one segment per RTT."
        )
    return out


def _figure(trials: pd.DataFrame, p: Params) -> Any:
    fig, (ax,) = new_figure(1, 1, width=8.0, height=4.2)
    cells = [(n, tq) for tq in p.txqueuelens for n in ("GbE", "FE")]
    for path, marker, shift in ((PTM, "o", -0.12), (PTM_28, "s", 0.12)):
        sub = trials[trials["path"] == path]
        if sub.empty:
            continue
        for i, (nic, tq) in enumerate(cells):
            v = sub[(sub["nic"] == nic) & (sub["txqueuelen"] == tq)]["throughput_Mbps"].to_numpy()
            color = "C0" if nic == "GbE" else "C1"
            face = color if path == PTM else "none"
            ax.plot(np.full(len(v), i + shift), v, marker, color=color, markerfacecolor=face, alpha=0.8)
            ax.vlines(i + shift, v.min(), v.max(), color=color, linewidth=1.0)
            ax.hlines(np.median(v), i + shift - 0.08, i + shift + 0.08, color="k", linewidth=1.5)
    ax.set_xticks(range(len(cells)), [f"{n}\ntxqueuelen {tq}" for n, tq in cells])
    ax.set_ylabel("throughput (Mbps)")
    ax.set_ylim(bottom=0)
    ax.plot([], [], "o", color="gray", label="P-TM (filled)")
    if (trials["path"] == PTM_28).any():
        ax.plot([], [], "s", color="gray", markerfacecolor="none", label="P-TM-2.8 (open)")
    finish_axes(ax)
    fig.suptitle(f"03.F1: GbE vs FE, {p.trials} trials × {p.duration_s:g} s per cell")
    return fig


EXPERIMENT = Experiment(
    id="03.F1",
    title="GbE vs FE on a long path",
    summary="throughput of GbE and FE senders over P-TM (RTT 200 ms, OC-12-like drop-tail bottleneck, no random loss) "
    "with txqueuelen 100 and 25000, 11 trials each (paper Table 1)",
    reference="spec 03 §3 (F1), §2.4, §2.10",
    checks=(
        "Every trial runs its full duration with packet conservation (summary); no trial's throughput exceeds "
        "the wire bound of its NIC (1448 payload bytes per (1526 + IPG) byte-times) and of N2 (600 Mbit/s × "
        "1448/1518); on P-TM no drop is random or RED. The paper's claims are compared "
        "in the `expectations` table, not checked."
    ),
    full=FULL,
    quick=QUICK,
    cases=cases,
    analyse=analyse,
)
