"""The emulated WAN path of spec 01 §2.8 and the host model of §2.7, built as a scenario dict.

Forward: sender ``snd`` → GbE access link (no delay) → emulator ``wan`` (monitor M at its
ingress, then a drop-tail FIFO of B bytes, then the shaper at C with RTT/2 delay) → ``rcv``.
Reverse: ``rcv`` → ``wan`` → ``snd`` at the GbE line rate, RTT/2 delay and no queue limit.

The shaper is the ``wan->rcv`` link: it serializes each frame's wire bytes (frame + 20) at C,
the spec's shaper accounting. The monitor M is ``[[monitor]] link = "snd->wan"`` with
``point = "ingress"``: frames counted as they arrive at the emulator, before its FIFO; gap
frames never get there (absorbed by the emulator's MAC, spec 01 §2.3).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Optional

from ... import build as b
from ...scenario import Scenario
from .. import quantities as q
from ..measure import WIRE_OVERHEAD_BYTES
from ..measure import MSS_BYTES, WIRE_BYTES

__all__ = [
    "BOTTLENECK",
    "MONITOR_M",
    "FLOW",
    "NIC_BYTES_PER_S",
    "WIRE_BYTES",
    "FRAME_BYTES",
    "MSS_BYTES",
    "HOST_TCP",
    "path_scenario",
    "ipg_qdisc",
]

#: The emulator's FIFO and shaper toward the receiver (the TailDrop queue).
BOTTLENECK = "wan->rcv"
#: Monitor M: frames arriving at the emulator's port A.
MONITOR_M = "snd->wan"
FLOW = "f"
#: GbE NIC line rate in wire bytes per second (spec 01 §2.1 max_rate).
NIC_BYTES_PER_S = 125e6
#: Full-size data segment: IP 1500 B, frame 1518 B, wire 1538 B, payload 1448 B (spec 01 §2.1,
#: the framing of spec 06 §1.2 that path06 already names).
FRAME_BYTES = WIRE_BYTES - WIRE_OVERHEAD_BYTES
#: spec 01 §2.7: Linux 2.4-like host; the profile gives initial cwnd 2, RTO min 200 ms,
#: delayed ACK every 2nd segment or 40 ms; the paper's WAD_IFQ setting is `block`.
HOST_TCP: dict[str, Any] = {"iw": "2", "send_stall_policy": "block", "sack": True, "timestamps": True}
PROFILE = "linux-2.4"


def ipg_qdisc(**keys: Any) -> dict[str, Any]:
    """An ``ipg`` host qdisc table with the given keys (e.g. ``rate_source="fixed", rate="62.5MB/s"``)."""
    return {"kind": "ipg", **keys}


def path_scenario(
    name: str,
    *,
    cc: str,
    pacing: str,
    buffer_bytes: float,
    duration_s: float,
    c_bytes_per_s: float = 62.5e6,
    rtt_s: float = 0.2,
    qdisc: Optional[Mapping[str, Any]] = None,
    sndbuf_bytes: float = 32 * 2**20,
    rcvbuf_bytes: float = 32 * 2**20,
    tcp: Optional[Mapping[str, Any]] = None,
    cc_params: Optional[Mapping[str, Any]] = None,
    trace_bin_s: Optional[float] = None,
    monitor_bin_s: Optional[float] = None,
    queue_bin_s: Optional[float] = None,
    seed: int = 1,
) -> Scenario:
    """The §2.8 path with one ``tcp_bulk`` flow ``f`` from ``snd`` to ``rcv``.

    ``pacing`` is the flow's pacing kind: ``off`` (pfifo), ``gap_packets`` (the ipg qdisc,
    configured by ``qdisc``, default single class with ``rate_source = tcp_estimate``) or
    ``fq`` (fq/EDT, the modern baseline). ``trace_bin_s`` sets the tcp.parquet bin,
    ``monitor_bin_s`` adds monitor M (500 µs in the paper), ``queue_bin_s`` a monitor on the
    emulator FIFO (its drops per bin).
    """
    if pacing != "gap_packets" and qdisc is not None:
        raise ValueError("qdisc applies to gap_packets pacing")
    trace = b.Trace(mode="bin", bin=q.time(trace_bin_s) if trace_bin_s is not None else "100ms")
    net = b.Network(b.Sim(name, duration=q.time(duration_s), seed=seed, trace=trace))
    host_qdisc = (dict(qdisc) if qdisc is not None else ipg_qdisc()) if pacing == "gap_packets" else None
    snd = net.add(b.Host("snd", mtu=1500, nic_rate="1Gbps", txqueuelen=1000, qdisc=host_qdisc))
    wan = net.add(b.Emulator("wan"))
    rcv = net.add(b.Host("rcv", mtu=1500, profile=PROFILE))
    net.add(b.Link(snd, wan, rate="1Gbps", delay="0s"))
    # Reverse path at line rate, no queue limit (spec 01 §2.8).
    net.add(b.Link(wan, rcv, rate=q.rate(c_bytes_per_s * 8), delay=q.time(rtt_s / 2.0), reverse_rate="1Gbps", queue=b.DropTail(limit=q.size(buffer_bytes))))
    net.add(
        b.Flow(
            FLOW,
            snd,
            rcv,
            kind="tcp_bulk",
            cc=cc,
            profile=PROFILE,
            sndbuf=q.size(sndbuf_bytes),
            rcvbuf=q.size(rcvbuf_bytes),
            tcp={**HOST_TCP, **(tcp or {})},
            cc_params=cc_params or None,
            pacing={"kind": pacing},
        )
    )
    if monitor_bin_s is not None:
        net.add(b.Monitor(snd, wan, bin=q.time(monitor_bin_s), point="ingress"))
    if queue_bin_s is not None:
        net.add(b.Monitor(wan, rcv, bin=q.time(queue_bin_s)))
    return net.scenario()
