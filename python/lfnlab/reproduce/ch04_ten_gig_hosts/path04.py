"""Topology T4-P of spec 04 §2.11 as a scenario dict, the framing of §2.2 and the derived
metrics of §2.13.

T4-P with passthrough edges (``edge_mode = passthrough``, docs/ten-gig-hosts.md): sender
``hs`` → router ``rs`` → delay → router ``rr`` → receiver ``hr``; ACKs take the mirror path.
Every link is ``10g_lan``. The host links are 10 m of fibre (50 ns); the rs–rr link carries
the emulator's delay, RTT/2 in each direction (§2.11 ``d_fwd = d_rev = RTT/2``), plus the two
routers' forwarding latency of 5 µs each (see :data:`ROUTER_LATENCY_S`). Every router egress
is a drop-tail FIFO of ``B_router`` = 256 MiB. Hosts have the NIC pipeline of §2.3–2.6 (the
``nic`` table; the receiver's PCI-X bus of §2.4, the sender's bus unlimited by default, see
:data:`SENDER_BUS`); with PAUSE on, both hosts send and honour PAUSE and both routers
honour it (§3 "both edges"; routers cannot generate PAUSE yet, docs/ten-gig-hosts.md).

TCP (§2.10, §3): profile ``linux-2.6`` (SACK, timestamps, window scaling, delayed ACK with
quick-ACK, ``cwr_gradual`` send stalls, burst moderation), ``cc = "bic"`` with the 2.6.12
constants (``variant = "bic-2.6.12"``, S_max 32, spec 04 §5), buffers as kernel memory limits
(``buffer_semantics = "kernel"``, spec 04 §5), ``adv_win_scale`` 1 (φ = ½) and ``payload``
charging unless a scenario overrides them. One ``tcp_bulk`` flow ``bulk`` hs → hr. The TCP
trace is binned at 100 ms; the receiver's application rate ``app_rx_rate`` comes from its
cumulative ``bytes_read`` column.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Optional

import numpy as np

from ... import build as b
from ...scenario import Scenario
from .. import quantities as q
from ..measure import TCP_HEADER_BYTES, goodput_bps, h_ip, l2_bytes, mss_eff, value_at, wire_bytes

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "R_MAC_LAN_BPS",
    "R_BUS_BPS",
    "ETA_BUS",
    "O_RX_BYTES",
    "O_TX_BYTES",
    "MTU_JUMBO",
    "MTU_STD",
    "MIB",
    "KIB",
    "ROUTER_BUFFER_BYTES",
    "SENDER_BUS",
    "FLOW",
    "SENDER",
    "RECEIVER",
    "TO_RECEIVER",
    "TO_RECEIVER_EDGE",
    "EDGE_TO_RECEIVER",
    "EDGE_BUFFER_BYTES",
    "SENDER_QDISC",
    "h_ip",
    "l2_bytes",
    "wire_bytes",
    "mss_eff",
    "ack_l2_bytes",
    "r_ref_bps",
    "receiver_bus_limit_bps",
    "bdp_bytes",
    "bulk_flow",
    "t4p_dict",
    "t4p_scenario",
    "app_rx_bins",
    "sustained_rate_bps",
    "first_data_s",
    "t_up_s",
]

MIB = 2**20
KIB = 2**10
#: MAC data rate of 10g_lan (spec 04 §2.2).
R_MAC_LAN_BPS = 10e9
#: Host I/O bus defaults (spec 04 §2.4; the engine's defaults, docs/ten-gig-hosts.md):
#: raw rate R_bus, efficiency η_bus, DMA overhead per received / transmitted frame.
R_BUS_BPS = 8.533e9
ETA_BUS = 1.0
O_RX_BYTES = 64
O_TX_BYTES = 32
#: The sender's I/O bus in every E4 scenario (CHOICE, spec 04 §5 "Which bus is the bottleneck";
#: docs/ten-gig-hosts.md): ``"none"``, the variant §5 names, so that the sender pushes at line
#: rate as the source says and the receiver's bus is the one bottleneck, in slow start too.
#: ``"shared"`` gives the sender the receiver's PCI-X bus; its limit (its frames plus the ACKs
#: it receives, 8.356 Gbit/s) is then only 0.17 % above the receiver's, so a slow-start
#: overshoot waits in the sender's qdisc instead of R_r's buffer and, at 400 ms, fills the
#: 10000-packet qdisc before cwnd reaches the BDP (a send stall, spec 04 §2.9). E4.4 runs
#: both (its variant d).
SENDER_BUS = "none"
SENDER_BUS_MODELS = ("none", "shared")
#: The FCS never crosses the bus (spec 04 §2.4 rule 1).
FCS_BYTES = 4
#: TCP header with the timestamp option (timestamps on by default, spec 04 §2.2).
H_TCP_BYTES = TCP_HEADER_BYTES
MTU_JUMBO = 9198
MTU_STD = 1500
#: Router egress buffer B_router (spec 04 §2.11).
ROUTER_BUFFER_BYTES = 256 * MIB
#: Router forwarding latency (spec 04 §2.11). A constant latency before an output queue
#: commutes with the FIFO, so both routers' latencies are added to the propagation delay of the
#: rs–rr link in each direction: every forwarded frame arrives at the same time as with the
#: latency inside the routers, and PAUSE frames (host links only) are not delayed.
ROUTER_LATENCY_S = 5e-6
#: Host cable: 10 m at 5 ns/m (spec 04 §2.5, §2.11).
CABLE_DELAY_S = 50e-9
#: The TCP trace bin (§2.13 ``app_rx_rate`` 0.1 s bins).
TRACE_BIN_S = 0.1

FLOW = "bulk"
SENDER = "hs"
RECEIVER = "hr"
#: R_r's egress toward H_r: the router queue PAUSE from the receiver fills.
TO_RECEIVER = "rr->hr"
#: With ``edge_mode = "switch"`` (§2.11): R_r's egress toward the edge switch E_r, and E_r's
#: port toward H_r (the one H_r's PAUSE stops).
TO_RECEIVER_EDGE = "rr->er"
EDGE_TO_RECEIVER = "er->hr"
#: Edge switch egress buffer ``B_edge`` (§2.11).
EDGE_BUFFER_BYTES = 2 * MIB
#: The sender's interface queue (txqueuelen) in the summary.
SENDER_QDISC = "hs:ifq"
#: spec 04 §2.10, §5: Linux 2.6 with the 2.6.12 BIC constants.
PROFILE = "linux-2.6"
CC = "bic"
CC_PARAMS: dict[str, Any] = {"variant": "bic-2.6.12"}


# ------------------------------------------------------------------ framing (spec 04 §2.2)


def ack_l2_bytes(ip_version: int) -> int:
    """L2 of a pure ACK with timestamps and no SACK block: 70 (IPv4), 90 (IPv6)."""
    return l2_bytes(h_ip(ip_version) + H_TCP_BYTES)


def r_ref_bps(mtu: int, ip_version: int, cap_bps: Optional[float] = None) -> float:
    """Reference rate of spec 04 §2.13 (goodput):
    min(R_mac·MSS_eff/W, η_bus·R_bus·MSS_eff/(L2 − 4 + o_rx), cap·MSS_eff/W)."""
    mss, w, l2 = mss_eff(mtu, ip_version), wire_bytes(mtu), l2_bytes(mtu)
    rates = [R_MAC_LAN_BPS * mss / w, ETA_BUS * R_BUS_BPS * mss / (l2 - FCS_BYTES + O_RX_BYTES)]
    if cap_bps is not None:
        rates.append(cap_bps * mss / w)
    return min(rates)


def receiver_bus_limit_bps(mtu: int, ip_version: int) -> float:
    """The receiver's bus limit counting its ACK transmissions (one ACK per two segments):
    η·R_bus·MSS_eff / ((L2 − 4 + o_rx) + ½·(L2_ack − 4 + o_tx)); 8.342 Gbit/s for MTU 9198
    over IPv6 (docs/ten-gig-hosts.md, the analytic limit the engine's validation meets).
    R_ref leaves the ACKs out, so this is R_ref·(1 − 0.6 %) for jumbo frames."""
    per_data = l2_bytes(mtu) - FCS_BYTES + O_RX_BYTES
    per_ack = ack_l2_bytes(ip_version) - FCS_BYTES + O_TX_BYTES
    return ETA_BUS * R_BUS_BPS * mss_eff(mtu, ip_version) / (per_data + 0.5 * per_ack)


#: spec 04 §2.7 default CPU: clock and cycle costs (per item; copies per payload byte).
CPU_HZ = 2.2e9
C_SEG_TX, C_TXC, C_ACK_RX, C_SEG_RX, C_ACK_TX = 4000.0, 300.0, 2500.0, 4500.0, 1500.0
C_COPY, C_SYSCALL, C_APP = 1.2, 2000.0, 200.0
APP_IO_BYTES = 128 * 1024


@dataclass(frozen=True)
class Costs:
    """The per-item cycle costs of §2.7 the packet-rate formulas use (defaults above)."""

    c_seg_tx: float = C_SEG_TX
    c_seg_rx: float = C_SEG_RX
    c_txc: float = C_TXC
    c_ack_rx: float = C_ACK_RX
    c_ack_tx: float = C_ACK_TX
    c_copy: float = C_COPY
    c_syscall: float = C_SYSCALL
    c_app: float = C_APP
    io_bytes: int = APP_IO_BYTES

    def scaled(self, key: str, factor: float) -> Costs:
        """These costs with ``key`` multiplied by ``factor`` (the §5 ±30 % sensitivity)."""
        return replace(self, **{key: getattr(self, key) * factor})


def frame_cycles(mtu: int, ip_version: int, costs: Costs = Costs()) -> dict[str, dict[str, float]]:
    """Cycles per data frame at each host, split by where the work runs (§2.7 rules 1–4), with
    one ACK per two segments and interrupts left out (NAPI keeps them masked at saturation):

    - sender: ``softirq`` = c_seg_tx (output released by ACKs) + c_txc + ½·c_ack_rx;
      ``process`` = (c_syscall + c_app)·MSS/w + c_copy·MSS;
    - receiver: ``softirq`` = c_seg_rx + ½·(c_ack_tx + c_txc); ``process`` = (c_syscall + c_app)·MSS/r
      + c_copy·MSS.
    """
    mss = mss_eff(mtu, ip_version)
    call = (costs.c_syscall + costs.c_app) * mss / costs.io_bytes
    process = call + costs.c_copy * mss
    return {
        "sender": {"softirq": costs.c_seg_tx + costs.c_txc + 0.5 * costs.c_ack_rx, "process": process},
        "receiver": {"softirq": costs.c_seg_rx + 0.5 * (costs.c_ack_tx + costs.c_txc), "process": process},
    }


def cpu_cap_bps(mtu: int, ip_version: int, costs: Costs = Costs(), split_cores: bool = False) -> float:
    """Goodput at which the busiest core of the default CPU (§2.7) saturates: f / (cycles per
    frame on that core) · MSS_eff, from :func:`frame_cycles`. The formulas the engine's CPU
    validation meets (docs/ten-gig-hosts.md).

    Same core (the default, application on the interrupt core): all of a host's work per frame on
    one core. ``split_cores`` (application on its own core): the larger of the softirq and process
    shares; this assumes every segment is built in softirq context (released by an ACK), the
    steady state of a bulk sender whose writer waits for buffer space."""
    worst = 0.0
    for parts in frame_cycles(mtu, ip_version, costs).values():
        worst = max(worst, max(parts.values()) if split_cores else sum(parts.values()))
    return CPU_HZ / worst * mss_eff(mtu, ip_version) * 8.0


def host_limit_bps(mtu: int, ip_version: int, cpu: bool = True) -> float:
    """The end hosts' steady limit: the receiver's bus limit and, with the CPU model, the CPU cap."""
    bus = receiver_bus_limit_bps(mtu, ip_version)
    return min(bus, cpu_cap_bps(mtu, ip_version)) if cpu else bus


def bdp_bytes(rate_bps: float, rtt_s: float) -> float:
    """BDP = R_ref·RTT_base/8 bytes (spec 04 §2.13)."""
    return rate_bps * rtt_s / 8.0


# ------------------------------------------------------------------ the scenario


#: The E4 hosts' CPU (spec 04 §3: dual Opteron 248, CPU model §2.7): every key at its default.
HOST_CPU: Mapping[str, Any] = {}


def _host(
    name: str,
    *,
    mtu: int,
    ip_version: int,
    txqueuelen: int,
    nic: Mapping[str, Any],
    pause: bool,
    cpu: Optional[Mapping[str, Any]],
    bus: str = "shared",
) -> b.Host:
    # "shared" is the engine's default bus (spec 04 §2.4); ``cpu`` the host CPU of spec 04
    # §2.7 (every key optional), None for none.
    return b.Host(
        name,
        mtu=mtu,
        ip_version=ip_version,
        txqueuelen=txqueuelen,
        nic=nic,
        fc={"send": pause, "honour": pause},
        cpu=cpu,
        keys={"bus": {"model": bus}} if bus != "shared" else None,
    )


def bulk_flow(
    snd_buffer_bytes: float, rcv_buffer_bytes: float, *, adv_win_scale: int = 1, truesize_model: str = "payload"
) -> b.Flow:
    """The E4 stream: one BIC ``tcp_bulk`` flow ``bulk`` hs → hr with the Linux 2.6 profile and
    the buffers as kernel memory limits (spec 04 §3, §5)."""
    return b.Flow(
        FLOW,
        SENDER,
        RECEIVER,
        kind="tcp_bulk",
        cc=CC,
        cc_params=dict(CC_PARAMS),
        profile=PROFILE,
        sndbuf=q.size(snd_buffer_bytes),
        rcvbuf=q.size(rcv_buffer_bytes),
        tcp={"adv_win_scale": adv_win_scale, "truesize_model": truesize_model, "buffer_semantics": "kernel"},
    )


def t4p_dict(
    name: str,
    *,
    rtt_s: float,
    buffer_bytes: float,
    duration_s: float,
    seed: int = 1,
    mtu: int = MTU_JUMBO,
    ip_version: int = 6,
    nic_profile: str = "chelsio_t110",
    pause: bool = True,
    tx_rate_cap_bps: Optional[float] = None,
    tx_rate_cap_min_bps: Optional[float] = None,
    rx_fifo_bytes: Optional[float] = None,
    router_buffer_bytes: float = ROUTER_BUFFER_BYTES,
    txqueuelen: int = 10000,
    adv_win_scale: int = 1,
    truesize_model: str = "payload",
    trace_bin_s: float = TRACE_BIN_S,
    monitor_bin_s: Optional[float] = None,
    cpu: Optional[Mapping[str, Any]] = HOST_CPU,
    edge_mode: str = "passthrough",
    edge_buffer_bytes: float = EDGE_BUFFER_BYTES,
    sender_bus: str = SENDER_BUS,
) -> dict[str, Any]:
    """T4-P with one BIC flow ``bulk`` hs → hr and ``B_snd = B_rcv = buffer_bytes``, as a
    scenario dict (:func:`t4p_scenario` loads it).

    ``pause``: both hosts send and honour PAUSE, both routers honour it (else flow control
    is off everywhere). ``tx_rate_cap_bps`` caps the sender NIC (wire bytes; ``tx_rate_cap_min_bps``
    its lowest settable value, engine default 6 Gbit/s). ``rx_fifo_bytes`` sets F_rx of both
    NICs (default 256 KiB). ``monitor_bin_s`` adds a monitor on R_r's egress toward H_r
    (``rr->hr``: frames delivered and the router queue per bin). ``cpu`` is the host CPU table
    of spec 04 §2.7 on both hosts: by default the spec's Opteron 248 with every cost at its
    default (spec 04 §3 shared configuration); ``None`` gives ideal hosts without a CPU model.

    ``edge_mode`` (§2.11): ``passthrough`` (default) attaches each host to its router, so PAUSE
    from H_r acts on R_r's egress; ``switch`` puts a store-and-forward edge switch between each
    host and its router (``es``, ``er``: drop-tail egresses of ``edge_buffer_bytes``, 10 m of
    cable each side) that honours PAUSE and, with ``pause``, generates it toward every neighbour
    (§2.5 generation by a switch, 512/256 KiB): PAUSE then travels hop by hop, H_r → E_r → R_r.

    ``sender_bus``: the sender's ``bus.model``, :data:`SENDER_BUS` (``"none"``) by default
    (CHOICE, spec 04 §5) or ``"shared"``; the receiver always has the shared PCI-X bus (§2.4).
    """
    if edge_mode not in ("passthrough", "switch"):
        raise ValueError(f"edge_mode: expected 'passthrough' or 'switch', got {edge_mode!r}")
    if sender_bus not in SENDER_BUS_MODELS:
        raise ValueError(f"sender_bus: expected one of {SENDER_BUS_MODELS}, got {sender_bus!r}")
    nic: dict[str, Any] = {"profile": nic_profile}
    if rx_fifo_bytes is not None:
        nic["rx_fifo"] = q.size(rx_fifo_bytes)
    sender_nic = dict(nic)
    if tx_rate_cap_bps is not None:
        sender_nic["tx_rate_cap"] = q.rate(tx_rate_cap_bps)
    if tx_rate_cap_min_bps is not None:
        sender_nic["tx_rate_cap_min"] = q.rate(tx_rate_cap_min_bps)
    router_queue = b.DropTail(limit=q.size(router_buffer_bytes))
    one_way = q.time(rtt_s / 2.0 + 2 * ROUTER_LATENCY_S)
    cable = q.time(CABLE_DELAY_S)
    net = b.Network(b.Sim(name, duration=q.time(duration_s), seed=seed, trace=b.Trace(mode="bin", bin=q.time(trace_bin_s))))
    hs = _host(SENDER, mtu=mtu, ip_version=ip_version, txqueuelen=txqueuelen, nic=sender_nic, pause=pause, cpu=cpu, bus=sender_bus)
    rs, rr = b.Router("rs", fc={"honour": pause}), b.Router("rr", fc={"honour": pause})
    hr = _host(RECEIVER, mtu=mtu, ip_version=ip_version, txqueuelen=txqueuelen, nic=nic, pause=pause, cpu=cpu)
    wan = b.Link(rs, rr, phy="10g_lan", delay=one_way, queue=router_queue, reverse_queue=router_queue)
    if edge_mode == "passthrough":
        nodes: list[b.Node] = [hs, rs, rr, hr]
        links = [
            b.Link(hs, rs, phy="10g_lan", delay=cable, reverse_queue=router_queue),
            wan,
            b.Link(rr, hr, phy="10g_lan", delay=cable, queue=router_queue),
        ]
    else:
        # Each host–router link becomes host — edge switch — router.
        edge_queue = b.DropTail(limit=q.size(edge_buffer_bytes))
        es, er = b.Router("es", fc={"honour": pause, "send": pause}), b.Router("er", fc={"honour": pause, "send": pause})
        nodes = [hs, es, rs, rr, er, hr]
        links = [
            b.Link(hs, es, phy="10g_lan", delay=cable, reverse_queue=edge_queue),
            b.Link(es, rs, phy="10g_lan", delay=cable, queue=edge_queue, reverse_queue=router_queue),
            wan,
            b.Link(rr, er, phy="10g_lan", delay=cable, queue=router_queue, reverse_queue=edge_queue),
            b.Link(er, hr, phy="10g_lan", delay=cable, queue=edge_queue),
        ]
    for x in (*nodes, *links, bulk_flow(buffer_bytes, buffer_bytes, adv_win_scale=adv_win_scale, truesize_model=truesize_model)):
        net.add(x)
    if monitor_bin_s is not None:
        net.add(b.Monitor(*(TO_RECEIVER if edge_mode == "passthrough" else TO_RECEIVER_EDGE).split("->"), bin=q.time(monitor_bin_s)))
    return net.to_dict()


def t4p_scenario(name: str, **keys: Any) -> Scenario:
    """:func:`t4p_dict` loaded as a :class:`~lfnlab.Scenario` (checked by the engine)."""
    return Scenario.from_dict(t4p_dict(name, **keys), origin=f"<{name}>")


# ------------------------------------------------------------------ derived metrics (spec 04 §2.13)


def app_rx_bins(rows: pd.DataFrame, duration_s: float, bin_s: float = 1.0, column: str = "bytes_read") -> pd.DataFrame:
    """``app_rx_rate`` in bins [k·bin, (k + 1)·bin) of the run: bytes returned to the receiving
    application (the trace's cumulative ``bytes_read``) · 8 / bin. Columns ``t_start``,
    ``t_end``, ``rate_bps``. ``bin_s`` must be a multiple of the trace bin. With
    ``column = "bytes_written"`` the sender's ``app_tx_rate`` (bytes its write() calls accepted)."""
    import pandas as pd

    n = int(math.floor(duration_s / bin_s + 1e-9))
    edges = bin_s * np.arange(n + 1)
    read = np.array([value_at(rows, column, t, default=0.0) for t in edges])
    return pd.DataFrame({"t_start": edges[:-1], "t_end": edges[1:], "rate_bps": np.diff(read) * 8.0 / bin_s})


def sustained_rate_bps(rows: pd.DataFrame, duration_s: float, steady_fraction: float = 0.5) -> float:
    """Mean ``app_rx_rate`` over the steady window, the last ``steady_fraction`` of the run."""
    return goodput_bps(rows, duration_s * (1.0 - steady_fraction), duration_s)


def first_data_s(rows: pd.DataFrame, trace_bin_s: float = TRACE_BIN_S) -> float:
    """When the first data segment was sent, to one trace bin: the start of the first bin at
    whose end ``snd_max`` is above 0 (NaN if no data was sent)."""
    sent = rows[rows["snd_max"] > 0]
    if sent.empty:
        return math.nan
    return max(0.0, float(sent["t"].iloc[0]) - trace_bin_s)


def t_up_s(bins: pd.DataFrame, sustained_bps: float, first_s: float) -> float:
    """Startup time: from the first data segment to the end of the first bin whose rate is at
    least 0.9 × the sustained rate (NaN if none)."""
    hit = bins[bins["rate_bps"] >= 0.9 * sustained_bps]
    if hit.empty or math.isnan(first_s):
        return math.nan
    return float(hit["t_end"].iloc[0]) - first_s
