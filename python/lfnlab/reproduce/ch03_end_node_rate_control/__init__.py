"""The chapter 03 experiments (NIC IPG tuning, Clustered Packet Spacing, the TCP-aware NIC,
spec 03 §3): the modelled real-path experiments F* and the simulator experiments S*."""

from __future__ import annotations

from ..engine import Experiment
from .f_series import EXPERIMENTS as F_SERIES
from .s_series import EXPERIMENTS as S_SERIES

__all__ = ["EXPERIMENTS"]

EXPERIMENTS: list[Experiment] = F_SERIES + S_SERIES
