"""Testbed T0 of spec 02 §4.1, built as a scenario dict.

server ``S`` ──[one full-duplex link, C = 10 Mbit/s per direction, delay RTT/2 each way]── client ``C``

- Egress queues: drop-tail, ``txqueuelen`` 1000 packets at S and at C (the hosts' interface
  queues; spec 02 §4.1, open point 12). Ethernet framing: MTU 1500, 38 bytes per frame on the
  wire (18 header/FCS + 8 preamble + 12 IPG).
- Flow ``rr``: a ``request_response`` flow (spec 02 §3.1) opened by C; C sends a 100-byte
  request, S answers with ``response_bytes`` (unlimited when None). Data direction S → C.
- TCP (spec 02 §2.6): profile ``linux-2.6`` (IW 3 for MSS 1448, initial RTO 3 s, min RTO
  200 ms, SACK, timestamps, window scaling), ``ack_policy = linux_like``,
  ``rwnd_policy = full_buffer``, 8 MiB socket buffers; Reno (``cc = "reno"``) or CUBIC of
  Linux 2.6.20 (``cc = "cubic"``, ``cc_params.variant = "linux-2.6.20"``, initial ssthresh 100).
- Quick-Start (spec 02 §4.1): the QS function on S's egress (C = 10 Mbit/s, D = 1 s, K = 2,
  θ = 1.0) in every run, so slow-start and Quick-Start runs share one testbed; in mode
  ``"qs"`` the server asks in its SYN/ACK for ``rate_code`` (7 = 5.12 Mbit/s), pacing with
  HZ = 1000, M = 3.

Web runs (``t0_web_scenario``, spec 02 §3.2, §4.4–4.6): the same testbed with one
``kind = "web"`` flow ``web`` of U users at C and the lighttpd-like server at S; in mode
``"qs"`` every server connection asks on its SYN/ACK and after an idle restart
(``on_connect``, ``on_idle_restart``: the defaults); θ of the QS function is a parameter
(E5).

Monitor: ``monitor_bin_s`` adds ``[[monitor]] link = "S->C", point = "ingress"``: the frames
of S → C counted when their last bit reaches C (L2 bytes = IP total length + 18).
"""

from __future__ import annotations

import math
from typing import Any, Optional

from ... import build as b
from ...scenario import Scenario
from .. import quantities as q
from ..measure import L2_OVERHEAD_BYTES, TCP_HEADER_BYTES, h_ip, mss_eff, wire_bytes

__all__ = [
    "SERVER",
    "CLIENT",
    "FLOW",
    "WEB_FLOW",
    "WEB_MODELS",
    "HTTP_VARIANTS",
    "DATA_LINK",
    "RATE_BPS",
    "MSS_BYTES",
    "HEADER_BYTES",
    "IP_PACKET_BYTES",
    "L2_HEADER_BYTES",
    "WIRE_BYTES",
    "IW_SEGMENTS",
    "SOCKET_BUFFER_BYTES",
    "TXQUEUELEN",
    "MODES",
    "CCS",
    "CUBIC_VARIANT",
    "QS_HZ",
    "QS_CHUNK_MIN",
    "TCP_02",
    "ip_link_rate_bps",
    "bdp_segments",
    "qs_rate_bps",
    "code_floor_bps",
    "t0_scenario",
    "t0_web_scenario",
]

SERVER = "S"
CLIENT = "C"
#: The one flow of every chapter 02 testbed run.
FLOW = "rr"
#: The Web flow of the load experiments (spec 02 §4.4–4.6).
WEB_FLOW = "web"
#: spec 02 §3.2.3 parameter models and §3.2.4 HTTP variants.
WEB_MODELS = ("surge_default", "large_files")
HTTP_VARIANTS = ("http10", "http11", "http11_pipe")
#: The data direction (spec 02 §4.1): the server's egress toward the client.
DATA_LINK = f"{SERVER}->{CLIENT}"
#: Link rate of T0, per direction (spec 02 §4.1).
RATE_BPS = 10e6
#: MSS payload with timestamps, 1448 (spec 02 §2.6.1).
MSS_BYTES = mss_eff(1500)
#: IP 20 + TCP 20 + timestamps 12: the header of a full data packet (spec 02 §2.3.1, H = 52).
HEADER_BYTES = h_ip(4) + TCP_HEADER_BYTES
#: IP total length of a full data segment, M + H; also of the first Quick-Start segment,
#: which carries the 8-byte Report option and 8 bytes less payload (spec 02 §2.2.7).
IP_PACKET_BYTES = MSS_BYTES + HEADER_BYTES
#: Ethernet header + FCS: a monitor's L2 bytes are the IP total length + 18 per frame.
L2_HEADER_BYTES = L2_OVERHEAD_BYTES
#: Wire footprint of a full frame: 1500 + 18 + 8 preamble + 12 IPG (spec 02 §4.1, O = 38).
WIRE_BYTES = wire_bytes(IP_PACKET_BYTES)
#: RFC 3390 initial window for MSS 1448 (spec 02 §2.6.1).
IW_SEGMENTS = 3
SOCKET_BUFFER_BYTES = 8 * 2**20
#: Drop-tail interface queues at S and C, packets (spec 02 §4.1).
TXQUEUELEN = 1000
#: ``"ss"`` plain slow start; ``"qs"`` Quick-Start request in the server's SYN/ACK.
MODES = ("ss", "qs")
CCS = ("reno", "cubic")
#: CUBIC of the chapter's kernel generation (spec 02 §2.6.1, §6 point 25).
CUBIC_VARIANT = "linux-2.6.20"
#: Quick-Start pacing of T0 (spec 02 §4.1): the timer rate HZ, 1/s, and the chunk minimum M, segments.
QS_HZ = 1000
QS_CHUNK_MIN = 3
#: spec 02 §2.6.2 and §6 point 9: per-flow TCP keys on top of the ``linux-2.6`` profile.
#: Chapter 02's hosts ran Linux 2.6.20: its tcp_cwnd_down stops rate halving at the
#: CC's min_cwnd (``tcp_cwnd_min``; ssthresh for CUBIC, ssthresh/2 for Reno), where the
#: ``linux-2.6`` profile follows 2.6.12 (ssthresh/2 for all).
TCP_02: dict[str, Any] = {"ack_policy": "linux_like", "rwnd_policy": "full_buffer", "rate_halving_floor": "cc"}
PROFILE = "linux-2.6"


