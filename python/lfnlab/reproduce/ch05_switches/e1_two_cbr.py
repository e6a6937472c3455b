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

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Callable, Optional

import numpy as np
import pandas as pd

from ...result import Result
from ...scenario import tomllib
from ..engine import Case, Experiment
from ..measure import conserved
from ..outcome import Check, Figure, Outcome, Table
from ..paper import comparison
from .path05 import bench_scenario, frame_time_s, l2_line_mbps
from . import checklist05, stats05
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
    beat_config: str = field(default="oq_cs", metadata={"label": "beat study (issue 39 item 8): configuration"})
    beat_pairs: tuple[Pair, ...] = field(default=((800, 600), (900, 900)), metadata={"label": "beat study at", "unit": "Mbit/s"})
    beat_jitters_ns: tuple[int, ...] = field(default=(100, 1000, 12304), metadata={"label": "beat study: J (beside 0)", "unit": "ns"})
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
    speedups=(), sub_pairs=(), subs_kib=(), excerpt_s=(0.1, 1.1), beat_pairs=((800, 600),), beat_jitters_ns=(12304,),
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
    #: δ_sw forced (None: drawn from the seed, spec 05 §2.4).
    clock_ppm: Optional[float] = None
    #: gen.clock = independent (spec 05 §2.4) instead of shared.
    independent: bool = False

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
        if self.clock_ppm is not None:
            parts.append(f"δ_sw {self.clock_ppm:g} ppm")
        if self.independent:
            parts.append("independent clocks")
        return ", ".join(parts) or "main"

    def label(self, seed: int) -> str:
        k = f"{self.config}-{self.pair[0]:04d}-{self.pair[1]:04d}"
        k += f"-j{self.jitter_ns}" if self.jitter_ns else ""
        k += f"-l{self.l3}" if self.l3 != 1500 else ""
        k += f"-m{self.memory_mib}" if self.memory_mib is not None else ""
        k += f"-sp{round(self.speedup * 100)}" if self.speedup is not None else ""
        k += f"-b{self.sub_kib}" if self.sub_kib is not None else ""
        k += f"-d{self.clock_ppm:g}" if self.clock_ppm is not None else ""
        k += "-ind" if self.independent else ""
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
        if self.clock_ppm is not None:
            keys["clock_ppm"] = self.clock_ppm
        return keys


def runs(p: Params) -> list[Run]:
    out = [Run(c, pair) for c in p.configs for pair in p.pairs]
    out += [Run(c, pair, jitter_ns=j) for c in p.configs for pair in p.jitter_pairs for j in p.jitters_ns]
    out += [Run(c, (1000, 1000), l3=46) for c in p.configs]
    out += [Run("oq_cs", pair, memory_mib=m) for pair in p.memory_pairs for m in p.memories_mib]
    out += [Run("voq_islip_gl", (1000, 1000), speedup=s) for s in p.speedups]
    out += [Run("rr_simple", pair, sub_kib=b) for pair in p.sub_pairs for b in p.subs_kib]
    return out


def beat_runs(p: Params) -> list[Run]:
    """The beat study (issue 39 item 8) at each beat pair: the main run, δ_sw = 0, independent
    generator clocks and each J, all on ``p.beat_config``."""
    out = []
    for pair in p.beat_pairs:
        out.append(Run(p.beat_config, pair))
        out.append(Run(p.beat_config, pair, clock_ppm=0.0))
        out.append(Run(p.beat_config, pair, independent=True))
        out += [Run(p.beat_config, pair, jitter_ns=j) for j in p.beat_jitters_ns]
    return out


def _all_runs(p: Params) -> list[Run]:
    """:func:`runs` and the beat study's runs that are not among them, each once."""
    out = runs(p)
    seen = set(out)
    out += [r for r in beat_runs(p) if r not in seen]
    return out


def _traced(p: Params, run: Run) -> bool:
    return run.variant == "main" and run.pair in p.figure_pairs or run.l3 != 1500


def switch_clock_ppm(r: Result) -> float:
    """δ_sw as the run resolved it (drawn from the seed unless the scenario gave it)."""
    resolved = tomllib.loads(r.scenario_toml)
    return float(next(n["switch"]["clock_ppm"] for n in resolved["node"] if n.get("kind") == "switch"))


#: The beat study reads its spectrum below this frequency (periods of 20 ms and more).
BEAT_MAX_HZ = 50.0
#: The Table I statistics bin.
STAT_BIN_S = 0.1
#: Episodes are runs of one sign of f1 − f2 over bins of this width.
EPISODE_BIN_S = 0.01


