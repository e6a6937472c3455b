"""The E experiments of spec 02 §4 reproduced so far, one module each (E3–E6 are not yet)."""

from __future__ import annotations

from ..registry import Experiment
from . import e1_traces, e2_speedup

__all__ = ["EXPERIMENTS"]

EXPERIMENTS: list[Experiment] = [e1_traces.EXPERIMENT, e2_speedup.EXPERIMENT]
