"""Shared pieces of the chapter 05 reproductions: the required configurations, bin series
read from a run's flows table, and the per-run statistics of spec 05 §2.6."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from ..figures import finish_axes, new_figure
from ..outcome import Check
from . import stats05

__all__ = ["CONFIGS_E51_E54", "OUTPUT", "Series", "series", "frames_in_window", "levels", "run_stats", "config_panels", "config_grid", "conservation_check"]

#: Required in E5.0–E5.4 (spec 05 §2.2 table), in table order.
CONFIGS_E51_E54 = ("oq_cs", "oq_dt", "iq_fifo", "voq_islip_pi", "voq_islip_gl", "voq_pim_pi", "voq_pim_gl", "voq_exh", "rr_simple")
#: The monitored output (its far end, CH0).
OUTPUT = "dut->ch0"
#: spec 05 §2.6 unfair period: a flow offering at least this share of R_line …
UNFAIR_OFFER = 0.4
#: … that gets less than this share of the aggregate.
UNFAIR_SHARE = 0.1


@dataclass(frozen=True)
class Series:
    """Per-bin bytes and packets of one flow at one monitor, bins [k·bin, (k + 1)·bin)."""

    bytes: np.ndarray
    packets: np.ndarray


def series(flows: pd.DataFrame, monitor: str, flow: str, bin_s: float, n_bins: int) -> Series:
    """The full bin series (zeros where the monitor had nothing of the flow)."""
    rows = flows[(flows["monitor"] == monitor) & (flows["flow"] == flow)]
    idx = np.rint(rows["t"].to_numpy(dtype=float) / bin_s).astype(np.int64)
    keep = (idx >= 0) & (idx < n_bins)
    b = np.zeros(n_bins, dtype=np.int64)
    k = np.zeros(n_bins, dtype=np.int64)
    b[idx[keep]] = rows["bytes"].to_numpy()[keep]
    k[idx[keep]] = rows["packets"].to_numpy()[keep]
    return Series(b, k)


def frames_in_window(s: Series, window: slice) -> int:
    return int(s.packets[window].sum())


#: Width of an output level, and the share of bins a level must hold to count (B3, CHOICE).
LEVEL_MBPS = 50.0
LEVEL_SHARE = 0.05


def levels(mbps: np.ndarray) -> int:
    """How many 50-Mbit/s-wide levels hold at least 5 % of the bins (spec 05 §2.8 B3)."""
    if mbps.size == 0:
        return 0
    counts = np.bincount(np.floor(mbps / LEVEL_MBPS).astype(np.int64))
    return int(np.sum(counts >= LEVEL_SHARE * mbps.size))


def run_stats(flows: pd.DataFrame, offered_mbps: dict[str, float], duration_s: float, window_s: tuple[float, float], bin_s: float) -> dict[str, Any]:
    """spec 05 §2.6 statistics of one run over the measurement window: per flow the 100-ms bin
    statistics, the ratio out/in (frames), the longest starvation and unfair periods (1-ms bins,
    in ms), and the aggregate's mean."""
    n = int(round(duration_s / bin_s))
    w = stats05.window_slice(0.0, bin_s, n, *window_s)
    per100 = int(round(0.1 / bin_s))
    out: dict[str, Any] = {}
    agg = np.zeros(n, dtype=np.int64)
    got = {f: series(flows, OUTPUT, f, bin_s, n) for f in offered_mbps}
    for s in got.values():
        agg += s.bytes
    for f, tc in offered_mbps.items():
        s = got[f]
        sent = series(flows, "ch2->dut" if f == "flow1" else "ch3->dut", f, bin_s, n)
        per_100ms = stats05.rebin(s.bytes[w], per100)
        stats = stats05.bin_stats(per_100ms, 0.1)
        out[f] = {
            "mean_Mbps": stats.mean_mbps,
            "max_Mbps": stats.max_mbps,
            "min_Mbps": stats.min_mbps,
            "var_Mbps2": stats.var_mbps2,
            "ratio_out_in": frames_in_window(s, w) / max(1, frames_in_window(sent, w)),
            "starvation_ms": stats05.starvation_period_bins(s.packets[w]) * bin_s * 1e3 if tc > 0 else 0.0,
            "unfair_ms": stats05.unfair_period_bins(s.bytes[w], agg[w], UNFAIR_SHARE) * bin_s * 1e3 if tc >= UNFAIR_OFFER * 1e3 else 0.0,
            "std_1ms_Mbps": float(np.std(s.bytes[w] * 8 / bin_s / 1e6)),
            "levels": levels(per_100ms * 8 / 0.1 / 1e6),
        }
    out["aggregate_Mbps"] = float(agg[w].sum() * 8 / ((window_s[1] - window_s[0]) * 1e6))
    return out


def conservation_check(holds: Sequence[bool]) -> Check:
    """Packet conservation in every run (``holds``: each run's summary ``conservation.holds``)."""
    return Check.equal("runs whose packet conservation holds", sum(map(bool, holds)), len(holds), criterion="= every run")


def config_panels(configs: Sequence[str], panel_height: float, draw: Callable[[Any, str], None], xlabel: str, title: str) -> Any:
    """One stacked panel per configuration (spec 05 §3: every figure for each configuration):
    ``draw(ax, config)`` fills each; returns the matplotlib figure."""
    fig, axes = new_figure(len(configs), 1, width=8.0, height=panel_height * len(configs) + 0.8, sharex=True)
    for ax, c in zip(axes, configs):
        draw(ax, c)
        ax.set_ylabel(c, fontsize="small")
        finish_axes(ax)
    axes[-1].set_xlabel(xlabel)
    fig.suptitle(title, fontsize="medium")
    return fig


def config_grid(configs: Sequence[str], draw: Callable[[Any, str], None], xlabel: str, title: str, *, width: float = 11.0,
                height: float = 8.5) -> tuple[Any, list[Any]]:
    """A 3 × 3 grid with one titled panel per configuration (the nine of E5.1–E5.4):
    ``draw(ax, config)`` fills each; returns the matplotlib figure and its axes."""
    fig, axes = new_figure(3, 3, width=width, height=height, sharex=True)
    for ax, c in zip(axes, configs):
        draw(ax, c)
        ax.set_title(c, fontsize="small")
        finish_axes(ax)
    for ax in axes[6:]:
        ax.set_xlabel(xlabel)
    fig.suptitle(title, fontsize="medium")
    return fig, axes

