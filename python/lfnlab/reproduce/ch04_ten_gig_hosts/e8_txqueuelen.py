"""04.E4.8: txqueuelen and send stalls (spec 04 §3 E4.8).

The BIC stream over T4-P (RTT 100 ms, MTU 9198, IPv6, PAUSE on) with the sender NIC capped at
6 Gbit/s and B = 3·BDP, sweeping the sender's interface queue ``txqueuelen``. The capped NIC
drains more slowly than TCP can produce, so the window beyond the capped path's BDP waits in
the host: first in the 1024-descriptor TX ring, then in the qdisc. When the qdisc is full the
segment is not queued: a send stall, and with ``cwr_gradual`` (Linux 2.6, §2.9) TCP enters CWR
and cuts cwnd without any packet lost in the network.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
from matplotlib.ticker import FuncFormatter

from .. import quantities as q
from ..figures import finish_axes, new_figure, spread_yerr
from ..outcome import Check, Figure, Outcome, Table, expectation
from .path04 import MTU_JUMBO, bdp_bytes, mss_eff, r_ref_bps
from ..engine import Case, Experiment
from .common04 import cap_check, cap_goodput_bps, CLOSING_NOTES, expectations_entry, GBPS, k_bdp_bytes, keeper, phi, run_outcome, seed_point, t4p_cases

#: TX descriptors N_txd (spec 04 §2.4 default): the ring fills before the qdisc does.
TX_DESCRIPTORS = 1024


@dataclass(frozen=True)
class Params:
    rtt_s: float = field(metadata={"label": "RTT", "unit": "s"})
    txqueuelens: tuple[int, ...] = field(metadata={"label": "txqueuelen", "unit": "packets"})
    duration_s: float = field(metadata={"label": "duration", "unit": "s"})
    seeds: int = field(metadata={"label": "seeds per point"})
    cap_bps: float = field(default=6e9, metadata={"label": "sender cap, wire bytes", "unit": "bps"})
    bdp_multiple: float = field(default=3.0, metadata={"label": "B = k·BDP (BDP from R_ref with the cap)", "unit": "× BDP"})
    steady_fraction: float = field(default=0.5, metadata={"label": "steady window: last fraction of the run"})


FULL = Params(rtt_s=0.1, txqueuelens=(100, 1000, 5000, 10000, 30000), duration_s=60.0, seeds=3)
QUICK = Params(rtt_s=0.1, txqueuelens=(100, 1000, 5000, 10000, 30000), duration_s=6.0, seeds=1)

_KEYS = (
    "peak_bps",
    "send_stalls",
    "cwr_entries",
    "qdisc_max_packets",
    "qdisc_drop",
    "retransmitted",
    "timeouts",
    "rx_fifo_drop",
    "egress_drop",
    "srtt_mean_s",
    "pause_xoff_sent",
)


def r_ref(p: Params) -> float:
    """R_ref with the cap (§2.13): cap·MSS_eff/W."""
    return r_ref_bps(MTU_JUMBO, 6, p.cap_bps)


def buffer_bytes(p: Params) -> float:
    return k_bdp_bytes(p.bdp_multiple, r_ref(p), p.rtt_s)


def qdisc_need_packets(p: Params) -> float:
    """Packets the qdisc must hold in the steady state for the window to fit without a stall:
    the advertised window φ·B (φ = ½) less the capped path's BDP, in segments, less the TX ring."""
    excess = phi(1) * buffer_bytes(p) - bdp_bytes(r_ref(p), p.rtt_s)
    return excess / mss_eff(MTU_JUMBO, 6) - TX_DESCRIPTORS


def case_key(txqueuelen: int) -> str:
    return f"txq{txqueuelen:05d}"


def cases(p: Params) -> list[Case]:
    """Every txqueuelen with the spec's seeds, the rest of the path as the main E4 runs."""
    keep = keeper(p.duration_s, MTU_JUMBO, steady_fraction=p.steady_fraction)
    return [
        c
        for tq in p.txqueuelens
        for c in t4p_cases(
            "04.E4.8",
            case_key(tq),
            p.seeds,
            keep,
            rtt_s=p.rtt_s,
            buffer_bytes=buffer_bytes(p),
            duration_s=p.duration_s,
            tx_rate_cap_bps=p.cap_bps,
            txqueuelen=tq,
        )
    ]


