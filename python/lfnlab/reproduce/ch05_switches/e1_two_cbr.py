"""05.E5.1: two CBR flows into one output (spec 05 §3 E5.1).

Generator CH2 → port A, CH3 → port B, port C → the monitor CH0, for every required switch
configuration and every rate pair of the spec. The monitor counts each frame when its last
bit reaches CH0, in L2 bytes, in 1-ms bins. Per run it gives per flow the 100-ms bin
statistics (the source's Table I layout), the ratio out/in in frames, and the longest
starvation and unfair periods of spec 05 §2.6, over the window [0.5, 11.5] s. Side sweeps:
the forwarding jitter J for (1000, 1000) and (900, 900); B_total of `oq_cs` (spec 05 §5);
the fabric speedup of `voq_islip_gl`; B_sub of `rr_simple` (spec 05 §5); one run of 64-byte
frames at 1000 + 1000.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Callable, Optional

import numpy as np
import pandas as pd

from ...result import Result
from ..engine import Case, Experiment
from ..measure import conserved
from ..outcome import Check, Figure, Outcome, Table
from .path05 import bench_scenario, l2_line_mbps
from . import checklist05
from .common05 import CONFIGS_E51_E54, OUTPUT, config_panels, run_stats, series

Pair = tuple[int, int]


@dataclass(frozen=True)
class Params:
    configs: tuple[str, ...] = field(metadata={"label": "configurations"})
    pairs: tuple[Pair, ...] = field(metadata={"label": "rate pairs (TC1, TC2)", "unit": "Mbit/s"})
    duration_s: float = field(metadata={"label": "generation", "unit": "s"})
    window_s: tuple[float, float] = field(metadata={"label": "measurement window", "unit": "s"})
    seeds: int = field(metadata={"label": "seeds (δ_sw and φ redrawn)"})
    jitter_pairs: tuple[Pair, ...] = field(metadata={"label": "J sweep at", "unit": "Mbit/s"})
    jitters_ns: tuple[int, ...] = field(metadata={"label": "J (beside 0)", "unit": "ns"})
    memory_pairs: tuple[Pair, ...] = field(metadata={"label": "B_total sweep (oq_cs) at", "unit": "Mbit/s"})
    memories_mib: tuple[int, ...] = field(metadata={"label": "B_total of oq_cs (beside 4)", "unit": "MiB"})
    speedups: tuple[float, ...] = field(metadata={"label": "speedup of voq_islip_gl at 1000 + 1000 (beside 1)"})
    sub_pairs: tuple[Pair, ...] = field(metadata={"label": "B_sub sweep (rr_simple) at", "unit": "Mbit/s"})
    subs_kib: tuple[int, ...] = field(metadata={"label": "B_sub of rr_simple (beside 16)", "unit": "KiB"})
    excerpt_s: tuple[float, float] = field(metadata={"label": "figure excerpt", "unit": "s"})
    figure_pairs: tuple[Pair, ...] = field(default=((1000, 1000), (900, 900), (1000, 800), (900, 800)), metadata={"label": "F5.1a–d pairs", "unit": "Mbit/s"})
    bin_s: float = field(default=0.001, metadata={"label": "bin", "unit": "s"})


PAIRS: tuple[Pair, ...] = (
    (1000, 1000), (950, 950), (900, 900), (800, 800), (500, 500), (400, 400),
    (1000, 950), (1000, 900), (1000, 800), (950, 900), (900, 800), (800, 600),
)
FULL = Params(
    configs=CONFIGS_E51_E54, pairs=PAIRS, duration_s=12.0, window_s=(0.5, 11.5), seeds=3,
    jitter_pairs=((1000, 1000), (900, 900)), jitters_ns=(100, 1000), memory_pairs=((1000, 1000), (900, 900)),
    memories_mib=(1, 16, 64), speedups=(1.25, 2.0), sub_pairs=((1000, 1000), (900, 900)), subs_kib=(8, 32), excerpt_s=(1.0, 3.0),
)
QUICK = Params(
    configs=CONFIGS_E51_E54, pairs=((1000, 1000), (900, 900), (1000, 800), (900, 800), (400, 400)), duration_s=1.2,
    window_s=(0.1, 1.1), seeds=1, jitter_pairs=((1000, 1000),), jitters_ns=(1000,), memory_pairs=(), memories_mib=(),
    speedups=(), sub_pairs=(), subs_kib=(), excerpt_s=(0.1, 1.1),
)


@dataclass(frozen=True)
class Run:
    config: str
    pair: Pair
    jitter_ns: int = 0
    l3: int = 1500
    memory_mib: Optional[int] = None
    speedup: Optional[float] = None
    sub_kib: Optional[int] = None

    @property
    def variant(self) -> str:
        parts = []
        if self.jitter_ns:
            parts.append(f"J {self.jitter_ns} ns")
        if self.l3 != 1500:
            parts.append("64-byte frames")
        if self.memory_mib is not None:
            parts.append(f"B_total {self.memory_mib} MiB")
        if self.speedup is not None:
            parts.append(f"s {self.speedup:g}")
        if self.sub_kib is not None:
            parts.append(f"B_sub {self.sub_kib} KiB")
        return ", ".join(parts) or "main"

    def label(self, seed: int) -> str:
        k = f"{self.config}-{self.pair[0]:04d}-{self.pair[1]:04d}"
        k += f"-j{self.jitter_ns}" if self.jitter_ns else ""
        k += f"-l{self.l3}" if self.l3 != 1500 else ""
        k += f"-m{self.memory_mib}" if self.memory_mib is not None else ""
        k += f"-sp{round(self.speedup * 100)}" if self.speedup is not None else ""
        k += f"-b{self.sub_kib}" if self.sub_kib is not None else ""
        return f"{k}-s{seed:02d}"

    def switch_keys(self) -> dict[str, Any]:
        keys: dict[str, Any] = {}
        if self.jitter_ns:
            keys["jitter"] = f"{self.jitter_ns}ns"
        if self.memory_mib is not None:
            keys["memory"] = f"{self.memory_mib}MiB"
        if self.speedup is not None:
            keys["speedup"] = self.speedup
        if self.sub_kib is not None:
            keys["queue_limit"] = f"{self.sub_kib}KiB"
        return keys


def runs(p: Params) -> list[Run]:
    out = [Run(c, pair) for c in p.configs for pair in p.pairs]
    out += [Run(c, pair, jitter_ns=j) for c in p.configs for pair in p.jitter_pairs for j in p.jitters_ns]
    out += [Run(c, (1000, 1000), l3=46) for c in p.configs]
    out += [Run("oq_cs", pair, memory_mib=m) for pair in p.memory_pairs for m in p.memories_mib]
    out += [Run("voq_islip_gl", (1000, 1000), speedup=s) for s in p.speedups]
    out += [Run("rr_simple", pair, sub_kib=b) for pair in p.sub_pairs for b in p.subs_kib]
    return out


def _traced(p: Params, run: Run) -> bool:
    return run.variant == "main" and run.pair in p.figure_pairs or run.l3 != 1500


def _keeper(p: Params, run: Run, excerpt: bool) -> Callable[[Result], dict[str, Any]]:
    offered = {"flow1": float(run.pair[0]), "flow2": float(run.pair[1])}

    def keep(r: Result) -> dict[str, Any]:
        k = {"stats": run_stats(r.flows, offered, p.duration_s, p.window_s, p.bin_s), "conservation": conserved(r.summary)}
        if excerpt:
            n = int(round(p.duration_s / p.bin_s))
            a, b = (int(round(x / p.bin_s)) for x in p.excerpt_s)
            k["excerpt_Mbps"] = series(r.flows, OUTPUT, "flow1", p.bin_s, n).bytes[a:b] * 8 / p.bin_s / 1e6
            k["excerpt_agg_Mbps"] = k["excerpt_Mbps"] + series(r.flows, OUTPUT, "flow2", p.bin_s, n).bytes[a:b] * 8 / p.bin_s / 1e6
        return k

    return keep


def cases(p: Params) -> list[Case]:
    """Every run of :func:`runs` once per seed; seed 1 of a figure's runs keeps its excerpt."""
    return [
        Case(run.label(s), bench_scenario(
            f"05.E5.1-{run.label(s)}", config=run.config, tc1_mbps=run.pair[0], tc2_mbps=run.pair[1], duration_s=p.duration_s,
            seed=s, l3_bytes=run.l3, switch=run.switch_keys(), bin_s=p.bin_s, generator_monitor=True),
            _keeper(p, run, excerpt=_traced(p, run) and s == 1))
        for run in runs(p)
        for s in range(1, p.seeds + 1)
    ]


