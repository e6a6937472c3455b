"""04.E4.1: transfer rate vs window buffer size on the emulated LFN (spec 04 §3 E4.1).

One BIC stream crosses T4-P (path04) with PAUSE between each host and its router and
``B_snd = B_rcv = B``. Every curve (MTU, NIC profile) sweeps B at each RTT; each point runs the
spec's seeds and reports the §2.13 sustained rate (mean app_rx_rate over the last half of the
run), the peak 1-s rate, drops by location, PAUSE statistics and the router queue maximum.

Figures: F4.1a rate vs B per RTT (MTU 9198, Chelsio), F4.1b the same for MTU 1500, F4.1c
Chelsio vs Intel at MTU 9198, F4.1d the application write-size sweep; T4.1-slowdown the §5
large-buffer runs with ``c_mem`` and ``c_sack_walk`` (both side sweeps in ``e1_extras``).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from ..figures import finish_axes, log2_x_axis, new_figure, spread_yerr
from ..outcome import Check, Figure, Outcome, Table, expectation
from ..engine import Case, Experiment
from ..measure import mss_eff
from .path04 import MIB, MTU_JUMBO, MTU_STD, bdp_bytes, cpu_cap_bps, host_limit_bps, r_ref_bps, receiver_bus_limit_bps
from . import e1_extras as extras
from .e1_extras import Slowdown, WriteSweep
from .common04 import buffer_text, CLOSING_NOTES, edge_allowance, expectations_entry, GBPS, keeper, phi, point_row, run_outcome, seed_runs, stall_note, t4p_cases, window_rate_bps

CHELSIO = "chelsio_t110"
INTEL = "intel_pro10gbe_sr"
SHORT_NIC = {CHELSIO: "chelsio", INTEL: "intel"}
#: A point is window-limited when φ·B/RTT is at most this share of R_ref (CHOICE: half, so
#: the window, not the bus, sets the rate with a wide margin).
WINDOW_LIMITED_SHARE = 0.5
#: "Levels off near R_ref": the curve's largest rate reaches the hosts' limit (the receiver's bus
#: limit with its ACKs, or the CPU cap of §2.7 if lower: the steady state a loss-free PAUSE run
#: settles at) to within 2 % (CHOICE). Window-limited points are only bounded above by φ·B/RTT:
#: with the CPU model, data waiting for the reader stays in M_used and shrinks the window
#: (§2.8 rule 1), which is how the source's ~3·BDP requirement emerges.
LEVEL_LOW = 0.98
#: "Slightly lower performance with very large buffers" (spec 04 §4): the largest buffer's rate
#: at least this share of the curve's best (CHOICE: within 10 %); a steeper decline reads `partly`.
SLIGHT_LOW = 0.9


@dataclass(frozen=True)
class Curve:
    """One rate-vs-B curve family: MTU and NIC profile, the RTTs and buffers it sweeps."""

    mtu: int
    nic: str
    rtts_s: tuple[float, ...]
    buffers_bytes: tuple[float, ...]

    @property
    def key(self) -> str:
        return f"m{self.mtu}-{SHORT_NIC[self.nic]}"

    def __str__(self) -> str:
        rtts = "/".join(f"{r * 1e3:g}" for r in self.rtts_s)
        bufs = "/".join(f"{b / MIB:g}" for b in self.buffers_bytes)
        return f"MTU {self.mtu} {SHORT_NIC[self.nic]}: RTT {rtts} ms × B {bufs} MiB"


@dataclass(frozen=True)
class Params:
    curves: tuple[Curve, ...] = field(metadata={"label": "curves (MTU, NIC, RTT × B grid; IPv6)"})
    seeds: int = field(metadata={"label": "seeds per point"})
    duration_short_s: float = field(metadata={"label": "duration below the long-RTT threshold", "unit": "s"})
    duration_long_s: float = field(metadata={"label": "duration at or above it", "unit": "s"})
    long_from_rtt_s: float = field(metadata={"label": "long-RTT threshold", "unit": "s"})
    write_sweep: WriteSweep = field(metadata={"label": "F4.1d write-size sweep (MTU 9198, Chelsio)"})
    slowdown: Slowdown = field(metadata={"label": "§5 large-buffer runs (MTU 9198, Chelsio)"})
    steady_fraction: float = field(default=0.5, metadata={"label": "steady window: last fraction of the run"})
    txqueuelen: int = field(default=10000, metadata={"label": "txqueuelen", "unit": "packets"})

    def duration_s(self, rtt_s: float) -> float:
        return self.duration_long_s if rtt_s >= self.long_from_rtt_s - 1e-12 else self.duration_short_s


_SPEC_RTTS = (0.0, 0.1, 0.2, 0.3, 0.4)
_SPEC_BUFFERS = tuple(float(b * MIB) for b in (1, 2, 4, 8, 16, 32, 64, 128, 256, 384, 512, 768, 1024, 1536))
FULL = Params(
    curves=(
        Curve(MTU_JUMBO, CHELSIO, _SPEC_RTTS, _SPEC_BUFFERS),
        Curve(MTU_STD, CHELSIO, _SPEC_RTTS, _SPEC_BUFFERS),
        Curve(MTU_JUMBO, INTEL, _SPEC_RTTS, _SPEC_BUFFERS),
        Curve(MTU_STD, INTEL, _SPEC_RTTS, _SPEC_BUFFERS),
    ),
    seeds=3,
    duration_short_s=60.0,
    duration_long_s=120.0,
    long_from_rtt_s=0.3,
    write_sweep=WriteSweep(0.1, tuple(float(w * 1024) for w in (8, 32, 128, 512))),
    slowdown=Slowdown(0.4, _SPEC_BUFFERS),
)
QUICK = Params(
    curves=(
        Curve(MTU_JUMBO, CHELSIO, (0.02, 0.05), tuple(float(b * MIB) for b in (2, 8, 32, 128))),
        Curve(MTU_STD, CHELSIO, (0.02,), tuple(float(b * MIB) for b in (2, 8, 128))),
        Curve(MTU_JUMBO, INTEL, (0.02,), tuple(float(b * MIB) for b in (8, 128))),
    ),
    seeds=1,
    duration_short_s=3.0,
    duration_long_s=4.0,
    long_from_rtt_s=0.05,
    write_sweep=WriteSweep(0.02, (8.0 * 1024, 128.0 * 1024)),
    slowdown=Slowdown(0.05, tuple(float(b * MIB) for b in (8, 128))),
)

#: Columns averaged over the seeds of a point in T4.1.
_POINT_KEYS = (
    "peak_bps",
    "rx_fifo_drop",
    "rx_fifo_drop_sender",
    "egress_drop",
    "qdisc_drop",
    "pause_xoff_sent",
    "paused_s",
    "router_queue_max_bytes",
    "qdisc_max_packets",
    "send_stalls",
    "cwr_entries",
    "retransmitted",
    "timeouts",
    "srtt_mean_s",
)


def case_key(curve: Curve, rtt_s: float, buffer_bytes: float) -> str:
    return f"{curve.key}-rtt{round(rtt_s * 1e3):03d}-b{buffer_text(buffer_bytes)}"


def points(p: Params) -> list[tuple[Curve, float, float]]:
    return [(c, rtt, b) for c in p.curves for rtt in c.rtts_s for b in c.buffers_bytes]


def cases(p: Params) -> list[Case]:
    """Every point of every curve with the spec's seeds, then the side sweeps (e1_extras)."""
    out: list[Case] = []
    for c, rtt, b in points(p):
        d = p.duration_s(rtt)
        out += t4p_cases(
            "04.E4.1",
            case_key(c, rtt, b),
            p.seeds,
            keeper(d, c.mtu, steady_fraction=p.steady_fraction),
            rtt_s=rtt,
            buffer_bytes=b,
            duration_s=d,
            mtu=c.mtu,
            nic_profile=c.nic,
            txqueuelen=p.txqueuelen,
        )
    return out + extras.cases(p.write_sweep, p.slowdown, p.seeds, p.duration_s, p.steady_fraction, p.txqueuelen)


