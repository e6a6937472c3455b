"""The F experiments of spec 03 §3 (P-TM path), one module each (F4, optional, is not
reproduced)."""

from __future__ import annotations

from ..engine import Experiment
from . import f1_gbe_fe, f2_ipg_sweep, f3_disk, f5_cps, f6_handover, f7_ipg_cps

__all__ = ["EXPERIMENTS"]

EXPERIMENTS: list[Experiment] = [
    f1_gbe_fe.EXPERIMENT,
    f2_ipg_sweep.EXPERIMENT,
    f3_disk.EXPERIMENT,
    f5_cps.EXPERIMENT,
    f6_handover.EXPERIMENT,
    f7_ipg_cps.EXPERIMENT,
]