def analyse(p: Params, kept: Mapping[str, Any]) -> Outcome:
    table = _table(p, kept, main=True)
    sweeps = _table(p, kept, main=False)
    checks = _checks(p, kept, table)
    behaviours = checklist05.e51_behaviours(table, sweeps, p.configs)
    figures = [_figure(p, kept, pair, letter) for letter, pair in zip("abcd", p.figure_pairs)]
    figures.append(_figure(p, kept, (1000, 1000), "e", l3=46))
    return Outcome(
        checks=checks,
        tables=[
            Table("T5.1", "The source's Table I layout, per configuration and rate pair: per flow the mean, max, min and variance "
                  "of the output over 100-ms bins (Mbit/s of L2 bytes; mean and variance averaged over the seeds, max and min the "
                  "extremes), the ratio out/in in frames, the aggregate's mean, and the longest starvation and unfair periods "
                  "(1-ms bins, longest over the seeds and both flows).", table),
            Table("T5.1-sweeps", "The same for the side runs: forwarding jitter J, B_total of oq_cs, the speedup of voq_islip_gl, "
                  "B_sub of rr_simple, and 64-byte frames at 1000 + 1000.", sweeps),
            *checklist05.tables("E5.1", "Which configuration shows which behaviour of spec 05 §2.8 that these runs test (yes/no; "
                                "— where no run tests it)", behaviours),
        ],
        figures=figures,
        notes=[
            "Bins are [k·1 ms, (k + 1)·1 ms) of frames whose last bit reached CH0 in them; 100-ms statistics sum 100 of them.",
            "The unfair period counts only flows offering at least 400 Mbit/s (spec 05 §2.6); starvation only flows with load.",
            "Behaviours no configuration showed here: " + (", ".join(checklist05.nobody(behaviours)) or "none") + ".",
            "B3 counts the levels of flow 1's 100-ms bins: 50-Mbit/s-wide levels holding at least 5 % of the bins (f1_levels).",
        ],
    )


