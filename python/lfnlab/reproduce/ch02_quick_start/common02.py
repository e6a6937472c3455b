"""Shared pieces of the chapter 02 reproductions (Quick-Start on testbed T0, spec 02 §4):
the per-RTT data-rate bins of E1, trace values at bin ends, the Quick-Start window and its
pacing plan (spec 02 §2.3.6–2.3.7), the slow-start rounds that fit in one bin, the speedup
η of E2, and the ``expectations`` table of spec 02 §5.

Everything here is pure (no run): the formulas are unit-tested on their own.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any, Optional

import numpy as np
import pandas as pd

from ...models import quickstart
from .. import measure
from ..measure import conserved, ran_whole
from ..outcome import Check, expectation, expectations_table, shown
from .path02 import FLOW, IP_PACKET_BYTES, L2_HEADER_BYTES, RATE_BPS, WIRE_BYTES, qs_rate_bps

__all__ = [
    "MBPS",
    "TIME_EPS_S",
    "HANDSHAKE_SLACK_S",
    "flow_entry",
    "qs_entry",
    "ip_bytes",
    "control_frames",
    "rate_bins",
    "trace_at_bin_ends",
    "first_bin_above",
    "ss_exit",
    "qs_window_segments",
    "pacing_plan",
    "plan_text",
    "arrival_clusters",
    "clusters_text",
    "qs_bin_rate_bounds_bps",
    "ss_clean_rounds",
    "eta",
    "eta_range",
    "run_checks",
    "expectation",
    "expectations_table",
    "shown",
]

#: Rates in the tables and figures: Mbit/s = 10^6 bit/s of IP bytes.
MBPS = 1e6
#: Slack when matching a time to a bin edge (bin edges are sums of floats).
TIME_EPS_S = 1e-9
#: How much longer than τ the handshake RTT sample may be: the SYN-ACK's and the ACK's own
#: wire time (106 + 90 bytes at 10 Mbit/s = 0.16 ms) and no queueing; 1 ms bounds it.
HANDSHAKE_SLACK_S = 1e-3


def flow_entry(summary: Mapping[str, Any], name: str = FLOW) -> Mapping[str, Any]:
    """The summary's entry of flow ``name`` (default: the T0 flow)."""
    return measure.flow_entry(summary, name)


def qs_entry(summary: Mapping[str, Any], name: str = FLOW) -> Mapping[str, Any]:
    """``flows[i].quickstart`` of the flow (empty for a run without Quick-Start)."""
    return flow_entry(summary, name).get("quickstart") or {}


def ip_bytes(l2_bytes: Any, packets: Any) -> Any:
    """IP total length from a monitor's L2 bytes: L2 = IP + 18 per frame (Ethernet header
    and FCS; the monitor counts no preamble or IPG)."""
    return np.asarray(l2_bytes, dtype=float) - L2_HEADER_BYTES * np.asarray(packets, dtype=float)


def control_frames(packets: pd.DataFrame) -> pd.DataFrame:
    """Captured frames without TCP payload (SYN-ACK, the server's ACK of the request): the
    rows of a ``packets`` capture with ``payload == 0``; columns ``t``, ``l3_bytes``."""
    c = packets[packets["payload"] == 0]
    return c[["t", "l3_bytes"]].reset_index(drop=True)


def _bin_index(t_s: Any, bin_s: float) -> np.ndarray:
    return np.floor(np.asarray(t_s, dtype=float) / bin_s + TIME_EPS_S).astype(np.int64)


