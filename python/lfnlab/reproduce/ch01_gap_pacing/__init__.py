"""The chapter 01 experiments (gap-packet pacing, spec 01 §3), one module each."""

from __future__ import annotations

from ..engine import Experiment
from . import e1_gap_sweep, e2_bandwidth, e3_traces, e4_memory, v1_classes

__all__ = ["EXPERIMENTS"]

EXPERIMENTS: list[Experiment] = [m.EXPERIMENT for m in (e1_gap_sweep, e2_bandwidth, e3_traces, e4_memory, v1_classes)]