def _row(p: Params, kept: Mapping[str, Any], run: Run) -> dict[str, Any]:
    st = [kept[run.label(s)]["stats"] for s in range(1, p.seeds + 1)]
    row: dict[str, Any] = {"config": run.config, "variant": run.variant, "TC1_Mbps": run.pair[0], "TC2_Mbps": run.pair[1]}
    for f, tag in (("flow1", "f1"), ("flow2", "f2")):
        row[f"{tag}_mean_Mbps"] = float(np.mean([x[f]["mean_Mbps"] for x in st]))
        row[f"{tag}_max_Mbps"] = float(np.max([x[f]["max_Mbps"] for x in st]))
        row[f"{tag}_min_Mbps"] = float(np.min([x[f]["min_Mbps"] for x in st]))
        row[f"{tag}_var_Mbps2"] = float(np.mean([x[f]["var_Mbps2"] for x in st]))
        row[f"{tag}_ratio_out_in"] = float(np.mean([x[f]["ratio_out_in"] for x in st]))
        row[f"{tag}_std_1ms_Mbps"] = float(np.mean([x[f]["std_1ms_Mbps"] for x in st]))
        row[f"{tag}_levels"] = int(np.median([x[f]["levels"] for x in st]))
    row["aggregate_mean_Mbps"] = float(np.mean([x["aggregate_Mbps"] for x in st]))
    row["starvation_ms"] = float(max(x[f]["starvation_ms"] for x in st for f in ("flow1", "flow2")))
    row["unfair_ms"] = float(max(x[f]["unfair_ms"] for x in st for f in ("flow1", "flow2")))
    return row


def _table(p: Params, kept: Mapping[str, Any], main: bool) -> pd.DataFrame:
    rows = [_row(p, kept, r) for r in runs(p) if (r.variant == "main") == main]
    return pd.DataFrame(rows)


