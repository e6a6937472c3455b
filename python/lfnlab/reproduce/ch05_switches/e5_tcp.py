"""05.E5.5: two TCP flows through the two switch classes (spec 05 §3 E5.5, §2.7).

S1 and S2 on their own inputs of the device under test, its output on a shared 1 GbE link
through the delay box M (d = RTT/2 each way) to the receivers (:mod:`.path05_tcp`). Flow 1 runs
from 0, flow 2 from 20 s, both to 400 s; BIC and Reno (NewReno recovery), SACK on and off,
RTT 0 and 50 ms, on `rr_simple`, `oq_cs`, `voq_islip_gl`, `voq_exh` and `voq_islip_pi`,
3 seeds. Per run and flow over the window [20, 400] s: goodput (receiver application bytes ÷
380 s) and retransmitted segments per second; the throughput at M in 100-ms and 1-s bins;
the sender's srtt; the device's drops per flow and its memory peak. Side sweeps (spec 05 §5):
B_total of `oq_cs` ∈ {1, 16, 64} MiB beside 4 at 50 ms, and B_sub of `rr_simple` ∈ {8, 32} KiB
beside 16 for BIC+SACK at 50 ms, the cell the paper's D-Link figures are compared with (issue
39 item 6).

Reduced mode (``--quick``, CHOICE): 8 s runs with flow 2 from 2 s (window [2, 8] s), one seed.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any, Callable, Optional

import numpy as np
import pandas as pd

from ...result import Result
from ...scenario import Scenario
from ...testbed.units import size_bytes
from ..engine import Case, Experiment
from ..figures import finish_axes, new_figure
from ..measure import conserved, goodput_bps, value_at
from ..outcome import Check, Figure, Outcome, Table
from ..paper import PUBLISHED, comparison
from .path05_tcp import AT_M, FLOWS, LINE_GOODPUT_BPS, tcp_bench_scenario
from . import checklist05
from .common05 import config_panels, conservation_check, series

#: The simple switch with its memory as one shared pool instead of the static split
#: (issue 39 item 6; spec 05 §5: "the split among ports is unknown").
SHARED_POOL = "rr_simple_cs"
#: Devices that are a configuration with keys changed: name → (config, switch keys).
VARIANTS = {SHARED_POOL: ("rr_simple", {"mem_policy": "CS"})}
#: Required in E5.5 (spec 05 §2.2 table and §3 E5.5): the simple switch first; then the
#: simple switch's shared-pool variant.
CONFIGS_E55 = ("rr_simple", "oq_cs", "voq_islip_gl", "voq_exh", "voq_islip_pi", SHARED_POOL)
NONBLOCKING = ("oq_cs", "voq_islip_gl", "voq_exh", "voq_islip_pi")
CCS = ("bic", "newreno")
CC_NAMES = {"bic": "BIC", "newreno": "Reno"}


@dataclass(frozen=True)
class Params:
    configs: tuple[str, ...] = field(metadata={"label": "device under test"})
    rtts_ms: tuple[int, ...] = field(metadata={"label": "RTT", "unit": "ms"})
    duration_s: float = field(metadata={"label": "flow 1 from 0 to", "unit": "s"})
    flow2_start_s: float = field(metadata={"label": "flow 2 from", "unit": "s"})
    seeds: int = field(metadata={"label": "seeds"})
    memories_mib: tuple[int, ...] = field(metadata={"label": "B_total of oq_cs at 50 ms (beside 4)", "unit": "MiB"})
    #: Spec 05 §5: the split of the simple switch's 512 KB is unknown, so B_sub is swept
    #: (CHOICE 16 KiB = B_total/ports/2). 32 KiB lets one input fill its output's whole 32 KiB.
    subs_kib: tuple[int, ...] = field(
        default=(), metadata={"label": "B_sub of rr_simple, BIC+SACK at 50 ms (beside 16)", "unit": "KiB"}
    )
    bin_s: float = field(default=0.1, metadata={"label": "trace and monitor bin", "unit": "s"})


FULL = Params(configs=CONFIGS_E55, rtts_ms=(0, 50), duration_s=400.0, flow2_start_s=20.0, seeds=3, memories_mib=(1, 16, 64),
              subs_kib=(8, 32))
QUICK = Params(configs=CONFIGS_E55, rtts_ms=(0, 50), duration_s=8.0, flow2_start_s=2.0, seeds=1, memories_mib=())


@dataclass(frozen=True)
class Run:
    config: str
    cc: str
    sack: bool
    rtt_ms: int
    memory_mib: Optional[int] = None
    sub_kib: Optional[int] = None

    def label(self, seed: int) -> str:
        m = f"-m{self.memory_mib}" if self.memory_mib is not None else ""
        m += f"-b{self.sub_kib}" if self.sub_kib is not None else ""
        return f"{self.config}-{self.cc}-{'sack' if self.sack else 'nosack'}-{self.rtt_ms:03d}ms{m}-s{seed:02d}"


#: The run compared with the paper's D-Link figures (Table II, BIC+SACK, 50 ms; issue 39 item
#: 6): the B_sub side sweep varies it, and "Against the paper" reads its cell on each device.
COMPARED = Run("rr_simple", "bic", True, 50)


def _compared_cell(df: pd.DataFrame, config: str) -> pd.Series:
    """The rows of ``df`` (a T5.5-runs frame) in COMPARED's cell on ``config``."""
    c = COMPARED
    return (df["config"] == config) & (df["cc"] == CC_NAMES[c.cc]) & (df["sack"] == c.sack) & (df["RTT_ms"] == c.rtt_ms)


