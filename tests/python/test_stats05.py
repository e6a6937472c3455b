"""The chapter 05 monitor statistics (spec 05 §2.6), against hand-computed values."""

from __future__ import annotations

import math

import numpy as np
import pytest
from lfnlab.reproduce.ch05_switches import stats05


# --- bin_stats ---------------------------------------------------------------------------


def test_bin_stats_hand_computed() -> None:
    # 1-ms bins: 125 000 B · 8 / 0.001 s = 1e9 bit/s = 1000 Mbit/s; 0 B → 0; 62 500 B → 500.
    s = stats05.bin_stats(np.array([125_000, 0, 62_500]), 0.001)
    assert s.mean_mbps == pytest.approx(500.0)  # (1000 + 0 + 500) / 3
    assert (s.max_mbps, s.min_mbps) == (1000.0, 0.0)
    # population variance: ((500)² + (−500)² + 0²) / 3 = 500 000 / 3 = 166 666.67
    assert s.var_mbps2 == pytest.approx(500_000 / 3)
    assert s.std_mbps == pytest.approx(math.sqrt(500_000 / 3))  # 408.248…, not sqrt(250 000) = 500 (ddof=1)


def test_bin_stats_single_bin_and_100ms() -> None:
    # one 100-ms bin of 1 250 000 B: 1.25e6 · 8 / 0.1 / 1e6 = 100 Mbit/s, no spread
    s = stats05.bin_stats(np.array([1_250_000]), 0.1)
    assert s == stats05.BinStats(100.0, 100.0, 100.0, 0.0, 0.0)


def test_bin_stats_rejects_empty_and_bad_bin() -> None:
    with pytest.raises(ValueError):
        stats05.bin_stats(np.array([]), 0.001)
    with pytest.raises(ValueError):
        stats05.bin_stats(np.array([1.0]), 0.0)


# --- rebin -------------------------------------------------------------------------------


def test_rebin_drops_trailing_partial_group() -> None:
    # 7 bins by 3: [1+2+3, 4+5+6] = [6, 15]; the trailing 7 is dropped
    out = stats05.rebin(np.array([1, 2, 3, 4, 5, 6, 7]), 3)
    assert out.tolist() == [6, 15]
    assert out.dtype.kind == "i"


def test_rebin_1ms_to_100ms() -> None:
    # 250 one-ms bins of 83 packets → 2 full 100-ms bins of 8300; the last 50 are dropped
    assert stats05.rebin(np.full(250, 83), 100).tolist() == [8300, 8300]


def test_rebin_edge_cases() -> None:
    assert stats05.rebin(np.array([4, 5]), 1).tolist() == [4, 5]
    assert stats05.rebin(np.array([4, 5]), 3).size == 0  # shorter than one group
    assert stats05.rebin(np.array([], dtype=int), 2).size == 0
    with pytest.raises(ValueError):
        stats05.rebin(np.array([1, 2]), 0)


# --- window_slice ------------------------------------------------------------------------


def test_window_slice_spec_window() -> None:
    # E5.1: 12 s in 1-ms bins, window [0.5, 11.5] s → bins 500 … 11 499, i.e. slice(500, 11500)
    sl = stats05.window_slice(0.0, 0.001, 12_000, 0.5, 11.5)
    assert (sl.start, sl.stop) == (500, 11500)
    assert len(range(12_000)[sl]) == 11_000


def test_window_slice_absorbs_float_rounding() -> None:
    # Edges that lie on bin edges in exact arithmetic but not in floats:
    # 4.001 / 0.001 = 4001.0000000000005 (a bare ceil would start at 4002) and
    # 2.001 / 0.001 = 2000.9999999999998 (a bare floor would stop at 2000).
    assert 4.001 / 0.001 > 4001 and 2.001 / 0.001 < 2001  # the rounding the tolerance must absorb
    sl = stats05.window_slice(0.0, 0.001, 12_000, 4.001, 5.0)
    assert (sl.start, sl.stop) == (4001, 5000)  # bins 4001 … 4999
    sl = stats05.window_slice(0.0, 0.001, 12_000, 1.0, 2.001)
    assert (sl.start, sl.stop) == (1000, 2001)  # bins 1000 … 2000
    # E5.4 window [0.5, 2.9] s in 100-ms bins: 2.9 / 0.1 = 28.999999999999996 → bins 5 … 28
    assert 2.9 / 0.1 < 29
    sl = stats05.window_slice(0.0, 0.1, 30, 0.5, 2.9)
    assert (sl.start, sl.stop) == (5, 29)


