"""The experiment catalogue (spec 00 §3): every chapter's experiments, in ID order. What an
experiment is and how it runs is :mod:`.engine`."""

from __future__ import annotations

from typing import Any

from .engine import Experiment

__all__ = ["Experiment", "catalogue", "find", "list_lines"]


def catalogue() -> list[Experiment]:
    """Every catalogued experiment, in ID order."""
    from .ch01_gap_pacing import EXPERIMENTS as V01
    from .ch02_quick_start import EXPERIMENTS as V02
    from .ch03_end_node_rate_control import EXPERIMENTS as V03
    from .ch04_ten_gig_hosts import EXPERIMENTS as V04
    from .ch05_switches import EXPERIMENTS as V05
    from .ch06_tcp_validation import EXPERIMENTS as V06
    from .real_testbed import EXPERIMENTS as VREAL

    return sorted(V01 + V02 + V03 + V04 + V05 + V06 + VREAL, key=lambda e: _id_key(e.id))


def _id_key(experiment_id: str) -> tuple[Any, ...]:
    # "06.V10" after "06.V9": compare digit runs as numbers.
    import re

    return tuple(int(p) if p.isdigit() else p for p in re.split(r"(\d+)", experiment_id))


def find(experiment_id: str) -> Experiment | None:
    """The experiment with this ID (case-insensitive), or None."""
    for e in catalogue():
        if e.id.lower() == experiment_id.lower():
            return e
    return None


def list_lines() -> list[str]:
    """One line per experiment: ``ID  title: summary``."""
    exps = catalogue()
    width = max((len(e.id) for e in exps), default=0)
    return [f"{e.id:<{width}}  {e.title}: {e.summary}" for e in exps]
