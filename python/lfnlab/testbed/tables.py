"""The Parquet tables of a testbed result, in the simulator's schemas
(crates/lfnlab-core/src/monitor/, python/lfnlab/result.py): same names, same order,
same types. What the testbed cannot measure is null; the tables the testbed has no
source for (packets, hosts, busy, objects) are empty.

``tcp`` rows come from ``ss`` samples of the sender (units of the simulator: times in
s, windows in segments, rates in B/s, sequence numbers relative, in bytes):

| column | from ``ss -ti`` |
|---|---|
| srtt, rttvar, rto, min_rtt | rtt A/B, rto, minrtt (ms → s) |
| cwnd, ssthresh | cwnd, ssthresh (absent: not yet set → inf) |
| in_flight | unacked − sacked − lost + retrans_out (the kernel's packets in flight) |
| sacked_out, lost_out, retrans_out | sacked, lost, retrans A |
| bytes_in_flight | in_flight × mss |
| snd_una, bytes_acked | bytes_acked − 1 (the SYN) |
| snd_nxt, snd_max | bytes_sent − bytes_retrans (new data sent) |
| rwnd | snd_wnd |
| pacing_rate | pacing_rate / 8 when the flow is paced (internal pacing or bbr), else 0 as in the simulator |
| delivery_rate | delivery_rate / 8 |
| retrans, dsacks | retrans B, dsack_dups |
| bytes_written | new data sent + notsent |
| lim_rwnd_s | rwnd_limited (ms → s) |

Null: latest_rtt, rcv_wnd, m_used, ca_state, dupacks, sack_blocks, fast_retrans, rtos,
send_stalls, cwr_entries, bytes_read, rounds, snd_lim, lim_cwnd_s, lim_application_s,
lim_stall_s, lim_pacing_s and the per-bin extremes cwnd_min … in_flight_max (one
sample per 100 ms sees no extremes). The simulator's ``cc_*`` columns are left out.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, Callable, Optional

from .sampler import Sample

if TYPE_CHECKING:
    import pyarrow as pa

__all__ = ["schemas", "tcp_table", "table", "empty_table"]

F, U, S = "f64", "u64", "str"
#: Column names and types of each table, as the simulator writes them.
COLUMNS: dict[str, list[tuple[str, str]]] = {
    "flows": [("monitor", S), ("flow", S), ("t", F), ("bytes", U), ("packets", U)],
    "tcp": [
        ("t", F), ("flow", S), ("srtt", F), ("rttvar", F), ("rto", F), ("min_rtt", F), ("latest_rtt", F),
        ("cwnd", F), ("ssthresh", F), ("in_flight", U), ("sacked_out", U), ("lost_out", U), ("retrans_out", U),
        ("bytes_in_flight", U), ("snd_una", U), ("snd_nxt", U), ("snd_max", U), ("rwnd", U), ("rcv_wnd", U),
        ("m_used", U), ("pacing_rate", F), ("delivery_rate", F), ("ca_state", S), ("dupacks", U),
        ("sack_blocks", U), ("retrans", U), ("fast_retrans", U), ("rtos", U), ("send_stalls", U),
        ("cwr_entries", U), ("dsacks", U), ("bytes_acked", U), ("bytes_read", U), ("bytes_written", U),
        ("rounds", U), ("snd_lim", S), ("lim_cwnd_s", F), ("lim_rwnd_s", F), ("lim_application_s", F),
        ("lim_stall_s", F), ("lim_pacing_s", F), ("cwnd_min", F), ("cwnd_max", F), ("in_flight_min", U),
        ("in_flight_max", U),
    ],
    "queues": [("queue", S), ("t", F), ("bytes", U), ("packets", U), ("max_bytes", U), ("drops", U), ("enqueued", U)],
    "packets": [
        ("monitor", S), ("t", F), ("flow", S), ("dir", U), ("kind", S), ("l3_bytes", U), ("seq", U), ("ack", U),
        ("payload", U), ("win", U), ("sack_left", U), ("sack_right", U),
    ],
    "hosts": [
        ("host", S), ("t", F), ("dma_real_bytes", U), ("dma_gap_bytes", U), ("copy_bytes", U), ("frames", U),
        ("gap_frames", U), ("gap_wire_bytes", U), ("mem_app_bytes_per_s", F),
    ],
    "busy": [("host", S), ("t", F), ("window_s", F), ("frames", U), ("payload_bytes", U), ("x_bps", F), ("busy_s", F), ("z_bytes", F)],
    "objects": [
        ("flow", S), ("user", U), ("object", U), ("files", U), ("bytes", U), ("start_s", F), ("end_s", F),
        ("download_s", F), ("connections", U),
    ],
}  # fmt: skip


def schemas() -> dict[str, pa.Schema]:
    import pyarrow as pa

    types = {F: pa.float64(), U: pa.uint64(), S: pa.string()}
    return {name: pa.schema([(c, types[t]) for c, t in cols]) for name, cols in COLUMNS.items()}


def table(name: str, columns: dict[str, Any], n_rows: int) -> pa.Table:
    """Table ``name`` of ``n_rows`` rows from ``columns`` (lists or arrays of that
    length); a column not given is all null."""
    import pyarrow as pa

    schema = schemas()[name]
    n = n_rows
    arrays = [pa.array(columns[f.name], type=f.type) if f.name in columns else pa.nulls(n, type=f.type) for f in schema]
    return pa.Table.from_arrays(arrays, schema=schema)


def empty_table(name: str) -> pa.Table:
    return schemas()[name].empty_table()


def _get(fields: dict[str, Any], key: str, scale: float = 1.0, default: Optional[float] = None) -> Optional[float]:
    v = fields.get(key, default)
    return None if v is None or isinstance(v, (str, bool)) else float(v) * scale


def _count(fields: dict[str, Any], key: str) -> int:
    return int(_get(fields, key, default=0.0) or 0)


def tcp_table(samples: list[Sample], flow: str, t0_ns: int, end_ns: int, paced: bool) -> pa.Table:
    """The ``tcp`` table of the samples taken in [t0_ns, end_ns]."""
    rows = [s for s in samples if t0_ns <= s.t_ns <= end_ns]
    ms = 1e-3
    derived = ("t", "in_flight", "bytes_in_flight", "snd_una", "bytes_acked", "snd_nxt", "snd_max", "bytes_written")
    cols: dict[str, list[Any]] = {c: [] for c in derived}
    per_column: dict[str, Callable[[dict[str, Any]], Any]] = {
        "flow": lambda f: flow,
        "srtt": lambda f: _get(f, "rtt_ms", ms, math.nan),
        "rttvar": lambda f: _get(f, "rttvar_ms", ms),
        "rto": lambda f: _get(f, "rto", ms),
        "min_rtt": lambda f: _get(f, "minrtt", ms, math.nan),
        "cwnd": lambda f: _get(f, "cwnd"),
        "ssthresh": lambda f: _get(f, "ssthresh", default=math.inf),
        "sacked_out": lambda f: _count(f, "sacked"),
        "lost_out": lambda f: _count(f, "lost"),
        "retrans_out": lambda f: _count(f, "retrans_out"),
        "rwnd": lambda f: None if "snd_wnd" not in f else _count(f, "snd_wnd"),
        "pacing_rate": lambda f: (_get(f, "pacing_rate_bps", 1 / 8) if paced else 0.0),
        "delivery_rate": lambda f: _get(f, "delivery_rate_bps", 1 / 8, 0.0),
        "retrans": lambda f: _count(f, "retrans_total"),
        "dsacks": lambda f: _count(f, "dsack_dups"),
        "lim_rwnd_s": lambda f: _get(f, "rwnd_limited", ms, 0.0),
    }
    for s in rows:
        f = s.fields
        cols["t"].append((s.t_ns - t0_ns) / 1e9)
        for c, get in per_column.items():
            cols.setdefault(c, []).append(get(f))
        in_flight = max(0, _count(f, "unacked") - _count(f, "sacked") - _count(f, "lost") + _count(f, "retrans_out"))
        cols["in_flight"].append(in_flight)
        cols["bytes_in_flight"].append(in_flight * _count(f, "mss"))
        acked = max(0, _count(f, "bytes_acked") - 1)
        sent_new = max(0, _count(f, "bytes_sent") - _count(f, "bytes_retrans"))
        for c, v in (("snd_una", acked), ("bytes_acked", acked), ("snd_nxt", sent_new), ("snd_max", sent_new)):
            cols[c].append(v)
        cols["bytes_written"].append(sent_new + _count(f, "notsent"))
    return table("tcp", {c: v for c, v in cols.items() if len(v) == len(rows)}, len(rows))