def analyse(p: Params, kept: Mapping[str, Mapping[str, Any]]) -> Outcome:
    table = t41_table(p, kept)
    writes = extras.write_table(p.write_sweep, p.seeds, kept)
    slow = extras.slowdown_table(p.slowdown, p.seeds, kept, _curve_rows(table, MTU_JUMBO, CHELSIO, p.slowdown.rtt_s * 1e3))
    out = run_outcome(kept)
    out.checks += _checks(p, table)
    out.tables += [
        Table(
            "T4.1",
            "Every point (IPv6, PAUSE on, B_snd = B_rcv = B): sustained rate (mean app_rx_rate over the last "
            f"{p.steady_fraction:.0%} of the run; mean and min–max over the seeds), peak 1-s rate, the window bound "
            "φ·B/RTT (φ = ½) and R_ref of §2.13, drops by location (receiver and sender NIC RX FIFO, router egresses, "
            "sender qdisc), PAUSE frames (XOFF) the receiver sent and the time R_r's port toward it was paused, the "
            "maximum router queue toward the receiver, the sender's largest qdisc occupancy, send stalls, CWR entries, "
            "retransmitted segments, RTOs and the mean srtt over the steady window.",
            table,
            digits=5,
        ),
        Table(
            "T4.1-best",
            "Per curve and RTT: the buffer with the highest sustained rate (the 'best B' E4.2 uses), the smallest B "
            "reaching 95 % of that rate, and the rate at the largest B relative to the best.",
            best_table(table),
            digits=5,
        ),
        Table(
            "T4.1d",
            f"Application write size ({p.write_sweep}, MTU 9198, Chelsio): sustained rate (mean, min–max over the seeds), "
            "the busiest core of each host and core 0's system share at the sender over the steady window, the sender's "
            "busy cycles per frame built, retransmitted segments and send stalls (F4.1d).",
            writes,
            digits=5,
        ),
        Table(
            "T4.1-slowdown",
            f"§5 large-buffer slowdown at RTT {p.slowdown.rtt_s * 1e3:g} ms (MTU 9198, Chelsio): the default curve (c_mem = "
            "c_sack_walk = 0, from T4.1) beside the same buffers with each variant: its sustained rate, the ratio to the "
            "default and each host's busiest core.",
            slow,
            digits=5,
        ),
        expectations_entry(_expectations(p, table, slow)),
    ]
    out.figures += _figures(p, table)
    out.figures.append(extras.write_figure(p.write_sweep, writes, p.steady_fraction))
    out.notes += stall_note(table, ["mtu", "nic", "rtt_ms", "buffer_MiB"])
    level = stalled_level_offs(p, table)
    if level:
        out.notes.append(
            "Level-offs not checked, because every buffer whose window covers R_ref took a send stall (the check that "
            "replaces each asks that the stall ended slow start below the BDP): " + "; ".join(level) + ". Every "
            "smaller buffer's window φ·B/RTT is below R_ref, and each covering one ended slow start in a send stall "
            "below the BDP, after which BIC 2.6.12 needs more than the run to regrow (issue 39 item 7; "
            "04.E4.3 and 04.E4.4 show the same stall). Whether the paper's hosts stalled is not known; spec 04 gives "
            "txqueuelen 10 000."
        )
    out.notes += [
        "F4.1d and T4.1-slowdown set `cpu.write_size`, `cpu.c_mem` or `cpu.c_sack_walk` on both hosts (the write size "
        "only acts at the sender, which writes; c_mem charges per segment × log2(B/64 MiB), so below 64 MiB it adds "
        "nothing; c_sack_walk only acts on ACKs that carry SACK blocks).",
        "F4.1c compares the `chelsio_t110` and `intel_pro10gbe_sr` profiles, which differ in interrupt cost and "
        "coalescing (§2.7: 2000 vs 4000 cycles, 16 vs 32 frames, 10 vs 50 µs).",
        *CLOSING_NOTES,
        "Window-limited points are those with φ·B/RTT ≤ ½·R_ref (RTT > 0). Their rate may not exceed the window bound "
        "φ·B/RTT by more than RTT/T_steady (a window-limited flow delivers one window per RTT in a burst, so the cumulative "
        "`bytes_read` at the two ends of the steady window T_steady can be off by up to one window). It is not bounded "
        "below: with the CPU model, data waiting for the reader stays in M_used and shrinks the advertised window "
        "(§2.8 rule 1); the column `rate_over_window_bound` shows by how much. Level-off: the largest rate of each "
        f"(curve, RTT) must reach {LEVEL_LOW:g}× the hosts' limit, the smaller of the receiver's bus limit counted with "
        f"its ACK transmissions ({receiver_bus_limit_bps(MTU_JUMBO, 6) / GBPS:.4f} Gbit/s at MTU 9198, "
        f"{receiver_bus_limit_bps(MTU_STD, 6) / GBPS:.4f} at 1500) and the CPU cap of §2.7 "
        f"({cpu_cap_bps(MTU_JUMBO, 6) / GBPS:.4f} and {cpu_cap_bps(MTU_STD, 6) / GBPS:.4f} Gbit/s: a saturated core at the "
        "default costs, docs/ten-gig-hosts.md), and may never exceed R_ref "
        f"({r_ref_bps(MTU_JUMBO, 6) / GBPS:.4f} and {r_ref_bps(MTU_STD, 6) / GBPS:.4f} Gbit/s), which leaves ACKs and CPU out.",
        "Router forwarding latency (5 µs per router, §2.11) is added to the rs–rr link delay in each direction; base "
        "RTT = RTT + 20 µs + serialization and DMA. The window bound uses the nominal RTT.",
    ]
    return out


