"""04.E4.1's two side sweeps (spec 04 §3 E4.1 and §5), run with the main grid:

- **F4.1d, the application write size**: w ∈ {8, 32, 128, 512} KiB at RTT 100 ms, B = 3·BDP,
  MTU 9198, Chelsio (``cpu.write_size``; the reader keeps r = 128 KiB). A smaller write costs
  more system calls per byte at the sender (``c_syscall`` per call, §2.7).
- **The large-buffer slowdown** (§5 "Large-buffer slowdown"): the RTT 400 ms curve (MTU 9198,
  Chelsio) again with ``c_mem`` = 1000 and with ``c_sack_walk`` = 20, beside the default curve
  (both 0). Only these explicit mechanisms may make very large buffers slower (§4).

Both reuse the T4-P builder and the §2.13 keeper of the main grid; the CPU figures come from
the summary (``cpu04.host_cpu``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np
import pandas as pd

from .. import quantities as q
from ...result import Result
from ..figures import finish_axes, log2_x_axis, new_figure, spread_yerr
from ..outcome import Figure, expectation
from ..engine import Case
from .path04 import MIB, MTU_JUMBO, RECEIVER, SENDER, r_ref_bps
from .common04 import buffer_text, k_bdp_bytes, keeper, seed_point, t4p_cases
from .cpu04 import host_cpu

KIB = 1024
CHELSIO = "chelsio_t110"


@dataclass(frozen=True)
class WriteSweep:
    """F4.1d: write sizes at one RTT with B = k·BDP (BDP at R_ref, §2.13), MTU 9198, Chelsio."""

    rtt_s: float
    sizes_bytes: tuple[float, ...]
    bdp_multiple: float = 3.0

    def __str__(self) -> str:
        sizes = "/".join(f"{s / KIB:g}" for s in self.sizes_bytes)
        return f"w {sizes} KiB at RTT {self.rtt_s * 1e3:g} ms, B = {self.bdp_multiple:g}·BDP"

    def buffer_bytes(self) -> float:
        return k_bdp_bytes(self.bdp_multiple, r_ref_bps(MTU_JUMBO, 6), self.rtt_s)


@dataclass(frozen=True)
class Slowdown:
    """§5: one RTT's buffers (MTU 9198, Chelsio) again with each (cpu key, value)."""

    rtt_s: float
    buffers_bytes: tuple[float, ...]
    variants: tuple[tuple[str, float], ...] = (("c_mem", 1000.0), ("c_sack_walk", 20.0))

    def __str__(self) -> str:
        v = ", ".join(f"{k} = {x:g}" for k, x in self.variants)
        return f"RTT {self.rtt_s * 1e3:g} ms × {len(self.buffers_bytes)} buffers with {v}"


def write_key(w: WriteSweep, size: float) -> str:
    return f"ws-rtt{round(w.rtt_s * 1e3):03d}-w{size / KIB:g}KiB"


def slow_key(s: Slowdown, variant: tuple[str, float], buffer_bytes: float) -> str:
    return f"sd-{variant[0]}{variant[1]:g}-rtt{round(s.rtt_s * 1e3):03d}-b{buffer_text(buffer_bytes)}"


def _cpu_keeper(duration_s: float, steady_fraction: float) -> Callable[[Result], dict[str, Any]]:
    base = keeper(duration_s, MTU_JUMBO, steady_fraction=steady_fraction)

    def keep(r: Result) -> dict[str, Any]:
        out = base(r)
        snd = host_cpu(r.summary, SENDER, duration_s, steady_fraction)
        rcv = host_cpu(r.summary, RECEIVER, duration_s, steady_fraction)
        out["hs_busiest"] = snd["busiest"]
        out["hs_system"] = snd["cores"][0].get("system", float("nan"))
        out["hs_cycles_per_frame"] = snd["cycles_per_frame"]
        out["hr_busiest"] = rcv["busiest"]
        return out

    return keep


def cases(
    w: WriteSweep, s: Slowdown, seeds: int, duration_s: Callable[[float], float], steady_fraction: float, txqueuelen: int
) -> list[Case]:
    """The side sweeps' cases, each with its CPU keeper, labelled apart from the main grid's."""

    def point(case: str, rtt_s: float, b: float, cpu: Mapping[str, Any]) -> list[Case]:
        d = duration_s(rtt_s)
        return t4p_cases(
            "04.E4.1",
            case,
            seeds,
            _cpu_keeper(d, steady_fraction),
            rtt_s=rtt_s,
            buffer_bytes=b,
            duration_s=d,
            mtu=MTU_JUMBO,
            nic_profile=CHELSIO,
            txqueuelen=txqueuelen,
            cpu=cpu,
        )

    out: list[Case] = []
    for size in w.sizes_bytes:
        out += point(write_key(w, size), w.rtt_s, w.buffer_bytes(), {"write_size": q.size(size)})
    for v in s.variants:
        for b in s.buffers_bytes:
            out += point(slow_key(s, v, b), s.rtt_s, b, {v[0]: v[1]})
    return out


