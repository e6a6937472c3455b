"""The Quick-Start response-time / speedup model (spec 02 §2.8): pure formulas, no runs.

Every expected number is derived by hand in the comment next to it.
"""

from __future__ import annotations

import math

import pytest

from lfnlab.models import (
    E2_RTTS_S,
    E2_SIZES_BYTES,
    AckModel,
    PathModel,
    max_window_valid,
    qs_round_sizes,
    qs_window_segments,
    response_time_qs,
    response_time_ss,
    round_sizes,
    rounds,
    segments_for,
    speedup,
    speedup_table,
)

MSS = 1448
# The spec's test-vector path: M + H + O = 1448 + 52 + 0 = 1500 bytes at C = 12 Mbit/s
# → δ = 8·1500/12e6 = 1 ms; τ = 100 ms, IW = 3, W_th = ∞.
VECTOR = PathModel(rate_bps=12e6, rtt_s=0.1, mss_bytes=MSS, header_bytes=52, overhead_bytes=0)
VECTOR_DELAYED = PathModel(
    rate_bps=12e6, rtt_s=0.1, mss_bytes=MSS, header_bytes=52, overhead_bytes=0, ack=AckModel.delayed()
)
# E2's model path (spec 02 §4.3) at τ = 200 ms: δ = 8·(1448 + 52 + 38)/10e6 = 1.2304 ms.
E2_200MS = PathModel(rate_bps=10e6, rtt_s=0.2)
E2_200MS_DELAYED = PathModel(rate_bps=10e6, rtt_s=0.2, ack=AckModel.delayed())
Q_5M12 = 5.12e6  # rate code 7
DELTA_E2_S = 8 * 1538 / 10e6  # 1.2304 ms


def test_packet_time() -> None:
    assert VECTOR.packet_time_s == pytest.approx(1e-3, rel=1e-12)  # 8·1500/12e6
    assert E2_200MS.packet_time_s == pytest.approx(1.2304e-3, rel=1e-12)  # 8·1538/10e6


def test_segments_for() -> None:
    # N = ⌈S/M⌉: 1 byte → 1; 1448 → 1; 1449 → 2; 200 kB → ⌈138.1⌉ = 139; 1 GB → ⌈690607.7⌉.
    assert [segments_for(s, MSS) for s in (1, 1448, 1449, 200_000)] == [1, 1, 2, 139]
    assert segments_for(1e9, MSS) == 690_608
    assert segments_for(1448.5, MSS) == 2
    for bad in (0, 0.5, -1, math.inf, math.nan):
        with pytest.raises(ValueError, match="size_bytes"):
            segments_for(bad, MSS)


def test_recursion_vector_per_segment_acks() -> None:
    # spec 02 §2.8 vector, γ≈2 (Q = ∞ → a_j = n_j, w_{j+1} = 2 w_j): windows 3, 6, 12, 24,
    # 48, 96; Σ of the first five = 93, so round 6 sends 100 − 93 = 7.
    assert round_sizes(100, VECTOR) == [3, 6, 12, 24, 48, 7]
    assert [r.acks for r in rounds(100, VECTOR)] == [3, 6, 12, 24, 48, 7]


def test_recursion_vector_delayed_acks() -> None:
    # spec 02 §2.8 vector, γ≈1.5 (Q = 0, b = 2 → a_j = ⌈n_j/2⌉): w 3 → 3+2 = 5 → 5+3 = 8
    # → 8+4 = 12 → 12+6 = 18 → 18+9 = 27 → 27+14 = 41; Σ through 27 = 73, then 100 − 73 = 27.
    assert round_sizes(100, VECTOR_DELAYED) == [3, 5, 8, 12, 18, 27, 27]
    assert [r.acks for r in rounds(100, VECTOR_DELAYED)] == [2, 3, 4, 6, 9, 14, 14]


