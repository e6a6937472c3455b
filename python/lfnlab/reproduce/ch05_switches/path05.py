"""The spec 05 test bench: a hardware-like generator and monitor around one switch.

Generator channel CH2 feeds port A of the device under test, CH3 port B; port C feeds the
monitor CH0 (spec 05 §3 E5.1 topology). The generator is ``udp_cbr``, whose rate is a
transmission capacity in wire bytes (spec 05 §2.5 rule 1). The start phase φ of channel 2
and the generator clock offsets are drawn here from the run's seed (spec 05 §2.4); the
switch draws δ_sw itself.
"""

from __future__ import annotations

import math
from typing import Any, Optional

import numpy as np

from ... import build as b
from ...scenario import Scenario
# W = max(L3 + 18, 64) + 20 (spec 05 §2.1).
from ..measure import WIRE_OVERHEAD_BYTES, wire_bytes

__all__ = ["LINE_BPS", "l2_line_mbps", "frame_time_s", "period_s", "phase_ns", "bench_dict", "bench_scenario", "wire_bytes"]

#: R_line (spec 05 §2.1).
LINE_BPS = 1e9
#: The generator's ε for `gen.clock = independent` (spec 05 §2.4).
GEN_CLOCK_PPM = 1.0


def l2_line_mbps(l3_bytes: int) -> float:
    """A saturated output's rate in L2 bytes: R_line·L2/W (987.0 Mbit/s for 1500-byte packets)."""
    w = wire_bytes(l3_bytes)
    return LINE_BPS * (w - WIRE_OVERHEAD_BYTES) / w / 1e6


def frame_time_s(l3_bytes: int) -> float:
    """8·W / R_line."""
    return 8.0 * wire_bytes(l3_bytes) / LINE_BPS


def period_s(l3_bytes: int, tc_mbps: float) -> float:
    """CBR period T = 8·(L3 + 38)/TC (spec 05 §2.5 rule 1)."""
    return 8.0 * wire_bytes(l3_bytes) / (tc_mbps * 1e6)


def _rng(seed: int) -> np.random.Generator:
    return np.random.default_rng([seed, 505])


def phase_ns(seed: int, l3_bytes: int, tc2_mbps: float) -> int:
    """φ ~ U[0, T₂), drawn per repetition (spec 05 §2.4), in whole nanoseconds."""
    if tc2_mbps <= 0:
        return 0
    return int(math.floor(_rng(seed).uniform(0.0, period_s(l3_bytes, tc2_mbps)) * 1e9))


def _tc_bps(tc_mbps: float, ppm: float) -> int:
    return max(1, int(round(tc_mbps * 1e6 * (1.0 + ppm * 1e-6))))


def bench_dict(
    name: str,
    *,
    config: str,
    tc1_mbps: float,
    tc2_mbps: float,
    duration_s: float,
    seed: int,
    l3_bytes: int = 1500,
    switch: Optional[dict[str, Any]] = None,
    independent_clocks: bool = False,
    bin_s: float = 0.001,
    capture_packets: int = 0,
    capture_from_s: float = 0.0,
    burst2: Optional[tuple[int, float]] = None,
    generator_monitor: bool = False,
) -> dict[str, Any]:
    """The bench as a scenario dict. ``tc*_mbps`` = 0 leaves that channel silent.
    ``burst2`` = (N, t_b): channel 3 sends one burst of N back-to-back frames from t_b
    instead of CBR (spec 05 §2.5 rule 2: a line-rate CBR source that stops after N frames).
    ``generator_monitor`` adds monitors on the generator links (what each channel sent)."""
    offsets = _rng(seed).uniform(-GEN_CLOCK_PPM, GEN_CLOCK_PPM, size=3)[1:] if independent_clocks else np.zeros(2)
    ch2, ch3, ch0 = b.Host("ch2"), b.Host("ch3"), b.Host("ch0")
    dut = b.Switch("dut", switch={"config": config, **(switch or {})})
    net = b.Network(b.Sim(name, duration=f"{round(duration_s * 1e3)}ms", seed=seed, trace=b.Trace(mode="off")))
    for node in (ch2, ch3, dut, ch0):
        net.add(node)
    for a, z in ((ch2, dut), (ch3, dut), (dut, ch0)):
        net.add(b.Link(a, z, rate="1Gbps", delay="0ns"))
    if tc1_mbps > 0:
        net.add(b.Flow("flow1", ch2, ch0, kind="udp_cbr", rate=f"{_tc_bps(tc1_mbps, offsets[0])}bps", size=l3_bytes))
    if burst2 is not None:
        n, t_b = burst2
        start_ns = int(round(t_b * 1e9))
        stop_ns = start_ns + int(math.ceil((n - 0.5) * frame_time_s(l3_bytes) * 1e9))
        net.add(b.Flow("flow2", ch3, ch0, kind="udp_cbr", rate="1Gbps", size=l3_bytes, start=f"{start_ns}ns", stop=f"{stop_ns}ns"))
    elif tc2_mbps > 0:
        rate2 = f"{_tc_bps(tc2_mbps, offsets[1])}bps"
        net.add(b.Flow("flow2", ch3, ch0, kind="udp_cbr", rate=rate2, size=l3_bytes, start=f"{phase_ns(seed, l3_bytes, tc2_mbps)}ns"))
    # The monitor counts a frame when its last bit reaches CH0 (spec 05 §2.6 t_obs).
    bin_text = f"{round(bin_s * 1e6)}us"
    capture = {"capture_packets": capture_packets, "capture_from": f"{round(capture_from_s * 1e9)}ns"} if capture_packets else {}
    net.add(b.Monitor(dut, ch0, bin=bin_text, point="ingress", **capture))
    if generator_monitor:
        net.add(b.Monitor(ch2, dut, bin=bin_text))
        net.add(b.Monitor(ch3, dut, bin=bin_text))
    return net.to_dict()


def bench_scenario(name: str, **keys: Any) -> Scenario:
    """:func:`bench_dict` loaded as a :class:`~lfnlab.Scenario` (checked by the engine)."""
    return Scenario.from_dict(bench_dict(name, **keys), origin=f"<{name}>")
