"""The chapter 04 experiments (10 Gbit/s end hosts on long fat networks, spec 04 §3) on the
emulated path T4-P: the E4 series."""

from __future__ import annotations

from ..engine import Experiment
from .e_series import EXPERIMENTS as E_SERIES

__all__ = ["EXPERIMENTS"]

EXPERIMENTS: list[Experiment] = E_SERIES
