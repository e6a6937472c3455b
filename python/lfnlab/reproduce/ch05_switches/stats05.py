"""Monitor statistics of spec 05 §2.6 (the Statistic table) for E5.1 (T5.1), E5.3 (T5.3),
E5.4 (T5.4) and E5.5 (F5.5e).

Pure numpy: arrays in; plain numbers, small frozen dataclasses or arrays out. Deciding which
flow a statistic applies to (non-zero offered load, the 40 % condition) is the caller's job.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

__all__ = [
    "BinStats",
    "RunStats",
    "LinearFit",
    "bin_stats",
    "rebin",
    "window_slice",
    "longest_run",
    "starvation_period_bins",
    "unfair_period_bins",
    "run_lengths",
    "seq_gaps",
    "gap_histogram",
    "loss_bursts",
    "jain_index",
    "linear_fit",
]

#: Tolerance of bin-edge comparisons, as a fraction of the bin width: absorbs float rounding
#: such as 0.5 / 0.001 = 500.00000000000006 without moving a real edge.
EDGE_TOL_BINS = 1e-9


@dataclass(frozen=True)
class BinStats:
    """Bin statistics of one series in Mbit/s (spec 05 §2.6 "Bin statistics")."""

    mean_mbps: float
    max_mbps: float
    min_mbps: float
    #: Population variance (ddof = 0), (Mbit/s)².
    var_mbps2: float
    #: sqrt(var_mbps2).
    std_mbps: float


@dataclass(frozen=True)
class RunStats:
    """Runs of one flow in the output order (spec 05 §2.6 "Run length")."""

    #: Number of maximal runs of consecutive output frames of this flow.
    runs: int
    #: Mean run length, frames.
    mean_frames: float
    #: Longest run, frames.
    max_frames: int


@dataclass(frozen=True)
class LinearFit:
    """Least-squares line y = slope·x + intercept and the spread of its residuals (T5.4)."""

    slope: float
    intercept: float
    #: Standard deviation of the residuals, ddof = 0 (root mean square, as the residuals of a
    #: fit with an intercept have mean 0); in the units of y.
    residual_std: float


def _one_d(a: np.ndarray, name: str, dtype: type | None = None) -> np.ndarray:
    arr = np.asarray(a, dtype=dtype)
    if arr.ndim != 1:
        raise ValueError(f"{name} must be one-dimensional, got shape {arr.shape}")
    return arr


def bin_stats(bytes_per_bin: np.ndarray, bin_s: float) -> BinStats:
    """Mean, max, min, variance and standard deviation of a per-bin byte series, converted to
    Mbit/s as bytes·8/bin_s/10⁶ (spec 05 §2.6 "Bin statistics"; T5.1 uses 100-ms bins).

    The variance is the population variance (ddof = 0): the bins of the measurement window are
    the whole series being described, not a sample of a larger one. Empty input raises
    ValueError; so does ``bin_s <= 0``.
    """
    if not bin_s > 0:
        raise ValueError(f"bin_s must be positive, got {bin_s}")
    mbps = _one_d(bytes_per_bin, "bytes_per_bin", float) * 8.0 / bin_s / 1e6
    if mbps.size == 0:
        raise ValueError("bin_stats needs at least one bin")
    var = float(np.var(mbps))
    return BinStats(float(mbps.mean()), float(mbps.max()), float(mbps.min()), var, math.sqrt(var))


def rebin(counts: np.ndarray, factor: int) -> np.ndarray:
    """Sums of consecutive groups of ``factor`` bins, e.g. 1-ms bins → 100-ms bins with
    ``factor = 100`` (spec 05 §2.6 bin widths; T5.1 statistics over 100-ms bins).

    A trailing partial group is dropped, so every output bin has the full width and a short
    last bin cannot pull the minimum down. The dtype of ``counts`` is kept.
    """
    if factor < 1:
        raise ValueError(f"factor must be >= 1, got {factor}")
    arr = _one_d(counts, "counts")
    whole = arr.size // factor
    return arr[: whole * factor].reshape(whole, factor).sum(axis=1)


def window_slice(t0_s: float, bin_s: float, n_bins: int, start_s: float, end_s: float) -> slice:
    """The bins lying entirely inside [start_s, end_s], bin i covering
    [t0_s + i·bin_s, t0_s + (i+1)·bin_s), clipped to [0, n_bins) (spec 05 §2.6 "Measurement
    window": generation start + 0.5 s to generation end − 0.5 s).

    Edges are compared with a tolerance of ``EDGE_TOL_BINS``·bin_s, so a window edge that falls
    on a bin edge in exact arithmetic counts as on it despite float rounding. An empty window
    gives an empty slice.
    """
    if not bin_s > 0 or n_bins < 0:
        raise ValueError(f"need bin_s > 0 and n_bins >= 0, got {bin_s}, {n_bins}")
    first = math.ceil((start_s - t0_s) / bin_s - EDGE_TOL_BINS)
    stop = math.floor((end_s - t0_s) / bin_s + EDGE_TOL_BINS)  # bins first..stop-1 end by end_s
    first = min(max(first, 0), n_bins)
    stop = min(max(stop, first), n_bins)
    return slice(first, stop)


def longest_run(mask: np.ndarray) -> int:
    """Length of the longest run of consecutive True values in a 1-D mask (0 if none)."""
    m = _one_d(mask, "mask", bool).astype(np.int8)
    edges = np.diff(np.concatenate(([0], m, [0])))
    starts, ends = np.flatnonzero(edges == 1), np.flatnonzero(edges == -1)
    return int((ends - starts).max()) if starts.size else 0


def starvation_period_bins(packets_per_bin: np.ndarray) -> int:
    """Longest run of consecutive bins in which the flow has no frame forwarded (spec 05 §2.6
    "Starvation period", 1-ms bins). The spec applies it only to a flow with non-zero offered
    load; checking that is the caller's job."""
    return longest_run(_one_d(packets_per_bin, "packets_per_bin") == 0)


def unfair_period_bins(flow_bytes: np.ndarray, aggregate_bytes: np.ndarray, share: float = 0.1) -> int:
    """Longest run of consecutive bins in which the flow gets less than ``share`` of the
    aggregate output, i.e. flow < share·aggregate (spec 05 §2.6 "Unfair period", 1-ms bins,
    share 10 %).

    A bin with zero aggregate output is not unfair (nobody got anything) and ends a run. The
    spec's condition that the flow offers at least 40 % of R_line is the caller's business.
    """
    if not 0 < share <= 1:
        raise ValueError(f"share must be in (0, 1], got {share}")
    flow = _one_d(flow_bytes, "flow_bytes", float)
    agg = _one_d(aggregate_bytes, "aggregate_bytes", float)
    if flow.shape != agg.shape:
        raise ValueError(f"flow_bytes {flow.shape} and aggregate_bytes {agg.shape} differ in length")
    return longest_run((agg > 0) & (flow < share * agg))


def run_lengths(flows_in_output_order: np.ndarray) -> dict[int, RunStats]:
    """Per flow id: the number, mean length and longest length of the runs of consecutive
    output frames belonging to that flow (spec 05 §2.6 "Run length"; T5.3). Empty input gives
    an empty dict; flow ids must be integers."""
    f = _one_d(flows_in_output_order, "flows_in_output_order")
    if f.size == 0:
        return {}
    if f.dtype.kind not in "iu":
        raise ValueError(f"flow ids must be integers, got dtype {f.dtype}")
    starts = np.concatenate(([0], np.flatnonzero(f[1:] != f[:-1]) + 1))
    lengths = np.diff(np.append(starts, f.size))
    ids, group = np.unique(f[starts], return_inverse=True)
    runs = np.bincount(group)
    totals = np.bincount(group, weights=lengths)
    longest = np.zeros(ids.size, dtype=np.int64)
    np.maximum.at(longest, group, lengths)
    return {int(k): RunStats(int(n), float(t / n), int(mx)) for k, n, t, mx in zip(ids, runs, totals, longest)}


def seq_gaps(seq: np.ndarray) -> np.ndarray:
    """Δseq between consecutive forwarded frames of one flow, in output order (spec 05 §2.6
    "Gap"; 1 means no loss between them). Fewer than two frames give an empty array.

    Raises ValueError if Δseq < 1 anywhere: a flow's frames never overtake one another in the
    switch models (one FIFO path per flow), so that would mean a malformed log.
    """
    gaps = np.diff(_one_d(seq, "seq", np.int64))
    if gaps.size and gaps.min() < 1:
        raise ValueError("sequence numbers of one flow must increase strictly in output order")
    return gaps


def gap_histogram(gaps: np.ndarray, max_bin: int = 16) -> dict[str, int]:
    """Counts of Δseq = 1, 2, …, max_bin and of Δseq > max_bin, keyed "1", …, str(max_bin),
    f">{max_bin}" (T5.3's Δseq histogram). Every key is present; gaps < 1 raise ValueError."""
    if max_bin < 1:
        raise ValueError(f"max_bin must be >= 1, got {max_bin}")
    g = _one_d(gaps, "gaps", np.int64)
    if g.size and g.min() < 1:
        raise ValueError("a gap is at least 1")
    counts = np.bincount(np.minimum(g, max_bin + 1), minlength=max_bin + 2)
    hist = {str(k): int(counts[k]) for k in range(1, max_bin + 1)}
    hist[f">{max_bin}"] = int(counts[max_bin + 1])
    return hist


def loss_bursts(seq: np.ndarray) -> np.ndarray:
    """Loss-burst lengths of one flow: Δseq − 1 for every Δseq > 1, i.e. the number of
    consecutive frames lost between two forwarded ones, in output order (T5.3)."""
    gaps = seq_gaps(seq)
    return gaps[gaps > 1] - 1


def jain_index(x: Sequence[float]) -> float:
    """Jain's fairness index (Σx)² / (n·Σx²), in [1/n, 1] (F5.5e, x = per-flow goodput).

    All-zero input gives nan: nothing was shared, so fairness is undefined (reporting 1.0
    would call a dead run perfectly fair). Empty input or a negative value raises ValueError.
    """
    a = _one_d(np.asarray(x, dtype=float), "x")
    if a.size == 0:
        raise ValueError("jain_index needs at least one value")
    if (a < 0).any():
        raise ValueError("jain_index is defined for non-negative allocations")
    sum_sq = float(np.sum(a * a))
    return math.nan if sum_sq == 0 else float(a.sum()) ** 2 / (a.size * sum_sq)


def linear_fit(x: np.ndarray, y: np.ndarray) -> LinearFit:
    """Least-squares fit y ≈ slope·x + intercept, with the standard deviation (ddof = 0) of the
    residuals as the regularity measure of T5.4 (x = burst length N, y = CBR frames lost).
    Needs at least two distinct x values, else ValueError."""
    xa, ya = _one_d(x, "x", float), _one_d(y, "y", float)
    if xa.shape != ya.shape:
        raise ValueError(f"x {xa.shape} and y {ya.shape} differ in length")
    if np.unique(xa).size < 2:
        raise ValueError("linear_fit needs at least two distinct x values")
    dx = xa - xa.mean()
    slope = float(np.dot(dx, ya - ya.mean()) / np.dot(dx, dx))
    intercept = float(ya.mean() - slope * xa.mean())
    residuals = ya - (slope * xa + intercept)
    return LinearFit(slope, intercept, float(np.sqrt(np.mean(residuals**2))))
