"""The E4 experiments of spec 04 §3, one module each, in ID order."""

from __future__ import annotations

from ..engine import Experiment
from . import e1_buffer_sweep, e2_ipv6, e3_startup, e4_window_requirement, e5_mitigation, e6_packet_rate, e7_real_routes, e8_txqueuelen

__all__ = ["EXPERIMENTS"]

EXPERIMENTS: list[Experiment] = [
    e1_buffer_sweep.EXPERIMENT,
    e2_ipv6.EXPERIMENT,
    e3_startup.EXPERIMENT,
    e4_window_requirement.EXPERIMENT,
    e5_mitigation.EXPERIMENT,
    e6_packet_rate.EXPERIMENT,
    e7_real_routes.EXPERIMENT,
    e8_txqueuelen.EXPERIMENT,
]