def rate_bins(
    flows: pd.DataFrame,
    *,
    bin_s: float,
    n_bins: int,
    control: Optional[pd.DataFrame] = None,
    monitor: Optional[str] = None,
) -> pd.DataFrame:
    """Spec 02 §4.2 E1: rate_k = 8·Σ(IP total length of the data packets arriving in
    [k·bin, (k+1)·bin))/bin, for k = 0..n_bins−1 (t = 0 at the client's SYN).

    ``flows``: monitor rows (``t`` = bin start, L2 ``bytes``, ``packets``; bins without a
    frame are absent and count as 0). ``control``: frames without payload to take out
    (``t`` arrival, ``l3_bytes``; :func:`control_frames`), so that only data packets count.

    Returns columns ``bin_start_s, packets, data_packets, ip_bytes, rate_mbps``.
    """
    if bin_s <= 0 or n_bins < 1:
        raise ValueError("bin_s must be > 0 and n_bins ≥ 1")
    m = flows if monitor is None else flows[flows["monitor"] == monitor]
    k = _bin_index(m["t"], bin_s)
    keep = (k >= 0) & (k < n_bins)
    pk = np.bincount(k[keep], weights=m["packets"].to_numpy(dtype=float)[keep], minlength=n_bins)
    ipb = np.bincount(
        k[keep], weights=ip_bytes(m["bytes"].to_numpy(dtype=float), m["packets"].to_numpy(dtype=float))[keep], minlength=n_bins
    )
    data_pk = pk.copy()
    if control is not None and len(control):
        kc = _bin_index(control["t"], bin_s)
        kk = (kc >= 0) & (kc < n_bins)
        data_pk -= np.bincount(kc[kk], minlength=n_bins)
        ipb -= np.bincount(kc[kk], weights=control["l3_bytes"].to_numpy(dtype=float)[kk], minlength=n_bins)
    if (data_pk < 0).any() or (ipb < 0).any():
        raise ValueError("control frames exceed the monitor's counts: capture and monitor disagree")
    return pd.DataFrame(
        {
            "bin_start_s": np.arange(n_bins) * bin_s,
            "packets": pk.astype(np.int64),
            "data_packets": data_pk.astype(np.int64),
            "ip_bytes": ipb.astype(np.int64),
            "rate_mbps": ipb * 8.0 / bin_s / MBPS,
        }
    )


def trace_at_bin_ends(tcp: pd.DataFrame, *, bin_s: float, n_bins: int, columns: Sequence[str] = ("cwnd", "ssthresh")) -> pd.DataFrame:
    """Trace values at the end of each bin [k·bin, (k+1)·bin): the last trace row with
    t ≤ (k+1)·bin (trace rows are samples at their time ``t``); NaN before the first row."""
    rows = tcp.sort_values("t", kind="stable")
    t = rows["t"].to_numpy(dtype=float)
    ends = (np.arange(n_bins) + 1) * bin_s
    idx = np.searchsorted(t, ends + TIME_EPS_S, side="right") - 1
    out = {}
    for c in columns:
        v = rows[c].to_numpy(dtype=float)
        out[c] = np.where(idx >= 0, v[np.maximum(idx, 0)], np.nan)
    return pd.DataFrame(out)


def first_bin_above(bin_start_s: Any, rate: Any, threshold: float) -> float:
    """Start of the first bin whose rate exceeds ``threshold``; NaN if none does."""
    r = np.asarray(rate, dtype=float)
    hits = np.flatnonzero(r > threshold)
    return float(np.asarray(bin_start_s, dtype=float)[hits[0]]) if len(hits) else math.nan


def ss_exit(tcp: pd.DataFrame) -> tuple[float, float, float]:
    """(time, cwnd, ssthresh) of the first trace row with cwnd > ssthresh (the sender has
    left slow start: spec 02 §2.6.1 slow start while cwnd ≤ ssthresh); NaNs if none."""
    rows = tcp.sort_values("t", kind="stable")
    hit = rows[rows["cwnd"] > rows["ssthresh"]]
    if hit.empty:
        return math.nan, math.nan, math.nan
    r = hit.iloc[0]
    return float(r["t"]), float(r["cwnd"]), float(r["ssthresh"])


def qs_window_segments(rate_code: int, rtt_s: float, segment_bytes: int = IP_PACKET_BYTES) -> int:
    """W_qs = ⌊(Rate(N)/8)·T/(M + H)⌋ (spec 02 §2.3.6); ⌊640000·τ/1500⌋ for N = 7."""
    if rtt_s <= 0:
        raise ValueError("rtt_s must be > 0")
    # The model's formula, with M + H = one IP packet (models.quickstart).
    return quickstart.qs_window_segments(qs_rate_bps(rate_code), rtt_s, segment_bytes, 0)