def t41_table(p: Params, kept: Mapping[str, Mapping[str, Any]]) -> pd.DataFrame:
    rows = []
    for c, rtt, b in points(p):
        d = p.duration_s(rtt)
        row: dict[str, Any] = {
            "mtu": c.mtu,
            "nic": c.nic,
            "rtt_ms": rtt * 1e3,
            "buffer_MiB": b / MIB,
            "duration_s": d,
            "window_bound_Gbps": window_rate_bps(b, rtt) / GBPS,
            "r_ref_Gbps": r_ref_bps(c.mtu, 6) / GBPS,
        }
        runs = seed_runs(kept, case_key(c, rtt, b), p.seeds)
        row.update(point_row(runs, _POINT_KEYS))
        # NaN when any seed never left slow start (then no stall ended it below the BDP).
        row["ss_exit_cwnd_max"] = float(np.max([k["ss_exit_cwnd"] for k in runs]))
        row["bdp_segments"] = bdp_bytes(host_limit_bps(c.mtu, 6), rtt) / mss_eff(c.mtu, 6)
        row["peak_Gbps"] = row.pop("peak_bps") / GBPS
        row["rate_over_window_bound"] = row["sustained_Gbps"] / row["window_bound_Gbps"] if rtt > 0 else math.nan
        row["window_limited"] = bool(rtt > 0 and window_rate_bps(b, rtt) <= WINDOW_LIMITED_SHARE * r_ref_bps(c.mtu, 6))
        row["edge_allowance"] = edge_allowance(rtt, d * p.steady_fraction)
        rows.append(row)
    frame = pd.DataFrame(rows)
    first = ["mtu", "nic", "rtt_ms", "buffer_MiB", "duration_s", "seeds", "distinct_runs", "sustained_Gbps",
             "sustained_Gbps_min", "sustained_Gbps_max", "peak_Gbps", "window_bound_Gbps", "rate_over_window_bound",
             "window_limited", "r_ref_Gbps"]
    return frame[first + [c for c in frame.columns if c not in first]]


