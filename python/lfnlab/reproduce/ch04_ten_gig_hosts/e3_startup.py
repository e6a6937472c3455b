"""04.E4.3: startup traces at 100 ms and 400 ms RTT (spec 04 §3 E4.3).

The BIC stream over T4-P (MTU 9198, IPv6, PAUSE on, B = 3·BDP) with the CPU model of §2.7 on
both hosts, traced from the first segment: the sender's view ``app_tx_rate`` (bytes its write()
calls accepted, the trace's ``bytes_written``), the receiver's ``app_rx_rate`` (``bytes_read``),
the router counter ``snmp_octets`` on R_r's egress toward H_r (a monitor on ``rr->hr``, L2
octets with the FCS, polled per rate bin), cwnd, W_adv (the window the sender last saw), srtt,
the router queue, and CPU per core and category at both hosts.

The ramp's length has an analytic floor: slow start at most doubles cwnd per round trip, so a
window of W segments needs at least log2(W / IW) rounds from the initial window IW (RFC 3390).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np
import pandas as pd

from .. import quantities as q
from ...result import Result
from ..figures import finish_axes, new_figure
from ..measure import flow_rows
from ..outcome import Check, Figure, Outcome, Table, expectation
from ..paper import comparison
from .path04 import (
    FLOW,
    MTU_JUMBO,
    RECEIVER,
    SENDER,
    TO_RECEIVER,
    app_rx_bins,
    first_data_s,
    l2_bytes,
    mss_eff,
    r_ref_bps,
    t_up_s,
)
from ..engine import Case, Experiment
from .common04 import CLOSING_NOTES, edge_allowance, expectations_entry, GBPS, k_bdp_bytes, keeper, run_outcome, SATURATED, seed_runs, t4p_cases
from .cpu04 import CATEGORIES, core_shares

#: The application's share of a core that counts as negligible (spec 04 §4 "CPU at 400 ms"; CHOICE).
NEGLIGIBLE = 0.01
#: How far the router counter's goodput may stray from the receiver's over the steady window,
#: beyond the one-window edge allowance: the frames between the router and the reader (CHOICE).
ROUTER_SLACK = 0.005
VIEWS = ("sender", "receiver", "router")


@dataclass(frozen=True)
class Params:
    runs: tuple[tuple[float, float], ...] = field(metadata={"label": "RTT and duration (s, s)"})
    seeds: int = field(metadata={"label": "seeds per RTT"})
    rate_bin_s: float = field(metadata={"label": "rate bin (app_tx/app_rx/router counter) and CPU bin", "unit": "s"})
    monitor_bin_s: float = field(default=0.1, metadata={"label": "router monitor bin (queue series)", "unit": "s"})
    bdp_multiple: float = field(default=3.0, metadata={"label": "B = k·BDP (BDP from R_ref)", "unit": "× BDP"})
    steady_fraction: float = field(default=0.5, metadata={"label": "steady window: last fraction of the run"})


FULL = Params(runs=((0.1, 60.0), (0.4, 120.0)), seeds=3, rate_bin_s=1.0)
QUICK = Params(runs=((0.02, 3.0), (0.05, 5.0)), seeds=1, rate_bin_s=0.1)

MSS = mss_eff(MTU_JUMBO, 6)
L2 = l2_bytes(MTU_JUMBO)


#: Bins of the finer t_up reading (the tcp trace is binned at 100 ms).
FINE_BIN_S = 0.1

def buffer_bytes(p: Params, rtt_s: float) -> float:
    return k_bdp_bytes(p.bdp_multiple, r_ref_bps(MTU_JUMBO, 6), rtt_s)


def iw_segments(mss: int) -> int:
    """RFC 3390: min(4·MSS, max(2·MSS, 4380 B)) in whole segments (the linux-2.6 profile's IW)."""
    return min(4 * mss, max(2 * mss, 4380)) // mss


def min_ramp_s(rtt_s: float, rate_bps: float) -> float:
    """The slow-start floor: RTT · log2(W / IW) with W = 0.9·rate·RTT / (8·MSS_eff) segments, the
    window that carries 90 % of ``rate`` (0 if IW already does)."""
    w = 0.9 * rate_bps * rtt_s / (8.0 * MSS)
    return rtt_s * max(0.0, math.log2(w / iw_segments(MSS))) if w > 0 else 0.0


def case_key(rtt_s: float) -> str:
    return f"rtt{round(rtt_s * 1e3):03d}"


# ------------------------------------------------------------------ per run


def _rate_stats(bins: pd.DataFrame, duration_s: float, steady_fraction: float, first_s: float) -> dict[str, float]:
    steady = bins[bins["t_start"] >= duration_s * (1.0 - steady_fraction) - 1e-9]["rate_bps"]
    sustained = float(steady.mean()) if len(steady) else math.nan
    return {
        "sustained_bps": sustained,
        "std_bps": float(steady.std(ddof=0)) if len(steady) else math.nan,
        "peak_bps": float(bins["rate_bps"].max()) if len(bins) else math.nan,
        "t_up_s": t_up_s(bins, sustained, first_s),
    }


def _router_bins(r: Result, duration_s: float, bin_s: float) -> pd.DataFrame:
    """The router counter: L2 octets of the flow out of ``rr->hr`` per bin, as a rate."""
    f = r.flows[(r.flows["monitor"] == TO_RECEIVER)]
    n = int(math.floor(duration_s / bin_s + 1e-9))
    idx = np.floor(f["t"].to_numpy(dtype=float) / bin_s + 1e-9).astype(int)
    octets = np.bincount(idx[idx < n], weights=f["bytes"].to_numpy(dtype=float)[idx < n], minlength=n)
    edges = bin_s * np.arange(n + 1)
    return pd.DataFrame({"t_start": edges[:-1], "t_end": edges[1:], "rate_bps": octets * 8.0 / bin_s})


def _cpu_series(summary: Mapping[str, Any], host: str) -> dict[str, Any]:
    entry = next(h for h in summary["host_cpus"] if h["host"] == host)
    return {"bin_s": float(entry["bin_s"]), "cores": entry["cores"]}


def _keep(p: Params, rtt_s: float, duration_s: float) -> Callable[[Result], dict[str, Any]]:
    base = keeper(duration_s, MTU_JUMBO, steady_fraction=p.steady_fraction, rate_bin_s=p.rate_bin_s)

    def keep(r: Result) -> dict[str, Any]:
        out = base(r)
        rows = flow_rows(r.tcp, FLOW)
        first = first_data_s(rows)
        views = {
            "sender": app_rx_bins(rows, duration_s, p.rate_bin_s, "bytes_written"),
            "receiver": app_rx_bins(rows, duration_s, p.rate_bin_s),
            "router": _router_bins(r, duration_s, p.rate_bin_s),
        }
        out["views"] = {v: _rate_stats(b, duration_s, p.steady_fraction, first) for v, b in views.items()}
        # The receiver's t_up read at the trace's finer bins (not spec 04's 1-s definition).
        fine = app_rx_bins(rows, duration_s, FINE_BIN_S)
        out["t_up_fine_s"] = t_up_s(fine, out["views"]["receiver"]["sustained_bps"], first)
        out["bins"] = {v: b["rate_bps"].to_numpy() for v, b in views.items()}
        out["bin_end"] = views["receiver"]["t_end"].to_numpy()
        out["trace"] = {
            "t": rows["t"].to_numpy(dtype=float),
            "cwnd_bytes": rows["cwnd"].to_numpy(dtype=float) * MSS,
            "rwnd_bytes": rows["rwnd"].to_numpy(dtype=float),
            "srtt_s": rows["srtt"].to_numpy(dtype=float),
        }
        qq = r.queues[r.queues["queue"] == TO_RECEIVER]
        out["queue"] = {"t": qq["t"].to_numpy(dtype=float), "bytes": qq["bytes"].to_numpy(dtype=float)}
        out["cpu"] = {h: _cpu_series(r.summary, h) for h in (SENDER, RECEIVER)}
        start = duration_s * (1.0 - p.steady_fraction)
        out["cpu_steady"] = {
            h: [core_shares(c, out["cpu"][h]["bin_s"], start, duration_s) for c in out["cpu"][h]["cores"]]
            for h in (SENDER, RECEIVER)
        }
        return out

    return keep


def cases(p: Params) -> list[Case]:
    """Each RTT with the spec's seeds, traced from the first segment."""
    out: list[Case] = []
    for rtt, d in p.runs:
        out += t4p_cases(
            "04.E4.3",
            case_key(rtt),
            p.seeds,
            _keep(p, rtt, d),
            rtt_s=rtt,
            buffer_bytes=buffer_bytes(p, rtt),
            duration_s=d,
            monitor_bin_s=p.monitor_bin_s,
            cpu={"bin": q.time(p.rate_bin_s)},
        )
    return out


def analyse(p: Params, kept: Mapping[str, Mapping[str, Any]]) -> Outcome:
    by_rtt = {rtt: seed_runs(kept, case_key(rtt), p.seeds) for rtt, _ in p.runs}
    t43 = _t43(p, by_rtt)
    cpu = _cpu_table(p, by_rtt)
    out = run_outcome(kept)
    out.checks += _checks(p, by_rtt, t43, cpu)
    rx = {round(float(r.rtt_ms)): r for r in t43[t43["view"] == "receiver"].itertuples()}
    ours = {f"t_up-{ms}": float(rx[ms].t_up_s) for ms in (100, 400) if ms in rx}
    why = {
        f"t_up-{ms}": f"t_up counts whole 1-s bins (spec 04 T4.3); read at 100-ms bins it is {rx[ms].t_up_100ms_bins_s:.1f} s"
        + (f"; a send stall at the end of slow start (T4.3 send_stalls {rx[ms].send_stalls:g}) cuts the window below the BDP"
           if rx[ms].send_stalls > 0 else "")
        for ms in (100, 400)
        if ms in rx
    }
    out.paper = comparison("04.E4.3", ours, why)
    out.tables += [
        Table(
            "T4.3",
            f"Per RTT and view: t_up (first data segment to the end of the first {q.show_time(p.rate_bin_s)} bin at ≥ 0.9 × "
            f"the sustained rate), sustained rate (mean over the last {p.steady_fraction:.0%}), the standard deviation of the "
            "bins in that window, and the peak bin; mean and min–max over the seeds. Views: sender = app_tx_rate (write()), "
            "receiver = app_rx_rate (read()), router = snmp_octets on R_r's egress toward H_r (L2 octets, FCS included). "
            "`ramp_floor_s` is the slow-start floor RTT·log2(W/IW) for the receiver's sustained rate.",
            t43,
            digits=5,
        ),
        Table(
            "T4.3-cpu",
            "Per RTT, host and core: the share of the steady window in each category of spec 04 §2.7 rule 5 (mean over the "
            "seeds). The application and the interrupts share core 0 (the default).",
            cpu,
            digits=4,
        ),
        expectations_entry(_expectations(p, t43, cpu)),
    ]
    (short_rtt, _), (long_rtt, long_d) = p.runs[0], p.runs[-1]
    out.figures += [
        _rate_figure(p, "F4.3a", short_rtt, by_rtt[short_rtt][0]),
        _rate_figure(p, "F4.3b", long_rtt, by_rtt[long_rtt][0]),
        _cpu_figure(p, long_rtt, long_d, by_rtt[long_rtt][0]),
    ]
    out.notes += [
        "The figures show seed 1. The router counter is per rate bin, summed from a "
        f"{q.show_time(p.monitor_bin_s)} monitor on `rr->hr`; its sustained rate in T4.3 is in L2 octets, and the check "
        f"compares it with the receiver's goodput through MSS_eff/L2 = {MSS}/{L2}.",
        "W_adv is the receive window the sender last saw (trace column `rwnd`); cwnd is shown in bytes (segments × MSS_eff).",
        *CLOSING_NOTES,
    ]
    return out


# ------------------------------------------------------------------ tables


def _stat(runs: Sequence[Mapping[str, Any]], view: str, key: str) -> tuple[float, float, float]:
    a = np.asarray([r["views"][view][key] for r in runs], dtype=float)
    return float(a.mean()), float(a.min()), float(a.max())


def _t43(p: Params, by_rtt: Mapping[float, Sequence[Mapping[str, Any]]]) -> pd.DataFrame:
    rows = []
    for rtt, _ in p.runs:
        runs = by_rtt[rtt]
        rx = _stat(runs, "receiver", "sustained_bps")[0]
        for view in VIEWS:
            t_up, t_lo, t_hi = _stat(runs, view, "t_up_s")
            s, s_lo, s_hi = _stat(runs, view, "sustained_bps")
            rows.append(
                {
                    "rtt_ms": rtt * 1e3,
                    "view": view,
                    "t_up_s": t_up,
                    "t_up_s_min": t_lo,
                    "t_up_s_max": t_hi,
                    "sustained_Gbps": s / GBPS,
                    "sustained_Gbps_min": s_lo / GBPS,
                    "sustained_Gbps_max": s_hi / GBPS,
                    "std_Gbps": _stat(runs, view, "std_bps")[0] / GBPS,
                    "peak_Gbps": _stat(runs, view, "peak_bps")[0] / GBPS,
                    "t_up_100ms_bins_s": float(np.mean([r["t_up_fine_s"] for r in runs])) if view == "receiver" else math.nan,
                    "ramp_floor_s": min_ramp_s(rtt, rx),
                    "buffer_MB": buffer_bytes(p, rtt) / 1e6,
                    "send_stalls": float(np.mean([r["send_stalls"] for r in runs])),
                    "retransmitted": float(np.mean([r["retransmitted"] for r in runs])),
                    "router_queue_max_MB": float(np.mean([r["router_queue_max_bytes"] for r in runs])) / 1e6,
                    "srtt_mean_ms": float(np.mean([r["srtt_mean_s"] for r in runs])) * 1e3,
                    "seeds": len(runs),
                }
            )
    return pd.DataFrame(rows)


def _cpu_table(p: Params, by_rtt: Mapping[float, Sequence[Mapping[str, Any]]]) -> pd.DataFrame:
    rows = []
    for rtt, _ in p.runs:
        runs = by_rtt[rtt]
        for host in (SENDER, RECEIVER):
            for i in range(len(runs[0]["cpu_steady"][host])):
                row: dict[str, Any] = {"rtt_ms": rtt * 1e3, "host": host, "core": i}
                for cat in (*CATEGORIES, "busy"):
                    row[cat] = float(np.mean([r["cpu_steady"][host][i][cat] for r in runs]))
                row["idle"] = 1.0 - row["busy"]
                rows.append(row)
    return pd.DataFrame(rows)


def _view(t43: pd.DataFrame, rtt_s: float, view: str) -> pd.Series:
    return t43[np.isclose(t43["rtt_ms"], rtt_s * 1e3) & (t43["view"] == view)].iloc[0]


# ------------------------------------------------------------------ checks


def _checks(
    p: Params, by_rtt: Mapping[float, Sequence[Mapping[str, Any]]], t43: pd.DataFrame, cpu: pd.DataFrame
) -> list[Check]:
    checks: list[Check] = []
    for rtt, d in p.runs:
        rx = _view(t43, rtt, "receiver")
        floor = rx["ramp_floor_s"]
        checks.append(
            Check.within(
                f"RTT {rtt * 1e3:g} ms: t_up (receiver view), shortest seed",
                float(rx["t_up_s_min"]),
                floor,
                None,
                unit="s",
                criterion=f"≥ RTT·log2(W/IW) = {floor:.4g} s (slow start at most doubles cwnd per round)",
            )
        )
        allowance = edge_allowance(rtt, d * p.steady_fraction) + ROUTER_SLACK
        worst = max(
            abs(r["views"]["router"]["sustained_bps"] * MSS / L2 / r["views"]["receiver"]["sustained_bps"] - 1.0)
            for r in by_rtt[rtt]
        )
        checks.append(
            Check.within(
                f"RTT {rtt * 1e3:g} ms: |router counter · MSS_eff/L2 ÷ receiver goodput − 1| over the steady window, worst seed",
                worst,
                None,
                allowance,
                criterion=f"≤ RTT/T_steady + {ROUTER_SLACK} = {allowance:.4g} (the counter and the reader see the same frames)",
            )
        )
        user = cpu[np.isclose(cpu["rtt_ms"], rtt * 1e3)]["user"].max()
        checks.append(
            Check.within(
                f"RTT {rtt * 1e3:g} ms: largest application (user) share of a core",
                float(user),
                None,
                NEGLIGIBLE,
                criterion=f"≤ {NEGLIGIBLE} (spec 04 §4: the application's share is negligible)",
            )
        )
    (short, _), (long, _) = p.runs[0], p.runs[-1]
    checks.append(
        Check.within(
            f"t_up at {long * 1e3:g} ms / t_up at {short * 1e3:g} ms (receiver view, seed means)",
            float(_view(t43, long, "receiver")["t_up_s"] / _view(t43, short, "receiver")["t_up_s"]),
            1.0 + 1e-9,
            None,
            criterion="> 1 (spec 04 §4: more slow-start rounds, each one RTT long)",
        )
    )
    return checks


def _expectations(p: Params, t43: pd.DataFrame, cpu: pd.DataFrame) -> list[dict[str, str]]:
    (short, _), (long, _) = p.runs[0], p.runs[-1]
    items = []
    a, b = _view(t43, short, "receiver"), _view(t43, long, "receiver")
    items.append(
        expectation(
            "the ramp takes longer at larger RTT",
            f"t_up {a['t_up_s']:.2f} s at {short * 1e3:g} ms, {b['t_up_s']:.2f} s at {long * 1e3:g} ms",
            "yes" if b["t_up_s"] > a["t_up_s"] else "no",
            "",
        )
    )
    for rtt, _ in p.runs:
        tx, rx = _view(t43, rtt, "sender"), _view(t43, rtt, "receiver")
        items.append(
            expectation(
                f"the sender-side rate fluctuates more than the receiver-side rate, which holds steady (RTT {rtt * 1e3:g} ms)",
                f"{q.show_time(p.rate_bin_s)}-bin std {tx['std_Gbps']:.4f} (sender) vs {rx['std_Gbps']:.4f} Gbit/s (receiver); receiver std "
                f"{rx['std_Gbps'] / rx['sustained_Gbps']:.2%} of its rate",
                "yes" if tx["std_Gbps"] > rx["std_Gbps"] else "no",
                "bins of the steady window",
            )
        )
    at_long = cpu[np.isclose(cpu["rtt_ms"], long * 1e3) & (cpu["core"] == 0)].set_index("host")
    hs, hr = at_long.loc[SENDER], at_long.loc[RECEIVER]
    items.append(
        expectation(
            f"CPU at {long * 1e3:g} ms: the sender's CPU is saturated by kernel work; the application's share is negligible",
            f"sender core 0: system {hs['system']:.1%}, softirq {hs['softirq']:.1%}, user {hs['user']:.2%}, idle {hs['idle']:.1%}",
            "yes" if hs["busy"] >= SATURATED and hs["user"] <= NEGLIGIBLE else ("partly" if hs["user"] <= NEGLIGIBLE else "no"),
            f"saturated read as ≥ {SATURATED:.0%} busy; with the §2.7 default costs a jumbo-frame sender needs about 88 % "
            "of a core at the receiver's bus limit",
        )
    )
    items.append(
        expectation(
            f"CPU at {long * 1e3:g} ms: the receiver's CPU is not saturated (its limit is the I/O bus)",
            f"receiver core 0: busy {hr['busy']:.1%}; goodput {b['sustained_Gbps']:.4f} Gbit/s",
            "yes" if hr["busy"] < SATURATED else "no",
            f"saturated read as ≥ {SATURATED:.0%} busy",
        )
    )
    items.append(
        expectation(
            f"RTT alone is not the obstacle: {long * 1e3:g} ms approaches {short * 1e3:g} ms",
            f"{b['sustained_Gbps']:.3f} vs {a['sustained_Gbps']:.3f} Gbit/s",
            "yes" if b["sustained_Gbps"] >= 0.95 * a["sustained_Gbps"] else "no",
            "'approaches' read as within 5 %",
        )
    )
    return items


# ------------------------------------------------------------------ figures


def _rate_figure(p: Params, name: str, rtt_s: float, run: Mapping[str, Any]) -> Figure:
    # Both RTTs show the router counter where the run has it (issue 40: F4.3a lacked it).
    router = run["bins"].get("router") is not None
    fig, (a, b) = new_figure(2, 1, width=8.0, height=6.5, sharex=True)
    t = run["bin_end"]
    a.step(t, run["bins"]["sender"] / GBPS, where="post", color="C0", label="sender (app_tx_rate)")
    a.step(t, run["bins"]["receiver"] / GBPS, where="post", color="C1", label="receiver (app_rx_rate)")
    if router:
        a.step(t, run["bins"]["router"] / GBPS, where="post", color="C2", ls="--", label="router counter rr→hr (L2)")
    a.set_ylabel(f"rate per {q.show_time(p.rate_bin_s)} bin (Gbit/s)")
    a.set_ylim(bottom=0)
    tr = run["trace"]
    b.plot(tr["t"], tr["cwnd_bytes"] / 1e6, color="C0", label="cwnd")
    b.plot(tr["t"], tr["rwnd_bytes"] / 1e6, color="C3", ls=":", label="W_adv")
    b.plot(run["queue"]["t"], run["queue"]["bytes"] / 1e6, color="C2", label="router queue rr→hr")
    b.set_ylabel("MB")
    b.set_xlabel("time (s)")
    b.set_ylim(bottom=0)
    for ax in (a, b):
        finish_axes(ax)
    fig.suptitle(f"04.E4.3 {name}: startup at RTT {rtt_s * 1e3:g} ms (MTU 9198, B = {p.bdp_multiple:g}·BDP, seed 1)", fontsize="medium")
    return Figure(
        name,
        f"Sender and receiver rate per {q.show_time(p.rate_bin_s)} bin"
        + (" with the router counter on R_r's egress toward H_r" if router else "")
        + f" (top); cwnd, the advertised window and the router queue (bottom); RTT {rtt_s * 1e3:g} ms.",
        fig,
    )


def _cpu_figure(p: Params, rtt_s: float, duration_s: float, run: Mapping[str, Any]) -> Figure:
    fig, axes = new_figure(2, 1, width=8.0, height=6.0, sharex=True)
    colors = {"user": "C2", "system": "C0", "softirq": "C3", "idle": "0.85"}
    for ax, host, who in zip(axes, (SENDER, RECEIVER), ("sender", "receiver")):
        series = run["cpu"][host]
        core = series["cores"][0]
        bin_s = series["bin_s"]
        n = int(math.floor(duration_s / bin_s + 1e-9))
        t = bin_s * np.arange(n) + bin_s / 2
        parts = {c: np.zeros(n) for c in CATEGORIES}
        for c in CATEGORIES:
            v = np.asarray(core.get(f"bins_{c}_s", []), dtype=float)[:n] / bin_s
            parts[c][: len(v)] = v
        idle = np.clip(1.0 - sum(parts.values()), 0.0, 1.0)
        ax.stackplot(
            t,
            *(100 * parts[c] for c in CATEGORIES),
            100 * idle,
            labels=[*CATEGORIES, "idle"],
            colors=[colors[c] for c in (*CATEGORIES, "idle")],
            step="mid",
        )
        ax.set_ylabel(f"{who} core 0 (%)")
        ax.set_ylim(0, 100)
        finish_axes(ax)
    axes[-1].set_xlabel("time (s)")
    fig.suptitle(f"04.E4.3 F4.3c: CPU breakdown at RTT {rtt_s * 1e3:g} ms (seed 1)", fontsize="medium")
    return Figure(
        "F4.3c",
        f"Core 0 of the sender (top) and the receiver (bottom) per {q.show_time(p.rate_bin_s)} bin: user (application), "
        "system (system calls, copies, process-context TCP), softirq (interrupts, RX, TX completions, ACK work) and idle. "
        "Core 1 runs nothing in this configuration (T4.3-cpu).",
        fig,
    )


EXPERIMENT = Experiment(
    id="04.E4.3",
    title="startup traces at 100 ms and 400 ms RTT",
    summary="the T4-P stream (MTU 9198, PAUSE on, B = 3·BDP) traced from its first segment at 100 ms (60 s) and 400 ms "
    "(120 s): sender, receiver and router-counter rates, cwnd, W_adv, router queue and CPU breakdown (T4.3, F4.3a–c)",
    reference="spec 04 §3 (E4.3), §2.13, §4 (startup, CPU at 400 ms)",
    checks=(
        "Checks (model properties): t_up is at least the slow-start floor RTT·log2(W/IW) for the sustained window; it is "
        "longer at the longer RTT; the router counter and the receiving application see the same traffic over the steady "
        "window (through MSS_eff/L2, within one window per edge and 0.5 %); the application's (user) share of every core "
        f"stays ≤ {NEGLIGIBLE:.0%}. Packet conservation in every run. The other §4 sentences are in `expectations`."
    ),
    full=FULL,
    quick=QUICK,
    cases=cases,
    analyse=analyse,
)
