"""The E experiments of spec 02 §4, one module each (E6, an option of the spec, is not yet)."""

from __future__ import annotations

from ..registry import Experiment
from . import e1_traces, e2_speedup, e3_web_one_user, e4_users, e5_restricted

__all__ = ["EXPERIMENTS"]

EXPERIMENTS: list[Experiment] = [
    e1_traces.EXPERIMENT,
    e2_speedup.EXPERIMENT,
    e3_web_one_user.EXPERIMENT,
    e4_users.EXPERIMENT,
    e5_restricted.EXPERIMENT,
]
