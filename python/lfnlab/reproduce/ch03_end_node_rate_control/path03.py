"""The paths of spec 03 §2.10, built as scenario dicts.

Every network segment is a link between two routers. In the authors' simulator model
(spec 03 §2.8) its egress queues in both directions are ``kind = "burst_red"``: a bandwidth ×
latency FIFO with burst-scaled random loss and RED; a frame takes frame_len byte-times on it.
Hosts attach to the first and last router by a zero-delay access link at their NIC rate (the
NIC: line rate, IPG, interface queue). Router ``r0`` is the sender side; the receiver side
router is the last one.

- **P-TM** (F1–F7): snd → r0 →[N1 1 Gbit/s, 1 ms]→ r1 →[N2 600 Mbit/s, 98 ms]→ r2
  →[N3 1 Gbit/s, 1 ms]→ r3 → rcv; RTT 200 ms. The real path (spec 03 §2.10): no random
  loss; N2 forward is a drop-tail FIFO (1 MiB by default, `n2_buffer_bytes`), every other
  segment and direction a drop-tail FIFO with no limit (lossless). Variant P-TM-2.8: the
  §2.8 model on every segment in both directions (the default before issue 39).
- **S-grid** (S1): one-way latency L; L = 2 ms is a single 1 Gbit/s segment, otherwise
  N1 (1 ms) → N2 (600 Mbit/s, L − 2 ms) → N3 (1 ms).
- **S-two** (S2): one sender with a TCP-aware NIC → Ns (1 Gbit/s, 1 ms) → branch N0
  (1 Gbit/s, 29 ms) → rcv0, branch N1 (1 Gbit/s, 1 ms) → rcv1.

TCP (spec 03 §2.9): Linux 2.4-like NewReno with SACK, initial cwnd 2, ssthresh unlimited,
an ACK for every segment, RTO minimum 200 ms, 32 MiB socket buffers, timestamps on (MSS
1448), send stalls handled as CWR on P-TM and no interface-queue limit on the S paths.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Optional

from ... import build as b
from ...scenario import Scenario
from .. import quantities as q

__all__ = [
    "PTM",
    "PTM_28",
    "N2_BUFFER_BYTES",
    "GBE_BPS",
    "FE_BPS",
    "SENDER_NIC",
    "ACKS_IN",
    "FLOW",
    "TCP_03",
    "ptm_scenario",
    "sgrid_scenario",
    "stwo_scenario",
    "tcp_nic_qdisc",
]

GBE_BPS = 1e9
FE_BPS = 1e8
#: P-TM's two models (spec 03 §2.10): the real path, and the authors' simulator model.
PTM = "P-TM"
PTM_28 = "P-TM-2.8"
#: N2's drop-tail limit on the real path (spec 03 §2.10, CHOICE 1 MiB).
N2_BUFFER_BYTES = float(2**20)
#: Monitors on the sender's NIC (data frames leaving) and on the ACKs arriving at the sender.
SENDER_NIC = "snd->r0"
ACKS_IN = "r0->snd"
FLOW = "f"
#: spec 03 §2.9 (and §2.4 send stalls): the TCP model of every chapter 03 scenario.
TCP_03: dict[str, Any] = {
    "iw": "2",
    "ack_policy": "per_segment",
    "rto_min": "200ms",
    "sack": True,
    "timestamps": True,
    "send_stall_policy": "cwr",
}
PROFILE = "linux-2.4"
SOCKET_BUFFER = "32MiB"
#: "No IFQ limit" on the S paths (spec 03 §2.9): more packets than a 32 MiB window holds.
UNLIMITED_TXQUEUELEN = 1_000_000


def tcp_nic_qdisc(mode: str = "dynamic", fixed_ipg_bytes: Optional[int] = None, **keys: Any) -> dict[str, Any]:
    """A ``tcp_nic`` host qdisc table (spec 03 §2.7)."""
    d: dict[str, Any] = {"kind": "tcp_nic", "nic_mode": mode, **keys}
    if fixed_ipg_bytes is not None:
        d["fixed_ipg"] = q.size(fixed_ipg_bytes)
    return d


def _host(name: str, nic_bps: float, ipg_bytes: int, txqueuelen: int, qdisc: Optional[Mapping[str, Any]] = None) -> b.Host:
    return b.Host(name, mtu=1500, nic_rate=q.rate(nic_bps), ipg_bytes=ipg_bytes, txqueuelen=txqueuelen, profile=PROFILE, qdisc=qdisc)


def _segment(a: str, z: str, rate_bps: float, delay_s: float) -> b.Link:
    """A network segment between routers a and z with the §2.8 model in both directions."""
    return b.Link(a, z, rate=q.rate(rate_bps), delay=q.time(delay_s), queue={"kind": "burst_red"}, reverse_queue={"kind": "burst_red"})


def _real_segment(a: str, z: str, rate_bps: float, delay_s: float, limit_bytes: Optional[float] = None) -> b.Link:
    """A segment of the real path (spec 03 §2.10): drop-tail both ways, no random loss; the
    forward FIFO holds ``limit_bytes`` (None: no limit, a lossless segment)."""
    forward = b.DropTail(limit=None if limit_bytes is None else q.size(limit_bytes))
    return b.Link(a, z, rate=q.rate(rate_bps), delay=q.time(delay_s), queue=forward, reverse_queue=b.DropTail())


def _access(host: str, router: str, nic_bps: float, host_is_from: bool = True) -> b.Link:
    a, z = (host, router) if host_is_from else (router, host)
    return b.Link(a, z, rate=q.rate(nic_bps), delay="0s")


def _flow(name: str, dst: str, *, pacing: Optional[Mapping[str, Any]], bytes_: Optional[float], app_rate_bps: Optional[float], tcp: Optional[Mapping[str, Any]]) -> b.Flow:
    return b.Flow(
        name,
        "snd",
        dst,
        kind="tcp_bulk",
        cc="newreno",
        profile=PROFILE,
        sndbuf=SOCKET_BUFFER,
        rcvbuf=SOCKET_BUFFER,
        tcp={**TCP_03, **(tcp or {})},
        pacing=dict(pacing) if pacing is not None else {"kind": "off"},
        bytes=None if bytes_ is None else q.size(bytes_),
        keys=None if app_rate_bps is None else {"app_rate": q.rate(app_rate_bps)},
    )


def _network(name: str, duration_s: float, seed: int, trace_bin_s: Optional[float], nodes: Sequence[b.Node], links: Sequence[b.Link], flows: Sequence[b.Flow]) -> b.Network:
    trace = b.Trace(mode="bin", bin=q.time(trace_bin_s)) if trace_bin_s is not None else b.Trace(mode="off")
    net = b.Network(b.Sim(name, duration=q.time(duration_s), seed=seed, trace=trace))
    for x in (*nodes, *links, *flows):
        net.add(x)
    return net


def _add_monitors(net: b.Network, nic_bin_s: Optional[float], rcv_link: tuple[str, str], rcv_bin_s: Optional[float]) -> None:
    if nic_bin_s is not None:
        net.add(b.Monitor(*SENDER_NIC.split("->"), bin=q.time(nic_bin_s)))
        net.add(b.Monitor(*ACKS_IN.split("->"), bin=q.time(nic_bin_s)))
    if rcv_bin_s is not None:
        net.add(b.Monitor(*rcv_link, bin=q.time(rcv_bin_s)))


def _ptm_segments(path: str, n2_buffer_bytes: float) -> list[b.Link]:
    """N1, N2, N3 of P-TM (spec 03 §2.10) for ``path``."""
    if path == PTM_28:
        return [_segment("r0", "r1", 1e9, 0.001), _segment("r1", "r2", 600e6, 0.098), _segment("r2", "r3", 1e9, 0.001)]
    if path != PTM:
        raise ValueError(f"path: expected {PTM!r} or {PTM_28!r}, got {path!r}")
    return [
        _real_segment("r0", "r1", 1e9, 0.001),
        _real_segment("r1", "r2", 600e6, 0.098, n2_buffer_bytes),
        _real_segment("r2", "r3", 1e9, 0.001),
    ]


def ptm_scenario(
    name: str,
    *,
    nic_bps: float = GBE_BPS,
    ipg_bytes: int = 8,
    txqueuelen: int = 100,
    duration_s: float = 60.0,
    seed: int = 1,
    pacing: Optional[Mapping[str, Any]] = None,
    app_rate_bps: Optional[float] = None,
    path: str = PTM,
    n2_buffer_bytes: float = N2_BUFFER_BYTES,
    nic_bin_s: Optional[float] = None,
    rcv_bin_s: Optional[float] = None,
    trace_bin_s: Optional[float] = None,
    tcp: Optional[Mapping[str, Any]] = None,
) -> Scenario:
    """P-TM (spec 03 §2.10) with one flow ``f`` snd → rcv.

    ``pacing`` is the flow's pacing table (e.g. ``{"kind": "cps", "cps_t": "10ms"}``);
    ``path`` is ``PTM`` (the real path, N2 a drop-tail FIFO of ``n2_buffer_bytes``) or
    ``PTM_28`` (the §2.8 model on every segment); ``nic_bin_s`` adds monitors on the
    sender NIC (``snd->r0``) and on the ACKs reaching it (``r0->snd``); ``rcv_bin_s`` one on
    the receiver's access link (``r3->rcv``, the delivered throughput per bin).
    """
    net = _network(
        name,
        duration_s,
        seed,
        trace_bin_s,
        [_host("snd", nic_bps, ipg_bytes, txqueuelen), *(b.Router(f"r{i}") for i in range(4)), _host("rcv", GBE_BPS, 8, 1000)],
        [
            _access("snd", "r0", nic_bps),
            *_ptm_segments(path, n2_buffer_bytes),
            _access("rcv", "r3", GBE_BPS, host_is_from=False),
        ],
        [_flow(FLOW, "rcv", pacing=pacing, bytes_=None, app_rate_bps=app_rate_bps, tcp=tcp)],
    )
    _add_monitors(net, nic_bin_s, ("r3", "rcv"), rcv_bin_s)
    return net.scenario()


def sgrid_scenario(
    name: str,
    *,
    latency_ms: float,
    nic_bps: float = GBE_BPS,
    ipg_bytes: int = 8,
    qdisc: Optional[Mapping[str, Any]] = None,
    transfer_bytes: float = 300e6,
    seed: int = 1,
    duration_s: float = 3600.0,
    trace_bin_s: Optional[float] = None,
) -> Scenario:
    """S-grid (spec 03 §2.10) with one ``transfer_bytes`` flow ``f``; ``qdisc`` is the
    sender's host qdisc (``tcp_nic_qdisc(...)`` for the TCP-aware NIC, else pfifo)."""
    routers: Sequence[str]
    if latency_ms == 2:
        routers = ["r0", "r1"]
        segments = [_segment("r0", "r1", 1e9, 0.002)]
    else:
        routers = ["r0", "r1", "r2", "r3"]
        segments = [
            _segment("r0", "r1", 1e9, 0.001),
            _segment("r1", "r2", 600e6, (latency_ms - 2) / 1e3),
            _segment("r2", "r3", 1e9, 0.001),
        ]
    pacing = {"kind": "tcp_nic"} if qdisc is not None and qdisc.get("kind") == "tcp_nic" else None
    net = _network(
        name,
        duration_s,
        seed,
        trace_bin_s,
        [_host("snd", nic_bps, ipg_bytes, UNLIMITED_TXQUEUELEN, qdisc), *(b.Router(r) for r in routers), _host("rcv", GBE_BPS, 8, UNLIMITED_TXQUEUELEN)],
        [_access("snd", routers[0], nic_bps), *segments, _access("rcv", routers[-1], GBE_BPS, host_is_from=False)],
        [_flow(FLOW, "rcv", pacing=pacing, bytes_=transfer_bytes, app_rate_bps=None, tcp=None)],
    )
    return net.scenario()


