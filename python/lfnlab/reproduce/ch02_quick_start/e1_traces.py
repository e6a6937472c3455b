"""02.E1: data-rate traces after connection setup (spec 02 §4.2).

Testbed T0 (spec 02 §4.1, ``path02``) at RTT 100 and 200 ms; one request_response connection
whose server always has data; CC ∈ {Reno, Cubic} × {slow start, Quick-Start with
``ssthresh_policy = none``, Quick-Start with ``qs_window``}, plus (option of §4.2) Quick-Start
with ``qs_window`` and rate code 6 (2.56 Mbit/s) for both CCs: eight curves per RTT.
40 s simulated, 0–20 s plotted.

Measurement (spec 02 §4.2): rate_k = 8·Σ(IP total length of the S → C data packets arriving
at C in [k·τ, (k+1)·τ))/τ, t = 0 at the client's SYN (the flow starts at 0). The monitor
``S->C`` at C's ingress counts L2 bytes (IP + 18 per frame) per bin; the frames without
payload (the SYN-ACK and the server's ACK of the request) are taken out with a capture of
the first frames. cwnd and ssthresh per bin are the sender's trace values at the bin end.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np
import pandas as pd

from ...result import Result
from ..engine import Case, Experiment
from ..figures import finish_axes, new_figure
from ..outcome import Check, Figure, Outcome, Table
from .path02 import CCS, DATA_LINK, FLOW, IW_SEGMENTS, QS_CHUNK_MIN, QS_HZ, RATE_BPS, WIRE_BYTES, bdp_segments, ip_link_rate_bps, qs_rate_bps, t0_scenario
from .common02 import (
    MBPS,
    arrival_clusters,
    clusters_text,
    control_frames,
    expectation,
    expectations_table,
    first_bin_above,
    flow_entry,
    pacing_plan,
    plan_text,
    qs_bin_rate_bounds_bps,
    qs_entry,
    qs_window_segments,
    rate_bins,
    run_checks,
    shown,
    ss_clean_rounds,
    ss_exit,
    trace_at_bin_ends,
)

#: Fraction of the IP-level link rate that counts as "at the link rate" (spec 02 §4.2).
FILL_FRACTION = 0.95
#: Cubic's initial ssthresh of the linux-2.6.20 profile (spec 02 §2.6.1).
CUBIC_SSTHRESH = 100
#: "A few further RTTs" in expectation 1, and "many RTTs" of slow start (readings of §5).
FEW_RTTS = 3
MANY_RTTS = 5


@dataclass(frozen=True)
class Curve:
    """One sender variant: congestion control, mode, ssthresh policy, rate code."""

    cc: str
    mode: str  # "ss" or "qs"
    policy: str = "none"
    rate_code: int = 7

    @property
    def key(self) -> str:
        if self.mode == "ss":
            return f"{self.cc}-ss"
        return f"{self.cc}-qs-{'qsw' if self.policy == 'qs_window' else 'none'}-n{self.rate_code}"

    @property
    def mode_label(self) -> str:
        """``SS``, ``QS+none``, ``QS+qs_window`` (the CSV's ``mode``)."""
        return "SS" if self.mode == "ss" else f"QS+{self.policy}"

    @property
    def caption(self) -> str:
        cc = {"reno": "Reno", "cubic": "Cubic"}[self.cc]
        if self.mode == "ss":
            return f"{cc} SS"
        rate = f", {qs_rate_bps(self.rate_code) / 1e6:g} Mbit/s" if self.rate_code != 7 else ""
        return f"{cc} {self.mode_label}{rate}"


def curves(rate6: bool) -> list[Curve]:
    """The six curves of spec 02 §4.2, then the optional rate-6 ``qs_window`` curves."""
    out = []
    for cc in CCS:
        out += [Curve(cc, "ss"), Curve(cc, "qs", "none"), Curve(cc, "qs", "qs_window")]
    if rate6:
        out += [Curve(cc, "qs", "qs_window", 6) for cc in CCS]
    return out


@dataclass(frozen=True)
class Params:
    rtts_s: tuple[float, ...] = field(metadata={"label": "RTTs τ", "unit": "s"})
    duration_s: float = field(metadata={"label": "simulated time per run", "unit": "s"})
    plot_s: float = field(metadata={"label": "plotted time", "unit": "s"})
    rate6: bool = field(default=True, metadata={"label": "optional curves: QS + qs_window, rate code 6 (both CCs)"})
    trace_bin_s: float = field(default=0.01, metadata={"label": "tcp trace bin", "unit": "s"})
    capture_frames: int = field(default=600, metadata={"label": "frames captured at C (control frames, QS round)"})
    seed: int = field(default=1, metadata={"label": "seed"})


FULL = Params(rtts_s=(0.100, 0.200), duration_s=40.0, plot_s=20.0)
QUICK = Params(rtts_s=(0.100,), duration_s=10.0, plot_s=10.0)


def label(rtt_s: float, c: Curve) -> str:
    return f"rtt{round(rtt_s * 1e3):03d}-{c.key}"


def scenario(rtt_s: float, c: Curve, p: Params) -> Any:
    kw: dict[str, Any] = {} if c.mode == "ss" else {"ssthresh_policy": c.policy, "rate_code": c.rate_code}
    return t0_scenario(
        f"02.E1-{label(rtt_s, c)}",
        rtt_s=rtt_s,
        cc=c.cc,
        mode=c.mode,
        duration_s=p.duration_s,
        seed=p.seed,
        monitor_bin_s=rtt_s,
        capture_packets=p.capture_frames,
        trace_bin_s=p.trace_bin_s,
        **kw,
    )


def keeper(p: Params, rtt: float) -> Callable[[Result], dict[str, Any]]:
    """Reduce a run at RTT ``rtt`` to its per-RTT bins, the captured data arrivals, the
    slow-start exit and the summary."""

    def keep(r: Result) -> dict[str, Any]:
        n_bins = int(round(p.duration_s / rtt))
        # The capture holds the first frames at C: the SYN-ACK and the server's ACK of the
        # request (the only S → C frames without payload of an unlimited response) and the
        # first data RTTs.
        pk = r.packets[r.packets["monitor"] == DATA_LINK]
        bins = rate_bins(r.flows, bin_s=rtt, n_bins=n_bins, control=control_frames(pk), monitor=DATA_LINK)
        tcp = r.tcp[r.tcp["flow"] == FLOW]
        bins = pd.concat([bins, trace_at_bin_ends(tcp, bin_s=rtt, n_bins=n_bins)], axis=1)
        data = pk[pk["payload"] > 0]
        return {
            "summary": r.summary,
            "bins": bins,
            "data_t": data["t"].to_numpy(dtype=float),
            "ss_exit": ss_exit(tcp),
            "send_stalls": int(tcp["send_stalls"].iloc[-1]) if len(tcp) else 0,
        }

    return keep


def cases(p: Params) -> list[Case]:
    """One run per RTT and curve."""
    return [Case(label(rtt, c), scenario(rtt, c, p), keeper(p, rtt)) for rtt in p.rtts_s for c in curves(p.rate6)]


# --- per-run values ------------------------------------------------------------------------


def first_data_bin(bins: pd.DataFrame) -> int:
    """Index of the first bin with a data packet (2: the data leaves S 1.5τ after the SYN)."""
    hits = np.flatnonzero(bins["data_packets"].to_numpy() > 0)
    return int(hits[0]) if len(hits) else -1


def fill_time_s(bins: pd.DataFrame) -> float:
    """Start of the first bin whose IP rate exceeds 95 % of the IP-level link rate."""
    return first_bin_above(bins["bin_start_s"], bins["rate_mbps"], FILL_FRACTION * ip_link_rate_bps() / MBPS)


def qs_round_clusters(k: Mapping[str, Any], rtt_s: float) -> list[int]:
    """Clusters of the data packets arriving in the first data bin (gap > 1.5 wire times)."""
    b = first_data_bin(k["bins"])
    t = k["data_t"]
    sel = t[(t >= b * rtt_s - 1e-9) & (t < (b + 1) * rtt_s - 1e-9)]
    return arrival_clusters(sel, 1.5 * 8.0 * WIRE_BYTES / RATE_BPS)


def summary_row(rtt_s: float, c: Curve, k: Mapping[str, Any], p: Params) -> dict[str, Any]:
    bins = k["bins"]
    b = first_data_bin(bins)
    t95 = fill_time_s(bins)
    qs = qs_entry(k["summary"])
    f = flow_entry(k["summary"])
    ex_t, ex_cwnd, ex_ssth = k["ss_exit"]
    plot = bins[bins["bin_start_s"] < p.plot_s - 1e-9]
    return {
        "rtt_ms": round(rtt_s * 1e3),
        "cc": c.cc,
        "mode": c.mode_label,
        "rate_code": c.rate_code if c.mode == "qs" else pd.NA,
        "first_data_bin_s": b * rtt_s,
        "first_bin_data_packets": int(bins["data_packets"].iloc[b]) if b >= 0 else 0,
        "first_bin_rate_mbps": float(bins["rate_mbps"].iloc[b]) if b >= 0 else math.nan,
        "t95_s": t95,
        "t95_rtts_after_first_data": (t95 - b * rtt_s) / rtt_s if b >= 0 else math.nan,
        "mean_rate_plot_mbps": float(plot["rate_mbps"].mean()),
        "mean_rate_all_mbps": float(bins["rate_mbps"].mean()),
        "w_qs": qs.get("w_qs", pd.NA) if c.mode == "qs" else pd.NA,
        "w_qs_formula": qs_window_segments(c.rate_code, rtt_s) if c.mode == "qs" else pd.NA,
        "qs_pkts_sent": qs.get("qs_pkts_sent", pd.NA) if c.mode == "qs" else pd.NA,
        "qs_outcome": qs.get("outcome") if c.mode == "qs" else "",
        "ss_exit_s": ex_t,
        "ss_exit_cwnd": ex_cwnd,
        "ss_exit_ssthresh": ex_ssth,
        "bdp_segments": bdp_segments(rtt_s),
        "retransmitted_segments": int(f["retransmitted_segments"]),
        "send_stalls": k["send_stalls"],
    }


def trace_table(rtt_s: float, cs: Sequence[Curve], kept: Mapping[str, Mapping[str, Any]]) -> pd.DataFrame:
    """``E1_rtt<ms>.csv``: one row per curve and bin (spec 02 §4.2 columns, then the bin's
    data packets, cwnd and ssthresh at the bin end)."""
    parts = []
    for c in cs:
        b = kept[label(rtt_s, c)]["bins"]
        parts.append(
            pd.DataFrame(
                {
                    "rtt_ms": round(rtt_s * 1e3),
                    "cc": c.cc,
                    "mode": c.mode_label,
                    "rate_code": pd.array([c.rate_code if c.mode == "qs" else pd.NA] * len(b), dtype="Int64"),
                    "bin_start_s": b["bin_start_s"].round(9),
                    "rate_mbps": b["rate_mbps"],
                    "data_packets": b["data_packets"],
                    "cwnd": b["cwnd"],
                    "ssthresh": b["ssthresh"],
                }
            )
        )
    return pd.concat(parts, ignore_index=True)


# --- checks --------------------------------------------------------------------------------


def qs_checks(rtt_s: float, c: Curve, k: Mapping[str, Any]) -> list[Check]:
    """Spec 02 §2.3.6–2.3.7 on the first data bin of a Quick-Start run."""
    ms = round(rtt_s * 1e3)
    w_formula = qs_window_segments(c.rate_code, rtt_s)
    qs = qs_entry(k["summary"])
    out = [
        Check.equal(
            f"E1 {ms} ms {c.caption}: W_qs (summary)",
            int(qs.get("w_qs") or 0),
            w_formula,
            criterion=f"= ⌊(Rate({c.rate_code})/8)·τ/1500⌋ = {w_formula} segments (spec 02 §2.3.6, τ̂ ≈ τ)",
        )
    ]
    # Timer ticks per RTT: the handshake sample exceeds τ by ~0.16 ms only.
    plan = pacing_plan(w_formula, int(round(rtt_s * QS_HZ)), QS_CHUNK_MIN)
    measured = qs_round_clusters(k, rtt_s)
    out.append(
        Check.equal(
            f"E1 {ms} ms {c.caption}: data packets in the first data RTT, by pacing chunk",
            clusters_text(measured),
            plan_text(plan),
            criterion=f"= {plan_text(plan)} (W_qs paced by the §2.3.7 plan; chunks = arrivals at C more than "
            "1.5 wire times apart)",
        )
    )
    lo, hi = qs_bin_rate_bounds_bps(c.rate_code, rtt_s)
    b = first_data_bin(k["bins"])
    rate = float(k["bins"]["rate_mbps"].iloc[b]) if b >= 0 else math.nan
    out.append(
        Check.within(
            f"E1 {ms} ms {c.caption}: IP rate of the first data RTT",
            rate,
            lo / MBPS,
            hi / MBPS,
            unit="Mbit/s",
            criterion=f"in ({lo / MBPS:.4g}, {hi / MBPS:.4g}] Mbit/s: q − 8·1500/τ < 8·1500·W_qs/τ ≤ q·(τ + 1 ms)/τ, "
            f"q = {qs_rate_bps(c.rate_code) / MBPS:g} Mbit/s (common02.qs_bin_rate_bounds_bps)",
        )
    )
    return out


def ss_check(rtt_s: float, c: Curve, k: Mapping[str, Any]) -> Check:
    """Slow start from IW 3 doubles per RTT while the rounds fit in one bin."""
    rounds = ss_clean_rounds(rtt_s, IW_SEGMENTS)
    b = first_data_bin(k["bins"])
    got = [int(x) for x in k["bins"]["data_packets"].iloc[b : b + len(rounds)]] if b >= 0 else []
    text = ", ".join(map(str, rounds))
    return Check.equal(
        f"E1 {round(rtt_s * 1e3)} ms {c.caption}: data packets per RTT bin from the first data bin",
        ", ".join(map(str, got)),
        text,
        criterion=f"= {text} (IW 3 doubling with an ACK per segment, rounds that fit one bin: (n_j + j)·δ ≤ 0.9·τ)",
    )


def cubic_checks(rtt_s: float, c: Curve, k: Mapping[str, Any]) -> list[Check]:
    """Cubic's initial ssthresh 100 ends slow start at cwnd 101 (cwnd ≤ ssthresh rule)."""
    ms = round(rtt_s * 1e3)
    _, cwnd, ssth = k["ss_exit"]
    out = [
        Check.within(
            f"E1 {ms} ms {c.caption}: cwnd when slow start ends (first 10 ms trace sample with cwnd > ssthresh)",
            cwnd,
            CUBIC_SSTHRESH,
            CUBIC_SSTHRESH + 2,
            unit="segments",
            criterion=f"in [{CUBIC_SSTHRESH}, {CUBIC_SSTHRESH + 2}] (initial ssthresh {CUBIC_SSTHRESH}; ssthresh there: "
            f"{ssth:g})",
        )
    ]
    bdp = bdp_segments(rtt_s)
    if bdp > CUBIC_SSTHRESH + 2:
        out.append(
            Check.within(
                f"E1 {ms} ms {c.caption}: slow start ends below the BDP C·τ/(8·1538)",
                cwnd,
                None,
                bdp,
                unit="segments",
                criterion=f"< BDP = {bdp:.1f} segments",
            )
        )
    return out


# --- expectations --------------------------------------------------------------------------


def _col(rows: pd.DataFrame, column: str, rtt_ms: int, cc: str, mode: str, code: Any = 7) -> float:
    """``column`` of the summary row of one curve; NaN if the form has no such curve."""
    r = rows[(rows["rtt_ms"] == rtt_ms) & (rows["cc"] == cc) & (rows["mode"] == mode)]
    if mode != "SS":
        r = r[r["rate_code"] == code]
    return float(r[column].iloc[0]) if len(r) else math.nan


def _t(rows: pd.DataFrame, rtt_ms: int, cc: str, mode: str, code: Any = 7) -> float:
    """The time to 95 % of one curve (:func:`_col` of ``t95_s``)."""
    return _col(rows, "t95_s", rtt_ms, cc, mode, code)


def _s(x: float) -> str:
    return "never" if math.isnan(x) else f"{x:.1f} s"


def _fill_times(curves: pd.DataFrame) -> str:
    """Each curve's time to 95 %, in seconds and in RTTs after its first data RTT."""
    return "; ".join(
        f"{r.cc} {r.rtt_ms} ms: 95 % at {_s(r.t95_s)} = {r.t95_rtts_after_first_data:.0f} RTTs after the first data RTT"
        for r in curves.itertuples()
    )


def expectations(rows: pd.DataFrame, p: Params) -> pd.DataFrame:
    """Spec 02 §5 points 1–3 against the summary rows (not checks)."""
    out = []
    rtts = sorted(int(r) for r in rows["rtt_ms"].unique())
    codes = sorted(int(x) for x in rows["rate_code"].dropna().unique())
    ss = rows[rows["mode"] == "SS"]
    many = bool((ss["t95_rtts_after_first_data"] >= MANY_RTTS).all())
    out.append(
        expectation(
            "§5.1 with slow start the rate climbs over many RTTs before it reaches the link rate (Reno and Cubic)",
            _fill_times(ss),
            shown(many),
            f"shown if every SS curve needs ≥ {MANY_RTTS} RTTs from its first data RTT to a bin above 95 % of the IP "
            "link rate",
        )
    )
    qs7 = rows[(rows["mode"] != "SS") & (rows["rate_code"] == 7)]
    at_rate = []
    for r in qs7.itertuples():
        q = qs_rate_bps(7) / MBPS
        at_rate.append(r.first_bin_rate_mbps >= 0.9 * q)
    out.append(
        expectation(
            "§5.1 with Quick-Start the sender is at the requested rate in the first RTT after the handshake",
            "; ".join(
                f"{r.cc} {r.mode} {r.rtt_ms} ms: {r.first_bin_rate_mbps:.2f} Mbit/s ({r.first_bin_data_packets} "
                f"packets; W_qs {r.w_qs}, sent in QS {r.qs_pkts_sent})"
                for r in qs7.itertuples()
            ),
            shown(bool(at_rate) and all(at_rate)),
            "shown if the IP rate of the first data RTT is ≥ 90 % of the requested 5.12 Mbit/s in every rate-7 QS run",
        )
    )
    qn = rows[rows["mode"] == "QS+none"]
    few = (qn["t95_rtts_after_first_data"] <= FEW_RTTS).to_numpy()
    out.append(
        expectation(
            "§5.1 with Quick-Start (policy none) the link fills within a few further RTTs",
            _fill_times(qn),
            shown(bool(len(few)) and bool(few.all())),
            f"shown if every QS+none curve reaches a bin above 95 % ≤ {FEW_RTTS} RTTs after its first data RTT",
        )
    )
    hurts, obs = [], []
    for rtt in rtts:
        for cc in CCS:
            tw, tss, tn = _t(rows, rtt, cc, "QS+qs_window"), _t(rows, rtt, cc, "SS"), _t(rows, rtt, cc, "QS+none")
            hurts.append(tw > tss and tw > tn)
            obs.append(f"{cc} {rtt} ms: qs_window {_s(tw)}, SS {_s(tss)}, none {_s(tn)}")
    out.append(
        expectation(
            "§5.2 ssthresh ← W_qs hurts when the approved rate is below capacity: many seconds to the link rate",
            "95 % reached at: " + "; ".join(obs),
            shown(all(hurts)),
            "shown if QS+qs_window (rate 7) reaches 95 % later than both SS and QS+none for every CC and RTT",
        )
    )
    if 6 in codes:
        worse, obs = [], []
        for rtt in rtts:
            for cc in CCS:
                t7, t6 = _t(rows, rtt, cc, "QS+qs_window", 7), _t(rows, rtt, cc, "QS+qs_window", 6)
                worse.append((math.isnan(t6) and not math.isnan(t7)) or t6 > t7)
                obs.append(f"{cc} {rtt} ms: rate 6 {_s(t6)} vs rate 7 {_s(t7)}")
        out.append(
            expectation(
                "§5.2 a smaller request makes it worse",
                "qs_window, 95 % reached at: " + "; ".join(obs),
                shown(all(worse)),
                "shown if rate code 6 reaches 95 % later than rate code 7 for every CC and RTT",
            )
        )
    faster, obs = [], []
    for rtt in rtts:
        for code in codes:
            mr, mc = _col(rows, "mean_rate_plot_mbps", rtt, "reno", "QS+qs_window", code), _col(
                rows, "mean_rate_plot_mbps", rtt, "cubic", "QS+qs_window", code
            )
            tr, tc = _t(rows, rtt, "reno", "QS+qs_window", code), _t(rows, rtt, "cubic", "QS+qs_window", code)
            faster.append(mc > mr)
            obs.append(f"{rtt} ms rate {code}: Cubic {mc:.2f} vs Reno {mr:.2f} Mbit/s mean (95 % at {_s(tc)} vs {_s(tr)})")
    out.append(
        expectation(
            "§5.2 in that phase (congestion avoidance after qs_window) Cubic grows faster than Reno",
            "; ".join(obs),
            shown(bool(faster) and all(faster)),
            f"shown if Cubic's mean IP rate over 0–{p.plot_s:g} s exceeds Reno's for every RTT and rate code with qs_window",
        )
    )
    long_rtts = [r for r in rtts if bdp_segments(r / 1e3) > CUBIC_SSTHRESH + 2]
    if long_rtts:
        ok, obs = [], []
        for rtt in long_rtts:
            tc, tr = _t(rows, rtt, "cubic", "SS"), _t(rows, rtt, "reno", "SS")
            ex = _col(rows, "ss_exit_cwnd", rtt, "cubic", "SS")
            ok.append(tc > tr and ex < bdp_segments(rtt / 1e3))
            obs.append(
                f"{rtt} ms: Cubic SS leaves slow start at cwnd {ex:g} (BDP {bdp_segments(rtt / 1e3):.1f}), 95 % at "
                f"{_s(tc)}; Reno SS at {_s(tr)}"
            )
        out.append(
            expectation(
                "§5.3 at the longer RTT Cubic's initial ssthresh lies below the BDP: it leaves slow start below the link "
                "rate and fills the link later than Reno",
                "; ".join(obs),
                shown(all(ok)),
                "shown if, at every RTT whose BDP exceeds 102 segments, Cubic SS ends slow start below the BDP and reaches "
                "95 % later than Reno SS",
            )
        )
        ok, obs = [], []
        for rtt in long_rtts:
            tw, tss = _t(rows, rtt, "reno", "QS+qs_window"), _t(rows, rtt, "reno", "SS")
            ok.append((math.isnan(tw) and not math.isnan(tss)) or tw > tss)
            obs.append(f"{rtt} ms: Reno QS+qs_window 95 % at {_s(tw)}, Reno SS at {_s(tss)}")
        out.append(
            expectation(
                "§5.3 with the ssthresh reduction Reno is so slow that plain slow start wins",
                "; ".join(obs),
                shown(all(ok)),
                "shown if Reno QS+qs_window (rate 7) reaches 95 % later than Reno SS at every RTT whose BDP exceeds 102",
            )
        )
    else:
        out.append(
            expectation(
                "§5.3 (Cubic below the BDP at the longer RTT; Reno with qs_window slower than slow start)",
                "not evaluated: no RTT of this form has a BDP above Cubic's initial ssthresh",
                shown(False),
                "the full form runs 200 ms (BDP 162.5 segments)",
            )
        )
    return expectations_table(out)


# --- figure --------------------------------------------------------------------------------

_COLOURS = {("SS", 7): "C0", ("QS+none", 7): "C1", ("QS+qs_window", 7): "C2", ("QS+qs_window", 6): "C3"}
_STYLES = {"reno": "-", "cubic": "-."}


def trace_figure(rtt_s: float, cs: Sequence[Curve], kept: Mapping[str, Mapping[str, Any]], p: Params) -> Any:
    fig, (ax,) = new_figure(1, 1, width=10.0, height=5.0)
    n = int(round(p.plot_s / rtt_s))
    for c in cs:
        b = kept[label(rtt_s, c)]["bins"].iloc[:n]
        edges = np.append(b["bin_start_s"].to_numpy(), n * rtt_s)
        ax.stairs(
            b["rate_mbps"].to_numpy(),
            edges,
            baseline=None,
            color=_COLOURS[(c.mode_label, c.rate_code if c.mode == "qs" else 7)],
            linestyle=_STYLES[c.cc],
            linewidth=1.3,
            label=c.caption,
        )
    link = ip_link_rate_bps() / MBPS
    ax.axhline(link, color="k", linestyle="--", linewidth=1.0, label=f"IP-level link rate {link:.3f} Mbit/s")
    ax.set_xlim(0, p.plot_s)
    ax.set_ylim(0, link * 1.08)
    ax.set_xlabel("time since the client's SYN (s)")
    ax.set_ylabel("data rate at C, IP bytes (Mbit/s)")
    ax.set_title(f"02.E1: data rate per RTT bin, RTT {rtt_s * 1e3:g} ms (T0, C = {RATE_BPS / 1e6:g} Mbit/s)")
    finish_axes(ax)
    return fig


# --- analysis ------------------------------------------------------------------------------


def analyse(p: Params, kept: Mapping[str, Any]) -> Outcome:
    cs = curves(p.rate6)
    out = Outcome()
    out.checks += run_checks({k: v["summary"] for k, v in kept.items()}, {k: p.duration_s for k in kept})
    captured_ok = sum(1 for v in kept.values() if len(v["data_t"]) > 0)
    out.checks.append(
        Check.equal(
            "runs whose capture reaches the data (so it holds the handshake's frames without payload)",
            captured_ok,
            len(kept),
            criterion=f"= {len(kept)} (data frames among the first {p.capture_frames} frames at C)",
        )
    )
    qs_labels = [label(rtt, c) for rtt in p.rtts_s for c in cs if c.mode == "qs"]
    used = sum(1 for lab in qs_labels if qs_entry(kept[lab]["summary"]).get("outcome") == "used")
    out.checks.append(
        Check.equal("QS runs whose Quick-Start outcome is `used`", used, len(qs_labels), criterion=f"= {len(qs_labels)} (summary)")
    )
    rows = []
    for rtt in p.rtts_s:
        for c in cs:
            k = kept[label(rtt, c)]
            rows.append(summary_row(rtt, c, k, p))
            if c.mode == "qs":
                out.checks += qs_checks(rtt, c, k)
            else:
                out.checks.append(ss_check(rtt, c, k))
                if c.cc == "cubic":
                    out.checks += cubic_checks(rtt, c, k)
    summary = pd.DataFrame(rows)
    summary["rate_code"] = summary["rate_code"].astype("Int64")
    for col in ("w_qs", "w_qs_formula", "qs_pkts_sent"):
        summary[col] = summary[col].astype("Int64")

    out.tables.append(
        Table(
            "E1_summary",
            "Per RTT and curve: the first data RTT (bin start, data packets, IP rate), the time the rate first exceeds "
            f"{FILL_FRACTION:.0%} of the IP-level link rate ({ip_link_rate_bps() / MBPS:.4f} Mbit/s; start of that bin, "
            "also in RTTs after the first data RTT), the mean IP rate over the plotted window and over the run, "
            "Quick-Start (W_qs from the summary and from §2.3.6, segments sent in QS mode, outcome), the end of slow start "
            "(first 10 ms trace sample with cwnd > ssthresh), the BDP in 1538-byte frames, retransmissions and send "
            "stalls (interface-queue overflows, spec 06 CWR).",
            summary,
            digits=5,
        )
    )
    out.tables.append(Table("expectations", "Spec 02 §5 points 1–3: qualitative, not checks; `notes` says how `agrees` is read.", expectations(summary, p)))
    for rtt in p.rtts_s:
        ms = round(rtt * 1e3)
        out.tables.append(
            Table(
                f"E1_rtt{ms}",
                f"RTT {ms} ms, every curve and RTT bin of the {p.duration_s:g} s run: IP rate of the data packets arriving "
                "at C (Mbit/s), their number, and the sender's cwnd and ssthresh (segments) at the bin end.",
                trace_table(rtt, cs, kept),
                digits=5,
            )
        )
        out.figures.append(
            Figure(
                f"E1_rtt{ms}",
                f"Data rate per {ms} ms bin (IP bytes of S → C data packets arriving at C) over 0–{p.plot_s:g} s; solid "
                "Reno, dash-dot Cubic; dashed: the IP-level link rate 10 Mbit/s × 1500/1538.",
                trace_figure(rtt, cs, kept, p),
            )
        )
    out.notes += notes(summary)
    out.notes += cubic_reno_notes(p, cs, kept)
    return out


def divergence_s(a: pd.DataFrame, b: pd.DataFrame, tol: float = 0.5) -> float:
    """Start of the first bin where the two runs' cwnd at the bin end differ by more than
    ``tol`` segments; NaN if they never do."""
    d = (a["cwnd"] - b["cwnd"]).abs().to_numpy()
    hits = np.flatnonzero(d > tol)
    return float(a["bin_start_s"].iloc[hits[0]]) if len(hits) else math.nan


def cubic_reno_notes(p: Params, cs: Sequence[Curve], kept: Mapping[str, Mapping[str, Any]]) -> list[str]:
    """When Cubic's and Reno's qs_window traces part (they are equal before)."""
    parts = []
    for rtt in p.rtts_s:
        for code in sorted({c.rate_code for c in cs if c.policy == "qs_window"}):
            r = kept[label(rtt, Curve("reno", "qs", "qs_window", code))]["bins"]
            c = kept[label(rtt, Curve("cubic", "qs", "qs_window", code))]["bins"]
            parts.append(f"{round(rtt * 1e3)} ms rate {code}: {_s(divergence_s(r, c))}")
    return [
        "Cubic after `qs_window` has seen no loss, so W_max = 0: its Reno-friendly estimate grows by one segment per "
        "RTT (spec 06 §4.4: α = 3(1 − β)/(1 + β) only while W_est < W_max) and the cubic curve, which starts at the "
        "current window (K = 0), overtakes it only after a few seconds. Until then Cubic's cwnd equals Reno's; the "
        "first bin where they differ by more than half a segment: " + "; ".join(parts) + " (`never`: equal "
        "throughout). Where the link fills before that, Cubic and Reno coincide."
    ]


def notes(summary: pd.DataFrame) -> list[str]:
    n = [
        "Bins: monitor `S->C` at C's ingress with bins of one RTT from t = 0 (the client's SYN); IP bytes = L2 bytes − "
        "18 per frame. The SYN-ACK (68 IP bytes, bin 1) and the server's pure ACK of the request (52 IP bytes, first "
        "data bin) are identified in a capture of the first frames and taken out, so `rate_mbps` and `data_packets` "
        "count data packets only.",
        "The time to 95 % is the start of the first bin above the threshold (a bin of τ must hold ≥ 95 % of "
        "τ·C/(8·1538) full packets: 78 of 81.3 at 100 ms, 155 of 162.5 at 200 ms).",
        "The Quick-Start bin bound: the first data bin [2τ, 3τ) holds exactly the W_qs paced packets (1500 IP bytes "
        "each, the first carrying the 8-byte Report and 8 bytes less payload), because the first ACK of QS data "
        "reaches S only ≈ 2.5τ after the SYN and its new packets arrive after 3τ; W_qs = ⌊q·τ̂/(8·1500)⌋ with the "
        "handshake sample τ̂ ≈ τ + 0.16 ms.",
    ]
    short = summary[(summary["mode"] != "SS") & (summary["qs_pkts_sent"] < summary["w_qs"])]
    if len(short):
        cases = "; ".join(
            f"{r.cc} {r.mode} rate {r.rate_code}, {r.rtt_ms} ms: {r.qs_pkts_sent} of W_qs {r.w_qs}" for r in short.itertuples()
        )
        n.append(
            "Finding (core): Quick-Start runs that sent fewer than W_qs segments in QS mode — "
            + cases
            + ". The server's send window stays at the unscaled 65 535 bytes of the client's SYN until the first ACK "
            "of data arrives (⌊65535/1448⌋ = 45 segments): the handshake ACK and the request, which carry the client's "
            "scaled 8 MiB window, are not processed as window updates because the server has sent no data yet "
            "(`Socket::on_packet`, `snd_max > 0` guard before `Sender::on_ack`). Linux sets snd_wnd from the "
            "handshake ACK (tcp_rcv_state_process, SYN_RECV), and spec 02 §2.4 rule 4 requires that flow control not "
            "hide the approval. The checks on the first data RTT fail for these runs; the results are reported as "
            "measured."
        )
    return n


EXPERIMENT = Experiment(
    id="02.E1",
    title="Quick-Start: data-rate traces after connection setup",
    summary="IP data rate per RTT bin at the client over 40 s for Reno and Cubic with slow start, Quick-Start "
    "(ssthresh policy none / qs_window, rate codes 7 and 6), RTT 100 and 200 ms on testbed T0",
    reference="spec 02 §4.2, §4.1, §2.3.6–2.3.9, §2.6",
    checks=(
        "Analytic properties of the model, not the paper's claims. Every run covers its duration with packet "
        "conservation, and every Quick-Start run reports outcome `used`. For each Quick-Start run: the summary's "
        "W_qs equals ⌊(Rate(N)/8)·τ/1500⌋ (spec 02 §2.3.6); the data packets of the first data RTT arrive in the "
        "chunks of the §2.3.7 pacing plan (n timers of c or c + 1 segments, W_qs in total); and the IP rate of that "
        "bin lies within the approved rate's bin bound (q − 8·1500/τ, q·(τ + 1 ms)/τ]. For each slow-start run the "
        "data packets per RTT bin follow IW 3 doubling (3, 6, 12, …) for every round that fits one bin. For Cubic "
        "slow start, cwnd leaves slow start at 100–102 segments (initial ssthresh 100), below the BDP where the "
        "BDP exceeds it (200 ms). Spec 02 §5 points 1–3 are compared in the `expectations` table."
    ),
    full=FULL,
    quick=QUICK,
    cases=cases,
    analyse=analyse,
)
