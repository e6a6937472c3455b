"""The relay's per-frame trace (``--trace``, crates/lfnlab-emu/src/trace.rs): the time
origin of a run, the drops inside its measurement window, and the per-bin counters of
the simulator's monitors.

Trace columns: ``dir,arrival_ns,start_ns,depart_ns,sent_ns,len_bytes`` (CLOCK_REALTIME
ns; a dropped frame has no start and ``drop:<reason>`` as ``sent_ns``; a frame lost at
random after the queue and the line keeps its start, with ``drop:link_loss``). Frame sizes
are counted as the simulator counts them: L2 = max(captured + 4 (FCS), 64) bytes.
The queue holds a frame from its arrival (if accepted) until its transmission starts,
the relay's and the simulator's backlog definition.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

__all__ = ["Frames", "read", "first_data_arrival_ns", "drops_between", "egress_bins", "queue_bins", "n_bins"]

FCS_BYTES = 4
MIN_L2_BYTES = 64
#: A frame at least this long (captured bytes) toward the receiver is data: the
#: control connection's messages before the test are far shorter.
MIN_DATA_FRAME_BYTES = 1000


@dataclass(frozen=True)
class Frames:
    """One direction's frames, in arrival order."""

    arrival_ns: np.ndarray
    #: Start of transmission; -1 for a dropped frame.
    start_ns: np.ndarray
    #: Captured bytes (no FCS).
    len_bytes: np.ndarray
    #: ``""`` for a delivered frame, else the drop reason (``tail``, ``oversize``, …).
    drop_reason: np.ndarray

    @property
    def l2_bytes(self) -> np.ndarray:
        return np.maximum(self.len_bytes + FCS_BYTES, MIN_L2_BYTES)

    @property
    def accepted(self) -> np.ndarray:
        return self.start_ns >= 0


def read(path: Path) -> dict[str, Frames]:
    """The trace as ``{"a_to_b": Frames, "b_to_a": Frames}``."""
    import pyarrow as pa
    import pyarrow.csv as pacsv

    i64, text = pa.int64(), pa.string()
    types = {"dir": text, "arrival_ns": i64, "start_ns": i64, "depart_ns": i64, "sent_ns": text, "len_bytes": i64}
    table = pacsv.read_csv(path, convert_options=pacsv.ConvertOptions(column_types=types))
    direction = table["dir"].to_numpy(zero_copy_only=False).astype(str)
    sent = table["sent_ns"].to_numpy(zero_copy_only=False).astype(str)
    out = {}
    for name in ("a_to_b", "b_to_a"):
        rows = np.flatnonzero(direction == name)
        arrival = table["arrival_ns"].to_numpy()[rows]
        order = np.argsort(arrival, kind="stable")
        rows = rows[order]
        start = table["start_ns"].fill_null(-1).to_numpy()[rows]
        reason = np.where(np.char.startswith(sent[rows], "drop:"), np.char.replace(sent[rows], "drop:", ""), "")
        out[name] = Frames(arrival[order], start, table["len_bytes"].to_numpy()[rows], reason)
    return out


def first_data_arrival_ns(frames: Frames) -> int | None:
    """Arrival of the first data frame toward the receiver: iperf3's first write."""
    idx = np.flatnonzero(frames.len_bytes >= MIN_DATA_FRAME_BYTES)
    return int(frames.arrival_ns[idx[0]]) if idx.size else None


def drops_between(frames: Frames, lo_ns: int, hi_ns: int, reason: str) -> int:
    """Drops for ``reason`` (``tail``: the queue's; ``link_loss``: random loss after the
    queue and the line) of frames that arrived in [lo_ns, hi_ns)."""
    a = frames.arrival_ns
    return int(np.count_nonzero((frames.drop_reason == reason) & (a >= lo_ns) & (a < hi_ns)))


def n_bins(t0_ns: int, end_ns: int, bin_ns: int) -> int:
    """Bins of ``bin_ns`` from ``t0_ns`` covering up to ``end_ns`` (a partial last bin kept)."""
    return max(0, -(-(end_ns - t0_ns) // bin_ns))


def _bin_of(t_ns: np.ndarray, t0_ns: int, bin_ns: int, n: int) -> tuple[np.ndarray, np.ndarray]:
    k = (t_ns - t0_ns) // bin_ns
    keep = (t_ns >= t0_ns) & (k < n)
    return k[keep], keep


def egress_bins(frames: Frames, t0_ns: int, bin_ns: int, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Per bin: L2 bytes and frames that started onto the line (the monitor's egress point)."""
    ok = frames.accepted
    k, keep = _bin_of(frames.start_ns[ok], t0_ns, bin_ns, n)
    return (
        np.bincount(k, weights=frames.l2_bytes[ok][keep], minlength=n).astype(np.uint64),
        np.bincount(k, minlength=n).astype(np.uint64),
    )


@dataclass(frozen=True)
class QueueBins:
    """Per bin, as the simulator's ``queues.parquet``: occupancy at the bin's end (L2
    bytes, frames), the bin's maximum, drops and enqueues during the bin."""

    bytes: np.ndarray
    packets: np.ndarray
    max_bytes: np.ndarray
    drops: np.ndarray
    enqueued: np.ndarray


def queue_bins(frames: Frames, t0_ns: int, bin_ns: int, n: int) -> QueueBins:
    ok = frames.accepted
    arrival, l2_in = frames.arrival_ns[ok], frames.l2_bytes[ok]
    s_order = np.argsort(frames.start_ns[ok], kind="stable")
    start, l2_out = frames.start_ns[ok][s_order], l2_in[s_order]
    cum_in = np.concatenate(([0], np.cumsum(l2_in)))
    cum_out = np.concatenate(([0], np.cumsum(l2_out)))

    def occupancy(t_ns: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        i, o = np.searchsorted(arrival, t_ns, "right"), np.searchsorted(start, t_ns, "right")
        return cum_in[i] - cum_out[o], i - o

    edges = t0_ns + bin_ns * np.arange(n + 1, dtype=np.int64)
    at_edge, packets_at_edge = occupancy(edges)
    # After each enqueue, counting the frame itself even if it starts at once.
    after_enqueue = cum_in[1:] - cum_out[np.searchsorted(start, arrival, "left")]
    max_bytes = at_edge[:-1].copy()
    k, keep = _bin_of(arrival, t0_ns, bin_ns, n)
    np.maximum.at(max_bytes, k, after_enqueue[keep])
    kd, _ = _bin_of(frames.arrival_ns[frames.drop_reason == "tail"], t0_ns, bin_ns, n)
    return QueueBins(
        bytes=at_edge[1:].astype(np.uint64),
        packets=packets_at_edge[1:].astype(np.uint64),
        max_bytes=np.maximum(max_bytes, at_edge[1:]).astype(np.uint64),
        drops=np.bincount(kd, minlength=n).astype(np.uint64),
        enqueued=np.bincount(k, minlength=n).astype(np.uint64),
    )
