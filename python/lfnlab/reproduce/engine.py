"""The experiment engine (issue 37): an experiment is a declaration; one engine runs it.

An experiment module declares, and does not run anything itself:

- its **parameters**: a frozen dataclass whose fields carry a label and a unit, in a full
  and a quick form (``FULL``, ``QUICK``);
- its **cases**: ``cases(params) -> [Case | BenchCase]``, every scenario the experiment
  needs, each with the label of its result directory and what to keep from its result;
- its **analysis**: ``analyse(params, kept) -> Outcome``, the tables, figures, checks and
  expectations computed from what was kept (``kept[label]``, in label order).

The engine (:meth:`Experiment.run`) takes every declaration through the same steps:

1. plan: ask for the cases of the chosen form, so the number of runs is known before the
   first starts (the progress display counts against it from the start);
2. run: every case through :class:`.runner.RunContext`: local threads or a sweep backend
   (``--dask local``, ``--scheduler``), finished runs reused with ``--resume``; a
   :class:`BenchCase` on the generator bench loop;
3. analyse: hand what was kept to the analysis; its outcome gets the run records.

Nothing here depends on where or in what order the runs finish: ``kept`` is in label
order, and each kept value depends only on its scenario (the engine is deterministic,
spec 06 §7).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Optional, Union

from ..bench_run import BenchResult
from ..result import Result
from ..scenario import Scenario
from ..sweep.execute import Backend
from ..sweep.progress import NoProgress, Progress, Tally
from .bench_journal import sources_sha256
from .outcome import Outcome
from .quantities import describe
from .runner import Job, RunContext

__all__ = ["Case", "BenchCase", "Experiment", "run_cases"]


@dataclass(frozen=True)
class Case:
    """One scenario an experiment runs: its result goes to ``runs/<label>/``, and
    ``keep(result)`` (run where the result is read, so a large trace is reduced at once)
    is what the analysis gets under ``label``; without ``keep``, the Result itself."""

    label: str
    scenario: Scenario
    keep: Optional[Callable[[Result], Any]] = None


@dataclass(frozen=True)
class BenchCase:
    """One scenario on the generator bench loop (:func:`lfnlab.bench_run.run_bench`, spec
    05 §2.6): no result directory; ``build()`` makes the scenario in the worker and
    ``keep(label, result)`` is what the analysis gets under ``label``."""

    label: str
    build: Callable[[], Scenario]
    keep: Callable[[str, BenchResult], Any]


AnyCase = Union[Case, BenchCase]


def run_cases(ctx: RunContext, cases: Sequence[AnyCase]) -> dict[str, Any]:
    """Run ``cases`` in ``ctx`` (its tally already counts them); ``{label: kept}`` in label
    order. Labels are unique across both kinds."""
    labels = [c.label for c in cases]
    if len(set(labels)) != len(labels):
        raise ValueError(f"duplicate case labels: {sorted(lab for lab in labels if labels.count(lab) > 1)}")
    bench = {c.label: c for c in cases if isinstance(c, BenchCase)}
    plain = [c for c in cases if isinstance(c, Case)]
    kept: dict[str, Any] = {}
    if bench:
        analysis = sources_sha256({c.keep.__module__ for c in bench.values()})
        kept.update(ctx.run_bench({lab: c.build for lab, c in bench.items()}, lambda lab, r: bench[lab].keep(lab, r), analysis))
    if plain:
        keeps = {c.label: c.keep for c in plain}

        def keep(result: Result) -> Any:
            k = keeps[result.out_dir.name if result.out_dir else ""]
            return result if k is None else k(result)

        kept.update(ctx.run([Job(c.label, c.scenario) for c in plain], keep))
    return {label: kept[label] for label in sorted(kept)}


@dataclass(frozen=True)
class Experiment:
    """One catalogued experiment, as its module declares it (see the module notes).

    Attributes:
        id: chapter and label, e.g. ``06.V1``.
        title: short name, e.g. ``goodput at the wire-efficiency bound``.
        summary: one line for ``lfnlab reproduce --list``.
        reference: where the spec defines it, e.g. ``spec 06 §7 (V1)``.
        checks: a paragraph for the report: what is checked and how it is measured.
        full: parameters of the full form (a dataclass whose fields carry labels and units).
        quick: parameters of the ``--quick`` form.
        cases: ``cases(params) -> [Case | BenchCase]``: every scenario to run.
        analyse: ``analyse(params, kept) -> Outcome``: tables, figures, checks from ``kept``.
    """

    id: str
    title: str
    summary: str
    reference: str
    checks: str
    full: Any
    quick: Any
    cases: Callable[[Any], Sequence[AnyCase]]
    analyse: Callable[[Any, Mapping[str, Any]], Outcome]

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
        """Plan, run and analyse (see the module notes); raw results under ``out/runs``. With
        ``resume``, stamped runs already in ``out/runs`` with the same scenario and engine
        are reused (see :mod:`.runner`). ``progress`` reports the runs as they finish;
        ``backend`` (a sweep executor: Dask) runs them instead of this process's threads."""
        p = self.params(quick)
        planned = list(self.cases(p))
        ctx = RunContext(
            out=out,
            workers=workers,
            quick=quick,
            resume=resume,
            progress=progress or NoProgress(),
            backend=backend,
            tally=Tally(total=len(planned), kind="reproduce"),
        )
        ctx.progress.start(ctx.tally)
        kept = run_cases(ctx, planned)
        outcome = self.analyse(p, kept)
        ctx.progress.finish(ctx.tally)
        outcome.runs = list(ctx.records)
        return outcome