def test_window_slice_tolerance_does_not_move_real_edges() -> None:
    # half a bin past an edge is not rounding: [0.4995, 11.5005] s in 1-ms bins still gives 500 … 11 499
    sl = stats05.window_slice(0.0, 0.001, 12_000, 0.4995, 11.5005)
    assert (sl.start, sl.stop) == (500, 11500)
    # 1e-6 of a bin short of the edge is still short: bin 11 499 ends at 11.5 > 11.4999999990
    sl = stats05.window_slice(0.0, 0.001, 12_000, 0.5, 11.5 - 1e-9)
    assert sl.stop == 11499


def test_window_slice_partial_bins_excluded() -> None:
    # t0 = 1.0, 0.1-s bins: bin i covers [1.0 + 0.1 i, 1.1 + 0.1 i).
    # window [1.25, 1.75]: bin 2 = [1.2, 1.3) sticks out on the left, bin 7 = [1.7, 1.8) on the right,
    # so bins 3, 4, 5, 6 lie inside.
    sl = stats05.window_slice(1.0, 0.1, 10, 1.25, 1.75)
    assert (sl.start, sl.stop) == (3, 7)


def test_window_slice_clipping_and_empty() -> None:
    # window reaching before t0 and beyond the last bin: clipped to all 10 bins
    sl = stats05.window_slice(0.0, 1.0, 10, -5.0, 50.0)
    assert (sl.start, sl.stop) == (0, 10)
    # window narrower than one bin: [0.2, 0.8] holds no whole 1-s bin
    sl = stats05.window_slice(0.0, 1.0, 10, 0.2, 0.8)
    assert sl.stop == sl.start
    # window after the series
    sl = stats05.window_slice(0.0, 1.0, 10, 20.0, 30.0)
    assert (sl.start, sl.stop) == (10, 10)
    with pytest.raises(ValueError):
        stats05.window_slice(0.0, 0.0, 10, 0.0, 1.0)


# --- longest_run, starvation, unfair ------------------------------------------------------


def test_longest_run() -> None:
    # runs of True: 2 (idx 1-2), 3 (idx 5-7), 1 (idx 9) → 3
    m = np.array([0, 1, 1, 0, 0, 1, 1, 1, 0, 1], dtype=bool)
    assert stats05.longest_run(m) == 3
    assert stats05.longest_run(np.ones(7, dtype=bool)) == 7
    assert stats05.longest_run(np.zeros(7, dtype=bool)) == 0
    assert stats05.longest_run(np.array([], dtype=bool)) == 0
    assert stats05.longest_run(np.array([True])) == 1
    # runs touching both ends: 2 at the start, 4 at the end → 4
    assert stats05.longest_run(np.array([1, 1, 0, 1, 1, 1, 1], dtype=bool)) == 4


def test_starvation_period_bins() -> None:
    # zero-packet bins: idx 1-2 (2), idx 4-6 (3) → 3
    assert stats05.starvation_period_bins(np.array([83, 0, 0, 5, 0, 0, 0, 41])) == 3
    assert stats05.starvation_period_bins(np.array([1, 2, 3])) == 0
    assert stats05.starvation_period_bins(np.zeros(5, dtype=int)) == 5


