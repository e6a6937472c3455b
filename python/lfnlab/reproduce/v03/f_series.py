"""The F experiments of spec 03 §3 (P-TM path), one module each."""

from __future__ import annotations

from ..registry import Experiment

__all__ = ["EXPERIMENTS"]

EXPERIMENTS: list[Experiment] = []