def dominant_period_s(mbps: np.ndarray, bin_s: float) -> float:
    """The period of the largest spectral line of a bin series below BEAT_MAX_HZ (NaN for a
    constant series)."""
    x = mbps - mbps.mean()
    if not np.any(np.abs(x) > 1e-9):
        return math.nan
    power = np.abs(np.fft.rfft(x))
    freq = np.fft.rfftfreq(x.size, bin_s)
    band = (freq > 0) & (freq <= BEAT_MAX_HZ)
    return float(1.0 / freq[band][np.argmax(power[band])])


def mean_episode_s(f1: np.ndarray, f2: np.ndarray, bin_s: float) -> float:
    """Mean length of the runs in which one flow keeps more of the output than the other,
    from bins of ``bin_s`` (a tie continues the current run)."""
    sign = np.sign(f1 - f2)
    sign = sign[sign != 0]
    if sign.size == 0:
        return math.nan
    changes = int(np.count_nonzero(np.diff(sign)))
    return f1.size * bin_s / (changes + 1)


def _beat(p: Params, r: Result) -> dict[str, Any]:
    n = int(round(p.duration_s / p.bin_s))
    a, b = (int(round(x / p.bin_s)) for x in p.window_s)
    f1 = series(r.flows, OUTPUT, "flow1", p.bin_s, n).bytes[a:b] * 8 / p.bin_s / 1e6
    f2 = series(r.flows, OUTPUT, "flow2", p.bin_s, n).bytes[a:b] * 8 / p.bin_s / 1e6
    k = int(round(EPISODE_BIN_S / p.bin_s))
    # The 100-ms variance over the window's second half: the share once the pool has long
    # been full (the quick form's window starts while the 4-MiB pool may still be filling).
    h = int(round(STAT_BIN_S / p.bin_s))
    late = stats05.rebin(f1[f1.size // 2:], h) / h
    return {
        "var_late_Mbps2": float(late.var()) if late.size else math.nan,
        "clock_ppm": switch_clock_ppm(r),
        "period_s": dominant_period_s(f1, p.bin_s),
        "episode_s": mean_episode_s(stats05.rebin(f1, k) / k, stats05.rebin(f2, k) / k, EPISODE_BIN_S),
    }


def _keeper(p: Params, run: Run, excerpt: bool, beat: bool) -> Callable[[Result], dict[str, Any]]:
    offered = {"flow1": float(run.pair[0]), "flow2": float(run.pair[1])}

    def keep(r: Result) -> dict[str, Any]:
        k = {"stats": run_stats(r.flows, offered, p.duration_s, p.window_s, p.bin_s), "conservation": conserved(r.summary)}
        if beat:
            k["beat"] = _beat(p, r)
        if excerpt:
            n = int(round(p.duration_s / p.bin_s))
            a, b = (int(round(x / p.bin_s)) for x in p.excerpt_s)
            k["excerpt_Mbps"] = series(r.flows, OUTPUT, "flow1", p.bin_s, n).bytes[a:b] * 8 / p.bin_s / 1e6
            k["excerpt_agg_Mbps"] = k["excerpt_Mbps"] + series(r.flows, OUTPUT, "flow2", p.bin_s, n).bytes[a:b] * 8 / p.bin_s / 1e6
        return k

    return keep


def cases(p: Params) -> list[Case]:
    """Every run of :func:`runs` once per seed; seed 1 of a figure's runs keeps its excerpt."""
    beat = set(beat_runs(p))
    return [
        Case(run.label(s), bench_scenario(
            f"05.E5.1-{run.label(s)}", config=run.config, tc1_mbps=run.pair[0], tc2_mbps=run.pair[1], duration_s=p.duration_s,
            seed=s, l3_bytes=run.l3, switch=run.switch_keys(), independent_clocks=run.independent, bin_s=p.bin_s, generator_monitor=True),
            _keeper(p, run, excerpt=_traced(p, run) and s == 1, beat=run in beat))
        for run in _all_runs(p)
        for s in range(1, p.seeds + 1)
    ]


def analyse(p: Params, kept: Mapping[str, Any]) -> Outcome:
    table = _table(p, kept, main=True)
    sweeps = _table(p, kept, main=False)
    checks = _checks(p, kept, table)
    behaviours = checklist05.e51_behaviours(table, sweeps, p.configs)
    figures = [_figure(p, kept, pair, letter) for letter, pair in zip("abcd", p.figure_pairs)]
    figures.append(_figure(p, kept, (1000, 1000), "e", l3=46))
    beat = beat_table(p, kept)
    checks += _beat_checks(p, beat)
    out = Outcome(
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
            Table("T5.1-beat", f"Beat study (issue 39 item 8), {p.beat_config}, one row per seed: flow 1's 100-ms statistics (and the variance over the window's second half), the "
                  "switch clock offset δ_sw the run drew (or was given), the period of the largest line of flow 1's 1-ms spectrum "
                  "(below 50 Hz), the beat period D/|δ_sw| that a share fixed by the departure phase predicts (D = one frame time, "
                  "12.304 µs), the harmonic k = round(predicted/measured), and the mean episode: how long one flow keeps more of "
                  "the output than the other, in 10-ms bins.", beat),
        ],
        figures=figures,
        notes=[
            "Bins are [k·1 ms, (k + 1)·1 ms) of frames whose last bit reached CH0 in them; 100-ms statistics sum 100 of them.",
            "The unfair period counts only flows offering at least 400 Mbit/s (spec 05 §2.6); starvation only flows with load.",
            "Behaviours no configuration showed here: " + (", ".join(checklist05.nobody(behaviours)) or "none") + ".",
            "B3 counts the levels of flow 1's 100-ms bins: 50-Mbit/s-wide levels holding at least 5 % of the bins (f1_levels).",
            *_beat_notes(p, beat),
        ],
    )
    out.paper = comparison("05.E5.1", _ours(p, table, beat), _why(p, beat))
    return out


def _ours(p: Params, table: pd.DataFrame, beat: pd.DataFrame) -> dict[str, Optional[float]]:
    ours: dict[str, Optional[float]] = {}
    row = table[(table["config"] == p.beat_config) & (table["TC1_Mbps"] == 800) & (table["TC2_Mbps"] == 600)]
    if not row.empty:
        ours["f1-var-800-600"] = float(row["f1_var_Mbps2"].iloc[0])
        ours["f1-min-800-600"] = float(row["f1_min_Mbps"].iloc[0])
        ours["f1-max-800-600"] = float(row["f1_max_Mbps"].iloc[0])
    line = table[(table["config"] == p.beat_config) & (table["TC1_Mbps"] == 1000) & (table["TC2_Mbps"] == 1000)]
    if not line.empty:
        ours["starvation-1000-1000"] = float(line["starvation_ms"].iloc[0])
        ours["min-1000-1000"] = float(min(line["f1_min_Mbps"].iloc[0], line["f2_min_Mbps"].iloc[0]))
    ep = _beat_rows(beat, (900, 900), "main")
    if not ep.empty:
        ours["episode-900-900"] = float(ep["episode_s"].mean())
    return ours


def _why(p: Params, beat: pd.DataFrame) -> dict[str, str]:
    def var(pair: Pair, variant: str) -> str:
        rows = _beat_rows(beat, pair, variant)
        return f"{rows['f1_var_Mbps2'].mean():.0f}" if len(rows) else "not run"

    j = max(p.beat_jitters_ns) if p.beat_jitters_ns else 0
    beats = _beat_rows(beat, (800, 600), "main")["beat_predicted_s"]
    span = f"{beats.min():.2f}–{beats.max():.2f} s in these runs" if len(beats) else "not run"
    share = (f"each flow's share of the freed slots of the shared pool is fixed by the phase of the output's departures, which "
             f"δ_sw drifts through one frame time every D/|δ_sw| ({span}), so 100-ms bins sample different shares "
             f"(T5.1-beat: variance {var((800, 600), 'δ_sw 0 ppm')} with δ_sw = 0; {var((800, 600), f'J {j} ns')} with "
             f"J = {j / 1e3:g} µs, a timing noise of one frame time that no source gives)")
    episodes = _beat_rows(beat, (900, 900), "independent clocks")
    ind = f"{episodes['episode_s'].mean():.2f} s" if len(episodes) else "not run"
    return {
        "f1-var-800-600": share, "f1-min-800-600": share, "f1-max-800-600": share,
        "episode-900-900": ("with one generator clock the two inputs' relative phase never drifts, so the winner is fixed by φ "
                            f"and changes only where δ_sw moves the departures; independent clocks (ε = 1 ppm) give {ind}"),
    }


def beat_table(p: Params, kept: Mapping[str, Any]) -> pd.DataFrame:
    """T5.1-beat: one row per beat-study run and seed."""
    rows = []
    for run in beat_runs(p):
        for s in range(1, p.seeds + 1):
            k = kept[run.label(s)]
            f1, b = k["stats"]["flow1"], k["beat"]
            ppm = float(b["clock_ppm"])
            predicted = frame_time_s(run.l3) / (abs(ppm) * 1e-6) if ppm else math.nan
            measured = float(b["period_s"])
            harmonic = round(predicted / measured) if math.isfinite(predicted) and math.isfinite(measured) else math.nan
            rows.append({
                "config": run.config, "TC1_Mbps": run.pair[0], "TC2_Mbps": run.pair[1], "variant": run.variant, "seed": s,
                "delta_sw_ppm": ppm, "f1_mean_Mbps": f1["mean_Mbps"], "f1_min_Mbps": f1["min_Mbps"], "f1_max_Mbps": f1["max_Mbps"],
                "f1_var_Mbps2": f1["var_Mbps2"], "f1_var_late_Mbps2": float(b["var_late_Mbps2"]), "period_s": measured, "beat_predicted_s": predicted, "harmonic": harmonic,
                "episode_s": float(b["episode_s"]),
            })
    return pd.DataFrame(rows)


def _beat_rows(beat: pd.DataFrame, pair: Pair, variant: str) -> pd.DataFrame:
    return beat[(beat["TC1_Mbps"] == pair[0]) & (beat["TC2_Mbps"] == pair[1]) & (beat["variant"] == variant)]


def on_harmonic(row: Mapping[str, Any], window_s: float) -> bool:
    """Whether the measured spectral line lies within one FFT bin (1/window) of the k-th
    harmonic of the predicted beat frequency |δ_sw|/D."""
    f_meas, f_pred, k = 1.0 / row["period_s"], 1.0 / row["beat_predicted_s"], row["harmonic"]
    return bool(k >= 1 and abs(k * f_pred - f_meas) <= 1.0 / window_s)


def _beat_checks(p: Params, beat: pd.DataFrame) -> list[Check]:
    window = p.window_s[1] - p.window_s[0]
    still = beat[beat["variant"] == "δ_sw 0 ppm"]
    # The main runs whose beat is measurable: flow 1's share moves (variance > 1) and at least
    # two predicted beat periods fit in the window.
    beating = beat[(beat["variant"] == "main") & (beat["f1_var_Mbps2"] > 1.0) & (beat["beat_predicted_s"] <= window / 2)]
    checks = [Check.within(f"beat study, δ_sw = 0: largest 100-ms variance of flow 1 over the window's second half ({p.beat_config})",
                           float(still["f1_var_late_Mbps2"].max()), None, 1.0, unit="(Mbit/s)²",
                           criterion="≤ 1: with no clock drift the departure phase is fixed, and so is each flow's share")]
    if len(beating):
        hits = sum(on_harmonic(r, window) for _, r in beating.iterrows())
        checks.append(Check.equal("beat study, main runs with a moving share and ≥ 2 predicted beats in the window: spectral "
                                  "line on a harmonic of |δ_sw|/D", hits, len(beating),
                                  criterion=f"= {len(beating)} (every one; within one FFT bin, 1/{window:g} s)"))
    return checks


def _variant_text(beat: pd.DataFrame, pair: Pair, variant: str) -> str:
    rows = _beat_rows(beat, pair, variant)
    if rows.empty:
        return f"{variant}: not run"
    return (f"{variant}: flow 1 {rows['f1_mean_Mbps'].mean():.0f} Mbit/s, 100-ms variance {rows['f1_var_Mbps2'].mean():.0f}, "
            f"range {rows['f1_min_Mbps'].min():.0f}–{rows['f1_max_Mbps'].max():.0f}, episodes {rows['episode_s'].mean():.2f} s")


def _beat_notes(p: Params, beat: pd.DataFrame) -> list[str]:
    out = ["Beat study (issue 39 item 8): in a complete-sharing drop-tail pool each departure frees one frame's room and the next "
           "arrival takes it, so with CBR inputs each flow's share is a fixed function of the phase between the output's departure "
           "lattice (period D, the switch clock) and the two arrival lattices (the generator clock). δ_sw drifts that phase "
           "through one D every D/|δ_sw|; 100-ms bins then sample different shares. T5.1-beat compares the spectral line of "
           "flow 1 with that prediction."]
    for pair in p.beat_pairs:
        variants = list(dict.fromkeys(beat[(beat["TC1_Mbps"] == pair[0]) & (beat["TC2_Mbps"] == pair[1])]["variant"]))
        out.append(f"Beat study at {pair[0]} + {pair[1]} ({p.beat_config}, mean of {p.seeds} seeds): "
                   + "; ".join(_variant_text(beat, pair, v) for v in variants) + ".")
    return out


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
