"""The S experiments of spec 03 §3 (the authors' simulator model), one module each."""

from __future__ import annotations

from ..registry import Experiment

__all__ = ["EXPERIMENTS"]

EXPERIMENTS: list[Experiment] = []
