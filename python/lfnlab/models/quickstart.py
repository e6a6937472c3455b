"""The reference analytical response-time / speedup model of Quick-Start (spec 02 §2.8).

The model gives the response time T of the client/server test (spec 02 §3.1) — client's
SYN to the arrival of the last response byte — for plain slow start (T_SS) and for a
Quick-Start approval in the SYN/ACK (T_QS), and their ratio η = T_SS / T_QS, which E2
(spec 02 §4.3) draws as model curves next to the simulation.

Assumptions (spec 02 §2.8): one bottleneck at the server's egress of rate C, no losses,
receive window not limiting, zero server think time, control packets of negligible size,
a request that fits in one segment.

Notation used in the comments: S response bytes, M MSS payload, H header bytes of a data
packet, O layer-2 overhead per frame, C bottleneck rate, τ base RTT, δ = 8(M+H+O)/C the
wire time of a full packet, N = ⌈S/M⌉, w_j / n_j / a_j the window / segments sent / ACKs
of round j, β_j = n_j·δ the bottleneck occupancy of round j, W_th the initial ssthresh.

Choices where §2.8 leaves room (each documented where it is made):

* A fractional congestion-avoidance window sends ⌊w_j⌋ segments; the fraction is kept in
  w_j (real-valued) and so carried to the next round (:func:`rounds`).
* The first Quick-Start round is paced (β_1 = n_1·max(δ, 8(M+H)/q)) only when it holds more
  than IW segments: the initial window may leave at t0 at line rate whatever the pacing
  timers say (spec 02 §2.3.7: cwnd ← max(cwnd, A_i)). This keeps the normative property
  N ≤ IW ⇒ η = 1 true when q is below the bottleneck rate (:func:`response_time_qs`).
* An approval with W_qs ≤ IW is not used (spec 02 §2.3.4, ``qs_not_useful``): T_QS = T_SS
  and the ssthresh policy is not applied.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, NamedTuple

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "AckModel",
    "PathModel",
    "Round",
    "SSTHRESH_SEGMENTS",
    "SSTHRESH_POLICIES",
    "E2_RTTS_S",
    "E2_SIZES_BYTES",
    "segments_for",
    "rounds",
    "round_sizes",
    "data_phase_s",
    "response_time_ss",
    "response_time_qs",
    "qs_round_sizes",
    "qs_window_segments",
    "speedup",
    "max_window_valid",
    "speedup_table",
]

#: Initial ssthresh per congestion control of the "linux-2.6.20" profile (spec 02 §2.6.1):
#: Reno effectively infinite, Cubic 100 segments (spec 02 §6 point 25).
SSTHRESH_SEGMENTS: dict[str, float] = {"reno": math.inf, "cubic": 100.0}

#: ssthresh policies after Quick-Start (spec 02 §2.3.9).
SSTHRESH_POLICIES: tuple[str, ...] = ("none", "qs_window")

#: The E2 grids (spec 02 §4.3): RTTs and response sizes (kB = 1000 bytes).
E2_RTTS_S: tuple[float, ...] = (0.020, 0.050, 0.100, 0.200, 0.400)
E2_SIZES_BYTES: tuple[int, ...] = (
    1_000, 2_000, 5_000, 10_000, 20_000, 50_000, 100_000, 200_000, 500_000,
    1_000_000, 2_000_000, 5_000_000, 10_000_000,
)  # fmt: skip

#: Guard (in segments) when flooring a window computed in binary floating point, so that
#: a decimal input such as τ̂ = 0.1 s that lands a hair below a whole number still counts it.
_FLOOR_GUARD = 1e-9


# ---------------------------------------------------------------------------- validation


def _positive(name: str, value: float, *, allow_inf: bool = False) -> float:
    """``value`` as a float, or a ValueError naming ``name`` unless it is > 0 (and finite
    unless ``allow_inf``)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError(f"{name} must be a number, got {value!r}")
    v = float(value)
    if math.isnan(v) or v <= 0 or (math.isinf(v) and not allow_inf):
        bound = "positive" if allow_inf else "positive and finite"
        raise ValueError(f"{name} must be {bound}, got {value!r}")
    return v