def test_ack_budget_then_delayed() -> None:
    # Q = 4, b = 2, IW = 3: round 1 u = min(3, 4 − 0) = 3 → a = 3, w = 6; round 2
    # u = min(6, 4 − 3) = 1 → a = 1 + ⌈5/2⌉ = 4, w = 10; round 3 u = 0 → a = 5.
    path = PathModel(rate_bps=12e6, rtt_s=0.1, ack=AckModel(q_budget=4, b=2))
    assert [(r.sent_segments, r.acks) for r in rounds(19, path)] == [(3, 3), (6, 4), (10, 5)]


def test_cubic_threshold_then_congestion_avoidance() -> None:
    # W_th = 100, per-segment ACKs: 3, 6, 12, 24, 48, 96 (slow start); 96 ≤ 100 so
    # w_7 = min(96 + 96, 101) = 101; 101 > 100 → CA: w_8 = 101 + 101/101 = 102, then 103.
    # Σ = 189 + 101 + 102 + 103 = 495.
    cubic = PathModel(rate_bps=10e6, rtt_s=0.2, ssthresh_segments=100)
    assert round_sizes(495, cubic) == [3, 6, 12, 24, 48, 96, 101, 102, 103]


def test_t_ss_within_initial_window() -> None:
    # N = 3 ≤ IW: one round, D = β_1 = 3δ, T = 2τ + 3δ = 0.2 + 0.003.
    assert response_time_ss(3 * MSS, VECTOR) == pytest.approx(0.203, rel=1e-12)


def test_t_ss_two_rounds() -> None:
    # N = 9, per-segment ACKs: rounds 3, 6; D = 3δ + max(0, τ + δ − 3δ) + 6δ
    # = 3 + 98 + 6 = 107 ms; T = 2τ + D = 307 ms.
    assert round_sizes(9, VECTOR) == [3, 6]
    assert response_time_ss(9 * MSS, VECTOR) == pytest.approx(0.307, rel=1e-12)


def test_t_ss_vector() -> None:
    # N = 100, rounds 3, 6, 12, 24, 48, 7: Σβ = 100δ = 100 ms; gaps for j = 1..5:
    # (101−3) + (101−6) + (101−12) + (101−24) + (101−48) = 505 − 93 = 412 ms.
    # T = 200 + 100 + 412 = 712 ms.
    assert response_time_ss(100 * MSS, VECTOR) == pytest.approx(0.712, rel=1e-12)


def test_qs_window() -> None:
    # ⌊(5.12e6/8)·0.2/(1448 + 52)⌋ = ⌊640000·0.2/1500⌋ = ⌊85.33⌋ = 85 (spec 02 §2.3.6).
    assert qs_window_segments(5.12e6, 0.2, 1448, 52) == 85
    # ⌊750000·0.1/1500⌋ = 50 exactly, although 0.1 s is not exact in binary.
    assert qs_window_segments(6e6, 0.1, 1448, 52) == 50
    # RFC example header 40: ⌊640000·0.2/1488⌋ = ⌊86.02⌋ = 86.
    assert qs_window_segments(5.12e6, 0.2, 1448, 40) == 86


def test_t_qs_hand_computed() -> None:
    # VECTOR path, q = 6 Mbit/s, τ̂ = τ: W_qs = 50 (above); N = 100 → rounds 50, 50
    # (w_2 = 100). Pace 8·1500/6e6 = 2 ms > δ = 1 ms → β_1 = 50·2 = 100 ms;
    # gap max(0, 100 + 1 − 100) = 1 ms; β_2 = 50 ms. T = 200 + 100 + 1 + 50 = 351 ms.
    assert qs_round_sizes(100 * MSS, VECTOR, 6e6) == [50, 50]
    assert response_time_qs(100 * MSS, VECTOR, 6e6) == pytest.approx(0.351, rel=1e-12)
    # η = 712 / 351 (T_SS above).
    assert speedup(100 * MSS, VECTOR, 6e6) == pytest.approx(712 / 351, rel=1e-12)


