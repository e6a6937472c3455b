"""The experiment catalogue (spec 00 §3): what each ID is and how to run it."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Optional

from .outcome import Outcome
from .quantities import describe
from ..sweep.execute import Backend
from ..sweep.progress import NoProgress, Progress
from .runner import RunContext

__all__ = ["Experiment", "catalogue", "find", "list_lines"]


@dataclass(frozen=True)
class Experiment:
    """One catalogued experiment.

    Attributes:
        id: chapter and label, e.g. ``06.V1``.
        title: short name, e.g. ``goodput at the wire-efficiency bound``.
        summary: one line for ``lfnlab reproduce --list``.
        reference: where the spec defines it, e.g. ``spec 06 §7 (V1)``.
        checks: a paragraph for the report: what is checked and how it is measured.
        full: parameters of the full form (a dataclass whose fields carry labels and units).
        quick: parameters of the ``--quick`` form.
        body: ``body(params, ctx) -> Outcome``: runs the scenarios, computes the checks.
    """

    id: str
    title: str
    summary: str
    reference: str
    checks: str
    full: Any
    quick: Any
    body: Callable[[Any, RunContext], Outcome]

    def params(self, quick: bool) -> Any:
        return self.quick if quick else self.full

    def parameter_rows(self) -> list[tuple[str, str, str]]:
        """(parameter, quick value, full value) rows for the report."""
        quick = describe(self.quick)
        full = dict(describe(self.full))
        return [(label, value, full.get(label, "—")) for label, value in quick]

    def run(
        self, quick: bool, workers: int, out: Path, resume: bool = False, progress: Optional[Progress] = None, backend: Optional[Backend] = None
    ) -> Outcome:
        """Run the experiment, raw results under ``out/runs``; return its outcome. With
        ``resume``, stamped runs already in ``out/runs`` with the same scenario and engine
        are reused (see :mod:`.runner`). ``progress`` reports the runs as they finish;
        ``backend`` (a sweep executor: Dask) runs them instead of this process's threads."""
        ctx = RunContext(out=out, workers=workers, quick=quick, resume=resume, progress=progress or NoProgress(), backend=backend)
        ctx.progress.start(ctx.tally)
        outcome = self.body(self.params(quick), ctx)
        ctx.progress.finish(ctx.tally)
        outcome.runs = list(ctx.records)
        return outcome


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
