"""The measures every chapter shares, once: Ethernet framing (with the engine's own
constants), the window fraction φ, a run summary's entries, and values read from run
outputs (trace columns at a time, goodput over an interval, link utilization from a monitor)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Callable, Optional

import numpy as np

from .. import _native
from .outcome import Check

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "WIRE_OVERHEAD_BYTES",
    "L2_OVERHEAD_BYTES",
    "MIN_FRAME_BYTES",
    "l2_bytes",
    "wire_bytes",
    "TCP_HEADER_BYTES",
    "h_ip",
    "mss_eff",
    "MSS_BYTES",
    "WIRE_BYTES",
    "wire_bound_bps",
    "phi",
    "flow_entry",
    "queue_entry",
    "host_entry",
    "flow_rows",
    "value_at",
    "goodput_bps",
    "wire_bits",
    "first_index",
    "ran_whole",
    "conserved",
    "run_checks",
]

#: Slack when matching a trace time to an interval edge, s (bin ends are sums of floats).
TIME_EPS_S = 1e-9
#: Preamble/SFD 8 B + IPG 12 B added to an L2 frame on the wire (spec 06 §1.2): W = L2 + 20.
WIRE_OVERHEAD_BYTES: int = _native.PREAMBLE_AND_GAP_BYTES
#: MAC header and FCS around an IP packet: L2 = L3 + 18 (spec 04 §2.2).
L2_OVERHEAD_BYTES: int = _native.MAC_OVERHEAD_BYTES
#: The shortest Ethernet frame.
MIN_FRAME_BYTES: int = _native.MIN_FRAME_BYTES


def l2_bytes(l3_bytes: int) -> int:
    """L2 = max(L3 + 18, 64) (spec 04 §2.2, spec 05 §2.1)."""
    return max(l3_bytes + L2_OVERHEAD_BYTES, MIN_FRAME_BYTES)


def wire_bytes(l3_bytes: int) -> int:
    """W = L2 + 20: 1538 for a 1500-byte IP packet."""
    return l2_bytes(l3_bytes) + WIRE_OVERHEAD_BYTES


#: TCP header with the timestamp option (timestamps on by default, spec 04 §2.2, spec 06 §1.2).
TCP_HEADER_BYTES = 32


def h_ip(ip_version: int) -> int:
    """IP header bytes: 20 (IPv4), 40 (IPv6 without extension headers)."""
    if ip_version not in (4, 6):
        raise ValueError(f"ip_version must be 4 or 6, got {ip_version!r}")
    return 20 if ip_version == 4 else 40


def mss_eff(mtu: int, ip_version: int = 4) -> int:
    """MSS_eff = MTU − h_ip − 32 (timestamps on): 1448 for 1500 over IPv4, 9126 for 9198 over IPv6."""
    return mtu - h_ip(ip_version) - TCP_HEADER_BYTES


#: Payload of a full segment, MTU 1500 over IPv4 with timestamps: 1448 (spec 06 §1.2).
MSS_BYTES = mss_eff(1500)
#: Wire footprint of a 1500-B packet: L2 1518 + preamble/SFD 8 + IPG 12 = 1538 (spec 06 §1.2).
WIRE_BYTES = wire_bytes(1500)


def wire_bound_bps(c_bps: float) -> float:
    """Goodput ceiling of a link at ``c_bps`` carrying full 1500-byte packets:
    C·MSS/W = C·1448/1538 (spec 06 §1.2)."""
    return c_bps * MSS_BYTES / WIRE_BYTES


def phi(adv_win_scale: int) -> float:
    """The window fraction φ = 1 − 2^−s for s ≥ 1, 2^s for s ≤ 0 (spec 06 §2.3, spec 04 §2.8):
    the share of the receive buffer Linux advertises (``tcp_adv_win_scale``)."""
    return 1.0 - 2.0**-adv_win_scale if adv_win_scale >= 1 else 2.0**adv_win_scale


def _entry(entries: Any, name: str, what: str) -> Mapping[str, Any]:
    for e in entries:
        if e.get("name") == name:
            return e
    raise KeyError(f"summary has no {what} {name!r}")


def flow_entry(summary: Mapping[str, Any], name: str) -> Mapping[str, Any]:
    """The summary's entry of flow ``name``."""
    return _entry(summary["flows"], name, "flow")


