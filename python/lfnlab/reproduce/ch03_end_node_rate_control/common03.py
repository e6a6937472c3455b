"""Shared pieces of the chapter 03 reproductions: trial statistics, throughput and drops of a run,
the per-millisecond packet-count trace, the busy/idle diagnostic of spec 03 §2.1, and the
statistics and checks the S experiments make on their finished transfers and TCP-aware NIC.

Everything here is pure (no run): the formulas are unit-tested on their own.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Optional

import numpy as np
import pandas as pd

from ..measure import flow_entry
from ..outcome import Check
from .path03 import ACKS_IN, SENDER_NIC

#: spec 03 §2.2: Mbps = 10^6 bit/s of TCP payload.
MBPS = 1e6
#: spec 03 §2.2: preamble bytes before every frame at a NIC.
PREAMBLE_BYTES = 8
#: spec 03 §2.7.4: the TCP-aware NIC's remaining-IPG field counts 64 ns ticks and is 23 bits wide.
NIC_TICK_S = 64e-9
IPG_COUNT_MAX = 2**23 - 1
#: The finding of S1 and S2 about the dynamic NIC with the spec's RTT source (open point 10).
TCP_HANDOFF_COLLAPSE_NOTE = (
    "Finding (spec 03 open point 10): with the spec's `rtt_timestamp_point = tcp_handoff` the RTT TCP measures "
    "includes the time a segment waits in the NIC, and the dynamic IPG is computed from the current cwnd and that srtt "
    "(spec 03 §2.7.2). After a retransmission timeout cwnd is 1, so every segment still queued in the NIC leaves one "
    "srtt after the previous one; the retransmission waits behind them, further timeouts add duplicates to the same "
    "queue, and the samples push srtt (and the IPG, up to its 536.9 ms maximum) higher still. A run caught this way "
    "can take hours of simulated time or not finish within the cap. For tcp_handoff, finishing and steady progress are "
    "therefore reported (tables, expectations), not checked; with `wire_departure` (RTT from the frame's departure) "
    "they are checked. Because of this finding lfnlab's default is `wire_departure` (a changed CHOICE, announced in "
    "docs/choices.md and in every S report); `tcp_handoff` stays selectable. A Linux refinement that would avoid the pile-up "
    "(not retransmitting a segment still queued in the host) is not part of the Linux 2.4-like model of spec 03 §2.9. "
    "`wire_departure` removes the srtt feedback but not the backlog: a timeout while the NIC holds thousands of segments "
    "leaves them one srtt apart in either mode (issue 39 item 9: with the linux-2.4 profile of 2f63e95–b9867b1, "
    "wire_departure at L = 150 ms averaged 3 336 timeouts per run)."
)


def trial_stats(values: Sequence[float]) -> dict[str, float]:
    """min, max, median ("Middle"), mean, sample std and normalized std (std/mean) of the
    trials (spec 03 §3); std is the sample standard deviation (ddof = 1), NaN for one trial."""
    a = np.asarray(values, dtype=float)
    if a.size == 0:
        raise ValueError("no trials")
    std = float(a.std(ddof=1)) if a.size > 1 else math.nan
    mean = float(a.mean())
    return {
        "trials": int(a.size),
        "min": float(a.min()),
        "max": float(a.max()),
        "median": float(np.median(a)),
        "mean": mean,
        "std": std,
        "norm_std": std / mean if mean > 0 else math.nan,
    }


def throughput_mbps(summary: Mapping[str, Any], flow: str, duration_s: float) -> float:
    """Time-limited run: payload bytes delivered / duration, Mbps (spec 03 §3)."""
    return flow_entry(summary, flow)["bytes_delivered"] * 8.0 / duration_s / MBPS


def completion_throughput_mbps(summary: Mapping[str, Any], flow: str, start_s: float = 0.0) -> float:
    """Fixed-size transfer: payload bytes / completion time, Mbps (spec 03 §3); NaN if the
    transfer did not finish within the run."""
    f = flow_entry(summary, flow)
    done = f.get("completion_s")
    if done is None:
        return math.nan
    return f["bytes_delivered"] * 8.0 / (done - start_s) / MBPS



def drops_by_cause(summary: Mapping[str, Any], names: Optional[Iterable[str]] = None) -> dict[str, int]:
    """Drops summed over the queues (all, or ``names``) by cause: random_loss, red, tail, ..."""
    out: dict[str, int] = {}
    wanted = None if names is None else set(names)
    for q in summary["queues"]:
        if wanted is not None and q["name"] not in wanted:
            continue
        for cause, k in q.get("drops_by_cause", {}).items():
            out[cause] = out.get(cause, 0) + int(k)
    return out


def packet_counts(flows: pd.DataFrame, t0_s: float = 0.0, t1_s: Optional[float] = None, bin_s: float = 1e-3) -> pd.DataFrame:
    """Per-bin frames sent by the sender NIC (positive) and ACK frames reaching the sender
    (negative), spec 03 F5 (a); from the ``flows`` table of a run whose monitors include
    ``SENDER_NIC`` and ``ACKS_IN`` with bins of ``bin_s``. Columns: t_ms, sent, acks."""
    def series(monitor: str) -> pd.Series:
        m = flows[flows["monitor"] == monitor]
        return m.groupby("t")["packets"].sum()

    sent, acks = series(SENDER_NIC), series(ACKS_IN)
    end = t1_s if t1_s is not None else float(max(sent.index.max() if len(sent) else 0.0, acks.index.max() if len(acks) else 0.0))
    n = int(round((end - t0_s) / bin_s))
    t = t0_s + bin_s * np.arange(n)
    key = np.round(t / bin_s).astype(np.int64)
    def on_grid(s: pd.Series) -> np.ndarray:
        idx = np.round(s.index.to_numpy(dtype=float) / bin_s).astype(np.int64)
        m = dict(zip(idx, s.to_numpy()))
        return np.array([m.get(k, 0) for k in key], dtype=np.int64)

    return pd.DataFrame({"t_ms": t * 1e3, "sent": on_grid(sent), "acks": -on_grid(acks)})


def busy_idle(flows: pd.DataFrame, *, base_rtt_s: float, nic_bps: float, ipg_bytes: int, payload_per_frame: float = 1448.0) -> pd.DataFrame:
    """The diagnostic of spec 03 §2.1 for consecutive windows of one base RTT: frames the
    sender NIC sent, payload bytes (→ X = bytes/RTT), the measured busy time Δt (each frame
    takes frame + 8 + IPG byte-times at Y) and Z = (Y − X)·Δt. ``flows`` must hold the
    ``SENDER_NIC`` monitor with bins that divide the RTT. Frame bytes in the table are L2
    (IP + 18)."""
    m = flows[flows["monitor"] == SENDER_NIC]
    t = m["t"].to_numpy(dtype=float)
    w = np.floor(t / base_rtt_s + 1e-9).astype(np.int64)
    g = pd.DataFrame({"w": w, "bytes": m["bytes"].to_numpy(dtype=float), "packets": m["packets"].to_numpy(dtype=float)})
    agg = g.groupby("w").sum()
    y_bytes = nic_bps / 8.0
    busy = (agg["bytes"] + agg["packets"] * (8 + ipg_bytes)) / y_bytes
    payload = agg["packets"] * payload_per_frame
    x_bytes = payload / base_rtt_s
    return pd.DataFrame(
        {
            "window_start_s": agg.index.to_numpy() * base_rtt_s,
            "frames": agg["packets"].to_numpy(dtype=np.int64),
            "x_mbps": (x_bytes * 8 / MBPS).to_numpy(),
            "busy_ms": (busy * 1e3).to_numpy(),
            "z_bytes": ((y_bytes - x_bytes) * busy).to_numpy(),
        }
    )


def finished_stats(runs: pd.DataFrame, with_std: bool = False) -> dict[str, Any]:
    """Runs, finished runs and the trial statistics of the finished runs' ``throughput_mbps``
    (spec 03 §3: mean, normalized std, min, max, median; with ``with_std`` the sample std)."""
    done = runs[runs["finished"]]["throughput_mbps"].to_numpy(dtype=float)
    st = trial_stats(done) if len(done) else dict.fromkeys(("min", "max", "median", "mean", "std", "norm_std"), math.nan)
    row: dict[str, Any] = {
        "runs": len(runs),
        "finished": int(len(done)),
        "mean_mbps": st["mean"],
        "norm_std": st["norm_std"],
        "min_mbps": st["min"],
        "max_mbps": st["max"],
        "median_mbps": st["median"],
    }
    if with_std:
        row["std_mbps"] = st["std"]
    return row


def finished_check(name: str, finished: pd.Series, where: str) -> Check:
    """Every transfer in ``finished`` (one flag per run or stream) finished; ``where`` says
    within what, in the criterion."""
    return Check.equal(name, int(finished.sum()), len(finished), criterion=f"= {len(finished)} ({where})")


def ipg_count_check(name: str, counts: pd.Series, source: str) -> Check:
    """Every last IPG count lies in the TCP-aware NIC's 23-bit field, [1, 2^23 − 1] (spec 03
    §2.7.6 clamp); ``source`` closes the criterion."""
    inside = int(((counts >= 1) & (counts <= IPG_COUNT_MAX)).sum())
    return Check.equal(name, inside, len(counts), criterion=f"= {len(counts)} ({source})")
