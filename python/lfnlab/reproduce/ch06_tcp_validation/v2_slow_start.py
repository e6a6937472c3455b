"""06.V2: slow-start growth per RTT under four ACK policies (spec 06 §7 V2, §2.4, §3)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Callable, Optional

import pandas as pd

from ...result import Result
from ...scenario import Scenario
from .. import quantities as q
from ..figures import finish_axes, new_figure
from ..measure import first_index, flow_rows
from ..outcome import Check, Figure, Outcome, Table
from .path06 import FLOW, MSS_BYTES, bdp_segments, path_scenario
from ..engine import Case, Experiment

#: Quick-ACK budget cap of `linux_quickack` (spec 06 §3: q = min(16, n)).
QUICKACK_MAX = 16
#: Line styles of the cases: (a) and (c) grow alike and would hide each other.
LINESTYLES = ("-", "--", ":", "-.", (0, (1, 1, 5, 1)))
#: Most points per line in the figure.
FIGURE_POINTS = 4000


@dataclass(frozen=True)
class AckCase:
    """One of the cases (a)–(d) of spec 06 §7 V2: an ACK policy and the ABC limit L; (e)
    is (d) with the profile's `quickack_on_window_growth` (issue 39 item 7)."""

    label: str
    ack_policy: str
    abc_l: int  # 0 = ∞
    quickack_on_window_growth: Optional[bool] = None

    @property
    def l_text(self) -> str:
        return "∞" if self.abc_l == 0 else str(self.abc_l)


ACK_CASES = (
    AckCase("a-per_segment", "per_segment", 1),
    AckCase("b-delayed-L1", "delayed", 1),
    AckCase("c-delayed-Linf", "delayed", 0),
    # (d) is spec 06 §3's rule as written; (e) adds Linux tcp_grow_window's `quick |= 1`.
    AckCase("d-linux_quickack-L1", "linux_quickack", 1, False),
    AckCase("e-linux_quickack-grow-L1", "linux_quickack", 1, True),
)
#: The first receive window of a 2.x receiver, segments: tcp_select_initial_window's
#: init_cwnd for an MSS ≤ 1460 B (Linux 2.6.20 net/ipv4/tcp_output.c).
INITIAL_RWND_SEGMENTS = 4
#: How case (e) is named in checks and the figure.
GROW = " + window-growth re-arm"


@dataclass(frozen=True)
class Params:
    rate_bps: float = field(metadata={"label": "bottleneck rate C", "unit": "bps"})
    rtt_s: float = field(metadata={"label": "RTT", "unit": "s"})
    iw: int = field(metadata={"label": "initial window IW", "unit": "segments"})
    socket_bytes: float = field(metadata={"label": "socket buffers = bottleneck buffer (lossless)", "unit": "B"})
    margin_rounds: int = field(metadata={"label": "run length beyond the expected rounds", "unit": "RTTs"})
    adv_win_scale: int = field(default=1, metadata={"label": "adv_win_scale (φ = ½)"})
    profile: str = field(default="linux-2.6", metadata={"label": "profile"})


FULL = Params(rate_bps=1e9, rtt_s=0.1, iw=10, socket_bytes=128 * 2**20, margin_rounds=4)
QUICK = Params(rate_bps=1e8, rtt_s=0.1, iw=10, socket_bytes=16 * 2**20, margin_rounds=4)


def rounds_for_growth(bdp: float, iw: float, growth: float) -> int:
    """⌈log_growth(BDP/IW)⌉: RTTs to grow from IW to the BDP at a fixed factor per RTT."""
    return math.ceil(math.log(bdp / iw) / math.log(growth))


def rounds_quickack(bdp: float, iw: int, quickack_budget: int) -> int:
    """Iterate w += credit per ACK (credit 1, L = 1): one ACK per segment while the
    quick-ACK budget q lasts, then one per two segments (spec 06 §7 V2 (d))."""
    w, q, rounds = float(iw), quickack_budget, 0
    while w < bdp:
        segs = math.floor(w)
        quick = min(q, segs)
        q -= quick
        w += quick + (segs - quick) // 2
        rounds += 1
    return rounds


