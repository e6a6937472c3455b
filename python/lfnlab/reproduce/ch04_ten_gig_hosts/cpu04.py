"""CPU measurements of spec 04 §2.13 ("CPU: per core and category, 1 s") from a run's summary
(``host_cpus``, spec 04 §2.7 rule 5). Pure functions of the summary; the §2.7 per-frame cost
formulas they are checked against are in :mod:`.path04` (``frame_cycles``, ``cpu_cap_bps``).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

__all__ = ["CATEGORIES", "core_shares", "host_cpu"]

#: The busy categories of §2.7 rule 5 (idle is the rest).
CATEGORIES = ("user", "system", "softirq")


def _bins_in(values: Sequence[float], bin_s: float, start_s: float, end_s: float) -> float:
    """Busy seconds of the bins wholly inside [start, end)."""
    total = 0.0
    for i, v in enumerate(values):
        lo, hi = i * bin_s, (i + 1) * bin_s
        if lo >= start_s - 1e-9 and hi <= end_s + 1e-9:
            total += float(v)
    return total


def core_shares(core: Mapping[str, Any], bin_s: float, start_s: float, end_s: float) -> dict[str, float]:
    """Share of [start, end) the core spent in each category (from its per-bin busy seconds), and
    ``busy`` = their sum; the window is cut to whole bins."""
    first = math.ceil(start_s / bin_s - 1e-9) * bin_s
    last = math.floor(end_s / bin_s + 1e-9) * bin_s
    span = last - first
    out: dict[str, float] = {}
    for c in CATEGORIES:
        out[c] = _bins_in(core.get(f"bins_{c}_s", []), bin_s, first, last) / span if span > 0 else math.nan
    out["busy"] = sum(out[c] for c in CATEGORIES)
    return out


def host_cpu(summary: Mapping[str, Any], host: str, duration_s: float, steady_fraction: float) -> dict[str, Any]:
    """One host's CPU figures: per core the shares over the steady window (``cores``), and over the
    whole run the busy cycles per frame handled (``cycles_per_frame``: data frames built at a
    sender, received at a receiver, whichever is larger) and interrupts per frame."""
    entry = next(h for h in summary["host_cpus"] if h["host"] == host)
    bin_s = float(entry["bin_s"])
    start = duration_s * (1.0 - steady_fraction)
    cores = [core_shares(c, bin_s, start, duration_s) for c in entry["cores"]]
    busy_s = sum((1.0 - float(c["idle"])) * duration_s for c in entry["cores"])
    frames = max(int(entry["rx_frames"]), int(entry["packets_built"]))
    return {
        "cores": cores,
        "busiest": max(c["busy"] for c in cores),
        "cycles_per_frame": busy_s * float(entry["freq_ghz"]) * 1e9 / frames if frames else math.nan,
        "interrupts_per_frame": int(entry["interrupts"]) / frames if frames else math.nan,
        "interrupts": int(entry["interrupts"]),
    }