def runs(p: Params) -> list[Run]:
    out = [Run(c, cc, sack, rtt) for c in p.configs for cc in CCS for sack in (True, False) for rtt in p.rtts_ms]
    out += [Run("oq_cs", cc, sack, 50, m) for cc in CCS for sack in (True, False) for m in p.memories_mib]
    out += [replace(COMPARED, sub_kib=b) for b in p.subs_kib]
    return out


def _keeper(p: Params) -> Callable[[Result], dict[str, Any]]:
    a, b = p.flow2_start_s, p.duration_s
    n = int(round(p.duration_s / p.bin_s))

    def keep(r: Result) -> dict[str, Any]:
        sw = r.summary["switches"][0]
        k: dict[str, Any] = {"holds": conserved(r.summary), "memory_max_bytes": int(sw["memory_max_bytes"])}
        for f in FLOWS:
            rows = r.tcp[r.tcp["flow"] == f]
            k[f"{f}_goodput_Mbps"] = goodput_bps(rows, a, b) / 1e6
            k[f"{f}_retrans_per_s"] = (value_at(rows, "retrans", b, default=0.0) - value_at(rows, "retrans", a, default=0.0)) / (b - a)
            k[f"{f}_dut_drops"] = int(sw["dropped_by_flow"].get(f, 0))
            at_m = series(r.flows, AT_M, f, p.bin_s, n).bytes * 8 / p.bin_s / 1e6
            k[f"{f}_at_m_Mbps"] = at_m
            k[f"{f}_srtt_s"] = rows["srtt"].to_numpy(dtype=float)
        return k

    return keep


def _scenario(p: Params, run: Run, seed: int) -> Scenario:
    config, keys = VARIANTS.get(run.config, (run.config, {}))
    switch = {
        **keys,
        **({"memory": f"{run.memory_mib}MiB"} if run.memory_mib is not None else {}),
        **({"queue_limit": f"{run.sub_kib}KiB"} if run.sub_kib is not None else {}),
    } or None
    return tcp_bench_scenario(
        f"05.E5.5-{run.label(seed)}", config=config, rtt_s=run.rtt_ms / 1e3, cc=run.cc, sack=run.sack,
        duration_s=p.duration_s, flow2_start_s=p.flow2_start_s, seed=seed, switch=switch, bin_s=p.bin_s)


def cases(p: Params) -> list[Case]:
    """Every run of :func:`runs`, once per seed."""
    keep = _keeper(p)
    return [Case(run.label(s), _scenario(p, run, s), keep) for run in runs(p) for s in range(1, p.seeds + 1)]


