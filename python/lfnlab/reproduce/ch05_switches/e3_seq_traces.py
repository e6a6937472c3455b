"""05.E5.3: sequence-number traces (spec 05 §3 E5.3).

The monitor logs every frame that reaches CH0 (time of its last bit, flow, the sequence
number the generator wrote into it) over a window of the run. At 1000 + 1000 the log shows
whether a configuration forwards long runs of one flow (the nonblocking class) or alternates
(the simple class); at 400 + 400 every configuration should alternate. T5.3 gives per flow
the mean and longest run of consecutive output frames, the Δseq histogram and the loss-burst
lengths.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import partial
from typing import Any

import numpy as np
import pandas as pd

from ...result import Result
from ..engine import Case, Experiment
from ..measure import conserved
from ..outcome import Check, Figure, Outcome, Table
from .path05 import bench_scenario
from . import checklist05, stats05
from .common05 import CONFIGS_E51_E54, OUTPUT, config_panels, conservation_check

Pair = tuple[int, int]
#: Δseq histogram buckets of T5.3: 1 … MAX_GAP and "> MAX_GAP".
MAX_GAP = 8


@dataclass(frozen=True)
class Params:
    configs: tuple[str, ...] = field(metadata={"label": "configurations"})
    duration_s: float = field(metadata={"label": "generation", "unit": "s"})
    seeds: int = field(metadata={"label": "seeds"})
    log_s: tuple[float, float] = field(metadata={"label": "sequence log window", "unit": "s"})
    excerpt_fast_s: float = field(metadata={"label": "F5.3a excerpt (1000 + 1000)", "unit": "s"})
    excerpt_slow_s: float = field(metadata={"label": "F5.3b excerpt (400 + 400)", "unit": "s"})
    cases: tuple[Pair, ...] = field(default=((1000, 1000), (400, 400)), metadata={"label": "cases", "unit": "Mbit/s"})


FULL = Params(configs=CONFIGS_E51_E54, duration_s=12.0, seeds=3, log_s=(0.5, 1.5), excerpt_fast_s=0.5, excerpt_slow_s=0.001)
QUICK = Params(configs=CONFIGS_E51_E54, duration_s=0.4, seeds=1, log_s=(0.1, 0.3), excerpt_fast_s=0.1, excerpt_slow_s=0.001)


def _label(config: str, pair: Pair, seed: int) -> str:
    return f"{config}-{pair[0]:04d}-{pair[1]:04d}-s{seed:02d}"


def _frames_cap(p: Params) -> int:
    """Enough rows for the log window at line rate (81 274 frames/s of 1538 B), plus slack."""
    return int((p.log_s[1] - p.log_s[0]) * 82_000) + 100


def cases(p: Params) -> list[Case]:
    """Every configuration at each case's rate pair, once per seed, logging the window ``log_s``."""
    return [
        Case(_label(c, pair, s), bench_scenario(
            f"05.E5.3-{_label(c, pair, s)}", config=c, tc1_mbps=pair[0], tc2_mbps=pair[1], duration_s=p.duration_s, seed=s,
            bin_s=0.1, capture_packets=_frames_cap(p), capture_from_s=p.log_s[0]), partial(_keep, p))
        for c in p.configs
        for pair in p.cases
        for s in range(1, p.seeds + 1)
    ]


def analyse(p: Params, kept: Mapping[str, Any]) -> Outcome:
    table = pd.DataFrame([_row(p, kept, c, pair) for c in p.configs for pair in p.cases])
    behaviours = checklist05.e53_behaviours(table, p.configs)
    checks = [
        conservation_check([k["holds"] for k in kept.values()]),
        Check.equal("logs that end more than 1 ms before their window does", sum(k["last_t"] < p.log_s[1] - 1e-3 for k in kept.values()), 0,
                    criterion="= 0 (every log covers its window: the capture limit was not reached)"),
        Check.equal("flows whose forwarded sequence numbers ever went backwards", sum(k["backwards"] for k in kept.values()), 0,
                    criterion="= 0 (one FIFO path per flow: no reordering)"),
        Check.within("largest mean run length at 400 + 400, any configuration and flow",
                     float(table[table["TC1_Mbps"] == 400][["f1_mean_run", "f2_mean_run"]].max().max()), None, 1.5,
                     criterion="≤ 1.5 (B8: output frames alternate when the output is not congested)"),
    ]
    return Outcome(
        checks=checks,
        tables=[Table("T5.3", "Per configuration and case: per flow the mean and longest run of consecutive output frames, "
                      f"the Δseq histogram (1 … {MAX_GAP}, > {MAX_GAP}) and the loss bursts (count, mean and longest), over "
                      f"the log window {p.log_s[0]:g}–{p.log_s[1]:g} s of every seed.", table),
                *checklist05.tables("E5.3", "Which configuration shows B7 (either form) and B8 of spec 05 §2.8", behaviours)],
        figures=[_figure(p, kept, (1000, 1000), p.excerpt_fast_s, "a"), _figure(p, kept, (400, 400), p.excerpt_slow_s, "b")],
        notes=["Behaviours no configuration showed here: " + (", ".join(checklist05.nobody(behaviours)) or "none") + ".",
               f"CHOICE: the sequence log covers {p.log_s[1] - p.log_s[0]:g} s of each run ({p.log_s[0]:g}–{p.log_s[1]:g} s), "
               "which bounds the raw packets.parquet of each run."],
    )


