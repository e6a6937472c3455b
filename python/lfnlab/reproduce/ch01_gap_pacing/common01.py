"""Shared pieces of 01.E1–01.V1: the pacing cases, the analytic bounds of spec 01 §2.1–2.3,
values read from a run's summary, and the check of the emulator's port A (spec 01 §2.8).

Everything here is pure (no run): the formulas are unit-tested on their own.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from .. import measure
from ..measure import wire_bound_bps
from ..outcome import Check
from .path01 import BOTTLENECK, FLOW, FRAME_BYTES, NIC_BYTES_PER_S, WIRE_BYTES

__all__ = [
    "Pacing",
    "PACINGS",
    "VARIANT_NAMES",
    "MB",
    "NIC_FRAME_BYTES_PER_S",
    "goodput_bound",
    "frame_rate_bound",
    "target_rate",
    "mean_target_rate",
    "window_cap_bytes",
    "window_scale_shift",
    "advertised_window",
    "queue_entry",
    "host_entry",
    "flow_entry",
    "port_a_check",
]

#: MB/s are decimal (spec 01 §2.1): 10^6 bytes/s.
MB = 1e6
#: Largest window a 16-bit field carries before scaling (RFC 7323 §2.2; spec 06 §2.3 rule 3).
WINDOW_FIELD_MAX = 65535
#: Largest window-scale shift (RFC 7323 §2.3).
WINDOW_SCALE_MAX = 14

VARIANT_NAMES = {"scalable": "Scalable TCP", "fast": "FAST TCP"}


@dataclass(frozen=True)
class Pacing:
    """One pacing case of E2/E3: the flow's ``pacing`` kind, a short run-label part,
    the paper's column letter and a caption."""

    kind: str
    short: str
    column: str
    caption: str


#: (a) and (b) are the paper's columns (spec 01 §3 E2); (c) fq/EDT is the modern Linux
#: baseline the issue adds beside them.
PACINGS = (
    Pacing("off", "off", "a_without_pacing", "(a) without pacing"),
    Pacing("gap_packets", "gap", "b_with_pacing", "(b) with gap pacing"),
    Pacing("fq", "fq", "c_fq_edt", "(c) fq/EDT pacing"),
)


def goodput_bound(c_bytes_per_s: float) -> float:
    """Largest goodput through a shaper of C wire bytes/s: C·1448/1538 (full-size segments,
    spec 01 §2.1, §2.8 shaper accounting). 58.84 MB/s at C = 62.5 MB/s. The ratio is
    the spec 06 §1.2 wire-efficiency bound, whatever the unit of C."""
    return wire_bound_bps(c_bytes_per_s)


def frame_rate_bound(wire_bytes_per_s: float) -> float:
    """Frame bytes/s of full-size frames on a line of this wire rate: ·1518/1538 (what monitor
    M counts at that rate, spec 01 §2.8 monitor bytes)."""
    return wire_bytes_per_s * FRAME_BYTES / WIRE_BYTES


def target_rate(cwnd_segments: Any, srtt_s: Any, packet_size: float = WIRE_BYTES) -> Any:
    """Equation (1) of spec 01 §2.2: cwnd·packet_size/RTT, wire bytes/s (arrays allowed)."""
    return np.asarray(cwnd_segments, dtype=float) * packet_size / np.asarray(srtt_s, dtype=float)


def mean_target_rate(tcp: pd.DataFrame, flow: str = FLOW) -> float:
    """Mean over the trace bins of equation (1) evaluated with each bin's end-of-bin cwnd and
    srtt (bins before the first RTT sample are skipped), wire bytes/s; NaN without a sample."""
    rows = tcp[tcp["flow"] == flow]
    srtt = rows["srtt"].to_numpy(dtype=float)
    cwnd = rows["cwnd"].to_numpy(dtype=float)
    ok = np.isfinite(srtt) & (srtt > 0) & np.isfinite(cwnd)
    if not ok.any():
        return math.nan
    return float(np.mean(target_rate(cwnd[ok], srtt[ok])))


def window_cap_bytes(rate_bytes_per_s: float, rtt_s: float) -> float:
    """Spec 01 §3 E4 case 2: the window whose payload rate equals that of a flow paced at
    ``rate`` wire bytes/s: rate·(1448/1538)·RTT (≈ 11,768,530 B at 62.5 MB/s, 200 ms)."""
    return goodput_bound(rate_bytes_per_s) * rtt_s


def window_scale_shift(window_bytes: float) -> int:
    """s_w = smallest value in 0…14 with 65535·2^s_w ≥ the window (spec 06 §2.3 rule 3)."""
    for s in range(WINDOW_SCALE_MAX + 1):
        if WINDOW_FIELD_MAX * 2**s >= window_bytes:
            return s
    return WINDOW_SCALE_MAX


def advertised_window(buffer_bytes: float, phi: float = 1.0) -> int:
    """The largest window an empty receive buffer offers: ⌊φ·B/2^s⌋·2^s (spec 06 §2.3 rule 2;
    φ = 1 under ``rwnd_policy = full_buffer``). 11,768,320 B for B = 11,768,531 B (s = 8)."""
    s = window_scale_shift(phi * buffer_bytes)
    return int(math.floor(phi * buffer_bytes / 2**s)) * 2**s


def queue_entry(summary: Mapping[str, Any], name: str = BOTTLENECK) -> Mapping[str, Any]:
    """The summary's entry of one queue (default: the emulator's TailDrop FIFO)."""
    return measure.queue_entry(summary, name)


def host_entry(summary: Mapping[str, Any], name: str = "snd") -> Mapping[str, Any]:
    """The summary's DMA/memory counters of one host (default: the sender)."""
    return measure.host_entry(summary, name)


def flow_entry(summary: Mapping[str, Any], name: str = FLOW) -> Mapping[str, Any]:
    """The summary's entry of one flow (default: the path's flow)."""
    return measure.flow_entry(summary, name)


def port_a_check(m_frames: pd.Series, fifo_enqueued: pd.Series, taildrops: pd.Series, why: str) -> Check:
    """Spec 01 §2.8: every frame monitor M counts at the emulator's port A is either enqueued
    in or tail-dropped by the FIFO. One value per run; the check counts the runs where it
    holds, ``why`` ends its criterion."""
    n = len(m_frames)
    return Check.equal(
        "runs where monitor M frames = FIFO enqueued + TailDrops",
        int((m_frames == fifo_enqueued + taildrops).sum()),
        n,
        criterion=f"= {n} ({why})",
    )


#: The NIC line rate in frame bytes of full-size frames, as monitor M sees it (≈ 123.4 MB/s).
NIC_FRAME_BYTES_PER_S = frame_rate_bound(NIC_BYTES_PER_S)
