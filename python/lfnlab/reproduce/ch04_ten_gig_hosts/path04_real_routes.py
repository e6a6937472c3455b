"""Topology T4-R of spec 04 §3 E4.7 (real routes, trans-Pacific loops) as a scenario dict.

Both hosts attach to the Tokyo exchange switch X by ``10g_lan`` with PAUSE both ways. Data
leave X, cross the local L3 loop through two domestic routers (U-Tokyo ``ut`` and NTT Otemachi
``ot``; ``10g_lan``; 1 ms of RTT in total), go round the trans-Pacific loop or loops (a
``10g_wan`` circuit out, a far-end switch, a ``10g_wan`` circuit back), and return through X to
H_r. ACKs take the same chain in reverse.

Modelling choices (docs/ten-gig-hosts.md):

- X is two nodes, ``xo`` (toward the loops) and ``xi`` (toward H_r). An output-queued switch's
  egress ports are independent, so the split changes nothing but routing, which could otherwise
  take the direct hop from X to H_r.
- Every intermediate element is an output-queued drop-tail ``router``: X with ``B_X`` = 256 MiB per
  egress, the others with ``B_hop`` = 128 MiB (the far-end switches too). They honour PAUSE. X also
  generates it toward its hosts (spec 04 §2.5, generation by a switch: ``fc.sw_xoff`` = 512 KiB,
  ``fc.sw_peers`` = the host), so PAUSE runs both ways between X and each host; X never pauses a
  circuit or the local loop.
- The routers' 10 µs forwarding latency (``ut`` and ``ot``) is added to the delay of the link
  each leaves by, as in T4-P; the switches add none. The RTT left over after the host cables and
  the local loop is split equally over the trans-Pacific circuits, half in each direction.
- A circuit's Gilbert–Elliott state is one process per trans-Pacific loop, on the data direction
  of its outbound circuit, with the optional capacity factor κ_B (``capacity_bad``) of the Bad
  state on that circuit's data direction; jitter (``j_max``) applies to every circuit, both
  directions.
- Background traffic: Poisson arrivals of 1500-byte IP packets (``udp_cbr`` with
  ``arrivals = "poisson"``) from a host at one hop to a host at the next, in the data direction:
  on the JGN local loop from ``ut`` to ``ot``, and on a JGN circuit from its near to its far end.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Optional

from ... import build as b
from ...scenario import Scenario
from .. import quantities as q
from .path04 import CABLE_DELAY_S, HOST_CPU, MIB, MTU_JUMBO, RECEIVER, SENDER, TRACE_BIN_S, _host, bulk_flow

__all__ = ["Loop", "t4r_dict", "t4r_scenario", "LOCAL_RTT_S", "B_X", "B_HOP", "TO_RECEIVER_X", "JGN_LOCAL"]

#: The local L3 loop's share of the RTT (spec 04 §3 E4.7).
LOCAL_RTT_S = 1e-3
#: Forwarding latency of an intermediate router (spec 04 §2.12).
ROUTER_LATENCY_S = 10e-6
B_X = 256 * MIB
B_HOP = 128 * MIB
#: Frame size of the background traffic (L3).
BG_PACKET_BYTES = 1500
#: X's egress toward H_r, the JGN local-loop segment (monitored).
TO_RECEIVER_X = "xi->hr"
JGN_LOCAL = "ut->ot"


@dataclass(frozen=True)
class Loop:
    """One trans-Pacific loop: a ``10g_wan`` circuit out to the far-end switch ``name`` and one
    back. ``r_bg_bps`` of background rides its outbound circuit (None: no background hosts; 0:
    the hosts are built and stay silent, see :func:`t4r_dict`); ``gilbert`` = (T_G s, T_B s, p_G,
    p_B) puts a Gilbert–Elliott state on that circuit (None: Good only, no loss), whose capacity
    is ``kappa_bad`` times the line rate while Bad (spec 04 §2.12 κ_B; 1 = off)."""

    name: str
    r_bg_bps: Optional[float] = None
    gilbert: Optional[tuple[float, float, float, float]] = None
    kappa_bad: float = 1.0


def _queue(limit_bytes: float) -> b.DropTail:
    return b.DropTail(limit=q.size(limit_bytes))


def _bg_flow(name: str, src: str, dst: str, rate_bps: float) -> b.Flow:
    return b.Flow(name, src, dst, kind="udp_cbr", rate=q.rate(rate_bps), size=BG_PACKET_BYTES, keys={"arrivals": "poisson"})


def t4r_dict(
    name: str,
    *,
    rtt_s: float,
    loops: Sequence[Loop],
    snd_buffer_bytes: float,
    rcv_buffer_bytes: float,
    duration_s: float,
    seed: int = 1,
    tx_rate_cap_bps: Optional[float] = None,
    r_bg_local_bps: Optional[float] = None,
    jitter_s: float = 0.0,
    mtu: int = MTU_JUMBO,
    txqueuelen: int = 10000,
    nic_profile: str = "chelsio_t110",
    monitor_bin_s: float = 1.0,
    cpu: Optional[Mapping[str, Any]] = HOST_CPU,
) -> dict[str, Any]:
    """T4-R with one BIC flow ``bulk`` hs → hr (profile and congestion control as T4-P), as a
    scenario dict. Monitors: X toward H_r (``xi->hr``), the local JGN segment (``ut->ot``) and the
    last far-end switch's egress back toward X.

    Background (``r_bg_local_bps``, each loop's ``r_bg_bps``): None builds no background hosts; a
    rate builds a source and a sink host with their links, and 0 leaves them silent (no flow).
    A background sweep that includes 0 therefore keeps every link at its index, and with it the
    random streams the engine derives from that index (``link[{li}].loss.state`` for the
    Gilbert–Elliott state, crates/lfnlab-core/src/sim/build.rs `link_loss`): every point of the
    sweep sees the same circuit-state timeline (CHOICE, session 37; before, the 0 point had no
    background hosts, its circuit sat two links earlier and drew another timeline)."""
    if not loops:
        raise ValueError("T4-R needs at least one trans-Pacific loop")
    local_one_way = LOCAL_RTT_S / 2.0
    fixed_one_way = 2 * CABLE_DELAY_S + local_one_way + 2 * ROUTER_LATENCY_S
    circuits = 2 * len(loops)
    circuit_one_way = (rtt_s / 2.0 - fixed_one_way) / circuits
    if circuit_one_way <= 0:
        raise ValueError(f"RTT {rtt_s} s is shorter than the local part of T4-R")
    nic: dict[str, Any] = {"profile": nic_profile}
    sender_nic = dict(nic)
    if tx_rate_cap_bps is not None:
        sender_nic["tx_rate_cap"] = q.rate(tx_rate_cap_bps)
    honour = {"honour": True}
    host_keys = {"mtu": mtu, "ip_version": 6, "txqueuelen": txqueuelen, "pause": True, "cpu": cpu}
    nodes: list[b.Node] = [
        _host(SENDER, nic=sender_nic, **host_keys),
        _host(RECEIVER, nic=nic, **host_keys),
        b.Router("xo", fc={**honour, "send": True, "sw_peers": [SENDER]}),
        b.Router("xi", fc={**honour, "send": True, "sw_peers": [RECEIVER]}),
        b.Router("ut", fc=honour),
        b.Router("ot", fc=honour),
    ]
    cable = q.time(CABLE_DELAY_S)
    local_hop = q.time(local_one_way / 2 + ROUTER_LATENCY_S)
    links: list[b.Link] = [
        b.Link(SENDER, "xo", phy="10g_lan", delay=cable, reverse_queue=_queue(B_X)),
        b.Link("xo", "ut", phy="10g_lan", delay=local_hop, queue=_queue(B_X), reverse_queue=_queue(B_HOP)),
        b.Link("ut", "ot", phy="10g_lan", delay=local_hop, queue=_queue(B_HOP), reverse_queue=_queue(B_HOP)),
        b.Link("xi", RECEIVER, phy="10g_lan", delay=cable, queue=_queue(B_X)),
    ]
    flows: list[b.Flow] = [bulk_flow(snd_buffer_bytes, rcv_buffer_bytes)]
    bg_hosts: list[b.Node] = []

    def add_bg(tag: str, near: str, far: str, rate_bps: float) -> None:
        src, dst = f"bg-{tag}-src", f"bg-{tag}-dst"
        for host, at in ((src, near), (dst, far)):
            bg_hosts.append(b.Host(host, mtu=1500))
            links.append(b.Link(host, at, phy="10g_lan", delay=cable, reverse_queue=_queue(B_HOP)))
        if rate_bps < 0:
            raise ValueError(f"background {tag}: rate {rate_bps} bit/s is negative")
        if rate_bps > 0:
            flows.append(_bg_flow(f"bg-{tag}", src, dst, rate_bps))

    if r_bg_local_bps is not None:
        add_bg("local", "ut", "ot", r_bg_local_bps)
    circuit = q.time(circuit_one_way)
    impair = {"impair": {"jitter": q.time(jitter_s)}} if jitter_s > 0 else None
    near = "ot"
    for i, loop in enumerate(loops):
        far = loop.name
        back_to = "xi" if i == len(loops) - 1 else f"tk{i + 1}"
        nodes.append(b.Router(far, fc=honour))
        if back_to != "xi":
            nodes.append(b.Router(back_to, fc=honour))
        loss: Optional[dict[str, Any]] = None
        if loop.gilbert is not None:
            t_g, t_b, p_g, p_b = loop.gilbert
            loss = {"kind": "gilbert_elliott", "t_good": q.time(t_g), "t_bad": q.time(t_b), "p_good": p_g, "p_bad": p_b}
            if loop.kappa_bad != 1.0:
                loss["capacity_bad"] = loop.kappa_bad
        links.append(b.Link(near, far, phy="10g_wan", delay=circuit, queue=_queue(B_HOP), reverse_queue=_queue(B_HOP), loss=loss, keys=impair))
        back_queue = _queue(B_X if back_to == "xi" else B_HOP)
        links.append(b.Link(far, back_to, phy="10g_wan", delay=circuit, queue=_queue(B_HOP), reverse_queue=back_queue, keys=impair))
        if loop.r_bg_bps is not None:
            add_bg(far, near, far, loop.r_bg_bps)
        near = back_to
    last_far = loops[-1].name
    bin_t = q.time(monitor_bin_s)
    net = b.Network(b.Sim(name, duration=q.time(duration_s), seed=seed, trace=b.Trace(mode="bin", bin=q.time(TRACE_BIN_S))))
    for x in (*nodes, *bg_hosts, *links, *flows):
        net.add(x)
    for a, z in (TO_RECEIVER_X.split("->"), JGN_LOCAL.split("->"), (last_far, "xi")):
        net.add(b.Monitor(a, z, bin=bin_t))
    return net.to_dict()


def t4r_scenario(name: str, **keys: Any) -> Scenario:
    """:func:`t4r_dict` loaded as a :class:`~lfnlab.Scenario` (checked by the engine)."""
    return Scenario.from_dict(t4r_dict(name, **keys), origin=f"<{name}>")
