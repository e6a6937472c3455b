"""The behaviour checklist of spec 05 §2.8, judged from the E5.1, E5.3 and E5.4 tables.

Each behaviour gets a numeric criterion, stated in the criteria table of each report. A
configuration "shows" a behaviour when the criterion holds. The verdict is `yes` or `no`,
or `—` where the experiment has no run that tests it. These are observations of the
models, not checks: a `no` is a finding, and the report says so.
"""

from __future__ import annotations

from typing import Callable, Optional

import pandas as pd

from ..outcome import Table
from .path05 import l2_line_mbps

__all__ = ["CRITERIA", "judge", "e51_behaviours", "e53_behaviours", "e54_behaviours", "e55_behaviours", "criteria_table", "tables"]

#: spec 05 §2.8 behaviours and the criterion lfnlab judges each by (CHOICE).
CRITERIA: dict[str, tuple[str, str]] = {
    "B1": ("two equal CBR flows at line rate: one flow at a time, starvation > 100 ms, constant aggregate",
           "at 1000 + 1000: longest starvation > 100 ms and aggregate mean ≥ 0.99·R_line·L2/W"),
    "B2": ("equal rates below line rate, output congested: long unfair periods without complete starvation",
           "at 950 + 950, 900 + 900 or 800 + 800 (J = 0 or swept): an unfair period ≥ 100 ms with no starvation in that run set"),
    "B3": ("one flow at line rate, the other lower: a flow's output jumps between a few levels",
           "at (1000, 950), (1000, 900) or (1000, 800): flow 1's 100-ms bins fall in 2 to 5 levels of 50 Mbit/s, each holding ≥ 5 % of the bins"),
    "B4": ("different rates, neither at line rate: close to rate-proportional sharing, aggregate fills the output",
           "at (950, 900), (900, 800) and (800, 600): |f1/(f1 + f2) − TC1/(TC1 + TC2)| ≤ 0.05 and aggregate ≥ 0.99·R_line·L2/W"),
    "B5": ("no loss while TC1 + TC2 ≤ R_line", "at 500 + 500 and 400 + 400: ratio out/in ≥ 0.999 for both flows"),
    "B6": ("saturated output: even split, very low variance, no starvation",
           "at every congested pair with both TC > 500: |f1 − f2|/(f1 + f2) ≤ 0.01, 100-ms variance ≤ 10 (Mbit/s)², no starvation"),
    "B7s": ("1000 + 1000, simple class: forwarding alternates and drops alternate (small regular gaps)",
            "mean run length ≤ 1.5 for both flows and ≥ 99 % of Δseq in {1, 2, 3}"),
    "B7n": ("1000 + 1000, nonblocking class: drops in long bursts", "a loss burst of ≥ 100 consecutive frames"),
    "B8": ("400 + 400: output frames alternate", "mean run length ≤ 1.5 for both flows"),
    "B9r": ("burst vs CBR: loss grows with N on a regular curve", "slope > 0 and residual std ≤ 5 % of the mean loss"),
    "B9n": ("burst vs CBR: loss grows with N on a noisy curve", "slope > 0 and residual std > 5 % of the mean loss"),
    "B10": ("64-byte frames at line rate: alternation as in B1, aggregate below the maximum",
            "64-byte 1000 + 1000: longest starvation > 100 ms and aggregate < 0.99·R_line·L2/W"),
    "B11v": ("TCP at 0 ms: more throughput variability and starvation periods (nonblocking class)",
             "at 0 ms: mean std of the flows' 100-ms throughput at M above rr_simple's, and some run with a 100-ms bin at zero for a flow while both run"),
    "B11r": ("TCP at 50 ms: the large buffer inflates the RTT (nonblocking class)",
             "at 50 ms: in some run the largest srtt in the window ≥ 1.5 × 50 ms and the device's memory peak holds ≥ 25 ms of its output line"),
    "B11s": ("TCP: more retransmissions at 0 ms and lower goodput at 50 ms (simple class)",
             "mean retransmissions per second at 0 ms above every other device's, and mean aggregate goodput at 50 ms below every other device's"),
}


