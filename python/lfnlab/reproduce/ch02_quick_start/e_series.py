"""The E experiments of spec 02 §4, one module each (E6 is an option of the spec)."""

from __future__ import annotations

from ..engine import Experiment
from . import e1_traces, e2_speedup, e3_web_one_user, e4_users, e5_restricted, e6_router_work

__all__ = ["EXPERIMENTS"]

EXPERIMENTS: list[Experiment] = [
    e1_traces.EXPERIMENT,
    e2_speedup.EXPERIMENT,
    e3_web_one_user.EXPERIMENT,
    e4_users.EXPERIMENT,
    e5_restricted.EXPERIMENT,
    e6_router_work.EXPERIMENT,
]