def _keep(p: Params, r: Result) -> dict[str, Any]:
    pk = r.packets
    pk = pk[(pk["monitor"] == OUTPUT) & (pk["t"] < p.log_s[1])]
    flows = pk["flow"].map({"flow1": 1, "flow2": 2}).to_numpy(dtype=np.int64)
    seq = pk["seq"].to_numpy(dtype=np.int64)
    t = pk["t"].to_numpy(dtype=float)
    out: dict[str, Any] = {"holds": conserved(r.summary), "last_t": float(t[-1]) if len(t) else 0.0,
                           "runs": stats05.run_lengths(flows), "backwards": 0, "t": t, "flow": flows, "seq": seq}
    for f in (1, 2):
        s = seq[flows == f]
        if len(s) > 1 and np.diff(s).min() < 1:
            out["backwards"] += 1
            continue
        out[f"gaps{f}"] = stats05.seq_gaps(s)
        out[f"bursts{f}"] = stats05.loss_bursts(s) if len(s) > 1 else np.zeros(0, dtype=np.int64)
    return out


def _row(p: Params, kept: Mapping[str, Any], config: str, pair: Pair) -> dict[str, Any]:
    ks = [kept[_label(config, pair, s)] for s in range(1, p.seeds + 1)]
    row: dict[str, Any] = {"config": config, "TC1_Mbps": pair[0], "TC2_Mbps": pair[1]}
    for f in (1, 2):
        runs = [k["runs"][f] for k in ks if f in k["runs"]]
        total_runs = sum(r.runs for r in runs)
        row[f"f{f}_mean_run"] = sum(r.mean_frames * r.runs for r in runs) / total_runs if total_runs else 0.0
        row[f"f{f}_max_run"] = max((r.max_frames for r in runs), default=0)
        gaps = np.concatenate([k.get(f"gaps{f}", np.zeros(0, dtype=np.int64)) for k in ks])
        for key, n in stats05.gap_histogram(gaps, MAX_GAP).items():
            row[f"f{f}_dseq_{key}"] = n
        bursts = np.concatenate([k.get(f"bursts{f}", np.zeros(0, dtype=np.int64)) for k in ks])
        row[f"f{f}_loss_bursts"] = int(len(bursts))
        row[f"f{f}_burst_mean"] = float(bursts.mean()) if len(bursts) else 0.0
        row[f"f{f}_burst_max"] = int(bursts.max()) if len(bursts) else 0
    return row


def _figure(p: Params, kept: Mapping[str, Any], pair: Pair, span_s: float, letter: str) -> Figure:
    t0 = p.log_s[0]

    def draw(ax: Any, c: str) -> None:
        k = kept[_label(c, pair, 1)]
        sel = k["t"] < t0 + span_s
        for f, color, sign in ((1, "C0", 1), (2, "C3", -1)):
            m = sel & (k["flow"] == f)
            if m.any():
                # Frames forwarded since the log began, flow 2 mirrored below the axis: a flow
                # that is served climbs, a starved one stays flat.
                rel = k["seq"][m] - k["seq"][m][0]
                ax.plot((k["t"][m] - t0) * 1e3, sign * rel, ".", ms=1.2, color=color, label=f"flow {f}")
        ax.axhline(0, color="gray", lw=0.5)

    fig = config_panels(p.configs, 1.2, draw, f"time after {t0:g} s (ms)",
                        f"05.E5.3 F5.3{letter}: sequence number vs observation time (flow 2 mirrored), {pair[0]} + {pair[1]} Mbit/s, seed 1")
    return Figure(f"F5.3{letter}", f"Each forwarded frame's sequence number (relative to the flow's first in the log) at its "
                  f"observation time at CH0, over {span_s * 1e3:g} ms at {pair[0]} + {pair[1]} Mbit/s; flow 1 blue above the axis, "
                  "flow 2 red mirrored below it; one panel per configuration. A flat stretch is a flow that gets nothing "
                  "through; gaps in Δseq show as steeper steps.", fig)


EXPERIMENT = Experiment(
    id="05.E5.3",
    title="sequence-number traces",
    summary="the monitor's sequence log at 1000 + 1000 and 400 + 400 for every required configuration: run lengths, Δseq "
    "histograms, loss bursts (T5.3, F5.3a–b)",
    reference="spec 05 §3 (E5.3), §2.6",
    checks=(
        "Checks (model properties that can fail): packet conservation; every log covers its window; no flow's forwarded "
        "sequence numbers go backwards; and at 400 + 400, where the output is not congested, the frames of the two flows "
        "alternate (mean run length at most 1.5) in every configuration (B8)."
    ),
    full=FULL,
    quick=QUICK,
    cases=cases,
    analyse=analyse,
)

__all__ = ["EXPERIMENT", "FULL", "QUICK", "Params", "cases", "analyse"]