def _curve_rows(table: pd.DataFrame, mtu: int, nic: str, rtt_ms: float) -> pd.DataFrame:
    g = table[(table["mtu"] == mtu) & (table["nic"] == nic) & (np.isclose(table["rtt_ms"], rtt_ms))]
    return g.sort_values("buffer_MiB")


def _checks(p: Params, table: pd.DataFrame) -> list[Check]:
    checks: list[Check] = []
    for c in p.curves:
        ref = r_ref_bps(c.mtu, 6) / GBPS
        lim = host_limit_bps(c.mtu, 6) / GBPS
        cur = table[(table["mtu"] == c.mtu) & (table["nic"] == c.nic)]
        checks.append(
            Check.within(
                f"{c.key}: largest sustained rate of any point ≤ R_ref",
                float(cur["sustained_Gbps_max"].max()),
                None,
                ref,
                unit="Gbit/s",
                criterion=f"≤ R_ref = {ref:.4f} Gbit/s (§2.13; bus-limited, MTU {c.mtu}, IPv6)",
            )
        )
        checks.append(
            Check.equal(
                f"{c.key}: points where a run delivered nothing",
                int((cur["sustained_Gbps_min"] <= 0).sum()),
                0,
                criterion="= 0 (every buffer moves data; a zero window that never opens would show here)",
            )
        )
        not_rising = 0
        steps = 0
        for rtt in c.rtts_s:
            g = _curve_rows(table, c.mtu, c.nic, rtt * 1e3)
            wl = g[g["window_limited"]]
            if len(wl):
                allowance = float(wl["edge_allowance"].iloc[0])
                checks.append(
                    Check.within(
                        f"{c.key} RTT {rtt * 1e3:g} ms: largest rate / (φ·B/RTT) of the window-limited points",
                        float(wl["rate_over_window_bound"].max()),
                        None,
                        1.0 + allowance,
                        criterion=f"≤ 1 + RTT/T_steady = {1.0 + allowance:.4f} (one window per RTT)",
                    )
                )
                rates = wl["sustained_Gbps"].to_numpy()
                steps += max(0, len(rates) - 1)
                not_rising += int(np.sum(np.diff(rates) <= 0))
            covers = _covering(g, c.mtu, rtt)
            clean = covers[covers["send_stalls"] == 0]
            if len(clean):
                checks.append(
                    Check.within(
                        f"{c.key} RTT {rtt * 1e3:g} ms: largest sustained rate over B (level-off)",
                        float(g["sustained_Gbps"].max()),
                        LEVEL_LOW * lim,
                        ref,
                        unit="Gbit/s",
                        criterion=f"in [{LEVEL_LOW:g} × {lim:.4f} (host limit: receiver bus with ACKs, CPU cap), R_ref {ref:.4f}] "
                        f"({len(covers)} B with φ·B/RTT ≥ R_ref, {len(clean)} of them without a send stall)",
                    )
                )
            elif _every_cover_stalled(covers):
                # Issue 39 item 7: every B whose window covers R_ref let slow start outrun the
                # sender's NIC (stall_note); the level-off is then not the window's to reach. What
                # must hold is the mechanism: each stall ended slow start below the BDP.
                checks.append(
                    Check.equal(
                        f"{c.key} RTT {rtt * 1e3:g} ms: B covering R_ref, all with a send stall, where slow start did not end below the BDP",
                        int((~(covers["ss_exit_cwnd_max"] < covers["bdp_segments"])).sum()),
                        0,
                        criterion=f"= 0 (level-off not checked: all {len(covers)} B with φ·B/RTT ≥ R_ref took a send stall; "
                        f"slow start ended at ≤ {covers['ss_exit_cwnd_max'].max():.0f} segments, BDP at the hosts' limit "
                        f"{float(covers['bdp_segments'].iloc[0]):.0f}; the notes give the rates)",
                    )
                )
        if steps:
            checks.append(
                Check.equal(
                    f"{c.key}: steps between consecutive window-limited buffers where the rate did not rise",
                    not_rising,
                    0,
                    criterion=f"= 0 (of {steps} steps: rate grows with B while window-limited)",
                )
            )
    return checks


