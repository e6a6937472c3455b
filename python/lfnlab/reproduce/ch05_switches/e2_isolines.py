"""05.E5.2: the isoline sweep, the steady-state characteristic of each switch (spec 05 §3 E5.2).

The E5.1 bench (CH2 → port A, CH3 → port B, port C → CH0, 1500-byte packets) over the grid
TC1, TC2 ∈ {0, 20, …, 1000} Mbit/s, 12 s a point, 3 repetitions (δ_sw and φ redrawn), for
every required configuration. Per point and flow: the ratio out/in in frames over the window
[0.5, 11.5] s and the standard deviation of the flow's output over its 1-ms bins; both are
averaged over the repetitions. T5.2 is the grid; F5.2a maps flow 1's ratio (isolines every
0.1), F5.2b its standard deviation, one panel per configuration.

Reduced mode (``--quick``, CHOICE): the spec's step of 100 Mbit/s and one repetition, with
1.2 s a point (window [0.1, 1.1] s) so that the nine configurations' 1089 runs fit in CI.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import partial
from typing import Any, Callable

import numpy as np
import pandas as pd

from ...bench_run import BenchResult
from ...result import Result
from ...scenario import Scenario
from ..engine import BenchCase, Case, Experiment
from ..measure import conserved
from ..outcome import Check, Figure, Outcome, Table
from ..paper import comparison
from .path05 import bench_scenario
from .common05 import CONFIGS_E51_E54, config_grid, run_stats

#: Line rate in TC units (wire Mbit/s): the no-congestion line is TC1 + TC2 = R_line.
LINE_MBPS = 1000.0
#: Points this far from the no-congestion line are not judged by the checks (phase effects at
#: the boundary, where the output is exactly full).
LINE_MARGIN_MBPS = 40.0
#: The grid point (TC1, TC2) of each configuration that also runs in the event loop.
SPOT = (600, 700)


@dataclass(frozen=True)
class Params:
    configs: tuple[str, ...] = field(metadata={"label": "configurations"})
    step_mbps: int = field(metadata={"label": "grid step", "unit": "Mbit/s"})
    reps: int = field(metadata={"label": "repetitions (δ_sw and φ redrawn)"})
    duration_s: float = field(metadata={"label": "generation", "unit": "s"})
    window_s: tuple[float, float] = field(metadata={"label": "measurement window", "unit": "s"})
    bin_s: float = field(default=0.001, metadata={"label": "bin", "unit": "s"})

    @property
    def rates(self) -> tuple[int, ...]:
        return tuple(range(0, 1001, self.step_mbps))


FULL = Params(configs=CONFIGS_E51_E54, step_mbps=20, reps=3, duration_s=12.0, window_s=(0.5, 11.5))
QUICK = Params(configs=CONFIGS_E51_E54, step_mbps=100, reps=1, duration_s=1.2, window_s=(0.1, 1.1))


def _label(config: str, tc1: int, tc2: int, rep: int) -> str:
    return f"{config}-{tc1:04d}-{tc2:04d}-r{rep}"


def _bench_label(config: str, tc1: int, tc2: int, rep: int) -> str:
    """A grid point in the bench loop: no result directory; the label only has to differ from
    the event-loop run of the same point (:func:`_label`, its directory under runs/)."""
    return f"bench-{_label(config, tc1, tc2, rep)}"


def _points(p: Params) -> list[tuple[str, int, int]]:
    return [(c, a, b) for c in p.configs for a in p.rates for b in p.rates]


def _spots(p: Params) -> list[tuple[str, int, int, int]]:
    """The point SPOT of each configuration, repetition 1, when the grid has it."""
    return [(c, *SPOT, 1) for c in p.configs if SPOT[0] in p.rates and SPOT[1] in p.rates]


def _keeper(p: Params, tc1: int, tc2: int, with_flows: bool) -> Callable[[str, BenchResult], dict[str, Any]]:
    """What the grid keeps of a point's bench run; ``with_flows`` adds its flows table, to
    compare with the event-loop run of the same point."""
    offered = {f: float(tc) for f, tc in (("flow1", tc1), ("flow2", tc2)) if tc > 0}

    def keep(_label: str, r: BenchResult) -> dict[str, Any]:
        st = run_stats(r.flows, offered, p.duration_s, p.window_s, p.bin_s) if offered else {}
        got = {
            "holds": conserved(r.summary),
            **{f"{f}_{k}": st[f][k] if f in st else float("nan") for f in ("flow1", "flow2") for k in ("ratio_out_in", "std_1ms_Mbps")},
        }
        return {**got, "flows": r.flows} if with_flows else got

    return keep


def _scenario(p: Params, config: str, tc1: int, tc2: int, rep: int) -> Scenario:
    return bench_scenario(f"05.E5.2-{_label(config, tc1, tc2, rep)}", config=config, tc1_mbps=tc1, tc2_mbps=tc2,
                          duration_s=p.duration_s, seed=rep, bin_s=p.bin_s, generator_monitor=True)


def _flows(r: Result) -> pd.DataFrame:
    return r.flows


def cases(p: Params) -> list[BenchCase | Case]:
    """Every grid point runs in the bench loop (docs/switches.md "Bench runs"); one point per
    configuration also runs in the event loop, into runs/, and the two flows tables must agree.
    Both sets are fixed by ``p`` alone: the event-loop runs do not depend on the bench results."""
    spots = _spots(p)
    grid = [
        BenchCase(_bench_label(c, a, b, rep), partial(_scenario, p, c, a, b, rep), _keeper(p, a, b, (c, a, b, rep) in spots))
        for c, a, b in _points(p)
        for rep in range(1, p.reps + 1)
    ]
    return [*grid, *(Case(_label(*k), _scenario(p, *k), _flows) for k in spots)]


def analyse(p: Params, kept: Mapping[str, Any]) -> Outcome:
    spots = _spots(p)
    agree = sum(bool(kept[_bench_label(*k)]["flows"].equals(kept[_label(*k)])) for k in spots)
    rows = []
    for c, a, b in _points(p):
        got = [kept[_bench_label(c, a, b, r)] for r in range(1, p.reps + 1)]
        row: dict[str, Any] = {"config": c, "TC1_Mbps": a, "TC2_Mbps": b}
        for f, tag in (("flow1", "f1"), ("flow2", "f2")):
            for k, col in (("ratio_out_in", "ratio_out_in"), ("std_1ms_Mbps", "std_1ms_Mbps")):
                row[f"{tag}_{col}"] = float(np.mean([g[f"{f}_{k}"] for g in got]))  # NaN for a silent flow
        row["conservation_holds"] = all(g["holds"] for g in got)
        rows.append(row)
    grid = pd.DataFrame(rows)
    out = Outcome(
        checks=[Check.equal(f"configurations whose point {SPOT} gives the same flows table in the bench loop and the event loop",
                            agree, len(spots), criterion="= every configuration (runs/ holds the event-loop runs)")] + _checks(grid),
        tables=[Table("T5.2", "The full grid per configuration: per flow the ratio out/in (frames received ÷ sent in the window) "
                      "and the standard deviation of its output over 1-ms bins (Mbit/s of L2 bytes), each the mean over the "
                      "repetitions; NaN for a flow that offers nothing.", grid)],
        figures=[_figure(p, grid, "f1_ratio_out_in", "a", "flow-1 ratio out/in", np.append(np.arange(0.0, 0.95, 0.1), 1.0001)),
                 _figure(p, grid, "f1_std_1ms_Mbps", "b", "standard deviation of flow 1 over 1-ms bins (Mbit/s)", None)],
        notes=[
            f"TC is a transmission capacity in wire bytes (spec 05 §2.5), so the no-congestion line is TC1 + TC2 = {LINE_MBPS:g} "
            f"Mbit/s. The checks leave out points within {LINE_MARGIN_MBPS:g} Mbit/s of it.",
            "A flow offering 0 Mbit/s has no ratio: its row and column of the grid are NaN for that flow.",
            f"The grid runs in the bench loop (docs/switches.md \"Bench runs\"), which writes no result directories; "
            f"the point {SPOT} of each configuration (repetition 1) also runs in the event loop, listed under Runs, and "
            "the first check compares the two flows tables.",
        ],
    )
    under = _under(grid)
    ours = {"ratio-below-line": float(under[["f1_ratio_out_in", "f2_ratio_out_in"]].min().min())} if len(under) else {}
    out.paper = comparison("05.E5.2", ours, {})
    return out


def _under(grid: pd.DataFrame) -> pd.DataFrame:
    """The grid points below the no-congestion line (by more than the margin), both flows offering."""
    total = grid["TC1_Mbps"] + grid["TC2_Mbps"]
    return grid[(total <= LINE_MBPS - LINE_MARGIN_MBPS) & (grid["TC1_Mbps"] > 0) & (grid["TC2_Mbps"] > 0)]


def _checks(grid: pd.DataFrame) -> list[Check]:
    total = grid["TC1_Mbps"] + grid["TC2_Mbps"]
    both = (grid["TC1_Mbps"] > 0) & (grid["TC2_Mbps"] > 0)
    under = _under(grid)
    over = grid[(total >= LINE_MBPS + LINE_MARGIN_MBPS) & both]
    # Frames delivered per second over the offered wire rate: Σ ratio·TC is the delivered rate in TC units.
    delivered = over["f1_ratio_out_in"] * over["TC1_Mbps"] + over["f2_ratio_out_in"] * over["TC2_Mbps"]
    checks = [
        Check.equal("grid points whose packet conservation holds in every repetition", int(grid["conservation_holds"].sum()), len(grid),
                    criterion="= every point"),
        Check.within("smallest ratio out/in below the no-congestion line, any flow and configuration",
                     float(under[["f1_ratio_out_in", "f2_ratio_out_in"]].min().min()) if len(under) else 1.0, 0.999, None,
                     criterion="≥ 0.999 (spec 05 §4: below the line the ratio is 1)"),
    ]
    if len(over):
        checks.append(Check.within("above the line: smallest delivered rate Σ ratio·TC, any configuration",
                                   float(delivered.min()), 0.99 * LINE_MBPS, None, unit="Mbit/s",
                                   criterion=f"≥ {0.99 * LINE_MBPS:g} (a congested output stays busy: every model is work-conserving for one output)"))
        checks.append(Check.within("above the line: largest delivered rate Σ ratio·TC, any configuration",
                                   float(delivered.max()), None, 1.001 * LINE_MBPS, unit="Mbit/s",
                                   criterion=f"≤ {1.001 * LINE_MBPS:g} (the output line is the limit; δ_sw ≤ 50 ppm)"))
    return checks


def _figure(p: Params, grid: pd.DataFrame, column: str, letter: str, what: str, levels: Any) -> Figure:
    rates = np.array(p.rates, dtype=float)
    top = float(np.nanmax(grid[column].to_numpy(dtype=float))) if len(grid) else 1.0
    lv = levels if levels is not None else np.linspace(0.0, max(top, 1e-9) * 1.0001, 11)
    filled: list[Any] = []

    def draw(ax: Any, c: str) -> None:
        g = grid[grid["config"] == c].pivot(index="TC2_Mbps", columns="TC1_Mbps", values=column).reindex(index=rates, columns=rates)
        z = np.ma.masked_invalid(g.to_numpy(dtype=float))
        if levels is not None:
            # A ratio a hair above 1 (frames sent before the window, received in it) is 1.
            z = np.ma.clip(z, 0.0, 1.0)
        filled.append(ax.contourf(rates, rates, z, levels=lv, cmap="viridis"))
        lines = ax.contour(rates, rates, z, levels=lv[1:-1], colors="k", linewidths=0.4)
        ax.clabel(lines, fontsize=5, fmt="%.1f" if levels is not None else "%.0f")
        ax.plot([0, LINE_MBPS], [LINE_MBPS, 0], "--", color="w", lw=0.6)
        ax.set_aspect("equal")

    fig, axes = config_grid(p.configs, draw, "TC1 (Mbit/s)",
                            f"05.E5.2 F5.2{letter}: {what}, {p.step_mbps}-Mbit/s grid, {p.reps} repetition(s) averaged", height=10.0)
    for ax in axes[::3]:
        ax.set_ylabel("TC2 (Mbit/s)")
    fig.colorbar(filled[-1], ax=axes, shrink=0.6, label=what)
    return Figure(f"F5.2{letter}", f"Contour map of the {what} over the (TC1, TC2) grid, one panel per configuration; the dashed "
                  "line is TC1 + TC2 = R_line.", fig)


EXPERIMENT = Experiment(
    id="05.E5.2",
    title="isoline sweep",
    summary="the E5.1 bench over the (TC1, TC2) grid in 20-Mbit/s steps for every required configuration: flow-1 ratio "
    "out/in and 1-ms standard deviation maps (T5.2, F5.2a–b)",
    reference="spec 05 §3 (E5.2), §4",
    checks=(
        "Checks (model properties that can fail): packet conservation at every point; below the no-congestion line every "
        "flow gets all its frames through; above it the delivered rate fills the output and never exceeds it."
    ),
    full=FULL,
    quick=QUICK,
    cases=cases,
    analyse=analyse,
)

__all__ = ["EXPERIMENT", "FULL", "QUICK", "Params", "cases", "analyse"]