_KEYS = ("hs_busiest", "hs_system", "hs_cycles_per_frame", "hr_busiest", "retransmitted", "send_stalls")


def write_table(w: WriteSweep, seeds: int, kept: Mapping[str, Mapping[str, Any]]) -> pd.DataFrame:
    rows = []
    for size in w.sizes_bytes:
        row: dict[str, Any] = {"write_KiB": size / KIB, "rtt_ms": w.rtt_s * 1e3, "buffer_MiB": w.buffer_bytes() / MIB}
        row.update(seed_point(kept, write_key(w, size), seeds, _KEYS))
        rows.append(row)
    return pd.DataFrame(rows)


def slowdown_table(s: Slowdown, seeds: int, kept: Mapping[str, Mapping[str, Any]], default: pd.DataFrame) -> pd.DataFrame:
    """Per buffer: the default curve's rate (``default``: T4.1 rows of the same RTT, MTU 9198,
    Chelsio) and each variant's, with the ratio."""
    base = default.set_index("buffer_MiB")["sustained_Gbps"]
    rows = []
    for b in s.buffers_bytes:
        row: dict[str, Any] = {"rtt_ms": s.rtt_s * 1e3, "buffer_MiB": b / MIB, "default_Gbps": float(base.get(b / MIB, np.nan))}
        for v in s.variants:
            pr = seed_point(kept, slow_key(s, v, b), seeds, _KEYS)
            tag = f"{v[0]}{v[1]:g}"
            row[f"{tag}_Gbps"] = pr["sustained_Gbps"]
            row[f"{tag}_over_default"] = pr["sustained_Gbps"] / row["default_Gbps"]
            row[f"{tag}_hr_busiest"] = pr["hr_busiest"]
            row[f"{tag}_hs_busiest"] = pr["hs_busiest"]
        rows.append(row)
    return pd.DataFrame(rows)


def write_figure(w: WriteSweep, table: pd.DataFrame, steady_fraction: float) -> Figure:
    fig, (ax, cpu) = new_figure(1, 2, height=4.2)
    err = spread_yerr(table["sustained_Gbps"], table["sustained_Gbps_min"], table["sustained_Gbps_max"])
    ax.errorbar(table["write_KiB"], table["sustained_Gbps"], yerr=err, fmt="-o", ms=4, capsize=2, label="sustained rate")
    ax.set_ylabel("sustained rate (Gbit/s, goodput)")
    cpu.plot(table["write_KiB"], table["hs_busiest"], "-o", ms=4, label="sender, busiest core")
    cpu.plot(table["write_KiB"], table["hs_system"], "--s", ms=4, label="sender core 0: system share")
    cpu.plot(table["write_KiB"], table["hr_busiest"], ":^", ms=4, label="receiver, busiest core")
    cpu.set_ylabel("share of the steady window")
    for a in (ax, cpu):
        log2_x_axis(a, "application write size w (KiB, log scale)")
        a.set_ylim(bottom=0)
        finish_axes(a)
    fig.suptitle(f"04.E4.1 F4.1d: rate vs write size; {w}, MTU 9198, Chelsio", fontsize="medium")
    caption = (
        f"Sustained rate (last {steady_fraction:.0%} of the run; bars: min–max over the seeds) and CPU shares against the "
        f"application write size; {w} (cpu.write_size; the reader's r stays 128 KiB)."
    )
    return Figure("F4.1d", caption, fig)


def slowdown_expectation(s: Slowdown, table: pd.DataFrame) -> Any:
    parts = []
    worst = 1.0
    for v in s.variants:
        tag = f"{v[0]}{v[1]:g}"
        big = table.iloc[-1]
        ratio = float(big[f"{tag}_over_default"])
        worst = min(worst, ratio)
        parts.append(f"{v[0]} = {v[1]:g}: {ratio:.4f} of the default at {big['buffer_MiB']:g} MiB")
    return expectation(
        "with c_mem or c_sack_walk (§5), very large buffers give slightly lower performance",
        "; ".join(parts) + f" (RTT {s.rtt_s * 1e3:g} ms)",
        "yes" if worst < 0.99 else "no",
        "a decline only appears where the extra per-segment cycles reach a saturated core",
    )


def sizes_text(sizes: Sequence[float]) -> str:
    return ", ".join(f"{x / KIB:g}" for x in sizes)