def _rows(t: pd.DataFrame, config: str, pairs: list[tuple[int, int]]) -> pd.DataFrame:
    keys = set(pairs)
    hit = pd.Series([(a, b) in keys for a, b in zip(t["TC1_Mbps"], t["TC2_Mbps"])], index=t.index, dtype=bool)
    return t[(t["config"] == config) & hit]


def judge(rows: pd.DataFrame, test: Callable[[pd.Series], bool], need: str = "any") -> Optional[bool]:
    """Apply ``test`` to each row: None when there are no rows, else any/all of them."""
    if rows.empty:
        return None
    got = [bool(test(r)) for _, r in rows.iterrows()]
    return any(got) if need == "any" else all(got)


def e51_behaviours(main: pd.DataFrame, sweeps: pd.DataFrame, configs: tuple[str, ...]) -> pd.DataFrame:
    """B1–B6 and B10 per configuration, from T5.1 and T5.1-sweeps."""
    full = l2_line_mbps(1500)
    full64 = l2_line_mbps(46)
    both = pd.concat([main, sweeps[sweeps["variant"].str.startswith("J ")]])
    out = []
    for c in configs:
        b6 = _rows(main, c, [(a, b) for a, b in zip(main["TC1_Mbps"], main["TC2_Mbps"]) if a > 500 and b > 500 and a + b > 1000])
        out.append({
            "config": c,
            "B1": judge(_rows(main, c, [(1000, 1000)]), lambda r: r["starvation_ms"] > 100 and r["aggregate_mean_Mbps"] >= 0.99 * full),
            "B2": judge(_rows(both, c, [(950, 950), (900, 900), (800, 800)]), lambda r: r["unfair_ms"] >= 100 and r["starvation_ms"] == 0),
            "B3": judge(_rows(main, c, [(1000, 950), (1000, 900), (1000, 800)]), lambda r: 2 <= r["f1_levels"] <= 5),
            "B4": judge(_rows(main, c, [(950, 900), (900, 800), (800, 600)]),
                        lambda r: abs(r["f1_mean_Mbps"] / (r["f1_mean_Mbps"] + r["f2_mean_Mbps"]) - r["TC1_Mbps"] / (r["TC1_Mbps"] + r["TC2_Mbps"])) <= 0.05
                        and r["aggregate_mean_Mbps"] >= 0.99 * full, need="all"),
            "B5": judge(_rows(main, c, [(500, 500), (400, 400)]), lambda r: min(r["f1_ratio_out_in"], r["f2_ratio_out_in"]) >= 0.999, need="all"),
            "B6": judge(b6, lambda r: abs(r["f1_mean_Mbps"] - r["f2_mean_Mbps"]) / (r["f1_mean_Mbps"] + r["f2_mean_Mbps"]) <= 0.01
                        and max(r["f1_var_Mbps2"], r["f2_var_Mbps2"]) <= 10 and r["starvation_ms"] == 0, need="all"),
            "B10": judge(sweeps[(sweeps["config"] == c) & (sweeps["variant"] == "64-byte frames")],
                         lambda r: r["starvation_ms"] > 100 and r["aggregate_mean_Mbps"] < 0.99 * full64),
        })
    return _verdicts(pd.DataFrame(out))


def e53_behaviours(t53: pd.DataFrame, configs: tuple[str, ...]) -> pd.DataFrame:
    """B7 (both forms) and B8 per configuration, from T5.3."""
    out = []
    for c in configs:
        fast = t53[(t53["config"] == c) & (t53["TC1_Mbps"] == 1000)]
        slow = t53[(t53["config"] == c) & (t53["TC1_Mbps"] == 400)]
        out.append({
            "config": c,
            "B7s": judge(fast, lambda r: max(r["f1_mean_run"], r["f2_mean_run"]) <= 1.5 and _small_gap_share(r) >= 0.99),
            "B7n": judge(fast, lambda r: max(r["f1_burst_max"], r["f2_burst_max"]) >= 100),
            "B8": judge(slow, lambda r: max(r["f1_mean_run"], r["f2_mean_run"]) <= 1.5),
        })
    return _verdicts(pd.DataFrame(out))


def _small_gap_share(r: pd.Series) -> float:
    small = sum(r[f"f{f}_dseq_{k}"] for f in (1, 2) for k in (1, 2, 3))
    total = sum(r[k] for k in r.index if "_dseq_" in k)
    return small / total if total else 0.0