def _covering(g: pd.DataFrame, mtu: int, rtt_s: float) -> pd.DataFrame:
    """The rows of one (curve, RTT) whose window φ·B/RTT covers R_ref."""
    return g[g["buffer_MiB"] * MIB * phi(1) * 8 / max(rtt_s, 1e-12) >= r_ref_bps(mtu, 6)]


def _every_cover_stalled(covers: pd.DataFrame) -> bool:
    """Whether a (curve, RTT) has covering buffers and every one took a send stall (issue 39
    item 7): then the level-off is replaced by the mechanism check."""
    return bool(len(covers)) and not bool((covers["send_stalls"] == 0).any())


def stalled_level_offs(p: Params, table: pd.DataFrame) -> list[str]:
    """The (curve, RTT) whose every covering buffer took a send stall, so the level-off check is
    replaced by the mechanism check (issue 39 item 7): each with its best rate against the limit."""
    out = []
    for c in p.curves:
        lim = host_limit_bps(c.mtu, 6) / GBPS
        for rtt in c.rtts_s:
            g = _curve_rows(table, c.mtu, c.nic, rtt * 1e3)
            covers = _covering(g, c.mtu, rtt)
            if _every_cover_stalled(covers):
                best = g.loc[g["sustained_Gbps"].idxmax()]
                cov = ", ".join(f"{r.buffer_MiB:g} MiB {r.sustained_Gbps:.3f}" for r in covers.itertuples())
                out.append(
                    f"{c.key} RTT {rtt * 1e3:g} ms: best {float(best['sustained_Gbps']):.3f} Gbit/s at {float(best['buffer_MiB']):g} MiB "
                    f"= {float(best['sustained_Gbps']) / lim:.3f} of the hosts' limit; covering B (Gbit/s): {cov}"
                )
    return out


