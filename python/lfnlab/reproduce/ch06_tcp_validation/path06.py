"""The validation path of spec 06 §7, built as a scenario dict.

sender host ``snd`` → access link (10 × C, no delay) → router ``r`` → bottleneck
link (rate C, one-way delay RTT/2 in each direction; drop-tail egress queue of
``r``) → receiver host ``rcv``. The reverse path never drops ACKs (spec 00 §2.2).
Profile ``linux-2.6``, MTU 1500, IPv4, timestamps and SACK unless overridden.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Optional

from ... import build as b
from ...scenario import Scenario
from .. import quantities as q
# The framing of spec 06 §1.2 (full segment, wire footprint, goodput ceiling).
from ..measure import MSS_BYTES, WIRE_BYTES, wire_bound_bps

__all__ = [
    "BOTTLENECK",
    "FLOW",
    "MSS_BYTES",
    "WIRE_BYTES",
    "bdp_bytes",
    "bdp_segments",
    "wire_bound_bps",
    "path_scenario",
]

#: The monitored egress: the router's queue toward the receiver.
BOTTLENECK = "r->rcv"
#: The one TCP flow's name.
FLOW = "f"
#: Access link rate as a multiple of the bottleneck rate (spec 06 §7).
ACCESS_FACTOR = 10


def bdp_bytes(c_bps: float, rtt_s: float) -> float:
    """Bandwidth-delay product C·RTT/8, bytes."""
    return c_bps * rtt_s / 8.0


def bdp_segments(c_bps: float, rtt_s: float) -> float:
    """BDP in wire frames of 1538 B: 1 Gbit/s × 100 ms → 8127.4 (spec 06 §7 V2)."""
    return bdp_bytes(c_bps, rtt_s) / WIRE_BYTES


def path_scenario(
    name: str,
    *,
    rate_bps: float,
    rtt_s: float,
    duration_s: float,
    queue: Mapping[str, Any],
    sndbuf_bytes: float,
    rcvbuf_bytes: float,
    cc: str = "newreno",
    tcp: Optional[Mapping[str, Any]] = None,
    loss: Optional[Mapping[str, Any]] = None,
    trace: Optional[Mapping[str, Any]] = None,
    monitor_bin_s: Optional[float] = None,
    transfer_bytes: Optional[float] = None,
    profile: str = "linux-2.6",
    seed: int = 1,
) -> Scenario:
    """The spec 06 §7 path with one ``tcp_bulk`` flow ``f`` from ``snd`` to ``rcv``.

    ``queue`` is the bottleneck queue table (e.g. ``{"kind": "droptail", "limit": "6250000B"}``),
    ``tcp`` overrides of the profile, ``loss`` the bottleneck link's loss table,
    ``trace`` the ``sim.trace`` table, ``monitor_bin_s`` adds a monitor on ``r->rcv``.
    """
    net = b.Network(b.Sim(name, duration=q.time(duration_s), seed=seed, keys=None if trace is None else {"trace": dict(trace)}))
    snd = net.add(b.Host("snd", mtu=1500))
    r = net.add(b.Router("r"))
    rcv = net.add(b.Host("rcv", mtu=1500))
    net.add(b.Link(snd, r, rate=q.rate(ACCESS_FACTOR * rate_bps), delay="0s"))
    net.add(b.Link(r, rcv, rate=q.rate(rate_bps), delay=q.time(rtt_s / 2.0), queue=queue, loss=loss))
    net.add(
        b.Flow(
            FLOW,
            snd,
            rcv,
            kind="tcp_bulk",
            cc=cc,
            profile=profile,
            sndbuf=q.size(sndbuf_bytes),
            rcvbuf=q.size(rcvbuf_bytes),
            tcp=tcp or None,
            bytes=None if transfer_bytes is None else q.size(transfer_bytes),
        )
    )
    if monitor_bin_s is not None:
        net.add(b.Monitor(r, rcv, bin=q.time(monitor_bin_s)))
    return net.scenario()
