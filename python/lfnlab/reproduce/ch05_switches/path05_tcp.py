"""The spec 05 §3 E5.5 topology: two TCP senders through the device under test.

S1 and S2 each feed their own input of the device under test (DUT, a ``switch`` node). Its
output port feeds a shared 1 GbE link to the delay-and-monitor box M, whose link to a switch
that is never congested (NS, a router) carries the one-way delay d in each direction
(d = RTT/2, spec 05 §5); NS feeds the receivers R1 and R2. ACKs come back the same way. The
monitor on M's egress toward NS counts each flow's frames in bins.

Hosts (spec 05 §2.7): 1 GbE, MTU 1500, no I/O-bus limit (``bus.model = none``), the CPU
model with its defaults (not limiting at 1 Gbit/s), txqueuelen 5000 with ``cwr_gradual``
send stalls, the Linux 2.6 TCP profile (timestamps, window scaling, delayed ACK with
quick-ACK), SACK on or off, ``B_snd = B_rcv`` = 25 MiB as kernel memory limits, and an
iperf-like bulk sender. BIC uses the module defaults (``variant = "linux"``: β = 819/1024,
S_max 16, low_window 14, B = 4, fast convergence, smooth_part 20); "Reno" is ``newreno``
(Reno growth with NewReno recovery without SACK, SACK-based recovery with it).
"""

from __future__ import annotations

from typing import Any, Optional

from ... import build as b
from ...scenario import Scenario
from .. import quantities as q
from ..measure import MSS_BYTES, WIRE_BYTES

__all__ = ["FLOWS", "SENDERS", "AT_M", "LINE_GOODPUT_BPS", "tcp_bench_dict", "tcp_bench_scenario"]

FLOWS = ("flow1", "flow2")
SENDERS = ("s1", "s2")
#: The monitored egress: M toward NS (the shared link after the DUT).
AT_M = "m->ns"
#: 1 GbE goodput bound: R·MSS/W with MSS 1448 (timestamps) and 1538 wire bytes a segment.
LINE_GOODPUT_BPS = 1e9 * MSS_BYTES / WIRE_BYTES
#: spec 05 §2.7.
BUFFER = "25MiB"
TXQUEUELEN = 5000
CABLE_DELAY_S = 50e-9


def _host(name: str) -> b.Host:
    return b.Host(name, mtu=1500, txqueuelen=TXQUEUELEN, keys={"bus": {"model": "none"}, "cpu": {}})


def _flow(name: str, src: b.Host, dst: b.Host, start_s: float, cc: str, sack: bool) -> b.Flow:
    return b.Flow(
        name,
        src,
        dst,
        kind="tcp_bulk",
        cc=cc,
        profile="linux-2.6",
        sndbuf=BUFFER,
        rcvbuf=BUFFER,
        start=q.time(start_s),
        tcp={"sack": sack, "send_stall_policy": "cwr_gradual", "buffer_semantics": "kernel"},
        cc_params={"variant": "linux"} if cc == "bic" else None,
    )


def tcp_bench_dict(
    name: str,
    *,
    config: str,
    rtt_s: float,
    cc: str,
    sack: bool,
    duration_s: float,
    flow2_start_s: float,
    seed: int,
    switch: Optional[dict[str, Any]] = None,
    bin_s: float = 0.1,
) -> dict[str, Any]:
    """The E5.5 topology as a scenario dict: flow 1 S1 → R1 from 0, flow 2 S2 → R2 from
    ``flow2_start_s``, both to ``duration_s``; the TCP trace and the monitor at M in ``bin_s`` bins."""
    if cc not in ("bic", "newreno"):
        raise ValueError(f"cc: expected 'bic' or 'newreno', got {cc!r}")
    cable = q.time(CABLE_DELAY_S)
    net = b.Network(b.Sim(name, duration=q.time(duration_s), seed=seed, trace=b.Trace(mode="bin", bin=q.time(bin_s))))
    s1, s2 = net.add(_host("s1")), net.add(_host("s2"))
    dut = net.add(b.Switch("dut", switch={"config": config, **(switch or {})}))
    m, ns = net.add(b.Router("m")), net.add(b.Router("ns"))
    r1, r2 = net.add(_host("r1")), net.add(_host("r2"))
    for x, y in ((s1, dut), (s2, dut), (dut, m)):
        net.add(b.Link(x, y, phy="1g", delay=cable))
    net.add(b.Link(m, ns, phy="1g", delay=q.time(rtt_s / 2.0 + CABLE_DELAY_S)))
    for x, y in ((ns, r1), (ns, r2)):
        net.add(b.Link(x, y, phy="1g", delay=cable))
    net.add(_flow("flow1", s1, r1, 0.0, cc, sack))
    net.add(_flow("flow2", s2, r2, flow2_start_s, cc, sack))
    net.add(b.Monitor(m, ns, bin=q.time(bin_s)))
    return net.to_dict()


def tcp_bench_scenario(name: str, **keys: Any) -> Scenario:
    """:func:`tcp_bench_dict` loaded as a :class:`~lfnlab.Scenario` (checked by the engine)."""
    return Scenario.from_dict(tcp_bench_dict(name, **keys), origin=f"<{name}>")