def ip_link_rate_bps(rate_bps: float = RATE_BPS) -> float:
    """The IP-level rate of full-size packets on the link: C·1500/1538 (9.7529 Mbit/s at
    10 Mbit/s), the dashed line of E1."""
    return rate_bps * IP_PACKET_BYTES / WIRE_BYTES


def bdp_segments(rtt_s: float, rate_bps: float = RATE_BPS) -> float:
    """Path BDP in full frames: C·τ/(8·1538) (81.3 at 100 ms, 162.5 at 200 ms)."""
    return rate_bps * rtt_s / (8.0 * WIRE_BYTES)


def qs_rate_bps(rate_code: int) -> float:
    """Rate(N) = 40 000·2^N bit/s (spec 02 §2.2.1); Rate(0) = 0."""
    if not isinstance(rate_code, int) or isinstance(rate_code, bool) or not 0 <= rate_code <= 15:
        raise ValueError(f"rate_code must be an integer in 0..15, got {rate_code!r}")
    return 0.0 if rate_code == 0 else 40_000.0 * 2**rate_code


def code_floor_bps(rate_bps: float) -> float:
    """The largest encodable rate ≤ ``rate_bps`` (spec 02 §2.2.1): 40 000·2^N, N ≤ 15; 0 below
    80 kbit/s."""
    if rate_bps < qs_rate_bps(1):
        return 0.0
    n = min(15, int(math.floor(math.log2(rate_bps / 40_000.0) + 1e-12)))
    return qs_rate_bps(n)


def t0_scenario(
    name: str,
    *,
    rtt_s: float,
    cc: str,
    mode: str,
    duration_s: float,
    seed: int,
    ssthresh_policy: str = "none",
    rate_code: int = 7,
    response_bytes: Optional[float] = None,
    rate_bps: float = RATE_BPS,
    monitor_bin_s: Optional[float] = None,
    capture_packets: int = 0,
    trace_bin_s: Optional[float] = None,
    txqueuelen: int = TXQUEUELEN,
) -> Scenario:
    """Testbed T0 (spec 02 §4.1) with one ``request_response`` flow ``rr`` from C to S.

    Args:
        name: scenario name (``sim.name``).
        rtt_s: base RTT τ; each direction gets a delay of τ/2.
        cc: ``"reno"`` or ``"cubic"`` (CUBIC ``linux-2.6.20``).
        mode: ``"ss"`` (no Quick-Start request) or ``"qs"`` (the server asks in its SYN/ACK).
        duration_s: simulated time.
        seed: the run's master seed (tick phases, QS TTL, nonces; spec 02 §2.7).
        ssthresh_policy: ``"none"`` or ``"qs_window"`` (spec 02 §2.3.9); only with ``"qs"``.
        rate_code: requested rate code N (spec 02 §2.2.1); only with ``"qs"``.
        response_bytes: the response size; None = unlimited (the server always has data).
        rate_bps: link rate per direction, also the QS function's capacity.
        monitor_bin_s: bin of a monitor on ``S->C`` at C's ingress (None: no monitor).
        capture_packets: frames of that monitor to capture (``packets`` table); 0 = none.
        trace_bin_s: bin of the TCP trace (None: trace off).
        txqueuelen: interface queue of both hosts, packets.
    """
    _check_mode(mode, cc)
    if mode == "ss" and (ssthresh_policy != "none" or rate_code != 7):
        raise ValueError("ssthresh_policy and rate_code apply to mode 'qs' only")
    if capture_packets and monitor_bin_s is None:
        raise ValueError("capture_packets needs the monitor (monitor_bin_s)")
    keys: dict[str, Any] = {}
    if response_bytes is not None:
        keys["response"] = q.size(response_bytes)
    if mode == "qs":
        # spec 02 §4.1: request in the SYN/ACK (on_connect), HZ = 1000, M = 3 (the defaults).
        keys["quickstart"] = {"rate_code": rate_code, "ssthresh_policy": ssthresh_policy, "hz": QS_HZ, "chunk_min": QS_CHUNK_MIN}
    trace = b.Trace(mode="off") if trace_bin_s is None else b.Trace(mode="bin", bin=q.time(trace_bin_s))
    net, server, client = _t0_network(name, rtt_s=rtt_s, duration_s=duration_s, seed=seed, rate_bps=rate_bps, thresh=1.0, txqueuelen=txqueuelen, trace=trace)
    net.add(b.Flow(FLOW, client, server, kind="request_response", **_tcp_keys(cc), keys=keys))
    if monitor_bin_s is not None:
        capture = int(capture_packets) if capture_packets else None
        net.add(b.Monitor(server, client, point="ingress", bin=q.time(monitor_bin_s), capture_packets=capture))
    return net.scenario()