def analyse(p: Params, kept: Mapping[str, Any]) -> Outcome:
    per_run = _per_run(p, kept)
    main = _main(per_run)
    b_sub = _b_sub_sweep(_queue_limit_kib(p, COMPARED), per_run)
    behaviours = checklist05.e55_behaviours(main, p.configs)
    return Outcome(
        paper=_against_the_paper(main, b_sub),
        checks=_checks(kept, main),
        tables=[
            Table("T5.5a", "The source's Table II layout: goodput over the window (Mbit/s, mean over the seeds), each cell "
                  "\"flow 1 & flow 2\"; rows CC × SACK × device, columns the RTT.", _layout(main, "goodput_Mbps", p.rtts_ms, "{:.1f}")),
            Table("T5.5b", "The source's Table III layout: retransmitted segments per second over the window (mean over the "
                  "seeds), each cell \"flow 1 & flow 2\".", _layout(main, "retrans_per_s", p.rtts_ms, "{:.2f}")),
            Table("T5.5-runs", "Every run: goodput and retransmissions per second of each flow, the device's drops per flow and "
                  "memory peak, the largest srtt in the window, the standard deviation of each flow's 100-ms throughput at "
                  "M, its 100-ms bins at zero while the other flow ran, and Jain's fairness index of the two goodputs.",
                  per_run),
            *([Table("T5.5-bsub", "The static split's sub-queue B_sub (spec 05 §5: the split of the simple switch's 512 KB is "
                     "unknown; CHOICE 16 KiB), rr_simple, BIC+SACK at 50 ms: goodput of each flow and their sum (Mbit/s), "
                     "retransmissions per second, the device's drops and memory peak, mean over the seeds.", b_sub)]
              if len(b_sub) > 1 else []),
            *checklist05.tables("E5.5", "B11 of spec 05 §2.8 per device", behaviours, each="each part of B11"),
        ],
        figures=[
            _throughput(p, kept, tuple(c for c in p.configs if c not in NONBLOCKING), "bic", 0, "a"),
            _throughput(p, kept, NONBLOCKING, "bic", 0, "b"),
            _throughput(p, kept, NONBLOCKING, "bic", 50, "c"),
            _throughput(p, kept, NONBLOCKING, "newreno", 50, "d", srtt=True),
            _jain(per_run, p),
        ],
        notes=[
            "Goodput is the receiving application's bytes over the window (spec 05 §3), so flow 1's first 20 s alone on the "
            "link are left out, as in the source.",
            "Reno is `newreno`: Reno growth, NewReno recovery without SACK and SACK-based recovery with it (spec 05 §2.7).",
            "Bins at zero count a flow's 100-ms bins at M with no frame of it while both flows ran: a starvation measure "
            "for TCP.",
        ],
    )


def _main(per_run: pd.DataFrame) -> pd.DataFrame:
    """The main grid: the runs of neither side sweep."""
    return per_run[per_run["B_total_MiB"].isna() & per_run["B_sub_KiB"].isna()]


def _queue_limit_kib(p: Params, run: Run) -> float:
    """The sub-queue limit B_sub (KiB) of ``run``'s device, from its resolved scenario (M4's
    default is 16 KiB, spec 05 §2.2)."""
    d = _scenario(p, run, 1).to_dict()
    return size_bytes(next(n["switch"] for n in d["node"] if "switch" in n)["queue_limit"]) / 1024


def _b_sub_sweep(main_kib: float, per_run: pd.DataFrame) -> pd.DataFrame:
    """COMPARED's cell per B_sub: the main grid's runs at ``main_kib``, the side sweep's at
    theirs; means over the seeds, by B_sub."""
    g = per_run[_compared_cell(per_run, COMPARED.config) & per_run["B_total_MiB"].isna()]
    g = g.assign(B_sub_KiB=g["B_sub_KiB"].astype(float).fillna(main_kib))
    if g.empty:
        return pd.DataFrame()
    out = g.groupby("B_sub_KiB").agg(
        seeds=("seed", "count"),
        f1_goodput_Mbps=("f1_goodput_Mbps", "mean"),
        f2_goodput_Mbps=("f2_goodput_Mbps", "mean"),
        f1_retrans_per_s=("f1_retrans_per_s", "mean"),
        f2_retrans_per_s=("f2_retrans_per_s", "mean"),
        f1_dut_drops=("f1_dut_drops", "mean"),
        f2_dut_drops=("f2_dut_drops", "mean"),
        memory_max_bytes=("memory_max_bytes", "max"),
    )
    out.insert(3, "sum_goodput_Mbps", out["f1_goodput_Mbps"] + out["f2_goodput_Mbps"])
    return out.reset_index()


def _b_sub_reading(b_sub: pd.DataFrame, paper_sum_mbps: float) -> str:
    """One sentence on the B_sub sweep: each reading's two goodputs, and which lies nearest the
    paper's sum. Empty without a sweep (the quick form)."""
    if len(b_sub) < 2:
        return ""
    cells = "; ".join(f"{r.B_sub_KiB:g} KiB {r.f1_goodput_Mbps:.1f} & {r.f2_goodput_Mbps:.1f}" for r in b_sub.itertuples())
    near = b_sub.loc[(b_sub["sum_goodput_Mbps"] - paper_sum_mbps).abs().idxmin()]
    return (f"; by B_sub (T5.5-bsub) the two flows get {cells} Mbit/s, and the paper's sum ({paper_sum_mbps:.0f}) lies "
            f"nearest B_sub = {near['B_sub_KiB']:g} KiB ({near['sum_goodput_Mbps']:.0f}); 16 KiB = B_total/ports/2 stays the "
            "CHOICE")