def e54_behaviours(fits: pd.DataFrame) -> pd.DataFrame:
    """B9 in its regular and noisy forms per configuration, from T5.4."""
    rows = []
    for _, f in fits.iterrows():
        spread = f["residual_std_over_mean_loss"]
        rows.append({"config": f["config"], "B9r": bool(f["slope"] > 0 and spread <= 0.05), "B9n": bool(f["slope"] > 0 and spread > 0.05)})
    return _verdicts(pd.DataFrame(rows))


def e55_behaviours(runs: pd.DataFrame, configs: tuple[str, ...]) -> pd.DataFrame:
    """B11 in its three parts per device, from the E5.5 per-run table (main grid). Every
    device is judged by the same criteria; the table shows which class shows what."""

    def mean_of(c: str, rtt: int, col: str) -> float:
        g = runs[(runs["config"] == c) & (runs["RTT_ms"] == rtt)]
        return float(((g[f"f1_{col}"] + g[f"f2_{col}"]) / 2).mean()) if len(g) else float("nan")

    def agg_goodput(c: str) -> float:
        g = runs[(runs["config"] == c) & (runs["RTT_ms"] == 50)]
        return float((g["f1_goodput_Mbps"] + g["f2_goodput_Mbps"]).mean()) if len(g) else float("nan")

    has = set(runs["RTT_ms"])
    rows = []
    for c in configs:
        others = [o for o in configs if o != c]
        zero0 = runs[(runs["config"] == c) & (runs["RTT_ms"] == 0)]
        v: Optional[bool] = None
        if 0 in has and "rr_simple" in configs:
            v = mean_of(c, 0, "std_100ms_Mbps") > mean_of("rr_simple", 0, "std_100ms_Mbps") and bool(((zero0["f1_zero_bins"] + zero0["f2_zero_bins"]) > 0).any())
        r50 = runs[(runs["config"] == c) & (runs["RTT_ms"] == 50)]
        # The device's share of the inflation: its memory peak drained at the 1 GbE output.
        device_ms = r50["memory_max_bytes"] * 8 / 1e9 * 1e3
        r: Optional[bool] = bool(((r50[["f1_srtt_max_ms", "f2_srtt_max_ms"]].max(axis=1) >= 75.0) & (device_ms >= 25.0)).any()) if 50 in has else None
        sv: Optional[bool] = None
        if {0, 50} <= has and others:
            sv = all(mean_of(c, 0, "retrans_per_s") > mean_of(o, 0, "retrans_per_s") for o in others) and all(agg_goodput(c) < agg_goodput(o) for o in others)
        rows.append({"config": c, "B11v": v, "B11r": r, "B11s": sv})
    return _verdicts(pd.DataFrame(rows))


def _verdicts(t: pd.DataFrame) -> pd.DataFrame:
    for col in t.columns[1:]:
        t[col] = ["—" if v is None else ("yes" if v else "no") for v in t[col]]
    return t


def criteria_table(behaviours: list[str]) -> pd.DataFrame:
    """The behaviours judged in a report, with the spec's description and lfnlab's criterion."""
    return pd.DataFrame([{"behaviour": b, "spec 05 §2.8": CRITERIA[b][0], "criterion (CHOICE)": CRITERIA[b][1]} for b in behaviours])


def tables(experiment: str, shows: str, behaviours: pd.DataFrame, each: str = "each behaviour") -> list[Table]:
    """An experiment's checklist (``B-checklist-E5.x``: ``shows``, then the criteria it was
    judged by) and those criteria (``B-criteria-E5.x``, one row per judged behaviour)."""
    return [
        Table(f"B-checklist-{experiment}", f"{shows}, by the criteria of B-criteria-{experiment}.", behaviours),
        Table(f"B-criteria-{experiment}", f"The numeric criterion of {each} (CHOICE).", criteria_table(list(behaviours.columns[1:]))),
    ]


def nobody(t: pd.DataFrame) -> list[str]:
    """Behaviours that no configuration showed (for the report's notes)."""
    return [b for b in t.columns[1:] if not (t[b] == "yes").any()]