def pacing_plan(w_qs: int, rtt_ticks: int, chunk_min: int = 3) -> list[int]:
    """Segments released by each pacing timer (spec 02 §2.3.7): n = max(1, min(⌊W/M⌋,
    rtt_ticks)) timers, c = ⌊W/n⌋ each, one carry-over segment more on the first
    e = W − n·c. (42, 100, 3) → 14 × 3; (85, 200, 3) → 4 then 27 × 3."""
    if w_qs < 1 or rtt_ticks < 1 or chunk_min < 1:
        raise ValueError("w_qs, rtt_ticks and chunk_min must be ≥ 1")
    n = max(1, min(w_qs // chunk_min, rtt_ticks))
    c, e = divmod(w_qs, n)
    return [c + 1] * e + [c] * (n - e)


def _runs(sizes: Sequence[int]) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    for s in sizes:
        if out and out[-1][1] == s:
            out[-1] = (out[-1][0] + 1, s)
        else:
            out.append((1, s))
    return out


def plan_text(sizes: Sequence[int]) -> str:
    """``[4, 3, 3]`` → ``"3 chunks: 1×4 + 2×3 = 10"``."""
    parts = " + ".join(f"{n}×{s}" for n, s in _runs(sizes))
    return f"{len(sizes)} chunks: {parts} = {sum(sizes)}"


def arrival_clusters(t_s: Any, gap_s: float) -> list[int]:
    """Sizes of the clusters of a time series: a new cluster starts where two consecutive
    times are more than ``gap_s`` apart (back-to-back frames are one wire time apart)."""
    t = np.sort(np.asarray(t_s, dtype=float))
    if len(t) == 0:
        return []
    starts = np.concatenate([[0], np.flatnonzero(np.diff(t) > gap_s) + 1, [len(t)]])
    return [int(b - a) for a, b in zip(starts[:-1], starts[1:])]


def clusters_text(sizes: Sequence[int]) -> str:
    """The same text as :func:`plan_text`, for measured cluster sizes."""
    return plan_text(sizes) if sizes else "0 chunks"


def qs_bin_rate_bounds_bps(rate_code: int, rtt_s: float, slack_s: float = HANDSHAKE_SLACK_S) -> tuple[float, float]:
    """Bounds of the IP-level rate of the first data bin under Quick-Start (spec 02 §4.2).

    The bin [2τ, 3τ) holds exactly the W_qs paced packets of 1500 IP bytes: the first one
    arrives 2τ plus a few wire times after the SYN, the last timer fires ≈ τ(1 − 1/n) after
    the first, and the first ACK of QS data reaches S only at ≈ 2.5τ, so the next round's
    packets arrive after 3τ. W_qs = ⌊q·τ̂/(8·1500)⌋ with the handshake sample τ ≤ τ̂ ≤ τ +
    slack, so the bin rate 8·1500·W_qs/τ lies in (q − 8·1500/τ, q·(τ + slack)/τ]."""
    q = qs_rate_bps(rate_code)
    return q - 8.0 * IP_PACKET_BYTES / rtt_s, q * (rtt_s + slack_s) / rtt_s


def ss_clean_rounds(rtt_s: float, iw_segments: int = 3, rate_bps: float = RATE_BPS, margin: float = 0.9) -> list[int]:
    """Sizes of the slow-start rounds that land whole in one bin of width τ (spec 02 §4.2).

    With an ACK per segment (``linux_like`` while fewer than rcvbuf/2 bytes arrived) round j
    has IW·2^(j−1) segments that arrive back to back (δ = 8·1538/C apart), and round j + 1
    starts τ + δ (+ one ACK's wire time) after round j. Round j stays in bin j + 1 while
    its own length plus the accumulated drift, (n_j + j)·δ, fits in ``margin``·τ (the
    first data packet arrives a few wire times after 2τ)."""
    delta_s = 8.0 * WIRE_BYTES / rate_bps
    out, n, j = [], iw_segments, 1
    while (n + j) * delta_s <= margin * rtt_s:
        out.append(n)
        n, j = 2 * n, j + 1
    return out


def eta(t_ss_s: Sequence[float], t_qs_s: Sequence[float]) -> float:
    """η = mean T_SS / mean T_QS (spec 02 §4.3); NaN if a value is missing."""
    a, b = np.asarray(t_ss_s, dtype=float), np.asarray(t_qs_s, dtype=float)
    if a.size == 0 or b.size == 0 or np.isnan(a).any() or np.isnan(b).any():
        return math.nan
    return float(a.mean() / b.mean())


def eta_range(t_ss_s: Sequence[float], t_qs_s: Sequence[float]) -> tuple[float, float]:
    """The spread of η over the repetitions: (min T_SS / max T_QS, max T_SS / min T_QS)."""
    a, b = np.asarray(t_ss_s, dtype=float), np.asarray(t_qs_s, dtype=float)
    if a.size == 0 or b.size == 0 or np.isnan(a).any() or np.isnan(b).any():
        return math.nan, math.nan
    return float(a.min() / b.max()), float(a.max() / b.min())


def run_checks(summaries: Mapping[str, Mapping[str, Any]], durations_s: Mapping[str, float], what: str = "runs") -> list[Check]:
    """Every run covered its simulated duration, and packet conservation holds (summary)."""
    return measure.run_checks([ran_whole(s, durations_s[k]) for k, s in summaries.items()], [conserved(s) for s in summaries.values()], what)
