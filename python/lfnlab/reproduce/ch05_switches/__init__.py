"""Chapter 05 reproductions: Ethernet switch contention (spec 05)."""

from __future__ import annotations

from ..engine import Experiment
from .e0_validation import EXPERIMENT as E0
from .e1_two_cbr import EXPERIMENT as E1
from .e2_isolines import EXPERIMENT as E2
from .e3_seq_traces import EXPERIMENT as E3
from .e4_burst import EXPERIMENT as E4
from .e5_tcp import EXPERIMENT as E5

__all__ = ["EXPERIMENTS"]

EXPERIMENTS: list[Experiment] = [E0, E1, E2, E3, E4, E5]
