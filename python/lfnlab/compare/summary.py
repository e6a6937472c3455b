"""Side-by-side figures of one cell: medians per side and the difference against the
tolerance band (docs/compare.md "Flags").

The kernel's median is over every completed testbed run, valid or not, and the median
over the valid runs alone is given beside it: on a loaded host every run may be marked
"invalid: host overloaded", and its figures are still the kernel's (CHOICE). The
difference is the simulator's median relative to the kernel's; a metric is flagged
when it lies outside ± ``tolerance``. For a count whose kernel median is 0 the
difference is 0 when the simulator's is 0 too, else infinite (flagged).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd

from .runs import KERNEL, SIMULATOR

__all__ = ["METRICS", "DEFAULT_TOLERANCE", "relative_difference", "cell_summary", "matrix_row"]

#: The compared metrics: column of the runs table, label, unit.
METRICS = (
    ("goodput_bps", "goodput", "bit/s"),
    ("drops", "bottleneck drops", "frames"),
    ("losses", "random losses", "frames"),
    ("retransmitted", "retransmitted segments", "segments"),
)
#: The tolerance band of the issue (± 15 % goodput), used for every metric (CHOICE).
DEFAULT_TOLERANCE = 0.15


def relative_difference(simulator: float, kernel: float) -> float:
    """(simulator − kernel) / kernel; 0 when both are 0, ±inf when only the kernel's is 0,
    NaN when either is missing."""
    if math.isnan(simulator) or math.isnan(kernel):
        return math.nan
    if kernel == 0:
        return 0.0 if simulator == 0 else math.copysign(math.inf, simulator)
    return (simulator - kernel) / kernel


def _done(rows: pd.DataFrame, side: str) -> pd.DataFrame:
    return rows[(rows["side"] == side) & (rows["status"] == "done")]


def _median(values: pd.Series) -> float:
    v = values.to_numpy(dtype=float)
    return float(np.median(v)) if v.size else math.nan


def cell_summary(rows: pd.DataFrame, tolerance: float = DEFAULT_TOLERANCE) -> pd.DataFrame:
    """One row per metric: the simulator's median, the kernel's median (all completed
    runs), min and max, the kernel's median over valid runs, the relative difference
    and whether it lies outside ± ``tolerance``."""
    sim, ker = _done(rows, SIMULATOR), _done(rows, KERNEL)
    valid = ker[ker["valid"].astype(bool)]
    out: list[dict[str, Any]] = []
    for column, label, unit in METRICS:
        s, k = _median(sim[column]), _median(ker[column])
        d = relative_difference(s, k)
        out.append(
            {
                "metric": label,
                "unit": unit,
                "simulator_median": s,
                "kernel_median": k,
                "kernel_min": float(ker[column].min()) if len(ker) else math.nan,
                "kernel_max": float(ker[column].max()) if len(ker) else math.nan,
                "kernel_valid_median": _median(valid[column]),
                "difference": d,
                "outside_band": bool(not math.isnan(d) and abs(d) > tolerance),
            }
        )
    return pd.DataFrame(out)


def matrix_row(rows: pd.DataFrame, tolerance: float = DEFAULT_TOLERANCE) -> dict[str, Any]:
    """A cell as one row of a matrix table: medians of both sides, the goodput
    difference and flag, how many kernel runs completed and were valid, and the median
    of their relays' lateness p99 (how loaded the host was)."""
    summary = cell_summary(rows, tolerance).set_index("metric")
    ker = _done(rows, KERNEL)
    g = summary.loc["goodput"]
    return {
        "sim_goodput_Mbps": g["simulator_median"] / 1e6,
        "kernel_goodput_Mbps": g["kernel_median"] / 1e6,
        "kernel_valid_goodput_Mbps": g["kernel_valid_median"] / 1e6,
        "goodput_difference": g["difference"],
        "outside_band": bool(g["outside_band"]),
        "sim_drops": summary.loc["bottleneck drops", "simulator_median"],
        "kernel_drops": summary.loc["bottleneck drops", "kernel_median"],
        "sim_losses": summary.loc["random losses", "simulator_median"],
        "kernel_losses": summary.loc["random losses", "kernel_median"],
        "sim_retransmitted": summary.loc["retransmitted segments", "simulator_median"],
        "kernel_retransmitted": summary.loc["retransmitted segments", "kernel_median"],
        "kernel_runs": int(len(ker)),
        "kernel_valid_runs": int(ker["valid"].astype(bool).sum()),
        "kernel_lateness_p99_us": _median(ker["lateness_p99_us"]),
    }
