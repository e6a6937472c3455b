"""Values read from run outputs: trace columns at a time, goodput over an interval,
link utilization from a monitor."""

from __future__ import annotations

from typing import TYPE_CHECKING, Optional

import numpy as np

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["flow_rows", "value_at", "goodput_bps", "wire_bits", "first_index"]

#: Slack when matching a trace time to an interval edge, s (bin ends are sums of floats).
TIME_EPS_S = 1e-9
#: Preamble/SFD 8 B + IPG 12 B added to an L2 frame on the wire (spec 06 §1.2).
WIRE_OVERHEAD_BYTES = 20


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