def t0_web_scenario(
    name: str,
    *,
    rtt_s: float,
    cc: str,
    mode: str,
    http: str,
    users: int,
    web_model: str,
    duration_s: float,
    seed: int,
    thresh: float = 1.0,
    rate_code: int = 7,
    rate_bps: float = RATE_BPS,
) -> Scenario:
    """Testbed T0 (spec 02 §4.1) with one ``web`` flow (spec 02 §3.2) of ``users`` users at C.

    Args:
        http: ``"http10"``, ``"http11"`` or ``"http11_pipe"`` (spec 02 §3.2.4).
        web_model: ``"surge_default"`` or ``"large_files"`` (spec 02 §3.2.3).
        thresh: θ of the QS function on S's egress (spec 02 §2.5.4; 0.5 in E5).
        mode: ``"ss"`` or ``"qs"`` (every server connection asks at setup and after an
            idle restart, spec 02 §3.2.5).
        Others as :func:`t0_scenario`; the TCP trace is off (objects and counters only).
    """
    _check_mode(mode, cc)
    if http not in HTTP_VARIANTS:
        raise ValueError(f"http must be one of {', '.join(HTTP_VARIANTS)}, got {http!r}")
    if web_model not in WEB_MODELS:
        raise ValueError(f"web_model must be one of {', '.join(WEB_MODELS)}, got {web_model!r}")
    keys: dict[str, Any] = {"users": int(users), "web_model": web_model, "http": http}
    if mode == "qs":
        keys["quickstart"] = {"rate_code": rate_code, "hz": QS_HZ, "chunk_min": QS_CHUNK_MIN}
    net, server, client = _t0_network(name, rtt_s=rtt_s, duration_s=duration_s, seed=seed, rate_bps=rate_bps, thresh=thresh, txqueuelen=TXQUEUELEN, trace=b.Trace(mode="off"))
    net.add(b.Flow(WEB_FLOW, client, server, kind="web", **_tcp_keys(cc), keys=keys))
    return net.scenario()


def _check_mode(mode: str, cc: str) -> None:
    if mode not in MODES:
        raise ValueError(f"mode must be one of {', '.join(MODES)}, got {mode!r}")
    if cc not in CCS:
        raise ValueError(f"cc must be one of {', '.join(CCS)}, got {cc!r}")


def _tcp_keys(cc: str) -> dict[str, Any]:
    """The chapter's TCP (spec 02 §2.6): profile, CC, 8 MiB buffers, ACK and window policy."""
    return {
        "profile": PROFILE,
        "cc": cc,
        "sndbuf": q.size(SOCKET_BUFFER_BYTES),
        "rcvbuf": q.size(SOCKET_BUFFER_BYTES),
        "tcp": dict(TCP_02),
        "cc_params": {"variant": CUBIC_VARIANT} if cc == "cubic" else None,
    }


def _t0_network(
    name: str, *, rtt_s: float, duration_s: float, seed: int, rate_bps: float, thresh: float, txqueuelen: int, trace: b.Trace
) -> tuple[b.Network, b.Host, b.Host]:
    """Nodes S and C, the link, and ``sim``: the network, S and C."""
    net = b.Network(b.Sim(name, duration=q.time(duration_s), seed=seed, trace=trace))
    # spec 02 §4.1: the QS function on S's egress, C = 10 Mbit/s, D = 1 s, K = 2, θ.
    qs = {"capacity": q.rate(rate_bps), "meter_interval": "1s", "ring_slots": 2, "thresh": thresh}
    server = net.add(b.Host(SERVER, mtu=1500, txqueuelen=txqueuelen, quickstart=qs))
    client = net.add(b.Host(CLIENT, mtu=1500, txqueuelen=txqueuelen))
    net.add(b.Link(server, client, rate=q.rate(rate_bps), delay=q.time(rtt_s / 2.0)))
    return net, server, client
