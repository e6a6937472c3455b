"""``lfnlab compare``: one scenario in the simulator and on the testbed, N repetitions
each, and a side-by-side report (docs/compare.md).

Writes into ``OUT``: ``runs/sim-rN`` and ``runs/kernel-rN`` (result directories),
``runs.csv`` (one row per run), ``summary.csv`` (per metric: medians, difference,
flag), ``goodput.png``, ``cwnd.png``, ``pacing_rate.png``, ``report.md`` and
``compare.json`` (the manifest that lets a later comparison replace this one).
"""

from __future__ import annotations

import json
import shutil
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional

import pandas as pd

from ..errors import OutputError
from ..reproduce.figures import save_png
from ..scenario import Scenario
from . import figures, report
from .cell import RUNS_DIR, Cell, Collected, collect, plan_cell, simulate
from .runs import run_kernel
from .summary import DEFAULT_TOLERANCE, cell_summary

__all__ = ["Comparison", "compare", "prepare_out", "MANIFEST"]

MANIFEST = "compare.json"
FILES = ("runs.csv", "summary.csv", "goodput.png", "cwnd.png", "pacing_rate.png", report.REPORT)


@dataclass
class Comparison:
    """What :func:`compare` measured: the cell, one row per run, the per-metric summary."""

    cell: Cell
    collected: Collected
    summary: pd.DataFrame
    tolerance: float
    wall_seconds: float
    out: Path

    @property
    def runs(self) -> pd.DataFrame:
        return self.collected.rows

    @property
    def flagged(self) -> list[str]:
        """The metrics outside the tolerance band."""
        return [str(m) for m in self.summary.loc[self.summary["outside_band"], "metric"]]


def prepare_out(out: Path) -> None:
    """Creates ``out``, or clears an earlier comparison in it (only what its manifest
    lists). Any other non-empty directory is refused (OutputError)."""
    if out.exists() and not out.is_dir():
        raise OutputError(f"{out} exists and is not a directory")
    if out.is_dir() and any(out.iterdir()):
        try:
            previous = json.loads((out / MANIFEST).read_text(encoding="utf-8"))
            files, runs = [str(f) for f in previous["files"]], [str(r) for r in previous["runs"]]
        except (OSError, ValueError, KeyError, TypeError):
            raise OutputError(f"{out} is not empty and not the output of `lfnlab compare`; refusing to replace it") from None
        for name in [*files, MANIFEST]:
            p = out / name
            if p.parent == out and p.is_file():
                p.unlink()
        for name in runs:
            p = out / RUNS_DIR / name
            if p.parent == out / RUNS_DIR and p.is_dir():
                shutil.rmtree(p)
    (out / RUNS_DIR).mkdir(parents=True, exist_ok=True)


def compare(
    scenario: Scenario,
    out: Path,
    repetitions: int = 3,
    workers: int = 1,
    tolerance: float = DEFAULT_TOLERANCE,
    command: Optional[str] = None,
    say: Callable[[str], None] = lambda _line: None,
) -> Comparison:
    """Runs ``scenario`` ``repetitions`` times in the simulator and on the testbed
    (``workers`` testbed labs at a time) and writes the comparison into ``out``.

    Raises InvalidInputError (outside the testbed's subset), TestbedUnavailableError,
    OutputError, or Interrupted (SIGINT/SIGTERM: every namespace and process of the
    testbed runs is removed first). A testbed run that fails is reported as failed.
    """
    from ..testbed.lab import check_host

    cell = plan_cell(scenario, repetitions)
    check_host()
    prepare_out(out)
    wall0 = time.monotonic()
    say(f"simulator: {repetitions} run(s)")
    sims = simulate(cell, out)
    kernel = run_kernel(cell.kernel_jobs(out), workers, say)
    collected = collect(cell, sims, {k.job.label: k for k in kernel})
    summary = cell_summary(collected.rows, tolerance)
    result = Comparison(cell, collected, summary, tolerance, time.monotonic() - wall0, out)
    _write(result, command or f"lfnlab compare {scenario.origin} --out {out}")
    return result


def _write(c: Comparison, command: str) -> None:
    c.runs.to_csv(c.out / "runs.csv", index=False)
    c.summary.to_csv(c.out / "summary.csv", index=False)
    title = f"{c.cell.plan.name}: {c.cell.plan.cc}, pacing {c.cell.plan.pacing}"
    save_png(figures.goodput_figure(c.runs, title), c.out / "goodput.png")
    save_png(figures.trace_figure(c.collected.traces, "cwnd", title), c.out / "cwnd.png")
    save_png(figures.trace_figure(c.collected.traces, "pacing_rate", title), c.out / "pacing_rate.png")
    report.write(c, command)
    manifest: dict[str, Any] = {
        "files": list(FILES),
        "runs": [*c.cell.sim_labels, *c.cell.kernel_labels],
        "flagged": c.flagged,
        "tolerance": c.tolerance,
    }
    (c.out / MANIFEST).write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