def test_eta_is_one_within_initial_window() -> None:
    # N ≤ IW = 3: both cases are one round of N line-rate packets, T = 2τ + Nδ, although
    # W_qs > IW and q = 5.12 Mbit/s is below C (the initial window is not held back by pacing).
    for rtt_s in E2_RTTS_S:
        path = PathModel(rate_bps=10e6, rtt_s=rtt_s)
        for size_bytes in (1, 1000, 2000, 3 * MSS):
            assert speedup(size_bytes, path, Q_5M12) == 1.0
            assert speedup(size_bytes, path, Q_5M12, ssthresh_policy="qs_window") == 1.0


def test_unusable_approval_changes_nothing() -> None:
    # q = 80 kbit/s: W_qs = ⌊10000·0.2/1500⌋ = 1 ≤ IW → not used (spec 02 §2.3.4), also with
    # the qs_window policy (which would otherwise put W_th = 1).
    for size_bytes in (5000, 200_000, 5_000_000):
        t_ss = response_time_ss(size_bytes, E2_200MS)
        assert response_time_qs(size_bytes, E2_200MS, 80e3, ssthresh_policy="qs_window") == t_ss


def test_eta_medium_transfer_200ms() -> None:
    # S = 200 kB → N = 139, E2 path at τ = 200 ms, δ = 1.2304 ms, W_qs = 85.
    # SS (γ≈2): rounds 3, 6, 12, 24, 48, 46 (93 + 46 = 139); every gap is positive
    # (48δ = 59 ms < τ + δ), so D = 139δ + 5(τ + δ) − 93δ = 5τ + 51δ and
    # T_SS = 7τ + 51δ = 1.4 + 0.0627504 = 1.4627504 s.
    # QS: rounds 85, 54 (w_2 = 170); β_1 = 85·8·1500/5.12e6 = 0.19921875 s (pace 2.34 ms > δ);
    # gap τ + δ − β_1 = 2.01 ms > 0, so D = (τ + δ) + 54δ and T_QS = 3τ + 55δ = 0.667672 s.
    assert round_sizes(139, E2_200MS) == [3, 6, 12, 24, 48, 46]
    assert qs_round_sizes(200_000, E2_200MS, Q_5M12) == [85, 54]
    t_ss = 7 * 0.2 + 51 * DELTA_E2_S
    t_qs = 3 * 0.2 + 55 * DELTA_E2_S
    assert response_time_ss(200_000, E2_200MS) == pytest.approx(t_ss, rel=1e-12)
    assert response_time_qs(200_000, E2_200MS, Q_5M12) == pytest.approx(t_qs, rel=1e-12)
    eta = speedup(200_000, E2_200MS, Q_5M12)
    assert eta == pytest.approx(t_ss / t_qs, rel=1e-12)  # 2.19
    assert eta > 1


def test_delayed_acks_give_larger_eta() -> None:
    # spec 02 §5 point 5: γ≈1.5 underestimates slow start, so it overestimates η.
    # S = 200 kB, N = 139, delayed ACKs: rounds 3, 5, 8, 12, 18, 27, 41 (Σ = 114), then 25;
    # all 7 gaps positive (41δ = 50 ms), D = 139δ + 7(τ + δ) − 114δ = 7τ + 32δ,
    # T_SS = 9τ + 32δ = 1.8393728 s. QS: rounds 85, 54 (w_2 = 85 + ⌈85/2⌉ = 128 ≥ 54), so
    # T_QS = 3τ + 55δ as with per-segment ACKs.
    assert round_sizes(139, E2_200MS_DELAYED) == [3, 5, 8, 12, 18, 27, 41, 25]
    t_ss = 9 * 0.2 + 32 * DELTA_E2_S
    t_qs = 3 * 0.2 + 55 * DELTA_E2_S
    eta_delayed = speedup(200_000, E2_200MS_DELAYED, Q_5M12)
    assert eta_delayed == pytest.approx(t_ss / t_qs, rel=1e-12)  # 2.75
    assert eta_delayed > speedup(200_000, E2_200MS, Q_5M12)  # 2.19


