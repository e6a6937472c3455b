"""Shared pieces of the chapter 03 F reproductions (spec 03 §3 F1–F7, path P-TM of §2.10):
seeds and run labels, the P-TM trial as an engine case, the delivered-throughput series, best and median trial, the Clustered
Packet Spacing formulas of spec 03 §2.5, the NIC framing of §2.2/§2.3, a packet-capture view
of the sender NIC, and the checks every F experiment makes on its runs.

Nothing here runs (a case only declares a run): the formulas are unit-tested on their own.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any, Callable

import numpy as np
import pandas as pd

from ...result import Result
from .. import measure
from ..engine import Case
from ..measure import L2_OVERHEAD_BYTES, TCP_HEADER_BYTES, conserved, flow_entry, h_ip, mss_eff, ran_whole
from ..outcome import Check
from .path03 import ACKS_IN, FLOW, SENDER_NIC, ptm_scenario
from .common03 import MBPS, PREAMBLE_BYTES, trial_stats

#: The receiver's access link on P-TM: the frames delivered to the receiver.
RCV_MONITOR = "r3->rcv"
#: Header bytes of a frame counted by a monitor (L2 bytes = IP + 18): 18 Ethernet + 20 IP +
#: 32 TCP with timestamps (spec 03 §2.2: MTU 1500, MSS 1448), so payload = bytes − 70·frames
#: for data segments and pure ACKs (a SYN's options add 8 bytes once per run).
HEADER_BYTES = L2_OVERHEAD_BYTES + h_ip(4) + TCP_HEADER_BYTES
MSS = mss_eff(1500)
#: P-TM propagation RTT, 2 × (1 + 98 + 1) ms (spec 03 §2.10).
BASE_RTT_S = 0.2
#: spec 03 §2.9: initial cwnd 2 segments.
IW_SEGMENTS = 2
#: F of the F2 rate check: a full-size frame (1500 + 18) plus its preamble.
FRAME_PREAMBLE_BYTES = 1500 + 18 + PREAMBLE_BYTES


#: Why a P-TM sender stays far below the paper's rates (issue 39 item 5), for "Against the paper".
STALL_WHY = (
    "txqueuelen 100 (spec 03's CHOICE for F2 and F5; kept for F3 and F7 as Linux 2.4's Ethernet default, "
    "2.4.20 net_init.c ether_setup) ends slow start at the first "
    "interface-queue overflow through CWR (§2.4), and NewReno then gains one segment per 200 ms RTT"
)


def seeds(trials: int) -> list[int]:
    """Seeds 1..N (spec 03 §2.8: run r uses seed r)."""
    if trials < 1:
        raise ValueError(f"need at least one trial, got {trials}")
    return list(range(1, trials + 1))


def trial_label(case: str, seed: int) -> str:
    """``gbe-q00100-s03``-style run label: the case, then the seed (sorts by case, seed)."""
    return f"{case}-s{seed:02d}"


def ptm_case(experiment: str, label: str, keep: Callable[[Result], Any], **scenario: Any) -> Case:
    """The P-TM trial ``label`` of ``experiment`` (spec 03 §2.10): the scenario
    ``<experiment>-<label>`` made by :func:`~lfnlab.reproduce.ch03_end_node_rate_control.path03.ptm_scenario` from
    ``scenario``, reduced by ``keep``."""
    return Case(label, ptm_scenario(f"{experiment}-{label}", **scenario), keep)


def delivered_series(flows: pd.DataFrame, monitor: str = RCV_MONITOR) -> pd.DataFrame:
    """Payload delivered per monitor bin (frames reaching the receiver, retransmissions
    included): columns ``t_s`` (bin start), ``frames``, ``payload_bytes``, ``mbps``
    (10^6 bit/s over the bin width, the spacing of the bins)."""
    m = flows[flows["monitor"] == monitor]
    g = m.groupby("t")[["bytes", "packets"]].sum().sort_index()
    t = g.index.to_numpy(dtype=float)
    payload = g["bytes"].to_numpy(dtype=float) - HEADER_BYTES * g["packets"].to_numpy(dtype=float)
    payload = np.maximum(payload, 0.0)
    width = float(np.median(np.diff(t))) if len(t) > 1 else 1.0
    return pd.DataFrame(
        {
            "t_s": t,
            "frames": g["packets"].to_numpy(dtype=np.int64),
            "payload_bytes": payload,
            "mbps": payload * 8.0 / width / MBPS,
        }
    )


def best_seed(values: Mapping[int, float]) -> int:
    """The trial with the highest throughput (spec 03 F5/F7 "report the best"); ties: lowest seed."""
    if not values:
        raise ValueError("no trials")
    return min(values, key=lambda s: (-values[s], s))


def median_seed(values: Mapping[int, float]) -> int:
    """The median trial (spec 03 F3): sorted by (throughput, seed), the element at (n − 1)//2
    (for an even count, the lower of the two middle trials)."""
    if not values:
        raise ValueError("no trials")
    order = sorted(values, key=lambda s: (values[s], s))
    return order[(len(order) - 1) // 2]


def stats_row(values: Sequence[float]) -> dict[str, float]:
    """``trial_stats`` with the column names of the F tables (Mbps)."""
    s = trial_stats(values)
    return {
        "trials": s["trials"],
        "min_Mbps": s["min"],
        "max_Mbps": s["max"],
        "median_Mbps": s["median"],
        "mean_Mbps": s["mean"],
        "std_Mbps": s["std"],
        "norm_std": s["norm_std"],
    }


def cps_spaced_rounds(rtt_s: float, tick_s: float, iw_segments: int = IW_SEGMENTS) -> int:
    """Rounds that Clustered Packet Spacing spaces (spec 03 §2.5): w_1 = iw, w_{n+1} = 2·w_n
    (ssthresh unlimited, receiver window far above it); round n is spaced while
    I_n = RTT/w_n > T, and the first round with I_n ≤ T hands over (open point 3). One RTT
    for every round (the handshake RTT in the F checks)."""
    if rtt_s <= 0 or tick_s <= 0 or iw_segments < 1:
        raise ValueError("rtt, tick and initial window must be positive")
    n, w = 0, float(iw_segments)
    while rtt_s / w > tick_s:
        n += 1
        w *= 2.0
    return n


def cps_spaced_rounds_closed_form(rtt_s: float, tick_s: float, iw_segments: int = IW_SEGMENTS) -> int:
    """⌈log2(RTT/(iw·T))⌉ for RTT > iw·T, else 0: the same count as :func:`cps_spaced_rounds`
    without a cap (about log2(RTT/(2T)) + 1, spec 03 §2.5 "Duration")."""
    x = rtt_s / (iw_segments * tick_s)
    return max(0, math.ceil(math.log2(x))) if x > 1 else 0


def nominal_nic_bps(nic_bps: float, ipg_bytes: float, frame_preamble_bytes: float = FRAME_PREAMBLE_BYTES) -> float:
    """Spec 03 §2.3 Y' = Y·F/(F + IPG) with F = frame + preamble (1526 B for full-size
    frames): the rate of frame-and-preamble bytes of a saturated NIC (§2.2 timing)."""
    return nic_bps * frame_preamble_bytes / (frame_preamble_bytes + ipg_bytes)


def paper_nic_bps(nic_bps: float, ipg_bytes: float, f_bytes: float = 1500.0) -> float:
    """The paper's approximation Y·F/(F + IPG) with F ≈ MTU (≈ 594 Mbit/s at IPG 1023)."""
    return nic_bps * f_bytes / (f_bytes + ipg_bytes)


