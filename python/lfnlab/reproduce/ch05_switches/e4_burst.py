"""05.E5.4: a burst against a line-rate CBR flow (spec 05 §3 E5.4).

Port A carries CBR at 1000 Mbit/s of 1500-byte packets for the whole run; port B sends one
burst of N back-to-back frames from t_b + U[0, T) (T the CBR period; the phase and δ_sw are
redrawn per repetition). The CBR flow's loss is sent − received over the window, which covers
the burst and its drain (spec 05 §3); the switch's own drop count is reported beside it. T5.4
fits loss against N per configuration: the slope, and the standard deviation of the residuals
as a measure of regularity (B9: a regular curve for the simple class, a noisy one for the
nonblocking class).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import partial
from typing import Any

import pandas as pd

from ...result import Result
from ...scenario import Scenario
from ..engine import Case, Experiment
from ..measure import conserved
from ..outcome import Check, Figure, Outcome, Table
from .path05 import bench_scenario, phase_ns
from . import checklist05, stats05
from .common05 import CONFIGS_E51_E54, OUTPUT, config_grid, conservation_check, series


@dataclass(frozen=True)
class Params:
    configs: tuple[str, ...] = field(metadata={"label": "configurations"})
    bursts: tuple[int, ...] = field(metadata={"label": "N (frames per burst)"})
    reps: int = field(metadata={"label": "repetitions per N"})
    duration_s: float = field(metadata={"label": "CBR generation [0, D]", "unit": "s"})
    burst_at_s: float = field(metadata={"label": "burst start t_b (+ U[0, T))", "unit": "s"})
    window_s: tuple[float, float] = field(metadata={"label": "loss window", "unit": "s"})
    bin_s: float = field(default=0.1, metadata={"label": "monitor bin", "unit": "s"})


FULL = Params(configs=CONFIGS_E51_E54, bursts=tuple(range(10, 1001, 10)) + (2000, 5000, 10000), reps=5, duration_s=3.0,
              burst_at_s=1.0, window_s=(0.5, 2.9))
QUICK = Params(configs=CONFIGS_E51_E54, bursts=(10, 100, 400, 1000), reps=1, duration_s=1.0, burst_at_s=0.3, window_s=(0.1, 0.9))


def _label(config: str, n: int, rep: int) -> str:
    return f"{config}-n{n:05d}-r{rep:02d}"


def _scenario(p: Params, config: str, n: int, rep: int) -> Scenario:
    """The CBR flow at line rate and one burst of ``n`` frames from t_b + U[0, T)."""
    t_b = p.burst_at_s + phase_ns(rep, 1500, 1000) * 1e-9
    return bench_scenario(f"05.E5.4-{_label(config, n, rep)}", config=config, tc1_mbps=1000, tc2_mbps=0, duration_s=p.duration_s,
                          seed=rep, bin_s=p.bin_s, burst2=(n, t_b), generator_monitor=True)


def cases(p: Params) -> list[Case]:
    """Every configuration and burst length N, once per repetition."""
    return [
        Case(_label(c, n, r), _scenario(p, c, n, r), partial(_keep, p))
        for c in p.configs
        for n in p.bursts
        for r in range(1, p.reps + 1)
    ]


def analyse(p: Params, kept: Mapping[str, Any]) -> Outcome:
    points = pd.DataFrame([{"config": c, "N": n, "rep": r, **kept[_label(c, n, r)]} for c in p.configs for n in p.bursts for r in range(1, p.reps + 1)])
    fits = pd.DataFrame([_fit(points[points["config"] == c], c) for c in p.configs])
    behaviours = checklist05.e54_behaviours(fits)
    # The burst's own frames: N sent in every run (the source stops within the N-th period).
    sent_ok = int((points["burst_sent"] != points["N"]).sum())
    checks = [
        conservation_check(points["holds"].tolist()),
        Check.equal("runs whose burst did not send exactly N frames", sent_ok, 0, criterion="= 0 (N back-to-back frames)"),
        Check.equal("runs where CBR loss (sent − received) is below the switch's CBR drops",
                    int((points["cbr_loss"] < points["cbr_dropped"]).sum()), 0,
                    criterion="= 0 (every dropped frame is missing at CH0)"),
        Check.equal("runs that delivered more burst frames than were sent", int((points["burst_delivered"] > points["burst_sent"]).sum()), 0,
                    criterion="= 0"),
    ]
    return Outcome(
        checks=checks,
        tables=[
            Table("T5.4", "Per configuration: least-squares slope of CBR loss against N (frames lost per burst frame), intercept, "
                  "standard deviation of the residuals (regularity) and their ratio to the mean loss.", fits),
            Table("T5.4-points", "Every run: N, repetition, CBR frames sent and received in the window, the CBR loss, the switch's "
                  "CBR drops, burst frames sent and delivered.", points.drop(columns=["holds"])),
            *checklist05.tables("E5.4", "Which configuration shows B9 of spec 05 §2.8 in its regular or its noisy form", behaviours),
        ],
        figures=[_figure(p, points, "cbr_loss", "a", "CBR frames lost"), _figure(p, points, "burst_fraction", "b", "fraction of the burst delivered")],
        notes=["With the CBR flow exactly at line rate, a queue that a burst leaves behind never drains: its CBR frames are "
               "counted in the window's loss (sent − received) although the switch did not drop them; `cbr_dropped` is the "
               "switch's own count."],
    )


def _keep(p: Params, r: Result) -> dict[str, Any]:
    n_bins = int(round(p.duration_s / p.bin_s))
    w = stats05.window_slice(0.0, p.bin_s, n_bins, *p.window_s)
    sent = series(r.flows, "ch2->dut", "flow1", p.bin_s, n_bins).packets[w].sum()
    got = series(r.flows, OUTPUT, "flow1", p.bin_s, n_bins).packets[w].sum()
    burst_sent = series(r.flows, "ch3->dut", "flow2", p.bin_s, n_bins).packets.sum()
    burst_got = series(r.flows, OUTPUT, "flow2", p.bin_s, n_bins).packets.sum()
    dropped = r.summary["switches"][0]["dropped_by_flow"]
    return {
        "cbr_sent": int(sent), "cbr_received": int(got), "cbr_loss": int(sent - got), "cbr_dropped": int(dropped.get("flow1", 0)),
        "burst_sent": int(burst_sent), "burst_delivered": int(burst_got), "burst_fraction": burst_got / max(1, burst_sent),
        "holds": conserved(r.summary),
    }


def _fit(points: pd.DataFrame, config: str) -> dict[str, Any]:
    f = stats05.linear_fit(points["N"].to_numpy(dtype=float), points["cbr_loss"].to_numpy(dtype=float))
    mean = float(points["cbr_loss"].mean())
    return {"config": config, "slope": f.slope, "intercept": f.intercept, "residual_std": f.residual_std,
            "residual_std_over_mean_loss": f.residual_std / mean if mean > 0 else float("nan")}


def _figure(p: Params, points: pd.DataFrame, column: str, letter: str, what: str) -> Figure:
    def draw(ax: Any, c: str) -> None:
        g = points[points["config"] == c]
        ax.plot(g["N"], g[column], ".", ms=2, color="C0", alpha=0.6, label="each repetition")
        m = g.groupby("N")[column].mean()
        ax.plot(m.index, m.to_numpy(), "-", lw=0.8, color="C3", label="mean")
        ax.set_xscale("symlog", linthresh=1000)
        ax.set_ylim(bottom=0, top=1.05 if column == "burst_fraction" else None)

    fig, _ = config_grid(p.configs, draw, "burst length N (frames)", f"05.E5.4 F5.4{letter}: {what} vs burst length, CBR at 1000 Mbit/s")
    return Figure(f"F5.4{letter}", f"{what[0].upper() + what[1:]} against N, every repetition (dots) and the mean (line), one panel "
                  "per configuration; linear axis to 1000 frames, logarithmic beyond.", fig)


EXPERIMENT = Experiment(
    id="05.E5.4",
    title="burst against a line-rate CBR flow",
    summary="one burst of N frames against a 1000 Mbit/s CBR flow, N from 10 to 10 000, every required configuration: CBR "
    "loss and burst delivery vs N, slope and regularity (T5.4, F5.4a–b)",
    reference="spec 05 §3 (E5.4), §2.5",
    checks=(
        "Checks (model properties that can fail): packet conservation; every burst sends exactly N frames and delivers at "
        "most N; and the CBR loss in the window is never below the switch's own CBR drops."
    ),
    full=FULL,
    quick=QUICK,
    cases=cases,
    analyse=analyse,
)

__all__ = ["EXPERIMENT", "FULL", "QUICK", "Params", "cases", "analyse"]