def _against_the_paper(main: pd.DataFrame, b_sub: pd.DataFrame) -> pd.DataFrame:
    """The D-Link's Table II cell at 50 ms, BIC+SACK, beside both readings of its memory. The
    explanations quote this form's own peak memory and B_sub sweep, never a figure from
    another run."""
    ours: dict[str, Optional[float]] = {}
    peak_kib: dict[str, float] = {}
    for dev, config in (("static", "rr_simple"), ("shared", SHARED_POOL)):
        g = main[_compared_cell(main, config)]
        for k in (1, 2):
            ours[f"{dev}-f{k}"] = float(g[f"f{k}_goodput_Mbps"].mean()) if len(g) else None
        peak_kib[dev] = float(g["memory_max_bytes"].max()) / 1024 if len(g) else float("nan")
    paper = {pub.key: pub.low for pub in PUBLISHED["05.E5.5"]}
    sweep = _b_sub_reading(b_sub, paper["static-f1"] + paper["static-f2"])

    def side(key: str) -> str:
        """Ours against the paper's."""
        v = ours.get(key)
        return "more" if v is not None and v > paper[key] else "less"

    why = {
        **{f"static-f{k}": f"both flows are loss-limited by their 16 KiB sub-queues (10 frames each; the output's memory "
           f"peaked at {peak_kib['static']:.0f} of 32 KiB) and this one gets {side(f'static-f{k}')} than the paper's: a "
           "loss-limited flow's goodput follows the buffer it may fill, and how the device splits its 512 KB is unknown "
           f"(spec 05 §5){sweep}" for k in (1, 2)},
        **{f"shared-f{k}": f"with 512 KiB shared (peak {peak_kib['shared']:.0f} KiB) a window grows far longer before a "
           f"drop and the flow gets {side(f'shared-f{k}')} than the paper's: the device does not behave as one shared "
           "pool" for k in (1, 2)},
    }
    return comparison("05.E5.5", ours, why)


def _per_run(p: Params, kept: Mapping[str, Any]) -> pd.DataFrame:
    w = slice(int(round(p.flow2_start_s / p.bin_s)), int(round(p.duration_s / p.bin_s)))
    rows = []
    for run in runs(p):
        for s in range(1, p.seeds + 1):
            k = kept[run.label(s)]
            g = [k[f"{f}_goodput_Mbps"] for f in FLOWS]
            row: dict[str, Any] = {"config": run.config, "cc": CC_NAMES[run.cc], "sack": run.sack, "RTT_ms": run.rtt_ms,
                                   "B_total_MiB": run.memory_mib, "B_sub_KiB": run.sub_kib, "seed": s}
            for f, tag in zip(FLOWS, ("f1", "f2")):
                row[f"{tag}_goodput_Mbps"] = k[f"{f}_goodput_Mbps"]
                row[f"{tag}_retrans_per_s"] = k[f"{f}_retrans_per_s"]
                row[f"{tag}_dut_drops"] = k[f"{f}_dut_drops"]
                row[f"{tag}_std_100ms_Mbps"] = float(np.std(k[f"{f}_at_m_Mbps"][w]))
                row[f"{tag}_zero_bins"] = int(np.sum(k[f"{f}_at_m_Mbps"][w] == 0))
                srtt = k[f"{f}_srtt_s"][w]
                row[f"{tag}_srtt_max_ms"] = float(np.nanmax(srtt) * 1e3) if np.isfinite(srtt).any() else float("nan")
            row["memory_max_bytes"] = k["memory_max_bytes"]
            row["jain"] = (sum(g) ** 2) / (2 * sum(x * x for x in g)) if sum(g) > 0 else float("nan")
            rows.append(row)
    return pd.DataFrame(rows)


def _layout(main: pd.DataFrame, what: str, rtts: tuple[int, ...], fmt: str) -> pd.DataFrame:
    out = []
    for cc in CCS:
        for sack in (True, False):
            for c in dict.fromkeys(main["config"]):
                row: dict[str, Any] = {"CC": CC_NAMES[cc], "SACK": "on" if sack else "off", "device": c}
                for rtt in rtts:
                    g = main[(main["cc"] == CC_NAMES[cc]) & (main["sack"] == sack) & (main["config"] == c) & (main["RTT_ms"] == rtt)]
                    row[f"{rtt} ms"] = f"{fmt.format(g[f'f1_{what}'].mean())} & {fmt.format(g[f'f2_{what}'].mean())}"
                out.append(row)
    return pd.DataFrame(out)