def best_table(table: pd.DataFrame) -> pd.DataFrame:
    rows = []
    for (mtu, nic, rtt), g in table.groupby(["mtu", "nic", "rtt_ms"], sort=False):
        g = g.sort_values("buffer_MiB")
        best = g.loc[g["sustained_Gbps"].idxmax()]
        reach = g[g["sustained_Gbps"] >= 0.95 * best["sustained_Gbps"]]
        rows.append(
            {
                "mtu": mtu,
                "nic": nic,
                "rtt_ms": rtt,
                "best_buffer_MiB": float(best["buffer_MiB"]),
                "best_sustained_Gbps": float(best["sustained_Gbps"]),
                "smallest_B_95pct_MiB": float(reach["buffer_MiB"].iloc[0]),
                "largest_B_MiB": float(g["buffer_MiB"].iloc[-1]),
                "largest_B_over_best": float(g["sustained_Gbps"].iloc[-1] / best["sustained_Gbps"]),
            }
        )
    return pd.DataFrame(rows)


def _expectations(p: Params, table: pd.DataFrame, slow: pd.DataFrame) -> list[dict[str, str]]:
    rows = []
    best = best_table(table)
    jumbo = best[(best["mtu"] == MTU_JUMBO) & (best["nic"] == CHELSIO)]
    if len(jumbo):
        bdp_x = [
            (r.rtt_ms, r.smallest_B_95pct_MiB * MIB / (r_ref_bps(MTU_JUMBO, 6) * r.rtt_ms / 1e3 / 8))
            for r in jumbo.itertuples()
            if r.rtt_ms > 0
        ]
        rows.append(
            expectation(
                "rate grows with B while the window is below the BDP, then levels off once the window covers the BDP "
                "plus the receive queue",
                "smallest B reaching 95 % of the curve's best: "
                + ", ".join(f"{rtt:g} ms: {x:.2f}·BDP" for rtt, x in bdp_x),
                "yes" if bdp_x and all(1.5 <= x <= 3.5 for _, x in bdp_x) else "partly",
                "with φ = ½ and an empty receive queue the window covers the BDP at B = 2·BDP; data waiting for the "
                "reader (CPU model) push it toward 3·BDP; the growth below it is checked",
            )
        )
        first = float(jumbo["best_sustained_Gbps"].iloc[0])
        ratios = [(r.rtt_ms, r.best_sustained_Gbps / first) for r in jumbo.itertuples()]
        rows.append(
            expectation(
                "RTT alone is not the obstacle: with jumbo frames and enough buffer every RTT approaches the rate at the "
                "shortest RTT",
                ", ".join(f"{rtt:g} ms: {x:.4f}" for rtt, x in ratios) + f" of the {jumbo['rtt_ms'].iloc[0]:g} ms best",
                "yes" if all(x >= 0.98 for _, x in ratios) else "no",
                "best rate over B per RTT, MTU 9198, Chelsio; 'approaches' read as ≥ 0.98",
            )
        )
        decline = [(r.rtt_ms, r.largest_B_over_best) for r in jumbo.itertuples()]
        declined = [(rtt, x) for rtt, x in decline if x < 0.99]
        steep = [(rtt, x) for rtt, x in declined if x < SLIGHT_LOW]
        largest = table[(table["mtu"] == MTU_JUMBO) & (table["nic"] == CHELSIO)]
        largest = largest[np.isclose(largest["buffer_MiB"], largest["buffer_MiB"].max())].set_index("rtt_ms")
        stalled = [rtt for rtt, _ in declined if float(largest.loc[rtt, "send_stalls"]) > 0]
        rows.append(
            expectation(
                "slightly lower performance with very large buffers (only from c_mem, c_sack_walk or an overflowing "
                "router queue in lfnlab)",
                ", ".join(f"{rtt:g} ms: largest B at {x:.4f} of best" for rtt, x in decline),
                "no" if not declined else "partly" if steep else "yes",
                f"'slightly' read as at least {SLIGHT_LOW:g} of the best (CHOICE); c_mem and c_sack_walk are 0 by default "
                "(§5), so a decline here comes from router overflow or send stalls"
                + (f"; the largest B took a send stall at {', '.join(f'{r:g}' for r in stalled)} ms (issue 39 item 7)" if stalled else ""),
            )
        )
        rows.append(extras.slowdown_expectation(p.slowdown, slow))
    std = best[(best["mtu"] == MTU_STD) & (best["nic"] == CHELSIO)]
    if len(std) and len(jumbo):
        m = jumbo.set_index("rtt_ms")["best_sustained_Gbps"]
        ratios = [(r.rtt_ms, r.best_sustained_Gbps / m[r.rtt_ms]) for r in std.itertuples() if r.rtt_ms in m.index]
        rows.append(
            expectation(
                "standard frames give a far lower rate than jumbo frames at every RTT (per-packet CPU work)",
                ", ".join(f"{rtt:g} ms: 1500/9198 = {x:.3f}" for rtt, x in ratios),
                "yes" if ratios and all(x <= 0.6 for _, x in ratios) else ("partly" if ratios and all(x < 1 for _, x in ratios) else "no"),
                "the CPU cap of §2.7 binds at MTU 1500; 'far lower' read as ≤ 0.6",
            )
        )
    intel = best[(best["mtu"] == MTU_JUMBO) & (best["nic"] == INTEL)]
    if len(intel) and len(jumbo):
        m = jumbo.set_index("rtt_ms")["best_sustained_Gbps"]
        ratios = [(r.rtt_ms, m[r.rtt_ms] / r.best_sustained_Gbps) for r in intel.itertuples() if r.rtt_ms in m.index]
        rows.append(
            expectation(
                "the Chelsio profile gives a higher base rate than the Intel profile",
                ", ".join(f"{rtt:g} ms: Chelsio/Intel = {x:.4f}" for rtt, x in ratios),
                "yes" if ratios and all(x > 1.0 for _, x in ratios) else "no",
                "the profiles differ through their interrupt costs and coalescing (§2.7)",
            )
        )
    return rows