def analyse(p: Params, kept: Mapping[str, Mapping[str, Any]]) -> Outcome:
    table = t48_table(p, kept)
    out = run_outcome(kept)
    out.checks += _checks(p, table)
    out.tables += [
        Table(
            "T4.8",
            f"Per txqueuelen (RTT {q.show_time(p.rtt_s)}, cap {q.show_rate(p.cap_bps)}, B = {p.bdp_multiple:g}·BDP = "
            f"{buffer_bytes(p) / 1e6:.1f} MB, PAUSE on): send stalls and CWR entries over the run and per second, sustained "
            f"rate (mean app_rx_rate over the last {p.steady_fraction:.0%}; mean and min–max over the seeds) and peak 1-s "
            "rate, the largest qdisc occupancy (packets), qdisc drops, retransmitted segments, RTOs, NIC and router drops, "
            "mean srtt over the steady window.",
            table,
            digits=5,
        ),
        expectations_entry(_expectations(p, table)),
    ]
    out.figures.append(_figure(p, table))
    out.notes += [
        f"B = {p.bdp_multiple:g}·BDP with BDP = R_ref·RTT/8 and R_ref = cap·MSS_eff/W = {r_ref(p) / GBPS:.4f} Gbit/s "
        "(§2.13 with the cap). The advertised window φ·B = 1.5·BDP exceeds what the capped NIC carries per RTT; in the "
        f"steady state the excess, less the {TX_DESCRIPTORS}-descriptor TX ring, needs about {qdisc_need_packets(p):.0f} "
        "qdisc packets (`steady_qdisc_need` in T4.8). Slow start can overshoot that before the window is reached.",
        "The send stalls and CWR entries are the trace's cumulative counters at the end of the run (spec 06 §2.9); the qdisc "
        "occupancy is the largest over the run (summary `hs:ifq` max_bytes over the L2 frame size).",
        *CLOSING_NOTES,
    ]
    return out


def t48_table(p: Params, kept: Mapping[str, Mapping[str, Any]]) -> pd.DataFrame:
    rows = []
    for tq in p.txqueuelens:
        pr = seed_point(kept, case_key(tq), p.seeds, _KEYS)
        rows.append(
            {
                "txqueuelen": tq,
                "seeds": pr["seeds"],
                "distinct_runs": pr["distinct_runs"],
                "send_stalls": pr["send_stalls"],
                "send_stalls_per_s": pr["send_stalls"] / p.duration_s,
                "cwr_entries": pr["cwr_entries"],
                "sustained_Gbps": pr["sustained_Gbps"],
                "sustained_Gbps_min": pr["sustained_Gbps_min"],
                "sustained_Gbps_max": pr["sustained_Gbps_max"],
                "peak_Gbps": pr["peak_bps"] / GBPS,
                "qdisc_max_packets": pr["qdisc_max_packets"],
                "steady_qdisc_need": qdisc_need_packets(p),
                "qdisc_drop": pr["qdisc_drop"],
                "retransmitted": pr["retransmitted"],
                "timeouts": pr["timeouts"],
                "rx_fifo_drop": pr["rx_fifo_drop"],
                "egress_drop": pr["egress_drop"],
                "pause_xoff_sent": pr["pause_xoff_sent"],
                "srtt_mean_s": pr["srtt_mean_s"],
            }
        )
    return pd.DataFrame(rows).sort_values("txqueuelen").reset_index(drop=True)


#: A longer queue may not lower the sustained rate by more than 1 % (CHOICE). The raw stall
#: count is not monotone in a finite run: a very short queue stalls early, its CWR cuts the
#: window deep, and BIC regrows so slowly that it may stall less often than a longer queue
#: (quick form: 1 stall at 100 packets, 2 at 1000, within one CWR entry each).
NO_FALL = 0.99


def _increases(values: np.ndarray) -> int:
    return int(np.sum(np.diff(values) > 0))


def _checks(p: Params, table: pd.DataFrame) -> list[Check]:
    stalls = table["send_stalls"].to_numpy(dtype=float)
    cwr = table["cwr_entries"].to_numpy(dtype=float)
    tq = table["txqueuelen"].to_numpy()
    rate = table["sustained_Gbps"].to_numpy(dtype=float)
    return [
        Check.equal(
            "steps to a longer txqueuelen where the sustained rate fell by more than 1 %",
            int(np.sum(rate[1:] < NO_FALL * rate[:-1])),
            0,
            criterion=f"= 0 (of {len(tq) - 1} steps: a longer queue cuts the window less often)",
        ),
        Check.within(
            f"send stalls at txqueuelen {tq[0]} minus those at {tq[-1]}",
            float(stalls[0] - stalls[-1]),
            1.0,
            None,
            criterion="≥ 1 (a short queue stalls, a long one less)",
        ),
        Check.equal(
            "steps to a longer txqueuelen where the CWR entries rose",
            _increases(cwr),
            0,
            criterion=f"= 0 (of {len(tq) - 1} steps)",
        ),
        Check.equal(
            "points whose qdisc held more than txqueuelen packets",
            int((table["qdisc_max_packets"] > table["txqueuelen"]).sum()),
            0,
            criterion="= 0 (the qdisc is bounded by txqueuelen; a stall instead of a drop)",
        ),
        Check.equal(
            "retransmitted segments, summed over the points",
            int(round(float(table["retransmitted"].sum()))),
            0,
            criterion="= 0 (PAUSE and the cap: every window cut is local, no packet is lost)",
        ),
        cap_check("largest sustained rate", float(table["sustained_Gbps_max"].max()), p.cap_bps, p.duration_s * p.steady_fraction),
    ]


