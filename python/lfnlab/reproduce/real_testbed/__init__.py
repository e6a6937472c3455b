"""Experiments against real Linux TCP (issue 11): the simulator beside the kernel's TCP
on the testbed (:mod:`lfnlab.testbed`, :mod:`lfnlab.compare`). They need root and
network namespaces."""

from __future__ import annotations

from ..engine import Experiment
from .m1_matrix import EXPERIMENT as M1
from .m2_matrix import EXPERIMENT as M2

__all__ = ["EXPERIMENTS"]

EXPERIMENTS: list[Experiment] = [M1, M2]