def _int_at_least(name: str, value: int, low: int) -> int:
    """``value`` unless it is not an int ≥ ``low`` (ValueError naming ``name``)."""
    if isinstance(value, bool) or not isinstance(value, int) or value < low:
        raise ValueError(f"{name} must be an integer >= {low}, got {value!r}")
    return value


def _floor(x: float) -> int:
    """⌊x⌋ with :data:`_FLOOR_GUARD` against binary rounding (x ≥ 0, finite)."""
    return math.floor(x + _FLOOR_GUARD)


# ---------------------------------------------------------------------------- models


@dataclass(frozen=True)
class AckModel:
    """The receiver's ACK behaviour in the round recursion (spec 02 §2.8).

    The first ``q_budget`` segments of the transfer are ACKed one by one; after that one ACK
    covers ``b`` segments, so round j yields a_j = u_j + ⌈(n_j − u_j)/b⌉ ACKs with
    u_j = max(0, min(n_j, Q − Σ_{i<j} n_i)).

    Attributes:
        q_budget: Q, segments ACKed individually from the start of the transfer (a whole
            number ≥ 0, or ``math.inf`` for per-segment ACKs throughout).
        b: segments per ACK once the budget is spent (≥ 1).
    """

    q_budget: float
    b: int

    def __post_init__(self) -> None:
        q = self.q_budget
        whole = isinstance(q, (int, float)) and not isinstance(q, bool) and (math.isinf(q) or float(q).is_integer())
        if not whole or q < 0:
            raise ValueError(f"q_budget must be a whole number >= 0 or math.inf, got {q!r}")
        _int_at_least("b", self.b, 1)

    @classmethod
    def per_segment(cls) -> AckModel:
        """"γ≈2": every segment ACKed (Q = ∞); matches ``linux_like`` in the growth phase."""
        return cls(q_budget=math.inf, b=1)

    @classmethod
    def delayed(cls) -> AckModel:
        """"γ≈1.5": plain delayed ACKs, one per two segments (Q = 0, b = 2); the delayed-ACK
        timer latency is ignored (spec 02 §2.8)."""
        return cls(q_budget=0.0, b=2)

    @property
    def label(self) -> str:
        """``"per_segment"`` (γ≈2), ``"delayed"`` (γ≈1.5), else ``"Q=<Q>,b=<b>"``."""
        if math.isinf(self.q_budget) or self.b == 1:
            return "per_segment"
        if self.q_budget == 0 and self.b == 2:
            return "delayed"
        return f"Q={self.q_budget:g},b={self.b}"

    def acks(self, sent_segments: int, sent_before_segments: int) -> int:
        """a_j for a round of ``sent_segments`` after ``sent_before_segments`` (spec 02 §2.8)."""
        # u_j: segments of this round still inside the per-segment-ACK budget.
        u = max(0, min(sent_segments, self.q_budget - sent_before_segments))
        u_int = int(u)  # whole: n_j, Σn_i and Q are whole (Q = ∞ gives u = n_j)
        return u_int + -(-(sent_segments - u_int) // self.b)


@dataclass(frozen=True)
class PathModel:
    """The path and sender of the model (spec 02 §2.8 inputs; defaults: testbed T0, §4.1).

    Attributes:
        rate_bps: C, bottleneck rate at the server's egress (bit/s, layer 2 included).
        rtt_s: τ, base round-trip time (s).
        mss_bytes: M, payload of a full segment (bytes).
        header_bytes: H, IP + TCP header of a data packet incl. options (bytes).
        overhead_bytes: O, layer-2 overhead per frame in the wire time (bytes; 38 Ethernet).
        iw_segments: IW, initial window (segments).
        ssthresh_segments: W_th, initial ssthresh (segments; ∞ Reno, 100 Cubic).
        ack: the receiver's ACK model.
    """

    rate_bps: float
    rtt_s: float
    mss_bytes: int = 1448
    header_bytes: int = 52
    overhead_bytes: int = 38
    iw_segments: int = 3
    ssthresh_segments: float = math.inf
    ack: AckModel = AckModel.per_segment()

    def __post_init__(self) -> None:
        _positive("rate_bps", self.rate_bps)
        _positive("rtt_s", self.rtt_s)
        _int_at_least("mss_bytes", self.mss_bytes, 1)
        _int_at_least("header_bytes", self.header_bytes, 0)
        _int_at_least("overhead_bytes", self.overhead_bytes, 0)
        _int_at_least("iw_segments", self.iw_segments, 1)
        _positive("ssthresh_segments", self.ssthresh_segments, allow_inf=True)
        if not isinstance(self.ack, AckModel):
            raise ValueError(f"ack must be an AckModel, got {self.ack!r}")

    @property
    def packet_time_s(self) -> float:
        """δ = 8(M + H + O)/C, the wire time of a full packet (spec 02 §2.8)."""
        return 8.0 * (self.mss_bytes + self.header_bytes + self.overhead_bytes) / self.rate_bps


class Round(NamedTuple):
    """One round j of the recursion (spec 02 §2.8)."""

    #: w_j, the window at the start of the round (segments; fractional in congestion avoidance).
    window_segments: float
    #: n_j, segments sent in the round.
    sent_segments: int
    #: a_j, ACKs the round generates.
    acks: int


# ---------------------------------------------------------------------------- recursion


def segments_for(size_bytes: float, mss_bytes: int) -> int:
    """N = ⌈S/M⌉ (spec 02 §2.8); S must be at least 1 byte."""
    if isinstance(size_bytes, bool) or not isinstance(size_bytes, (int, float)):
        raise ValueError(f"size_bytes must be a number, got {size_bytes!r}")
    if not (math.isfinite(size_bytes) and size_bytes >= 1):
        raise ValueError(f"size_bytes must be finite and >= 1, got {size_bytes!r}")
    _int_at_least("mss_bytes", mss_bytes, 1)
    if float(size_bytes).is_integer():
        return -(-int(size_bytes) // mss_bytes)  # exact for any whole size
    return math.ceil(size_bytes / mss_bytes)


def rounds(
    n_segments: int, path: PathModel, w1: float | None = None, w_th: float | None = None
) -> list[Round]:
    """The round recursion of spec 02 §2.8 for a transfer of ``n_segments``.

    Starting from w_1 (default IW), round j sends n_j = min(⌊w_j⌋, N − Σ_{i<j} n_i) and
    yields a_j ACKs (:meth:`AckModel.acks`); then
    slow start (w_j ≤ W_th): w_{j+1} = min(w_j + a_j, W_th + 1),
    congestion avoidance (w_j > W_th): w_{j+1} = w_j + a_j/w_j.

    Fractional windows: w_j is kept as a real number, so the fraction gained in congestion
    avoidance is carried from round to round, and a round sends the whole segments of its
    window, ⌊w_j⌋ (never less than one, as w_j ≥ w_1 ≥ 1). The transfer ends in the round
    K where Σ n_j reaches N; K ≤ N.

    Args:
        n_segments: N ≥ 1.
        path: the path; its ACK model, IW and W_th are used unless overridden.
        w1: first window (segments, ≥ 1); default ``path.iw_segments``.
        w_th: ssthresh W_th (segments, > 0, ∞ allowed); default ``path.ssthresh_segments``.
    """
    _int_at_least("n_segments", n_segments, 1)
    w = float(path.iw_segments) if w1 is None else _positive("w1", w1)
    if w < 1:
        raise ValueError(f"w1 must be >= 1 segment, got {w1!r}")
    threshold = path.ssthresh_segments if w_th is None else _positive("w_th", w_th, allow_inf=True)

    out: list[Round] = []
    sent = 0
    while sent < n_segments:
        n = min(_floor(w), n_segments - sent)
        a = path.ack.acks(n, sent)
        out.append(Round(window_segments=w, sent_segments=n, acks=a))
        sent += n
        if w <= threshold:
            w = min(w + a, threshold + 1.0)  # spec 02 §2.8 slow start, capped at W_th + 1
        else:
            w = w + a / w  # spec 02 §2.8 congestion avoidance (Reno-style, also for Cubic)
    return out


def round_sizes(
    n_segments: int, path: PathModel, w1: int | None = None, w_th: float | None = None
) -> list[int]:
    """n_j per round (spec 02 §2.8); see :func:`rounds`."""
    return [r.sent_segments for r in rounds(n_segments, path, w1=w1, w_th=w_th)]


def data_phase_s(sizes: Sequence[int], path: PathModel, first_round_s: float | None = None) -> float:
    """D = Σ_{j≤K} β_j + Σ_{j<K} max(0, τ + δ − β_j) (spec 02 §2.8), in seconds.

    β_j = n_j·δ, except β_1 = ``first_round_s`` when given (the paced Quick-Start round).
    Round j + 1 can start τ + δ after round j (first packet's wire time plus one RTT for
    its ACK); the bottleneck idles for whatever of that interval round j leaves unused.
    """
    if not sizes:
        raise ValueError("sizes must hold at least one round")
    delta_s = path.packet_time_s
    betas_s = [n * delta_s for n in sizes]
    if first_round_s is not None:
        betas_s[0] = first_round_s
    gaps_s = [max(0.0, path.rtt_s + delta_s - beta_s) for beta_s in betas_s[:-1]]
    return math.fsum(betas_s) + math.fsum(gaps_s)


def response_time_ss(size_bytes: float, path: PathModel) -> float:
    """T_SS = 2τ + D with w_1 = IW (spec 02 §2.8), in seconds.

    2τ: 1.5τ from the client's SYN until the first data segment leaves the server (SYN,
    SYN/ACK, request), plus τ/2 for the last byte to reach the client.
    """
    n = segments_for(size_bytes, path.mss_bytes)
    return 2.0 * path.rtt_s + data_phase_s(round_sizes(n, path), path)


# ---------------------------------------------------------------------------- Quick-Start


def qs_window_segments(
    qs_rate_bps: float, rtt_est_s: float, mss_bytes: int, header_est_bytes: int
) -> int:
    """W_qs = ⌊(q/8)·τ̂/(M + H_est)⌋ segments (spec 02 §2.3.6 and §2.8).

    The approved rate q is a gross rate (headers included), hence the division by M + H_est.
    """
    q = _positive("qs_rate_bps", qs_rate_bps)
    tau_hat = _positive("rtt_est_s", rtt_est_s)
    _int_at_least("mss_bytes", mss_bytes, 1)
    _int_at_least("header_est_bytes", header_est_bytes, 0)
    return _floor((q / 8.0) * tau_hat / (mss_bytes + header_est_bytes))


@dataclass(frozen=True)
class _QsStart:
    """How a Quick-Start transfer starts: first window, ssthresh, and whether QS is used."""

    used: bool
    w1_segments: int
    w_th_segments: float


def _qs_start(
    path: PathModel,
    qs_rate_bps: float,
    rtt_est_s: float | None,
    header_est_bytes: int,
    ssthresh_policy: str,
) -> _QsStart:
    """w_1 and W_th of the QS case (spec 02 §2.8), or ``used=False`` if QS changes nothing."""
    if ssthresh_policy not in SSTHRESH_POLICIES:
        raise ValueError(
            f"ssthresh_policy must be one of {', '.join(SSTHRESH_POLICIES)}, got {ssthresh_policy!r}"
        )
    tau_hat_s = path.rtt_s if rtt_est_s is None else rtt_est_s
    w_qs = qs_window_segments(qs_rate_bps, tau_hat_s, path.mss_bytes, header_est_bytes)
    if w_qs <= path.iw_segments:
        # spec 02 §2.3.4: a valid approval with W_qs ≤ cwnd is not used (qs_not_useful);
        # the ssthresh policy is applied only when QS mode is entered.
        return _QsStart(used=False, w1_segments=path.iw_segments, w_th_segments=path.ssthresh_segments)
    # spec 02 §2.8: w_1 = max(IW, W_qs); `qs_window` sets W_th = W_qs (§2.3.9 with factor 1:
    # max(2, W_qs) = W_qs here, as W_qs > IW ≥ 1).
    w_th = float(w_qs) if ssthresh_policy == "qs_window" else path.ssthresh_segments
    return _QsStart(used=True, w1_segments=w_qs, w_th_segments=w_th)


def qs_round_sizes(
    size_bytes: float,
    path: PathModel,
    qs_rate_bps: float,
    rtt_est_s: float | None = None,
    header_est_bytes: int = 52,
    ssthresh_policy: str = "none",
) -> list[int]:
    """n_j per round of the Quick-Start transfer (spec 02 §2.8); arguments as in
    :func:`response_time_qs`."""
    n = segments_for(size_bytes, path.mss_bytes)
    start = _qs_start(path, qs_rate_bps, rtt_est_s, header_est_bytes, ssthresh_policy)
    return round_sizes(n, path, w1=start.w1_segments, w_th=start.w_th_segments)


def response_time_qs(
    size_bytes: float,
    path: PathModel,
    qs_rate_bps: float,
    rtt_est_s: float | None = None,
    header_est_bytes: int = 52,
    ssthresh_policy: str = "none",
) -> float:
    """T_QS = 2τ + D for a Quick-Start approval of rate q in the SYN/ACK (spec 02 §2.8), in s.

    The response on the handshake ACK does not delay the data, which starts 1.5τ after the
    SYN as in slow start. w_1 = max(IW, W_qs) and the first round is paced at q:
    β_1 = n_1·max(δ, 8(M + H)/q); later rounds follow the ordinary recursion.

    Choices beyond the text of §2.8 (both leave η = 1 where QS cannot help):

    * W_qs ≤ IW: the approval is not used (spec 02 §2.3.4 ``qs_not_useful``), T_QS = T_SS.
    * n_1 ≤ IW: the whole first round fits the initial window, which leaves at t0 at line
      rate whatever the pacing timers allow (spec 02 §2.3.7: cwnd ← max(cwnd, A_i)), so
      β_1 = n_1·δ. Without this, q < C would make T_QS > T_SS for N ≤ IW, against the
      property N ≤ IW ⇒ η = 1 that §2.8 requires.

    Args:
        size_bytes: S, response bytes (≥ 1).
        path: the path (C, τ, M, H, O, IW, W_th, ACK model).
        qs_rate_bps: q, the approved rate (bit/s, gross, > 0); need not be an encodable rate.
        rtt_est_s: τ̂, the sender's RTT estimate used for W_qs; default τ.
        header_est_bytes: H_est in W_qs (``qs.send.header_bytes``, spec 02 §2.3.1).
        ssthresh_policy: ``"none"`` keeps W_th; ``"qs_window"`` sets W_th = W_qs, so the
            sender is in congestion avoidance from round 2 (spec 02 §2.3.9).
    """
    n = segments_for(size_bytes, path.mss_bytes)
    start = _qs_start(path, qs_rate_bps, rtt_est_s, header_est_bytes, ssthresh_policy)
    if not start.used:
        return response_time_ss(size_bytes, path)
    sizes = round_sizes(n, path, w1=start.w1_segments, w_th=start.w_th_segments)
    first_round_s: float | None = None
    if sizes[0] > path.iw_segments:
        pace_s = 8.0 * (path.mss_bytes + path.header_bytes) / qs_rate_bps  # gross rate q
        first_round_s = sizes[0] * max(path.packet_time_s, pace_s)  # spec 02 §2.8 β_1
    return 2.0 * path.rtt_s + data_phase_s(sizes, path, first_round_s=first_round_s)


def speedup(size_bytes: float, path: PathModel, qs_rate_bps: float, **qs_kwargs: Any) -> float:
    """η(S) = T_SS(S) / T_QS(S) (spec 02 §2.8); ``qs_kwargs`` go to :func:`response_time_qs`."""
    return response_time_ss(size_bytes, path) / response_time_qs(
        size_bytes, path, qs_rate_bps, **qs_kwargs
    )


def max_window_valid(path: PathModel, buffer_packets: int) -> float:
    """The largest window (segments) for which the model holds with a drop-tail buffer of
    B packets: (τ + δ)/δ + B (spec 02 §2.8 "Validity"); the model ignores buffer overflow,
    so a transfer whose largest n_j reaches this bound would lose packets in reality."""
    _int_at_least("buffer_packets", buffer_packets, 0)
    delta_s = path.packet_time_s
    return (path.rtt_s + delta_s) / delta_s + buffer_packets


# ---------------------------------------------------------------------------- E2 table


def speedup_table(
    sizes_bytes: Iterable[float],
    rtts_s: Iterable[float],
    ccs: Sequence[str] = ("reno", "cubic"),
    *,
    ack_models: Sequence[AckModel] = (AckModel.per_segment(), AckModel.delayed()),
    rate_bps: float = 10e6,
    qs_rate_bps: float = 5.12e6,
    mss_bytes: int = 1448,
    header_bytes: int = 52,
    header_est_bytes: int = 52,
    overhead_bytes: int = 38,
    iw_segments: int = 3,
    ssthresh_policy: str = "none",
) -> pd.DataFrame:
    """Model T_SS, T_QS and η over a grid, for E2's model curves (spec 02 §4.3).

    Defaults are the E2 model parameters: C = 10 Mbit/s, q = 5.12 Mbit/s, τ̂ = τ,
    M = 1448, H = H_est = 52, O = 38, IW = 3, W_th from :data:`SSTHRESH_SEGMENTS`
    (Reno ∞, Cubic 100), both ACK variants, ssthresh policy ``none``.

    Returns:
        One row per (RTT, size, CC, ACK model), in that nesting order and in input order,
        with columns ``rtt_ms, size_bytes, cc, ack_model, t_ss_s, t_qs_s, eta``
        (``ack_model`` is :attr:`AckModel.label`).
    """
    import pandas as pd

    sizes = list(sizes_bytes)
    rtts = list(rtts_s)
    if not sizes or not rtts or not ccs or not ack_models:
        raise ValueError("sizes_bytes, rtts_s, ccs and ack_models must not be empty")
    for cc in ccs:
        if cc not in SSTHRESH_SEGMENTS:
            raise ValueError(f"ccs: unknown congestion control {cc!r}; known: {', '.join(SSTHRESH_SEGMENTS)}")

    rows: list[dict[str, Any]] = []
    for rtt_s in rtts:
        for size_bytes in sizes:
            for cc in ccs:
                for ack in ack_models:
                    path = PathModel(
                        rate_bps=rate_bps,
                        rtt_s=rtt_s,
                        mss_bytes=mss_bytes,
                        header_bytes=header_bytes,
                        overhead_bytes=overhead_bytes,
                        iw_segments=iw_segments,
                        ssthresh_segments=SSTHRESH_SEGMENTS[cc],
                        ack=ack,
                    )
                    t_ss_s = response_time_ss(size_bytes, path)
                    t_qs_s = response_time_qs(
                        size_bytes,
                        path,
                        qs_rate_bps,
                        rtt_est_s=rtt_s,  # spec 02 §4.3: τ̂ = τ
                        header_est_bytes=header_est_bytes,
                        ssthresh_policy=ssthresh_policy,
                    )
                    rows.append(
                        {
                            "rtt_ms": round(rtt_s * 1e3, 9),
                            "size_bytes": size_bytes,
                            "cc": cc,
                            "ack_model": ack.label,
                            "t_ss_s": t_ss_s,
                            "t_qs_s": t_qs_s,
                            "eta": t_ss_s / t_qs_s,
                        }
                    )
    columns = ["rtt_ms", "size_bytes", "cc", "ack_model", "t_ss_s", "t_qs_s", "eta"]
    return pd.DataFrame(rows, columns=columns)
