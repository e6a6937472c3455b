"""The chapter 02 experiments (Quick-Start TCP, spec 02 §4) on testbed T0: E1 (data-rate
traces after connection setup) and E2 (speedup η = T_SS / T_QS versus transfer size)."""

from __future__ import annotations

from ..engine import Experiment
from .e_series import EXPERIMENTS as E_SERIES

__all__ = ["EXPERIMENTS"]

EXPERIMENTS: list[Experiment] = E_SERIES