def _rate_axes(ax: Any, table: pd.DataFrame, mtu: int, nic: str, rtts_ms: Sequence[float], style: str = "-o", tag: str = "") -> None:
    for i, rtt in enumerate(rtts_ms):
        g = _curve_rows(table, mtu, nic, rtt)
        if g.empty:
            continue
        err = spread_yerr(g["sustained_Gbps"], g["sustained_Gbps_min"], g["sustained_Gbps_max"])
        ax.errorbar(g["buffer_MiB"], g["sustained_Gbps"], yerr=err, fmt=style, color=f"C{i}", ms=4, capsize=2, label=f"{rtt:g} ms{tag}")


def _figures(p: Params, table: pd.DataFrame) -> list[Figure]:
    figs = []
    specs = [
        ("F4.1a", MTU_JUMBO, [CHELSIO], "MTU 9198, chelsio_t110"),
        ("F4.1b", MTU_STD, [CHELSIO], "MTU 1500, chelsio_t110"),
        ("F4.1c", MTU_JUMBO, [CHELSIO, INTEL], "MTU 9198, chelsio_t110 (solid) vs intel_pro10gbe_sr (dashed)"),
    ]
    for name, mtu, nics, what in specs:
        have = [n for n in nics if ((table["mtu"] == mtu) & (table["nic"] == n)).any()]
        if len(have) < len(nics):
            continue
        fig, (ax,) = new_figure(1, 1, height=4.8)
        rtts = sorted(table[(table["mtu"] == mtu) & table["nic"].isin(nics)]["rtt_ms"].unique())
        for n, style in zip(nics, ("-o", "--s")):
            _rate_axes(ax, table, mtu, n, rtts, style, "" if len(nics) == 1 else f" {SHORT_NIC[n]}")
        ref = r_ref_bps(mtu, 6) / GBPS
        ax.axhline(ref, color="gray", ls=":", label=f"R_ref {ref:.3f} Gbit/s")
        log2_x_axis(ax, "B_snd = B_rcv (MiB, log scale)")
        ax.set_ylabel("sustained rate (Gbit/s, goodput)")
        ax.set_ylim(bottom=0)
        finish_axes(ax)
        fig.suptitle(f"04.E4.1 {name}: rate vs buffer per RTT; {what}", fontsize="medium")
        caption = (
            f"Sustained rate (mean app_rx_rate over the last {p.steady_fraction:.0%} of the run; bars: min–max over the "
            f"seeds) against B on a log scale, one curve per RTT; {what}; dotted: R_ref (§2.13)."
        )
        figs.append(Figure(name, caption, fig))
    return figs