def _checks(kept: Mapping[str, Any], main: pd.DataFrame) -> list[Check]:
    agg = main["f1_goodput_Mbps"] + main["f2_goodput_Mbps"]
    bound = LINE_GOODPUT_BPS / 1e6
    return [
        conservation_check([k["holds"] for k in kept.values()]),
        Check.within("largest aggregate goodput of the two flows, any run", float(agg.max()), None, bound * 1.001, unit="Mbit/s",
                     criterion=f"≤ R·MSS/W = {bound:.1f} Mbit/s (one 1 GbE output)"),
    ]


def _throughput(p: Params, kept: Mapping[str, Any], configs: tuple[str, ...], cc: str, rtt: int, letter: str, srtt: bool = False) -> Figure:
    per_s = int(round(1.0 / p.bin_s)) if p.duration_s >= 20 else 1
    t = np.arange(int(round(p.duration_s / p.bin_s))) * p.bin_s

    def draw(ax: Any, c: str) -> None:
        k = kept[Run(c, cc, True, rtt).label(1)]
        y = k["flow1_at_m_Mbps"]
        m = len(y) // per_s * per_s
        ax.plot(t[:m:per_s], y[:m].reshape(-1, per_s).mean(axis=1), lw=0.7, color="C0", label="flow 1 (Mbit/s)")
        ax.set_ylim(0, 1000)
        if srtt:
            ax2 = ax.twinx()
            ax2.plot(t, k["flow1_srtt_s"] * 1e3, lw=0.6, color="C3", label="srtt")
            ax2.set_ylabel("srtt (ms)", fontsize="small", color="C3")

    bins = "1-s" if per_s > 1 else f"{p.bin_s * 1e3:g}-ms"
    title = f"{CC_NAMES[cc]}+SACK, {rtt} ms: flow-1 throughput at M ({bins} bins, Mbit/s)" + (" and its srtt" if srtt else "") + ", seed 1"
    fig = config_panels(configs, 1.8, draw, "time (s)", f"05.E5.5 F5.5{letter}: {title}")
    return Figure(f"F5.5{letter}", f"{title}, one panel per device: " + ", ".join(configs) + ".", fig)


def _jain(per_run: pd.DataFrame, p: Params) -> Figure:
    fig, axes = new_figure(1, 1, width=9.0, height=4.0)
    ax = axes[0]
    main = _main(per_run).reset_index(drop=True)
    for k, c in enumerate(p.configs):
        g = main[main["config"] == c]
        for rtt, marker in zip(p.rtts_ms, "os"):
            h = g[g["RTT_ms"] == rtt]
            ax.plot(np.full(len(h), k + (0.15 if rtt else -0.15)), h["jain"], marker, ms=4, alpha=0.7, color=f"C{k}",
                    label=f"{rtt} ms" if k == 0 else None)
    ax.set_xticks(range(len(p.configs)), p.configs)
    ax.set_ylim(0.45, 1.02)
    ax.set_ylabel("Jain's fairness index")
    ax.legend(fontsize="small")
    finish_axes(ax)
    fig.suptitle("05.E5.5 F5.5e: Jain's index of the two goodputs per run (circles 0 ms, squares 50 ms)", fontsize="medium")
    return Figure("F5.5e", "Jain's fairness index (x1 + x2)²/(2·(x1² + x2²)) of the two flows' goodputs, every run of the main "
                  "grid (every CC, SACK setting and seed), per device.", fig)


EXPERIMENT = Experiment(
    id="05.E5.5",
    title="TCP flows through the two switch classes",
    summary="two BIC or Reno flows, SACK on or off, at 0 and 50 ms through rr_simple and four nonblocking devices: goodput "
    "and retransmissions per second (T5.5a–b), throughput, srtt and fairness (F5.5a–e), B11",
    reference="spec 05 §3 (E5.5), §2.7, §5",
    checks=(
        "Checks (model properties that can fail): packet conservation in every run, and the two flows together never exceed "
        "the 1 GbE goodput bound. A starved flow is a finding, not a failure (B11)."
    ),
    full=FULL,
    quick=QUICK,
    cases=cases,
    analyse=analyse,
)

__all__ = ["EXPERIMENT", "FULL", "QUICK", "Params", "cases", "analyse", "runs", "CONFIGS_E55"]