def test_unfair_period_bins() -> None:
    flow = np.array([50, 5, 9, 10, 0, 0, 1, 2, 3])
    agg = np.array([100, 100, 100, 100, 0, 100, 100, 100, 100])
    # flow < 0.1·agg: bin 0 no (50), 1 yes (5 < 10), 2 yes (9 < 10), 3 no (10 is not < 10),
    # 4 no (zero aggregate), 5-8 yes (0, 1, 2, 3 < 10) → runs 2 and 4 → 4
    assert stats05.unfair_period_bins(flow, agg) == 4
    # share 0.05: bins 1 (5 ≮ 5) and 2 (9) fail; 5-8 (0, 1, 2, 3 < 5) → 4
    assert stats05.unfair_period_bins(flow, agg, share=0.05) == 4
    # share 0.025: only 0, 1, 2 < 2.5 → bins 5, 6, 7 → 3
    assert stats05.unfair_period_bins(flow, agg, share=0.025) == 3


def test_unfair_zero_aggregate_breaks_run_and_bad_input() -> None:
    # a zero-aggregate bin between two unfair bins splits them: runs 1 and 1
    assert stats05.unfair_period_bins(np.array([0, 0, 0]), np.array([10, 0, 10])) == 1
    assert stats05.unfair_period_bins(np.zeros(4), np.zeros(4)) == 0
    with pytest.raises(ValueError):
        stats05.unfair_period_bins(np.array([1, 2]), np.array([1, 2, 3]))
    with pytest.raises(ValueError):
        stats05.unfair_period_bins(np.array([1]), np.array([1]), share=0.0)


# --- run_lengths -------------------------------------------------------------------------


def test_run_lengths() -> None:
    # output order 1 1 1 2 2 1 2 2 2 2 1
    # flow 1: runs 3, 1, 1 → 3 runs, mean 5/3, max 3; flow 2: runs 2, 4 → 2 runs, mean 3, max 4
    out = stats05.run_lengths(np.array([1, 1, 1, 2, 2, 1, 2, 2, 2, 2, 1]))
    assert set(out) == {1, 2}
    assert out[1].runs == 3 and out[1].mean_frames == pytest.approx(5 / 3) and out[1].max_frames == 3
    assert out[2] == stats05.RunStats(2, 3.0, 4)


def test_run_lengths_alternation_and_edges() -> None:
    # 400 + 400 alternation (B8): every run has length 1
    out = stats05.run_lengths(np.array([1, 2] * 5))
    assert out == {1: stats05.RunStats(5, 1.0, 1), 2: stats05.RunStats(5, 1.0, 1)}
    assert stats05.run_lengths(np.array([7])) == {7: stats05.RunStats(1, 1.0, 1)}
    assert stats05.run_lengths(np.array([3, 3, 3, 3])) == {3: stats05.RunStats(1, 4.0, 4)}
    assert stats05.run_lengths(np.array([], dtype=int)) == {}
    with pytest.raises(ValueError):
        stats05.run_lengths(np.array([1.5, 2.5]))


# --- seq_gaps, gap_histogram, loss_bursts ------------------------------------------------


def test_seq_gaps_and_loss_bursts() -> None:
    seq = np.array([0, 1, 2, 5, 6, 16, 17])
    # Δseq: 1, 1, 3, 1, 10, 1
    assert stats05.seq_gaps(seq).tolist() == [1, 1, 3, 1, 10, 1]
    # bursts = Δseq − 1 where Δseq > 1: 3 − 1 = 2 (seq 3, 4 lost), 10 − 1 = 9 (seq 7 … 15)
    assert stats05.loss_bursts(seq).tolist() == [2, 9]
    assert stats05.seq_gaps(np.array([4])).size == 0
    assert stats05.loss_bursts(np.array([], dtype=int)).size == 0
    assert stats05.loss_bursts(np.arange(10)).size == 0  # no loss
    with pytest.raises(ValueError):
        stats05.seq_gaps(np.array([1, 3, 2]))  # reordered
    with pytest.raises(ValueError):
        stats05.seq_gaps(np.array([1, 1]))  # duplicate


def test_gap_histogram() -> None:
    # gaps 1,1,1,2,4,5,9 with max_bin 4: "1": 3, "2": 1, "3": 0, "4": 1, ">4": 2 (5 and 9)
    h = stats05.gap_histogram(np.array([1, 1, 1, 2, 4, 5, 9]), max_bin=4)
    assert h == {"1": 3, "2": 1, "3": 0, "4": 1, ">4": 2}
    assert list(h) == ["1", "2", "3", "4", ">4"]


