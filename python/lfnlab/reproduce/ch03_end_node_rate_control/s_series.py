"""The S experiments of spec 03 §3 (the authors' simulator model), one module each."""

from __future__ import annotations

from ..engine import Experiment
from . import s1_grid, s2_two_streams

__all__ = ["EXPERIMENTS"]

EXPERIMENTS: list[Experiment] = [m.EXPERIMENT for m in (s1_grid, s2_two_streams)]