def _expectations(p: Params, table: pd.DataFrame) -> list[dict[str, str]]:
    short = table.iloc[0]
    long = table.iloc[-1]
    repeated = short["cwr_entries"] > 1
    return [
        expectation(
            "a short txqueuelen with a slow NIC causes repeated send stalls and window cuts with no network loss",
            f"txqueuelen {short['txqueuelen']:g}: {short['send_stalls']:g} stalls, {short['cwr_entries']:g} CWR entries, "
            f"{short['retransmitted']:g} retransmitted; rate {short['sustained_Gbps']:.3f} Gbit/s",
            "yes" if short["send_stalls"] > 0 and repeated and short["retransmitted"] == 0 else (
                "partly" if short["send_stalls"] > 0 else "no"
            ),
            "'repeated' read as more than one CWR entry in the run",
        ),
        expectation(
            "a longer queue removes them",
            ", ".join(f"{r.txqueuelen:g}: {r.send_stalls:g}" for r in table.itertuples()) + " stalls",
            "yes" if long["send_stalls"] == 0 else ("partly" if long["send_stalls"] < short["send_stalls"] else "no"),
            f"steady-state qdisc need ≈ {qdisc_need_packets(p):.0f} packets",
        ),
    ]


def _figure(p: Params, table: pd.DataFrame) -> Figure:
    fig, (a, b) = new_figure(2, 1, width=7.5, height=6.0, sharex=True)
    err = spread_yerr(table["sustained_Gbps"], table["sustained_Gbps_min"], table["sustained_Gbps_max"])
    a.errorbar(table["txqueuelen"], table["sustained_Gbps"], yerr=err, fmt="-o", capsize=2, color="C0", label="sustained")
    a.axhline(cap_goodput_bps(p.cap_bps) / GBPS, color="gray", ls=":", label="cap·MSS_eff/W")
    a.set_ylabel("sustained rate (Gbit/s)")
    a.set_ylim(bottom=0)
    b.plot(table["txqueuelen"], table["send_stalls_per_s"], "-s", color="C3", label="send stalls / s")
    b.plot(table["txqueuelen"], table["cwr_entries"] / p.duration_s, "--^", color="C1", label="CWR entries / s")
    need = qdisc_need_packets(p)
    if need > 0:
        for ax in (a, b):
            ax.axvline(need, color="gray", ls="--", lw=0.8, label="steady qdisc need")
    b.set_ylabel("per second of run")
    b.set_xlabel("txqueuelen (packets, log scale)")
    b.set_xscale("log")
    b.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
    for ax in (a, b):
        finish_axes(ax)
    fig.suptitle(f"04.E4.8 F4.8: rate and send stalls vs txqueuelen, RTT {p.rtt_s * 1e3:g} ms, cap {p.cap_bps / GBPS:g} Gbit/s", fontsize="medium")
    return Figure(
        "F4.8",
        "Sustained rate (top; bars min–max over the seeds) and send stalls and CWR entries per second of run (bottom) "
        "against txqueuelen; dashed: the qdisc occupancy the steady window needs.",
        fig,
    )


EXPERIMENT = Experiment(
    id="04.E4.8",
    title="txqueuelen and send stalls",
    summary="the T4-P stream at RTT 100 ms with the sender capped at 6 Gbit/s, PAUSE on and B = 3·BDP, txqueuelen swept "
    "from 100 to 30000: send stalls, CWR entries, sustained rate, qdisc occupancy (T4.8, F4.8)",
    reference="spec 04 §3 (E4.8), §2.6, §2.9, §4 (send stalls)",
    checks=(
        "The capped NIC drains more slowly than TCP can send; the excess window waits in the TX ring and then the qdisc. "
        "Checks (model properties): packet conservation in every run; CWR entries never rise and the sustained rate never "
        "falls (by more than 1 %) from one txqueuelen to the next longer one, and the shortest queue stalls more than the "
        "longest; the qdisc never holds "
        "more than txqueuelen packets; no segment is retransmitted (the window cuts are local); and the rate never exceeds "
        "cap·MSS_eff/W."
    ),
    full=FULL,
    quick=QUICK,
    cases=cases,
    analyse=analyse,
)
