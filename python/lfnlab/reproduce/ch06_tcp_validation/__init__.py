"""The chapter 06 validation experiments 06.V1–06.V8 (spec 06 §7), one module each."""

from __future__ import annotations

from ..engine import Experiment
from . import (
    v1_goodput,
    v2_slow_start,
    v3_mathis,
    v4_aimd,
    v5_conservation,
    v6_determinism,
    v7_rto,
    v8_window,
)

__all__ = ["EXPERIMENTS"]

EXPERIMENTS: list[Experiment] = [
    m.EXPERIMENT
    for m in (v1_goodput, v2_slow_start, v3_mathis, v4_aimd, v5_conservation, v6_determinism, v7_rto, v8_window)
]