def queue_entry(summary: Mapping[str, Any], name: str) -> Mapping[str, Any]:
    """The summary's entry of queue ``name`` (``a->b``)."""
    return _entry(summary["queues"], name, "queue")


def host_entry(summary: Mapping[str, Any], name: str) -> Mapping[str, Any]:
    """The summary's DMA/memory counters of host ``name`` (spec 01 §2.6), totalled over the run."""
    return _entry(summary["hosts"], name, "host")


def flow_rows(tcp: pd.DataFrame, flow: str) -> pd.DataFrame:
    """The trace rows of one flow, in time order (stable: event rows keep their order)."""
    rows = tcp[tcp["flow"] == flow]
    return rows.sort_values("t", kind="stable").reset_index(drop=True)


def value_at(rows: pd.DataFrame, column: str, t_s: float, default: Optional[float] = None) -> float:
    """Value of ``column`` at the last row with ``t ≤ t_s`` (a cumulative counter's value at t_s);
    ``default`` if there is no such row (0 for a counter before the first row), else ValueError."""
    t = rows["t"].to_numpy(dtype=float)
    i = int(np.searchsorted(t, t_s + TIME_EPS_S, side="right"))
    if i == 0:
        if default is not None:
            return default
        raise ValueError(f"no trace row at or before t = {t_s} s")
    return float(rows[column].iloc[i - 1])


def goodput_bps(rows: pd.DataFrame, a_s: float, b_s: float) -> float:
    """Goodput over [a, b]: payload bytes read by the receiving application (``bytes_read``,
    spec 06 §1.1 "goodput") · 8 / (b − a)."""
    read_b = value_at(rows, "bytes_read", b_s, default=0.0)
    read_a = value_at(rows, "bytes_read", a_s, default=0.0)
    return (read_b - read_a) * 8.0 / (b_s - a_s)


def wire_bits(flows: pd.DataFrame, monitor: str, a_s: float, b_s: float) -> float:
    """Wire bits that left a monitored egress in the bins starting in [a, b):
    (L2 bytes + 20 B per frame) · 8 (the monitor counts L2 frames, docs/choices.md)."""
    rows = flows[(flows["monitor"] == monitor) & (flows["t"] >= a_s - TIME_EPS_S) & (flows["t"] < b_s - TIME_EPS_S)]
    return float((rows["bytes"].sum() + WIRE_OVERHEAD_BYTES * rows["packets"].sum()) * 8)


def first_index(values: np.ndarray) -> int:
    """Index of the first true element; -1 if none."""
    hits = np.flatnonzero(values)
    return int(hits[0]) if len(hits) else -1


def ran_whole(summary: Mapping[str, Any], duration_s: float) -> bool:
    """The run covered its simulated duration: no limit stopped it early (summary ``duration_s``)."""
    return abs(float(summary["duration_s"]) - duration_s) <= TIME_EPS_S


def conserved(summary: Mapping[str, Any]) -> bool:
    """Packet conservation holds over the run (summary ``conservation.holds``, spec 06 §7 V5)."""
    return bool(summary["conservation"]["holds"])


def _source_summary(field: str) -> str:
    return f"summary {field}"


def run_checks(
    finished: Sequence[bool],
    conserving: Sequence[bool],
    what: str = "runs",
    whole: str = "their whole duration",
    source: Callable[[str], str] = _source_summary,
) -> list[Check]:
    """The two checks every experiment makes of its runs: each ran for its whole duration
    (:func:`ran_whole`) and conserved packets (:func:`conserved`). ``what`` names the runs,
    ``whole`` the duration, and ``source(field)`` says in the criterion where each count
    comes from (``field`` is ``duration_s`` or ``conservation.holds``)."""
    n = len(finished)
    if len(conserving) != n:
        raise ValueError(f"run_checks: {n} durations but {len(conserving)} conservation flags")
    return [
        Check.equal(f"{what} that ran for {whole}", sum(map(bool, finished)), n, criterion=f"= {n} ({source('duration_s')})"),
        Check.equal(f"{what} whose packet conservation holds", sum(map(bool, conserving)), n, criterion=f"= {n} ({source('conservation.holds')})"),
    ]
