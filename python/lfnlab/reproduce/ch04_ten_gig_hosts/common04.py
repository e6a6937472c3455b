"""Shared pieces of the chapter 04 reproductions: the per-run measurements of spec 04 §2.13
(read inside the worker thread), seed statistics, the window-limited rate and its measurement
allowance, the cases of one point (one per seed), and the pieces every E4 analysis shares: the
outcome it starts from (the run checks), the per-point rows over the seeds, the expectations
table and the notes every E4 report closes with.

Everything here except :func:`keeper` is pure.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Callable

import numpy as np

from ...result import Result
from ..engine import Case
from ..measure import conserved, flow_rows, phi, ran_whole, run_checks
from ..outcome import Check, Outcome, Table, expectations_table
from .path04 import (
    EDGE_TO_RECEIVER,
    FLOW,
    MIB,
    MTU_JUMBO,
    RECEIVER,
    SENDER,
    SENDER_QDISC,
    TO_RECEIVER,
    TO_RECEIVER_EDGE,
    TRACE_BIN_S,
    app_rx_bins,
    bdp_bytes,
    first_data_s,
    l2_bytes,
    mss_eff,
    sustained_rate_bps,
    t4p_scenario,
    t_up_s,
    wire_bytes,
)

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "GBPS",
    "SATURATED",
    "phi",
    "window_rate_bps",
    "k_bdp_bytes",
    "edge_allowance",
    "cap_goodput_bps",
    "cap_check",
    "keeper",
    "seed_label",
    "seed_labels",
    "t4p_cases",
    "seed_runs",
    "seed_point",
    "expectations_entry",
    "seed_stats",
    "point_row",
    "conservation_check",
    "run_outcome",
    "NOT_BUILT_NOTE",
    "SEEDS_NOTE",
    "CLOSING_NOTES",
    "buffer_text",
    "stall_note",
]

GBPS = 1e9
#: A core counts as saturated at or above this busy share of the steady window (CHOICE).
SATURATED = 0.99
#: Router egress queues of T4-P, as the summary names them.
ROUTER_QUEUES = ("rs->rr", "rr->hr", "rr->rs", "rs->hs", "rr->er", "rs->es", "es->rs", "er->hr", "er->rr", "es->hs")

#: What the engine does not model yet, for every E4 report (docs/ten-gig-hosts.md).
NOT_BUILT_NOTE = (
    "Both hosts run the CPU model of spec 04 §2.7 with every cost at its default (the spec's Opteron 248, "
    "application and interrupts on core 0, `w = r = 128 KiB`); the summary's `host_cpus` holds the time per "
    "core and category. T4-P's edges are passthrough (§2.11 default): its routers honour PAUSE and send none. "
    "Not in the tables yet: the socket-buffer drop counter `rcvbuf_drop`."
)
#: How the seeds of one point differ.
SEEDS_NOTE = (
    "The only random choice of spec 04 §2 on the emulated path is the CPU cost jitter (±5 % per work item), "
    "so the seeds of one point differ only through it (the `distinct_runs` column counts different event hashes)."
)
#: The notes an E4 report closes with (E4.7, whose points differ in more than the jitter, has only the first).
CLOSING_NOTES = (NOT_BUILT_NOTE, SEEDS_NOTE)


def window_rate_bps(buffer_bytes: float, rtt_s: float, adv_win_scale: int = 1) -> float:
    """Goodput of a flow held by its advertised window: φ·B_rcv·8/RTT (spec 04 §4 "roughly as
    φ·B/RTT"); infinite at RTT 0."""
    return math.inf if rtt_s <= 0 else phi(adv_win_scale) * buffer_bytes * 8.0 / rtt_s


def k_bdp_bytes(k: float, rate_bps: float, rtt_s: float, floor_bytes: float = 0.0) -> float:
    """B = max(k·BDP, floor) in whole bytes, BDP = rate·RTT/8 (§2.13): the E4 buffer sizes."""
    return float(max(round(k * bdp_bytes(rate_bps, rtt_s)), floor_bytes))


def edge_allowance(rtt_s: float, steady_s: float) -> float:
    """Relative error of a rate read from ``bytes_read`` at the two ends of the steady window
    when data arrive in one burst per RTT: at most one window at each end, i.e. RTT/steady of
    the mean (the bound used on the high side of the window-limited checks)."""
    return rtt_s / steady_s if steady_s > 0 else math.inf


def cap_goodput_bps(cap_bps: float, mtu: int = MTU_JUMBO) -> float:
    """Goodput ceiling of a sender NIC capped at ``cap_bps`` in wire bytes: cap·MSS_eff/W over
    IPv6 (spec 04 §2.6 rule 3)."""
    return cap_bps * mss_eff(mtu, 6) / wire_bytes(mtu)


def cap_check(what: str, rate_gbps: float, cap_bps: float, steady_s: float) -> Check:
    """``rate_gbps`` (the largest sustained rate of capped runs, MTU 9198) is at most
    cap·MSS_eff/W, plus one segment per end of the steady window (the rate is read from the
    cumulative bytes read at two instants)."""
    bound = cap_goodput_bps(cap_bps) / GBPS
    allowance = 2 * mss_eff(MTU_JUMBO, 6) * 8 / steady_s / GBPS
    return Check.within(
        what,
        rate_gbps,
        None,
        bound + allowance,
        unit="Gbit/s",
        criterion=f"≤ cap·MSS_eff/W = {bound:.5f} Gbit/s (+ 2 segments over the steady window)",
    )


def seed_label(case: str, seed: int) -> str:
    """``case-s01``: the run label of one seed of one point."""
    return f"{case}-s{seed:02d}"


def seed_labels(case: str, seeds: int) -> list[tuple[str, int]]:
    """(label, seed) of every seed of one point, seeds 1 … ``seeds`` (spec 04 §3: each point
    runs the same scenario with several seeds)."""
    return [(seed_label(case, s), s) for s in range(1, seeds + 1)]


def t4p_cases(experiment_id: str, case: str, seeds: int, keep: Callable[[Result], Any], **keys: Any) -> list[Case]:
    """The cases of one point on T4-P, one per seed: label ``<case>-sNN``, scenario
    ``<experiment_id>-<label>`` from :func:`.path04.t4p_scenario` with ``keys`` and the seed."""
    return [Case(label, t4p_scenario(f"{experiment_id}-{label}", seed=s, **keys), keep) for label, s in seed_labels(case, seeds)]


def seed_runs(kept: Mapping[str, Mapping[str, Any]], case: str, seeds: int) -> list[Mapping[str, Any]]:
    """What was kept of each seed of one point, in seed order."""
    return [kept[label] for label, _ in seed_labels(case, seeds)]


def expectations_entry(rows: Sequence[Mapping[str, str]], what: str = "Spec 04 §4") -> Table:
    """The ``expectations`` table of an E4 report from its :func:`expectation` rows: the spec's
    sentences against the runs."""
    return Table("expectations", f"{what} against the runs (qualitative, not checks).", expectations_table(rows))


def buffer_text(nbytes: float) -> str:
    """``64MiB`` for whole MiB, else whole KiB or bytes: for run labels."""
    n = int(round(nbytes))
    if n % MIB == 0:
        return f"{n // MIB}MiB"
    if n % 1024 == 0:
        return f"{n // 1024}KiB"
    return f"{n}B"


def _entries(items: Sequence[Mapping[str, Any]], key: str) -> dict[str, Mapping[str, Any]]:
    return {str(x[key]): x for x in items}


def stall_fields(last: Mapping[str, Any], flow: Mapping[str, Any]) -> dict[str, Any]:
    """The sender's qdisc overflows and CWR entries (spec 04 §2.9, from the flow's last
    trace row) and the cwnd (segments) when slow start ended, NaN if it never did (spec 04
    §2.13 trace): the three figures every chapter-04 report uses to name a send stall."""
    return {
        "send_stalls": int(last["send_stalls"]),
        "cwr_entries": int(last["cwr_entries"]),
        "ss_exit_cwnd": math.nan if flow.get("slow_start_exit_cwnd") is None else float(flow["slow_start_exit_cwnd"]),
    }


def keeper(
    duration_s: float,
    mtu: int,
    *,
    steady_fraction: float = 0.5,
    rate_bin_s: float = 1.0,
    trace: bool = False,
    router_trace: bool = False,
) -> Callable[[Result], dict[str, Any]]:
    """``keep`` of a T4-P :class:`~..engine.Case`: the spec 04 §2.13 values of one T4-P run.

    ``trace`` also keeps the 100 ms series of cwnd and app_rx_rate (for figures);
    ``router_trace`` the per-bin router queue toward the receiver (needs the run's monitor)."""

    def keep(r: Result) -> dict[str, Any]:
        s = r.summary
        rows = flow_rows(r.tcp, FLOW)
        bins = app_rx_bins(rows, duration_s, rate_bin_s)
        sustained = sustained_rate_bps(rows, duration_s, steady_fraction)
        steady = bins[bins["t_start"] >= duration_s * (1.0 - steady_fraction) - 1e-9]["rate_bps"]
        first = first_data_s(rows)
        nics = _entries(s["host_nics"], "host")
        queues = _entries(s["queues"], "name")
        ports = _entries(s["pause_ports"], "name")
        flow = next(f for f in s["flows"] if f["name"] == FLOW)
        last = rows.iloc[-1]
        after = rows[rows["t"] > duration_s * (1.0 - steady_fraction) + 1e-9]
        egress = {name: int(queues[name]["dropped"]) for name in ROUTER_QUEUES if name in queues}
        # Passthrough edges (§2.11 default) or edge switches: R_r's queue toward the receiver, and
        # the port H_r's PAUSE stops.
        to_rx = TO_RECEIVER if TO_RECEIVER in queues else TO_RECEIVER_EDGE
        paused_port = TO_RECEIVER if TO_RECEIVER in queues else EDGE_TO_RECEIVER
        out: dict[str, Any] = {
            "sustained_bps": sustained,
            "peak_bps": float(bins["rate_bps"].max()) if len(bins) else math.nan,
            "std_bps": float(steady.std(ddof=0)) if len(steady) else math.nan,
            "t_up_s": t_up_s(bins, sustained, first),
            "first_data_s": first,
            "rx_fifo_drop": int(nics[RECEIVER]["rx_fifo_drop"]),
            "rx_fifo_drop_sender": int(nics[SENDER]["rx_fifo_drop"]),
            "egress_drop": int(sum(egress.values())),
            "egress_drop_to_receiver": egress.get(to_rx, 0),
            "qdisc_drop": int(queues[SENDER_QDISC]["dropped"]),
            "router_queue_max_bytes": int(queues[to_rx]["max_bytes"]),
            "qdisc_max_bytes": int(queues[SENDER_QDISC]["max_bytes"]),
            "qdisc_max_packets": int(queues[SENDER_QDISC]["max_bytes"]) // l2_bytes(mtu),
            "pause_xoff_sent": int(nics[RECEIVER]["pause_xoff_sent"]),
            "pause_xoff_sent_sender": int(nics[SENDER]["pause_xoff_sent"]),
            "paused_s": float(ports[paused_port]["paused_s"]) if paused_port in ports else 0.0,
            "edge_held_max_bytes": max((int(g["held_max_bytes"]) for g in s.get("switch_pause", [])), default=0),
            "bus_busy_receiver": float(nics[RECEIVER]["bus_busy_fraction"]),
            "retransmitted": int(flow["retransmitted_segments"]),
            "timeouts": int(flow["timeouts"]),
            "fast_retransmits": int(flow["fast_retransmits"]),
            **stall_fields(last, flow),
            "m_used_max_bytes": float(rows["m_used"].max()),
            "srtt_mean_s": float(after["srtt"].mean()) if len(after) else math.nan,
            "min_rtt_s": float(last["min_rtt"]),
            "tx_rate_cap_bps": nics[SENDER]["tx_rate_cap_bps"],
            "tx_rate_cap_clamped": bool(nics[SENDER]["tx_rate_cap_clamped"]),
            "conservation_holds": conserved(s),
            "ran_whole_duration": ran_whole(s, duration_s),
            "event_hash": str(s["event_hash"]),
        }
        if trace:
            fine = app_rx_bins(rows, duration_s, TRACE_BIN_S)
            cw = rows[["t", "cwnd"]]
            out["trace"] = {
                "t_end": fine["t_end"].to_numpy(),
                "rate_bps": fine["rate_bps"].to_numpy(),
                "cwnd_t": cw["t"].to_numpy(dtype=float),
                "cwnd": cw["cwnd"].to_numpy(dtype=float),
            }
        if router_trace:
            qq = r.queues[r.queues["queue"] == TO_RECEIVER]
            out["router_trace"] = {"t": qq["t"].to_numpy(dtype=float), "bytes": qq["bytes"].to_numpy(dtype=float)}
        return out

    return keep


def stall_note(table: pd.DataFrame, where: Sequence[str]) -> list[str]:
    """A note naming the points whose sender stalled (qdisc full → CWR, spec 04 §2.9), if any:
    the mechanism that holds long-RTT runs below the receiver limit after slow start."""
    stalled = table[table["send_stalls"] > 0]
    if stalled.empty:
        return []
    def show(v: Any) -> str:
        return f"{v:g}" if isinstance(v, (int, float, np.integer, np.floating)) else str(v)

    points = "; ".join(", ".join(f"{c} {show(r[c])}" for c in where) for _, r in stalled.iterrows())
    return [
        f"Send stalls (qdisc full, CWR with `cwr_gradual`) at {len(stalled)} of {len(table)} points: {points}. In slow "
        "start each ACK releases the segments it acknowledges and as many again: 2 per segment while a Linux 2.6 "
        "receiver ACKs every segment as its window grows (tcp_grow_window, issue 39 item 7), 1.5 once it ACKs every "
        "other. When that outruns what the sender's own NIC path drains (its 10 Gbit/s line rate once the delivery rate "
        "passes half of it, a rate cap, or the sender's bus when it is shared) the excess piles up in the sender's qdisc "
        "rather than in the router, and the qdisc overflows if a round lasts long enough. CWR then cuts cwnd to the BIC "
        "decrease of the stall window, and BIC 2.6.12 regrows by about 16 segments per RTT (its increase counts ACKs), "
        "so at long RTT the run can end below the receiver limit."
    ]


def seed_stats(runs: Sequence[Mapping[str, Any]], key: str) -> dict[str, float]:
    """Mean, min and max of one value over the seeds of a point (spec 04 §3 "report mean and
    min–max")."""
    a = np.asarray([float(r[key]) for r in runs], dtype=float)
    return {"mean": float(a.mean()), "min": float(a.min()), "max": float(a.max())}


def point_row(runs: Sequence[Mapping[str, Any]], keys: Sequence[str]) -> dict[str, Any]:
    """One table row for a point: ``<key>`` = mean over seeds for every key, plus
    ``sustained_Gbps_min/max``, ``seeds`` and ``distinct_runs`` (different event hashes)."""
    row: dict[str, Any] = {"seeds": len(runs), "distinct_runs": len({r["event_hash"] for r in runs})}
    st = seed_stats(runs, "sustained_bps")
    row["sustained_Gbps"] = st["mean"] / GBPS
    row["sustained_Gbps_min"] = st["min"] / GBPS
    row["sustained_Gbps_max"] = st["max"] / GBPS
    for k in keys:
        vals = [r[k] for r in runs]
        if all(isinstance(v, (bool, np.bool_)) for v in vals):
            row[k] = bool(all(vals))
        elif all(isinstance(v, (int, np.integer)) for v in vals):
            row[k] = float(np.mean(vals)) if len(set(vals)) > 1 else int(vals[0])
        else:
            row[k] = float(np.mean([float(v) for v in vals]))
    return row


def seed_point(kept: Mapping[str, Mapping[str, Any]], case: str, seeds: int, keys: Sequence[str]) -> dict[str, Any]:
    """:func:`point_row` of one point from what was kept of its seeds."""
    return point_row(seed_runs(kept, case, seeds), keys)


def conservation_check(kept: Mapping[str, Mapping[str, Any]]) -> list[Check]:
    """Every run covered its duration and conserved packets (summary)."""
    return run_checks(
        [k["ran_whole_duration"] for k in kept.values()], [k["conservation_holds"] for k in kept.values()], source=lambda field: "every run"
    )


def run_outcome(kept: Mapping[str, Mapping[str, Any]]) -> Outcome:
    """The outcome every E4 analysis starts from: its first checks are :func:`conservation_check`
    of every run."""
    out = Outcome()
    out.checks += conservation_check(kept)
    return out
