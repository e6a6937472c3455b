"""Analytical reference models that experiments draw next to the simulation.

:mod:`lfnlab.models.quickstart`: the response-time / speedup model of Quick-Start TCP
(spec 02 §2.8), used for E2's model curves (spec 02 §4.3).
"""

from __future__ import annotations

from . import quickstart
from .quickstart import *  # noqa: F403  (the public API of the model, listed once in its __all__)

__all__ = list(quickstart.__all__)