def test_eta_tends_to_one_for_large_transfers() -> None:
    # S = 1 GB at 10 Mbit/s: Nδ = 690608·1.2304 ms ≈ 850 s against a start-up cost of a few
    # RTTs, so η − 1 ≈ 1 s / 850 s ≈ 0.1 % < 1 % (Reno and Cubic).
    for w_th in (math.inf, 100.0):
        path = PathModel(rate_bps=10e6, rtt_s=0.2, ssthresh_segments=w_th)
        eta = speedup(1e9, path, Q_5M12)
        assert 1.0 <= eta < 1.01


def test_response_times_non_decreasing_in_size() -> None:
    # Earlier rounds are full windows independent of N, so one more segment either lengthens
    # the last round by δ or opens a new one (a gap ≥ 0 plus δ): T never falls.
    paths = [
        E2_200MS,
        E2_200MS_DELAYED,
        PathModel(rate_bps=10e6, rtt_s=0.02, ssthresh_segments=100),
        PathModel(rate_bps=10e6, rtt_s=0.4, ssthresh_segments=100, ack=AckModel.delayed()),
    ]
    sizes = [n * MSS for n in range(1, 1500)] + [3e6 * k for k in range(1, 11)]  # to 30 MB
    for path in paths:
        t_ss = [response_time_ss(s, path) for s in sizes]
        assert all(b >= a for a, b in zip(t_ss, t_ss[1:]))
        t_qs = [response_time_qs(s, path, Q_5M12) for s in sizes]
        assert all(b >= a for a, b in zip(t_qs, t_qs[1:]))


def test_qs_window_policy_congestion_avoidance_from_round_2() -> None:
    # W_th = W_qs = 85 and w_1 = 85 ≤ W_th: w_2 = min(85 + 85, 86) = 86 > W_th, then
    # CA with a_j = n_j = w_j: w_{j+1} = w_j + 1. Σ 85..89 = 435, then 455 − 435 = 20.
    assert qs_round_sizes(455 * MSS, E2_200MS, Q_5M12, ssthresh_policy="qs_window") == [85, 86, 87, 88, 89, 20]
    # Policy none keeps W_th = ∞: 85, 170, then 455 − 255 = 200.
    assert qs_round_sizes(455 * MSS, E2_200MS, Q_5M12) == [85, 170, 200]
    # Delayed ACKs carry the fraction: w_3 = 86 + 43/86 = 86.5 → 86; w_4 = 86.5 + 43/86.5
    # = 86.997 → 86; w_5 = 86.997 + 43/86.997 = 87.491 → 87; w_6 = 87.491 + 44/87.491
    # = 87.994 → 87. Σ = 85 + 86 + 86 + 86 + 87 + 87 = 517.
    sizes = qs_round_sizes(517 * MSS, E2_200MS_DELAYED, Q_5M12, ssthresh_policy="qs_window")
    assert sizes == [85, 86, 86, 86, 87, 87]


def test_qs_window_policy_hurts_below_capacity() -> None:
    # spec 02 §5 points 2–3: q = 5.12 Mbit/s < C, so ssthresh = W_qs = 85 < BDP ≈ 163
    # segments leaves the sender growing by one segment per RTT; a 5 MB transfer
    # (3454 segments) takes longer than with policy none (which doubles to fill the link).
    none = response_time_qs(5e6, E2_200MS, Q_5M12)
    qs_window = response_time_qs(5e6, E2_200MS, Q_5M12, ssthresh_policy="qs_window")
    assert qs_window > none


def test_max_window_valid() -> None:
    # (τ + δ)/δ + B = (0.1 + 0.001)/0.001 + 1000 = 101 + 1000.
    assert max_window_valid(VECTOR, 1000) == pytest.approx(1101, rel=1e-12)
    # E2 at 200 ms: 0.2012304/0.0012304 + 1000 = 163.55 + 1000.
    assert max_window_valid(E2_200MS, 1000) == pytest.approx(0.2012304 / 0.0012304 + 1000, rel=1e-12)
    with pytest.raises(ValueError, match="buffer_packets"):
        max_window_valid(VECTOR, -1)