def _checks(p: Params, kept: Mapping[str, Any], table: pd.DataFrame) -> list[Check]:
    n = len(kept)
    holds = sum(1 for k in kept.values() if k["conservation"])
    under = table[table["TC1_Mbps"] + table["TC2_Mbps"] <= 1000]
    over = table[table["TC1_Mbps"] + table["TC2_Mbps"] > 1000]
    full = l2_line_mbps(1500)
    rr = over[(over["config"] == "rr_simple") & (over["TC1_Mbps"] > 500) & (over["TC2_Mbps"] > 500)]
    split = (rr["f1_mean_Mbps"] - rr["f2_mean_Mbps"]).abs() / (rr["f1_mean_Mbps"] + rr["f2_mean_Mbps"])
    checks = [
        Check.equal("runs whose packet conservation holds", holds, n, criterion=f"= {n} (every run)"),
        Check.within("smallest ratio out/in below the no-congestion line (TC1 + TC2 ≤ 1000), any flow and configuration",
                     float(under[["f1_ratio_out_in", "f2_ratio_out_in"]].min().min()) if len(under) else 1.0, 0.999, None,
                     criterion="≥ 0.999 (B5: no loss while the output is not congested)"),
        Check.within("smallest aggregate mean above the no-congestion line, over configurations and pairs",
                     float(over["aggregate_mean_Mbps"].min()), 0.99 * full, full * 1.001, unit="Mbit/s",
                     criterion=f"within [0.99, 1.001] × R_line·L2/W = {full:.2f} Mbit/s (a congested output stays busy)"),
    ]
    if len(rr):
        checks.append(Check.within("rr_simple, both flows above half the line: largest |f1 − f2|/(f1 + f2)", float(split.max()),
                                   None, 0.01, criterion="≤ 0.01 (the round robin splits a saturated output evenly)"))
    return checks


def _figure(p: Params, kept: Mapping[str, Any], pair: Pair, letter: str, l3: int = 1500) -> Figure:
    t = p.excerpt_s[0] + p.bin_s * np.arange(int(round((p.excerpt_s[1] - p.excerpt_s[0]) / p.bin_s)))

    def draw(ax: Any, c: str) -> None:
        k = kept[Run(c, pair, l3=l3).label(1)]
        ax.plot(t, k["excerpt_Mbps"], lw=0.6, color="C0", label="flow 1")
        ax.plot(t, k["excerpt_agg_Mbps"], lw=0.6, color="gray", alpha=0.7, label="aggregate")
        ax.set_ylim(0, 1050)

    what = "64-byte frames" if l3 != 1500 else "1500-byte packets"
    fig = config_panels(p.configs, 1.3, draw, "time (s)",
                        f"05.E5.1 F5.1{letter}: flow-1 output in 1-ms bins (Mbit/s), {pair[0]} + {pair[1]} Mbit/s, {what}, seed 1")
    return Figure(f"F5.1{letter}", f"Flow 1's output (blue) and the aggregate (gray) in 1-ms bins over {p.excerpt_s[0]:g}–"
                  f"{p.excerpt_s[1]:g} s at {pair[0]} + {pair[1]} Mbit/s ({what}), one panel per configuration.", fig)


EXPERIMENT = Experiment(
    id="05.E5.1",
    title="two CBR flows into one output",
    summary="two CBR generators into one switch output for every required configuration and the spec's 12 rate pairs: "
    "per-flow 100-ms statistics, ratio out/in, starvation and unfair periods (T5.1, F5.1a–e)",
    reference="spec 05 §3 (E5.1), §2.2–2.6, §5",
    checks=(
        "Checks (model properties that can fail): packet conservation in every run; below the no-congestion line every flow "
        "gets all its frames through (B5); above it the output stays saturated, whatever the arbitration; and the round-robin "
        "switch splits a saturated output evenly when both flows exceed half the line."
    ),
    full=FULL,
    quick=QUICK,
    cases=cases,
    analyse=analyse,
)

__all__ = ["EXPERIMENT", "FULL", "QUICK", "Params", "cases", "analyse", "runs"]
