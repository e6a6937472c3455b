"""One cell compared: the simulator's runs, the testbed's runs, their rows and traces.

:func:`plan_cell` names the runs of a cell (directories under ``OUT/runs``);
:func:`simulate` runs the simulator's side; :func:`collect` turns both sides' results
into the comparison's rows and traces. ``lfnlab compare`` runs one cell; the real.M1
reproduction runs twelve, with every simulator run first and then the testbed runs of
all cells in one queue.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

import pandas as pd

from ..result import Result
from ..scenario import Scenario
from ..testbed.subset import Plan, check
from .figures import Trace
from .runs import KERNEL, SIMULATOR, KernelJob, KernelOutcome, failed_row, figures_row, simulator_scenario

__all__ = ["Cell", "plan_cell", "simulate", "collect", "Collected"]

RUNS_DIR = "runs"


@dataclass(frozen=True)
class Cell:
    """A scenario to compare, its testbed plan and the labels of its runs."""

    key: str
    scenario: Scenario
    plan: Plan
    repetitions: int
    sim_labels: tuple[str, ...]
    kernel_labels: tuple[str, ...]

    def kernel_jobs(self, out: Path) -> list[KernelJob]:
        return [
            KernelJob(label, self.scenario, out / RUNS_DIR / label, r, float(self.plan.duration_s))
            for r, label in enumerate(self.kernel_labels, start=1)
        ]

    def sim_scenarios(self) -> dict[str, Scenario]:
        return {
            label: simulator_scenario(self.scenario, self.plan, r) for r, label in enumerate(self.sim_labels, start=1)
        }


def plan_cell(scenario: Scenario, repetitions: int, key: str = "") -> Cell:
    """Checks ``scenario`` against the testbed's subset (InvalidInputError naming the key
    path otherwise) and names its runs ``[KEY-]sim-rN`` and ``[KEY-]kernel-rN``."""
    plan = check(scenario)
    prefix = f"{key}-" if key else ""
    reps = range(1, repetitions + 1)
    return Cell(
        key,
        scenario,
        plan,
        repetitions,
        tuple(f"{prefix}sim-r{r}" for r in reps),
        tuple(f"{prefix}kernel-r{r}" for r in reps),
    )


def simulate(cell: Cell, out: Path) -> dict[str, Result]:
    """The simulator's runs of ``cell``, written under ``OUT/runs``."""
    from ..result import run

    return {label: run(sc, out / RUNS_DIR / label) for label, sc in cell.sim_scenarios().items()}


@dataclass
class Collected:
    """A cell's rows (one per run) and traces."""

    rows: pd.DataFrame
    traces: list[Trace] = field(default_factory=list)


def collect(cell: Cell, sims: Mapping[str, Result], kernel: Mapping[str, KernelOutcome]) -> Collected:
    rows, traces = [], []
    for r, label in enumerate(cell.sim_labels, start=1):
        res = sims[label]
        rows.append(figures_row(res, cell.plan, SIMULATOR, r, label))
        traces.append(Trace(SIMULATOR, r, True, _trace(res)))
    for r, label in enumerate(cell.kernel_labels, start=1):
        k = kernel[label]
        if k.result is None:
            rows.append(failed_row(KERNEL, r, label, k.error or "no result"))
            continue
        row = figures_row(k.result, cell.plan, KERNEL, r, label)
        rows.append(row)
        traces.append(Trace(KERNEL, r, bool(row["valid"]), _trace(k.result)))
    frame = pd.DataFrame(rows)
    if cell.key:
        frame.insert(0, "cell", cell.key)
    return Collected(frame, traces)


def _trace(result: Optional[Result]) -> pd.DataFrame:
    if result is None or result.tcp is None:
        return pd.DataFrame({"t": [], "cwnd": [], "pacing_rate": []})
    cols = [c for c in ("t", "cwnd", "pacing_rate") if c in result.tcp.columns]
    return result.tcp[cols].reset_index(drop=True)