def test_speedup_table_e2_grid() -> None:
    # spec 02 §4.3: 5 RTTs × 13 sizes × 2 CC × 2 ACK models = 260 rows.
    table = speedup_table(E2_SIZES_BYTES, E2_RTTS_S)
    assert list(table.columns) == ["rtt_ms", "size_bytes", "cc", "ack_model", "t_ss_s", "t_qs_s", "eta"]
    assert len(table) == 5 * 13 * 2 * 2
    assert sorted(table["rtt_ms"].unique()) == [20.0, 50.0, 100.0, 200.0, 400.0]
    assert set(table["cc"]) == {"reno", "cubic"}
    assert set(table["ack_model"]) == {"per_segment", "delayed"}
    assert (table["eta"] == table["t_ss_s"] / table["t_qs_s"]).all()
    # 1 kB and 2 kB fit the initial window: η = 1 (spec 02 §5 point 4).
    assert (table.loc[table["size_bytes"] <= 2000, "eta"] == 1.0).all()
    # The row for Reno, per-segment ACKs, 200 ms, 200 kB is the hand-computed case above.
    row = table[
        (table["rtt_ms"] == 200.0) & (table["size_bytes"] == 200_000) & (table["cc"] == "reno")
        & (table["ack_model"] == "per_segment")
    ]
    assert row["eta"].item() == pytest.approx((7 * 0.2 + 51 * DELTA_E2_S) / (3 * 0.2 + 55 * DELTA_E2_S), rel=1e-12)


def test_ack_model_labels() -> None:
    assert AckModel.per_segment() == AckModel(q_budget=math.inf, b=1)
    assert AckModel.delayed() == AckModel(q_budget=0, b=2)
    assert (AckModel.per_segment().label, AckModel.delayed().label) == ("per_segment", "delayed")
    assert AckModel(q_budget=16, b=2).label == "Q=16,b=2"


@pytest.mark.parametrize(
    ("build", "name"),
    [
        (lambda: PathModel(rate_bps=0, rtt_s=0.1), "rate_bps"),
        (lambda: PathModel(rate_bps=-1e6, rtt_s=0.1), "rate_bps"),
        (lambda: PathModel(rate_bps=math.inf, rtt_s=0.1), "rate_bps"),
        (lambda: PathModel(rate_bps=1e7, rtt_s=0), "rtt_s"),
        (lambda: PathModel(rate_bps=1e7, rtt_s=math.nan), "rtt_s"),
        (lambda: PathModel(rate_bps=1e7, rtt_s=0.1, mss_bytes=0), "mss_bytes"),
        (lambda: PathModel(rate_bps=1e7, rtt_s=0.1, header_bytes=-1), "header_bytes"),
        (lambda: PathModel(rate_bps=1e7, rtt_s=0.1, overhead_bytes=-1), "overhead_bytes"),
        (lambda: PathModel(rate_bps=1e7, rtt_s=0.1, iw_segments=0), "iw_segments"),
        (lambda: PathModel(rate_bps=1e7, rtt_s=0.1, ssthresh_segments=0), "ssthresh_segments"),
        (lambda: AckModel(q_budget=-1, b=2), "q_budget"),
        (lambda: AckModel(q_budget=1.5, b=2), "q_budget"),
        (lambda: AckModel(q_budget=0, b=0), "b"),
        (lambda: response_time_ss(0, E2_200MS), "size_bytes"),
        (lambda: response_time_qs(1000, E2_200MS, 0), "qs_rate_bps"),
        (lambda: response_time_qs(1000, E2_200MS, Q_5M12, rtt_est_s=-0.1), "rtt_est_s"),
        (lambda: response_time_qs(1000, E2_200MS, Q_5M12, ssthresh_policy="half"), "ssthresh_policy"),
        (lambda: round_sizes(0, E2_200MS), "n_segments"),
        (lambda: round_sizes(10, E2_200MS, w1=0), "w1"),
        (lambda: speedup_table([1000], [0.1], ccs=("vegas",)), "ccs"),
    ],
)
def test_invalid_arguments_name_the_argument(build, name: str) -> None:
    with pytest.raises(ValueError, match=name):
        build()