EXPERIMENT = Experiment(
    id="04.E4.1",
    title="transfer rate vs window buffer size (emulated LFN)",
    summary="one BIC stream over T4-P with PAUSE, B_snd = B_rcv swept per RTT for MTU 9198 and 1500 and the Chelsio and "
    "Intel profiles: sustained and peak rate, drops, PAUSE, router queue (T4.1, F4.1a–c)",
    reference="spec 04 §3 (E4.1), §2.2–2.6, §2.8, §2.11, §2.13, §4",
    checks=(
        "One BIC (2.6.12 constants) stream over T4-P, IPv6, PAUSE between each host and its router, 256 MiB router "
        "buffers, φ = ½. The checks are model properties: packet conservation in every run; every run delivers data; no point above R_ref of "
        "§2.13 (an analytic ceiling); at every window-limited point (φ·B/RTT ≤ ½·R_ref) the rate lies near the window "
        "bound φ·B/RTT (at least 0.95 of it, at most one window per RTT above it) and it rises from each window-limited "
        "B to the next; and where some B's window covers the BDP the curve's best rate reaches the receiver's bus limit "
        "with its ACKs to within 2 % (it levels off near R_ref). The spec's §4 sentences are compared in `expectations`."
    ),
    full=FULL,
    quick=QUICK,
    cases=cases,
    analyse=analyse,
)