def handshake_rtt_s(packets: pd.DataFrame, sent_monitor: str = SENDER_NIC, ack_monitor: str = ACKS_IN) -> float:
    """RTT of the handshake from a capture: first frame the sender's NIC sent (the SYN at
    t = 0) to the first frame arriving on the ACK monitor (the SYN-ACK). NaN without both."""
    s = packets[packets["monitor"] == sent_monitor]["t"]
    a = packets[packets["monitor"] == ack_monitor]["t"]
    if s.empty or a.empty:
        return math.nan
    return float(a.min()) - float(s.min())


def classify_departures(
    sent: pd.DataFrame,
    ack_arrivals_s: np.ndarray,
    *,
    tick_s: float,
    nic_bps: float,
    ipg_bytes: int,
    until_s: float,
    tol_s: float = 1e-9,
) -> dict[str, int]:
    """Where each data frame the sender NIC started at t ≤ ``until_s`` came from, spec 03
    §2.5 rule (1): released by an ACK (starts at an ACK arrival), by a timer tick (starts at
    a multiple of T), or ``queued`` (starts back to back behind a frame of such a release:
    it waited only for the NIC); ``other`` counts anything else.

    ``sent``: captured frames of the sender NIC (``t``, ``kind``, ``l3_bytes``), every kind,
    so that a frame held behind a pure ACK is recognised. A frame lasts (l3 + 18 + 8 + IPG)
    byte-times at ``nic_bps`` (spec 03 §2.2)."""
    s = sent.sort_values("t", kind="stable")
    t = s["t"].to_numpy(dtype=float)
    kinds = s["kind"].astype(str).to_numpy()
    dur = (s["l3_bytes"].to_numpy(dtype=float) + 18 + PREAMBLE_BYTES + ipg_bytes) * 8.0 / nic_bps
    acks = np.sort(np.asarray(ack_arrivals_s, dtype=float))
    counts = {"ack": 0, "tick": 0, "queued": 0, "other": 0}
    released = np.zeros(len(t), dtype=bool)  # this frame's start is explained
    for i in range(len(t)):
        j = int(np.searchsorted(acks, t[i]))
        near = [abs(t[i] - acks[k]) for k in (j - 1, j) if 0 <= k < len(acks)]
        if near and min(near) <= tol_s:
            how = "ack"
        elif abs(t[i] - round(t[i] / tick_s) * tick_s) <= tol_s:
            how = "tick"
        elif i > 0 and released[i - 1] and abs(t[i] - (t[i - 1] + dur[i - 1])) <= tol_s:
            how = "queued"
        else:
            how = "other"
        released[i] = how != "other"
        if kinds[i] == "data" and t[i] <= until_s + tol_s:
            counts[how] += 1
    return counts