def stwo_scenario(
    name: str,
    *,
    seed: int = 1,
    bytes0: float = 200e6,
    bytes1: float = 300e6,
    qdisc: Optional[Mapping[str, Any]] = None,
    duration_s: float = 3600.0,
    trace_bin_s: Optional[float] = 0.1,
) -> Scenario:
    """S-two (spec 03 §2.10): flows ``s0`` (to rcv0, one-way 30 ms) and ``s1`` (to rcv1,
    one-way 2 ms) leave one sender whose NIC is ``qdisc`` (default: TCP-aware, dynamic)."""
    nic = dict(qdisc) if qdisc is not None else tcp_nic_qdisc()
    pacing = {"kind": "tcp_nic"} if nic.get("kind") == "tcp_nic" else None
    net = _network(
        name,
        duration_s,
        seed,
        trace_bin_s,
        [
            _host("snd", GBE_BPS, 8, UNLIMITED_TXQUEUELEN, nic),
            *(b.Router(r) for r in ("r0", "r1", "r2", "r3")),
            _host("rcv0", GBE_BPS, 8, UNLIMITED_TXQUEUELEN),
            _host("rcv1", GBE_BPS, 8, UNLIMITED_TXQUEUELEN),
        ],
        [
            _access("snd", "r0", GBE_BPS),
            _segment("r0", "r1", 1e9, 0.001),
            _segment("r1", "r2", 1e9, 0.029),
            _segment("r1", "r3", 1e9, 0.001),
            _access("rcv0", "r2", GBE_BPS, host_is_from=False),
            _access("rcv1", "r3", GBE_BPS, host_is_from=False),
        ],
        [
            _flow("s0", "rcv0", pacing=pacing, bytes_=bytes0, app_rate_bps=None, tcp=None),
            _flow("s1", "rcv1", pacing=pacing, bytes_=bytes1, app_rate_bps=None, tcp=None),
        ],
    )
    return net.scenario()