def test_gap_histogram_default_and_edges() -> None:
    # default max_bin 16: 16 lands in "16", 17 in ">16"
    h = stats05.gap_histogram(np.array([16, 17, 1]))
    assert len(h) == 17 and h["16"] == 1 and h[">16"] == 1 and h["1"] == 1 and sum(h.values()) == 3
    empty = stats05.gap_histogram(np.array([], dtype=int), max_bin=2)
    assert empty == {"1": 0, "2": 0, ">2": 0}
    with pytest.raises(ValueError):
        stats05.gap_histogram(np.array([0, 1]))
    with pytest.raises(ValueError):
        stats05.gap_histogram(np.array([1]), max_bin=0)


# --- jain_index --------------------------------------------------------------------------


def test_jain_index() -> None:
    assert stats05.jain_index([500.0, 500.0]) == pytest.approx(1.0)
    # one flow starved: (1000)² / (2 · 1000²) = 1/2
    assert stats05.jain_index([1000.0, 0.0]) == pytest.approx(0.5)
    # 600 + 300: 900² / (2 · (360 000 + 90 000)) = 810 000 / 900 000 = 0.9
    assert stats05.jain_index([600.0, 300.0]) == pytest.approx(0.9)
    # 1, 2, 3: 36 / (3 · 14) = 6/7
    assert stats05.jain_index(np.array([1.0, 2.0, 3.0])) == pytest.approx(6 / 7)
    assert stats05.jain_index([42.0]) == pytest.approx(1.0)


def test_jain_index_edges() -> None:
    assert math.isnan(stats05.jain_index([0.0, 0.0]))
    with pytest.raises(ValueError):
        stats05.jain_index([])
    with pytest.raises(ValueError):
        stats05.jain_index([1.0, -1.0])


# --- linear_fit --------------------------------------------------------------------------


def test_linear_fit_exact_line() -> None:
    # y = 0.5 x + 3 exactly → residual std 0
    fit = stats05.linear_fit(np.array([10.0, 20.0, 30.0, 40.0]), np.array([8.0, 13.0, 18.0, 23.0]))
    assert fit.slope == pytest.approx(0.5)
    assert fit.intercept == pytest.approx(3.0)
    assert fit.residual_std == pytest.approx(0.0, abs=1e-12)


def test_linear_fit_noisy() -> None:
    # x = 0, 1, 2, 3; y = 1, 3, 2, 4. x̄ = 1.5, ȳ = 2.5.
    # Σ(x−x̄)(y−ȳ) = (−1.5)(−1.5) + (−0.5)(0.5) + (0.5)(−0.5) + (1.5)(1.5) = 2.25 − 0.25 − 0.25 + 2.25 = 4
    # Σ(x−x̄)² = 2.25 + 0.25 + 0.25 + 2.25 = 5 → slope 0.8, intercept 2.5 − 0.8·1.5 = 1.3
    # fitted 1.3, 2.1, 2.9, 3.7; residuals −0.3, 0.9, −0.9, 0.3; Σr² = 0.09 + 0.81 + 0.81 + 0.09 = 1.8
    # residual std (ddof 0) = sqrt(1.8 / 4) = sqrt(0.45)
    fit = stats05.linear_fit(np.array([0, 1, 2, 3]), np.array([1, 3, 2, 4]))
    assert fit.slope == pytest.approx(0.8)
    assert fit.intercept == pytest.approx(1.3)
    assert fit.residual_std == pytest.approx(math.sqrt(0.45))


def test_linear_fit_needs_two_distinct_x() -> None:
    with pytest.raises(ValueError):
        stats05.linear_fit(np.array([5.0, 5.0, 5.0]), np.array([1.0, 2.0, 3.0]))
    with pytest.raises(ValueError):
        stats05.linear_fit(np.array([1.0]), np.array([1.0]))
    with pytest.raises(ValueError):
        stats05.linear_fit(np.array([]), np.array([]))
    with pytest.raises(ValueError):
        stats05.linear_fit(np.array([1.0, 2.0]), np.array([1.0]))