def clusters(counts: Sequence[int] | np.ndarray) -> dict[str, float]:
    """Clusters of a per-bin count series: maximal runs of non-empty bins. Returns their
    number, the median distance between cluster starts (bins; NaN for fewer than two) and
    the largest count in one bin."""
    c = np.asarray(counts)
    nz = (c > 0).astype(np.int8)
    starts = np.flatnonzero(np.diff(np.concatenate([[0], nz])) == 1)
    gap = float(np.median(np.diff(starts))) if len(starts) > 1 else math.nan
    return {"clusters": int(len(starts)), "median_start_gap_bins": gap, "max_per_bin": int(c.max()) if len(c) else 0}


def window_clusters(counts: pd.DataFrame, t0_s: float, t1_s: float) -> dict[str, float]:
    """:func:`clusters` of the sent frames of a ``packet_counts`` trace (1 ms bins) in
    [t0, t1): frames, clusters, median distance between cluster starts (ms), largest bin,
    and the ACKs received (a positive count)."""
    w = counts[(counts["t_ms"] >= t0_s * 1e3 - 1e-6) & (counts["t_ms"] < t1_s * 1e3 - 1e-6)]
    sent = w["sent"].to_numpy()
    c = clusters(sent)
    width_ms = float(np.median(np.diff(counts["t_ms"].to_numpy()))) if len(counts) > 1 else 1.0
    return {
        "frames": int(sent.sum()),
        "clusters": c["clusters"],
        "median_gap_ms": c["median_start_gap_bins"] * width_ms,
        "max_per_bin": c["max_per_bin"],
        "acks": -int(w["acks"].sum()),
    }


def run_checks(summaries: Mapping[str, Mapping[str, Any]], duration_s: float, what: str = "runs") -> list[Check]:
    """Every run covered its duration, and packet conservation holds (summary)."""
    return measure.run_checks(
        [ran_whole(s, duration_s) for s in summaries.values()],
        [conserved(s) for s in summaries.values()],
        what,
        whole=f"the whole {duration_s:g} s",
        source=lambda field: f"every run; summary {field}",
    )


def flow_counters(summary: Mapping[str, Any]) -> dict[str, Any]:
    """Retransmissions, timeouts, fast retransmits and CPS state of the flow ``f``."""
    f = flow_entry(summary, FLOW)
    return {
        "retransmitted_segments": int(f["retransmitted_segments"]),
        "timeouts": int(f["timeouts"]),
        "fast_retransmits": int(f.get("fast_retransmits", 0)),
    }