def rounds_growth_quickack(bdp: float, iw: int) -> int:
    """Every segment ACKed at once while rcv_ssthresh grows (here: beyond the BDP), the
    window opening from INITIAL_RWND_SEGMENTS by 2 per segment received: iterate
    segs = min(⌊w⌋, rwnd), w += segs, rwnd += 2·segs."""
    w, rwnd, rounds = float(iw), INITIAL_RWND_SEGMENTS, 0
    while w < bdp:
        segs = min(math.floor(w), rwnd)
        w += segs
        rwnd += 2 * segs
        rounds += 1
    return rounds


def expected_rounds(case: AckCase, p: Params) -> tuple[int, str]:
    """The expected rounds to reach the BDP and the formula that gives them."""
    bdp = bdp_segments(p.rate_bps, p.rtt_s)
    if case.ack_policy == "per_segment" or (case.ack_policy == "delayed" and case.abc_l != 1):
        return rounds_for_growth(bdp, p.iw, 2.0), "⌈log2(BDP/IW)⌉"
    if case.ack_policy == "delayed":
        return rounds_for_growth(bdp, p.iw, 1.5), "⌈log1.5(BDP/IW)⌉"
    if case.quickack_on_window_growth:
        return rounds_growth_quickack(bdp, p.iw), "iterated, every segment ACKed while the window opens from 4"
    # n = ⌊W_adv/(2·MSS)⌋ at the first segment, W_adv = φ·B_rcv (spec 06 §2.3, §3).
    phi = 1 - 2.0**-p.adv_win_scale if p.adv_win_scale >= 1 else 2.0**p.adv_win_scale
    n = math.floor(phi * p.socket_bytes / (2 * MSS_BYTES)) or 2
    budget = min(QUICKACK_MAX, n)
    return rounds_quickack(bdp, p.iw, budget), f"iterated, q = min(16, n) = {budget}"


def _scenario(p: Params, case: AckCase, duration_s: float) -> Scenario:
    return path_scenario(
        f"06.V2-{case.label}",
        rate_bps=p.rate_bps,
        rtt_s=p.rtt_s,
        duration_s=duration_s,
        # Lossless by construction: the window (φ·B_rcv) fits in the bottleneck queue.
        queue={"kind": "droptail", "limit": f"{round(p.socket_bytes)}B"},
        sndbuf_bytes=p.socket_bytes,
        rcvbuf_bytes=p.socket_bytes,
        tcp={
            "iw": str(p.iw),
            "ack_policy": case.ack_policy,
            "abc_l": case.abc_l,
            "adv_win_scale": p.adv_win_scale,
            **({} if case.quickack_on_window_growth is None else {"quickack_on_window_growth": case.quickack_on_window_growth}),
        },
        profile=p.profile,
        trace={"mode": "event"},
    )


