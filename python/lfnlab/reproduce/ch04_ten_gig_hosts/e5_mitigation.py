"""04.E4.5: receiver overload, mitigation ablation (spec 04 §3 E4.5).

The BIC stream over T4-P (MTU 9198, IPv6, B = 3·BDP) at each RTT in four configurations:
(i) no PAUSE and no cap, (ii) PAUSE only, (iii) the sender NIC capped at 6 Gbit/s (wire bytes)
only, (iv) PAUSE and the cap. The receiver's bus (8.342 Gbit/s of goodput with its ACKs) is
slower than the 10 Gbit/s line, so line-rate bursts fill its 256 KiB RX FIFO: without PAUSE it
overflows; with PAUSE R_r's egress holds the excess; with the cap the sender never exceeds the
receiver. The sensitivity sweeps of spec 04 §5 run beside the main table: the NIC RX FIFO F_rx
(configurations i and ii) and the router buffer B_router (configuration ii).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Optional

import numpy as np
import pandas as pd

from .. import quantities as q
from ..figures import finish_axes, new_figure
from ..outcome import Check, Figure, Outcome, Table, expectation
from .path04 import (
    KIB,
    MIB,
    MTU_JUMBO,
    ROUTER_BUFFER_BYTES,
    l2_bytes,
    mss_eff,
    r_ref_bps,
    receiver_bus_limit_bps,
    t4p_scenario,
)
from ..engine import Case, Experiment
from .common04 import buffer_text, cap_check, cap_goodput_bps, CLOSING_NOTES, expectations_entry, GBPS, k_bdp_bytes, keeper, run_outcome, seed_label, seed_labels, seed_point

#: F_rx of the main runs (spec 04 §2.4 default).
DEFAULT_RX_FIFO = 256 * KIB


@dataclass(frozen=True)
class Config:
    """A mitigation configuration: PAUSE on both edges, the sender cap."""

    key: str
    pause: bool
    cap: bool

    def __str__(self) -> str:
        parts = (["PAUSE"] if self.pause else []) + (["cap"] if self.cap else [])
        return f"({self.key}) " + (" + ".join(parts) if parts else "none")


CONFIGS = (Config("i", False, False), Config("ii", True, False), Config("iii", False, True), Config("iv", True, True))
_BY_KEY = {c.key: c for c in CONFIGS}
#: §4 "well below the receiver limit" read as under 90 % of it; "near" as at least 95 % (CHOICE).
WELL_BELOW = 0.9
NEAR = 0.95


@dataclass(frozen=True)
class Params:
    rtts_s: tuple[float, ...] = field(metadata={"label": "RTT", "unit": "s"})
    duration_s: float = field(metadata={"label": "duration", "unit": "s"})
    seeds: int = field(metadata={"label": "seeds per point"})
    cap_bps: float = field(default=6e9, metadata={"label": "sender cap (iii, iv), wire bytes", "unit": "bps"})
    bdp_multiple: float = field(default=3.0, metadata={"label": "B = k·BDP (BDP from R_ref without the cap)", "unit": "× BDP"})
    rx_fifo_sweep_bytes: tuple[float, ...] = field(
        default=(64 * KIB, 1024 * KIB), metadata={"label": "F_rx sweep (i, ii; beside the 256 KiB default)", "unit": "B"}
    )
    router_sweep_bytes: tuple[float, ...] = field(
        default=(32 * MIB, 128 * MIB, 512 * MIB),
        metadata={"label": "B_router sweep (ii; beside the 256 MiB default)", "unit": "B"},
    )
    sweep_rtts_s: Optional[tuple[float, ...]] = field(
        default=None, metadata={"label": "RTTs of the sweeps (— = every RTT)", "unit": "s"}
    )
    figure_rtt_s: float = field(default=0.4, metadata={"label": "F4.5 RTT", "unit": "s"})
    steady_fraction: float = field(default=0.5, metadata={"label": "steady window: last fraction of the run"})

    def sweep_rtts(self) -> tuple[float, ...]:
        return self.rtts_s if self.sweep_rtts_s is None else self.sweep_rtts_s


FULL = Params(rtts_s=(0.1, 0.4), duration_s=120.0, seeds=3)
QUICK = Params(
    rtts_s=(0.05, 0.1),
    duration_s=6.0,
    seeds=1,
    rx_fifo_sweep_bytes=(64 * KIB,),
    router_sweep_bytes=(32 * MIB,),
    sweep_rtts_s=(0.05,),
    figure_rtt_s=0.1,
)

_KEYS = (
    "peak_bps",
    "rx_fifo_drop",
    "rx_fifo_drop_sender",
    "egress_drop",
    "retransmitted",
    "timeouts",
    "fast_retransmits",
    "router_queue_max_bytes",
    "srtt_mean_s",
    "min_rtt_s",
    "send_stalls",
    "cwr_entries",
    "qdisc_max_packets",
    "pause_xoff_sent",
    "paused_s",
)


@dataclass(frozen=True)
class Run:
    """One point: configuration, RTT, F_rx and B_router."""

    config: Config
    rtt_s: float
    rx_fifo_bytes: float = DEFAULT_RX_FIFO
    router_bytes: float = ROUTER_BUFFER_BYTES

    @property
    def key(self) -> str:
        k = f"{self.config.key}-rtt{round(self.rtt_s * 1e3):03d}"
        if self.rx_fifo_bytes != DEFAULT_RX_FIFO:
            k += f"-fifo{buffer_text(self.rx_fifo_bytes)}"
        if self.router_bytes != ROUTER_BUFFER_BYTES:
            k += f"-router{buffer_text(self.router_bytes)}"
        return k


def buffer_bytes(p: Params, rtt_s: float) -> float:
    """B = k·BDP with R_ref without the cap: one B for all four configurations (CHOICE), so only
    the mitigation differs."""
    return k_bdp_bytes(p.bdp_multiple, r_ref_bps(MTU_JUMBO, 6), rtt_s)


def main_runs(p: Params) -> list[Run]:
    return [Run(c, rtt) for rtt in p.rtts_s for c in CONFIGS]


def fifo_runs(p: Params) -> list[Run]:
    return [Run(_BY_KEY[k], rtt, rx_fifo_bytes=f) for rtt in p.sweep_rtts() for f in p.rx_fifo_sweep_bytes for k in ("i", "ii")]


def router_runs(p: Params) -> list[Run]:
    return [Run(_BY_KEY["ii"], rtt, router_bytes=b) for rtt in p.sweep_rtts() for b in p.router_sweep_bytes]


def _traced(p: Params, run: Run) -> bool:
    return run.config.key in ("i", "ii") and abs(run.rtt_s - p.figure_rtt_s) < 1e-12 and run == Run(run.config, run.rtt_s)


def cases(p: Params) -> list[Case]:
    """Every point with the spec's seeds; seed 1 of the F4.5 points also keeps the traces
    (and monitors the router queue)."""
    out: list[Case] = []
    for run in main_runs(p) + fifo_runs(p) + router_runs(p):
        for label, s in seed_labels(run.key, p.seeds):
            traced = _traced(p, run) and s == 1
            scenario = t4p_scenario(
                f"04.E4.5-{label}",
                rtt_s=run.rtt_s,
                buffer_bytes=buffer_bytes(p, run.rtt_s),
                duration_s=p.duration_s,
                seed=s,
                pause=run.config.pause,
                tx_rate_cap_bps=p.cap_bps if run.config.cap else None,
                rx_fifo_bytes=run.rx_fifo_bytes if run.rx_fifo_bytes != DEFAULT_RX_FIFO else None,
                router_buffer_bytes=run.router_bytes,
                monitor_bin_s=0.1 if traced else None,
            )
            keep = keeper(p.duration_s, MTU_JUMBO, steady_fraction=p.steady_fraction, trace=traced, router_trace=traced)
            out.append(Case(label, scenario, keep))
    return out


def analyse(p: Params, kept: Mapping[str, Mapping[str, Any]]) -> Outcome:
    main = table_of(p, kept, main_runs(p))
    fifo = table_of(p, kept, [Run(c, rtt) for rtt in p.sweep_rtts() for c in CONFIGS[:2]] + fifo_runs(p))
    router = table_of(p, kept, [Run(_BY_KEY["ii"], rtt) for rtt in p.sweep_rtts()] + router_runs(p))
    allp = table_of(p, kept, main_runs(p) + fifo_runs(p) + router_runs(p))
    out = run_outcome(kept)
    out.checks += _checks(p, main, allp)
    steady = f"last {p.steady_fraction:.0%} of the run"
    out.tables += [
        Table(
            "T4.5",
            f"One row per configuration and RTT (B = {p.bdp_multiple:g}·BDP, F_rx 256 KiB, B_router 256 MiB): sustained rate "
            f"(mean app_rx_rate over the {steady}; mean and min–max over the seeds) and its share of the receiver's bus "
            "limit with ACKs, NIC RX FIFO drops at the receiver, router egress drops, retransmitted segments, RTOs, the "
            "maximum router queue toward the receiver in bytes and in ms at the sustained rate, mean srtt over the steady "
            "window minus the smallest RTT TCP measured, send stalls and CWR entries, XOFF frames and paused time.",
            main,
            digits=5,
        ),
        Table(
            "T4.5-fifo",
            "Sensitivity to the NIC RX FIFO F_rx (spec 04 §5), configurations (i) and (ii); the default 256 KiB rows repeat T4.5.",
            fifo,
            digits=5,
        ),
        Table(
            "T4.5-router",
            "Sensitivity to the router buffer B_router (spec 04 §5), configuration (ii); the default 256 MiB rows repeat T4.5.",
            router,
            digits=5,
        ),
        expectations_entry(_expectations(p, main), "Spec 04 §4 (mitigation)"),
    ]
    fig = _figure(p, kept)
    if fig is not None:
        out.figures.append(fig)
    out.notes += [
        f"B = {p.bdp_multiple:g}·BDP with BDP = R_ref·RTT/8 and R_ref without the cap ({r_ref_bps(MTU_JUMBO, 6) / GBPS:.4f} "
        "Gbit/s), one B for the four configurations (CHOICE), so only the mitigation differs. Under the cap the window "
        "(φ·B = 1.5 BDP) exceeds what the capped path carries, and the excess waits in the sender's qdisc and TX ring.",
        "The receiver's limit is its bus with its ACKs: "
        f"{receiver_bus_limit_bps(MTU_JUMBO, 6) / GBPS:.4f} Gbit/s. The sender's bus is unlimited (spec 04 §5 CHOICE, "
        "path04.SENDER_BUS), so without a cap the excess window leaves the sender at line rate and, with PAUSE, waits in "
        "R_r's egress toward the receiver; under the cap it waits in the sender's qdisc and TX ring.",
        "Queue in ms: the maximum router queue (L2 bytes) drained at the run's sustained rate counted in L2 bytes. srtt "
        "minus the smallest RTT the flow measured (`min_rtt` of the trace) stands for 'mean srtt minus base RTT'.",
        "The cap check allows one segment per end of the steady window on top of cap·MSS_eff/W (the rate is read from "
        "the cumulative bytes read at two instants).",
        *CLOSING_NOTES,
    ]
    return out


def table_of(p: Params, kept: Mapping[str, Mapping[str, Any]], runs: list[Run]) -> pd.DataFrame:
    rows = []
    lim = receiver_bus_limit_bps(MTU_JUMBO, 6)
    per_frame = l2_bytes(MTU_JUMBO) / mss_eff(MTU_JUMBO, 6)
    for run in runs:
        pr = seed_point(kept, run.key, p.seeds, _KEYS)
        sustained_bps = pr["sustained_Gbps"] * GBPS
        row: dict[str, Any] = {
            "config": str(run.config),
            "pause": run.config.pause,
            "cap_Gbps": p.cap_bps / GBPS if run.config.cap else math.nan,
            "rtt_ms": run.rtt_s * 1e3,
            "rx_fifo_KiB": run.rx_fifo_bytes / KIB,
            "router_buffer_MiB": run.router_bytes / MIB,
            "buffer_MB": buffer_bytes(p, run.rtt_s) / 1e6,
            "seeds": pr["seeds"],
            "distinct_runs": pr["distinct_runs"],
            "sustained_Gbps": pr["sustained_Gbps"],
            "sustained_Gbps_min": pr["sustained_Gbps_min"],
            "sustained_Gbps_max": pr["sustained_Gbps_max"],
            "share_of_receiver_limit": sustained_bps / lim,
            "peak_Gbps": pr["peak_bps"] / GBPS,
            "rx_fifo_drop": pr["rx_fifo_drop"],
            "rx_fifo_drop_sender": pr["rx_fifo_drop_sender"],
            "egress_drop": pr["egress_drop"],
            "retransmitted": pr["retransmitted"],
            "timeouts": pr["timeouts"],
            "router_queue_max_bytes": pr["router_queue_max_bytes"],
            "router_queue_max_ms": pr["router_queue_max_bytes"] * 8 / (sustained_bps * per_frame) * 1e3
            if sustained_bps > 0
            else math.nan,
            "srtt_minus_base_ms": (pr["srtt_mean_s"] - pr["min_rtt_s"]) * 1e3,
            "send_stalls": pr["send_stalls"],
            "cwr_entries": pr["cwr_entries"],
            "qdisc_max_packets": pr["qdisc_max_packets"],
            "pause_xoff_sent": pr["pause_xoff_sent"],
            "paused_s": pr["paused_s"],
        }
        rows.append(row)
    return pd.DataFrame(rows)


def _rows(table: pd.DataFrame, key: str) -> pd.DataFrame:
    return table[table["config"] == str(_BY_KEY[key])]


def _checks(p: Params, main: pd.DataFrame, allp: pd.DataFrame) -> list[Check]:
    checks: list[Check] = []
    paused = allp[allp["pause"]]
    checks.append(
        Check.equal(
            "PAUSE on (ii, iv, sweeps): receiver NIC RX FIFO drops, summed over the runs",
            int(round(float(paused["rx_fifo_drop"].sum()))),
            0,
            criterion=f"= 0 (PAUSE headroom covers the frames in flight; {len(paused)} points)",
        )
    )
    ii = _rows(main, "ii")
    checks.append(
        Check.within(
            "(ii) PAUSE only: smallest maximum router queue toward the receiver over the RTTs",
            float(ii["router_queue_max_bytes"].min()),
            float(DEFAULT_RX_FIFO),
            None,
            unit="B",
            criterion=f"≥ F_rx = {DEFAULT_RX_FIFO} B (the excess left the NIC for R_r's egress: the router queue grows)",
        )
    )
    i = _rows(main, "i")
    checks.append(
        Check.within(
            "(i) no PAUSE, no cap: smallest receiver NIC RX FIFO drop count over the RTTs",
            float(i["rx_fifo_drop"].min()),
            1.0,
            None,
            criterion="≥ 1 at every RTT (line-rate bursts overrun the FIFO in front of the slower bus)",
        )
    )
    capped = main[main["cap_Gbps"].notna()]
    checks.append(
        cap_check(
            "(iii, iv) cap: largest sustained rate", float(capped["sustained_Gbps_max"].max()), p.cap_bps, p.duration_s * p.steady_fraction
        )
    )
    checks.append(
        Check.equal(
            "(iii, iv) cap: NIC RX FIFO drops (receiver and sender), summed over the runs",
            int(round(float((capped["rx_fifo_drop"] + capped["rx_fifo_drop_sender"]).sum()))),
            0,
            criterion="= 0 (the capped sender never outruns the receiver's bus)",
        )
    )
    return checks


def _expectations(p: Params, main: pd.DataFrame) -> list[dict[str, str]]:
    rows = []
    cap_g = cap_goodput_bps(p.cap_bps) / GBPS
    for rtt in p.rtts_s:
        m = main[np.isclose(main["rtt_ms"], rtt * 1e3)].set_index("config")
        r = {c.key: m.loc[str(c)] for c in CONFIGS}
        tag = f"RTT {rtt * 1e3:g} ms"
        i, ii, iii = r["i"], r["ii"], r["iii"]
        rows.append(
            expectation(
                f"(i) without PAUSE or cap the receiver's FIFO overflows and the rate stays well below the receiver limit [{tag}]",
                f"{i['rx_fifo_drop']:g} RX FIFO drops, {i['retransmitted']:g} retransmitted, {i['timeouts']:g} RTOs; "
                f"{i['share_of_receiver_limit']:.3f} of the limit",
                "yes"
                if i["rx_fifo_drop"] > 0 and i["share_of_receiver_limit"] < WELL_BELOW
                else ("partly" if i["rx_fifo_drop"] > 0 else "no"),
                f"'well below' read as < {WELL_BELOW:g} of the receiver's bus limit with ACKs",
            )
        )
        rows.append(
            expectation(
                f"(ii) with PAUSE NIC drops vanish, a queue builds in the upstream router, the RTT rises a little and the "
                f"rate holds near the receiver limit [{tag}]",
                f"{ii['rx_fifo_drop']:g} RX FIFO drops; router queue max {ii['router_queue_max_bytes'] / 1e6:.2f} MB; srtt "
                f"− base {ii['srtt_minus_base_ms']:.1f} ms; {ii['share_of_receiver_limit']:.4f} of the limit",
                "yes"
                if ii["rx_fifo_drop"] == 0
                and ii["router_queue_max_bytes"] > DEFAULT_RX_FIFO
                and ii["srtt_minus_base_ms"] > 0
                and ii["share_of_receiver_limit"] >= NEAR
                else "partly",
                f"'near' read as ≥ {NEAR:g} of the limit; the RTT rise is the wait in R_r's egress",
            )
        )
        rows.append(
            expectation(
                f"(iii) with the sender cap below the receiver limit no NIC drops occur and the cap sets the rate [{tag}]",
                f"{iii['rx_fifo_drop']:g} RX FIFO drops; {iii['sustained_Gbps']:.4f} Gbit/s against cap·MSS/W {cap_g:.4f}",
                "yes" if iii["rx_fifo_drop"] == 0 and iii["sustained_Gbps"] >= NEAR * cap_g else "partly",
                f"'set by the cap' read as ≥ {NEAR:g} of cap·MSS_eff/W",
            )
        )
        order = ii["sustained_Gbps"] > iii["sustained_Gbps"] and ii["sustained_Gbps"] > i["sustained_Gbps"]
        rows.append(
            expectation(
                f"ordering: PAUSE (ii) fastest; cap (iii, iv) below it; neither (i) well below (ii) [{tag}]",
                " > ".join(
                    f"{c} {g:.3f}"
                    for c, g in sorted(((c.key, float(r[c.key]["sustained_Gbps"])) for c in CONFIGS), key=lambda x: -x[1])
                )
                + " Gbit/s",
                "yes" if order and i["share_of_receiver_limit"] < WELL_BELOW else ("partly" if order else "no"),
                "the ordering of spec 04 §4 (mitigation); whether (ii) is near the limit is its own row",
            )
        )
    return rows


def _figure(p: Params, kept: Mapping[str, Mapping[str, Any]]) -> Optional[Figure]:
    if not any(abs(r - p.figure_rtt_s) < 1e-12 for r in p.rtts_s):
        return None
    fig, axes = new_figure(3, 1, width=8.0, height=8.0, sharex=True)
    for key, color in (("i", "C3"), ("ii", "C0")):
        k = kept[seed_label(Run(_BY_KEY[key], p.figure_rtt_s).key, 1)]
        tr = k["trace"]
        axes[0].plot(tr["cwnd_t"], tr["cwnd"], color=color, label=str(_BY_KEY[key]))
        axes[1].step(tr["t_end"], tr["rate_bps"] / GBPS, where="post", color=color, label=str(_BY_KEY[key]))
        rq = k["router_trace"]
        axes[2].step(rq["t"], rq["bytes"] / 1e6, where="post", color=color, label=str(_BY_KEY[key]))
    axes[1].axhline(receiver_bus_limit_bps(MTU_JUMBO, 6) / GBPS, color="gray", ls=":", label="receiver bus limit")
    axes[0].set_ylabel("cwnd (segments)")
    axes[1].set_ylabel("app_rx_rate (Gbit/s, 100 ms)")
    axes[2].set_ylabel("router queue → H_r (MB)")
    axes[2].set_xlabel("time (s)")
    for ax in axes:
        finish_axes(ax)
    fig.suptitle(f"04.E4.5 F4.5: (i) no mitigation vs (ii) PAUSE, RTT {p.figure_rtt_s * 1e3:g} ms", fontsize="medium")
    return Figure(
        "F4.5",
        f"cwnd (trace, 100 ms samples), receiver rate (app_rx_rate in 100 ms bins) and the queue of R_r's egress toward "
        f"H_r (monitor, 100 ms) against time for (i) no PAUSE, no cap and (ii) PAUSE only, RTT {q.show_time(p.figure_rtt_s)}, "
        "seed 1.",
        fig,
    )


EXPERIMENT = Experiment(
    id="04.E4.5",
    title="receiver overload: mitigation ablation",
    summary="the T4-P stream (MTU 9198, IPv6, B = 3·BDP) with no mitigation, PAUSE only, a 6 Gbit/s sender cap only, and "
    "both: rate, NIC and router drops, retransmissions, router queue, srtt rise, send stalls; F_rx and B_router "
    "sweeps (T4.5, F4.5)",
    reference="spec 04 §3 (E4.5), §2.4–2.6, §2.13, §4 (mitigation), §5 (FIFO sizes, router buffer)",
    checks=(
        "Four configurations of the same stream. Checks (model properties that can fail): packet conservation in every "
        "run; with PAUSE on (ii, iv and the sweeps) the receiver's RX FIFO never drops; with PAUSE only (ii) the excess "
        "reaches R_r's egress (its maximum queue exceeds the 256 KiB FIFO); with neither (i) the FIFO drops at every RTT; "
        "with the 6 Gbit/s cap (iii, iv) the rate never exceeds cap·MSS_eff/W (analytic) and no NIC drops a frame. The "
        "qualitative ordering of spec 04 §4 is compared in `expectations`."
    ),
    full=FULL,
    quick=QUICK,
    cases=cases,
    analyse=analyse,
)