def _measure(bdp: float) -> Callable[[Result], dict[str, Any]]:
    def keep(r: Result) -> dict[str, Any]:
        rows = flow_rows(r.tcp, FLOW)
        cwnd = rows["cwnd"].to_numpy(dtype=float)
        i = first_index(cwnd >= bdp)
        step = max(1, len(rows) // FIGURE_POINTS)
        return {
            "summary": r.summary,
            "index": i,
            "rounds": int(rows["rounds"].iloc[i]) if i >= 0 else -1,
            "t": float(rows["t"].iloc[i]) if i >= 0 else math.nan,
            "cwnd": float(cwnd[i]) if i >= 0 else math.nan,
            "series": (rows["t"].to_numpy(dtype=float)[::step], cwnd[::step]),
        }

    return keep


def cases(p: Params) -> list[Case]:
    """One lossless slow start per ACK case, each long enough for its expected growth plus
    a margin, and the handshake."""
    keep = _measure(bdp_segments(p.rate_bps, p.rtt_s))
    return [
        Case(c.label, _scenario(p, c, p.rtt_s * (expected_rounds(c, p)[0] + p.margin_rounds + 1)), keep)
        for c in ACK_CASES
    ]


def analyse(p: Params, results: Mapping[str, Any]) -> Outcome:
    bdp = bdp_segments(p.rate_bps, p.rtt_s)
    expected = {c.label: expected_rounds(c, p) for c in ACK_CASES}
    out = Outcome()
    rows = []
    fig, (ax,) = new_figure(1, 1, height=5.0)
    for c, style in zip(ACK_CASES, LINESTYLES):
        m = results[c.label]
        want, how = expected[c.label]
        retrans = m["summary"]["flows"][0]["retransmitted_segments"]
        rows.append(
            {
                "case": c.label,
                "ack_policy": c.ack_policy,
                "abc_l": c.l_text,
                "expected_rounds": want,
                "formula": how,
                "measured_rounds": m["rounds"],
                "t_reached_s": m["t"],
                "cwnd_at_crossing": m["cwnd"],
                "retransmitted_segments": retrans,
            }
        )
        out.checks.append(
            Check.within(
                f"({c.label[0]}) {c.ack_policy}{GROW if c.quickack_on_window_growth else ''}, L = {c.l_text}: "
                "rounds until cwnd ≥ BDP",
                m["rounds"],
                want - 1,
                want + 1,
                unit="rounds",
                criterion=f"{want} ± 1 ({how})",
            )
        )
        out.checks.append(Check.equal(f"({c.label[0]}) lossless", retrans, 0, criterion="0 retransmitted segments"))
        t, w = m["series"]
        ax.plot(
            t,
            w,
            label=f"({c.label[0]}) {c.ack_policy}{GROW if c.quickack_on_window_growth else ''}, L = {c.l_text}",
            linewidth=1.2,
            linestyle=style,
            drawstyle="steps-post",
        )
    ax.axhline(bdp, color="gray", linestyle="--", linewidth=0.8, label=f"BDP = {bdp:.0f} segments")
    ax.set_yscale("log")
    ax.set_xlabel("time (s)")
    ax.set_ylabel("cwnd (segments, log scale)")
    finish_axes(ax)
    fig.suptitle(f"06.V2: slow start, {q.show_rate(p.rate_bps)}, RTT {q.show_time(p.rtt_s)}, IW {p.iw}")
    out.tables.append(
        Table(
            "slow_start_rounds",
            f"Rounds (the trace's `rounds` column) at the first event where cwnd ≥ BDP = "
            f"C·RTT/(8·1538 B) = {bdp:.1f} segments.",
            pd.DataFrame(rows),
        )
    )
    out.figures.append(Figure("cwnd_slow_start", "cwnd over time in each case (event trace, log scale).", fig))
    out.notes.append(
        "(e) is not in spec 06 §7: it is (d) with the profile's `quickack_on_window_growth` (Linux "
        "`tcp_grow_window` sets `quick |= 1` whenever it raises rcv_ssthresh, 2.6.20 net/ipv4/tcp_input.c:270), "
        "which the linux-2.6 profile has since issue 39; (d) turns it off to test spec 06 §3's rule as written."
    )
    out.notes.append(
        "A round ends at the first ACK at or above the snd_max recorded when it began (docs/choices.md); "
        "the count is read from the event-mode trace at the first row with cwnd ≥ BDP."
    )
    out.notes.append(
        "Each run lasts (expected rounds + margin + 1)·RTT; the bottleneck queue is as large as the socket "
        "buffers, so the window φ·B_rcv always fits and the runs are lossless."
    )
    return out


EXPERIMENT = Experiment(
    id="06.V2",
    title="slow-start rounds",
    summary="RTTs for cwnd to grow from IW 10 to the BDP with per-segment, delayed (L = 1, ∞) and quick ACKs",
    reference="spec 06 §7 (V2), §2.4, §3",
    checks=(
        "On a lossless path (1 Gbit/s, 100 ms, BDP ≈ 8127 segments of 1538 B on the wire) a flow starts with IW 10 "
        "and slow-starts until cwnd reaches the BDP. Per-segment ACKs, or delayed ACKs with ABC limit L = ∞, double "
        "cwnd per RTT: ⌈log2(BDP/IW)⌉ rounds. Delayed ACKs with L = 1 give ×1.5 per RTT: ⌈log1.5(BDP/IW)⌉. "
        "`linux_quickack` with L = 1 ACKs every segment while its quick-ACK budget lasts and every second one after; "
        "its expectation comes from iterating w += 1 per ACK. Each measured count must be within ±1 of its expectation, "
        "and every run must be lossless."
    ),
    full=FULL,
    quick=QUICK,
    cases=cases,
    analyse=analyse,
)
