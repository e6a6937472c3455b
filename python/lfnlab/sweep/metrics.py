"""The summary metrics of a run, flattened into index columns from its ``summary.json``
(spec 00 §2.4).

Columns, after the run's parameters:

- totals over flows: ``goodput_bps``, ``bytes_delivered``, ``retransmitted_segments``,
  ``timeouts``, ``fast_retransmits``, ``rcvbuf_drops``; over queues: ``queue_drops``;
- ``duration_s``, the simulated duration;
- per flow (by name): ``flow.<name>.goodput_bps``, ``.bytes_delivered``,
  ``.retransmitted_segments``, ``.timeouts``, ``.fast_retransmits``, ``.rcvbuf_drops``,
  ``.completion_s``, and for a TCP flow with a known path ``.utilisation`` (goodput over
  the bottleneck's wire bound, ``path.wire_bound_bps``);
- per queue (by name): ``queue.<name>.enqueued``, ``.dropped``, ``.max_bytes``, and
  ``.dropped.<cause>`` for each cause with drops (``drops_by_cause``: tail, red, …).

Wall-clock fields (``wall_seconds``, which differs from run to run) are not metrics.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Union

__all__ = ["flatten", "TOTALS", "FLOW_FIELDS", "QUEUE_FIELDS"]

Number = Union[int, float, None]

#: Summed over flows.
TOTALS = ("goodput_bps", "bytes_delivered", "retransmitted_segments", "timeouts", "fast_retransmits", "rcvbuf_drops")
#: Per flow.
FLOW_FIELDS = (*TOTALS, "completion_s")
#: Per queue.
QUEUE_FIELDS = ("enqueued", "dropped", "max_bytes")


def _number(value: Any) -> Number:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return value


def _total(values: Sequence[Number]) -> Number:
    present = [v for v in values if v is not None]
    return sum(present) if present else None


def _names(items: Sequence[Mapping[str, Any]], prefix: str) -> list[str]:
    """Each item's name, made unique by its position if two share one."""
    names = [str(item.get("name") or i) for i, item in enumerate(items)]
    seen: dict[str, int] = {}
    for n in names:
        seen[n] = seen.get(n, 0) + 1
    return [f"{prefix}.{n}" if seen[n] == 1 else f"{prefix}.{n}#{i}" for i, n in enumerate(names)]


def flatten(summary: Mapping[str, Any]) -> dict[str, Number]:
    """``summary.json`` as ``{column: number}`` (None where a value is absent or not a number)."""
    flows = [f for f in summary.get("flows") or [] if isinstance(f, Mapping)]
    queues = [q for q in summary.get("queues") or [] if isinstance(q, Mapping)]
    out: dict[str, Number] = {}
    for field in TOTALS:
        out[field] = _total([_number(f.get(field)) for f in flows])
    out["queue_drops"] = _total([_number(q.get("dropped")) for q in queues])
    out["duration_s"] = _number(summary.get("duration_s"))
    for name, flow in zip(_names(flows, "flow"), flows):
        for field in FLOW_FIELDS:
            out[f"{name}.{field}"] = _number(flow.get(field))
        path = flow.get("path")
        bound = _number(path.get("wire_bound_bps")) if isinstance(path, Mapping) else None
        goodput = _number(flow.get("goodput_bps"))
        if bound and goodput is not None:
            out[f"{name}.utilisation"] = goodput / bound
    for name, queue in zip(_names(queues, "queue"), queues):
        for field in QUEUE_FIELDS:
            out[f"{name}.{field}"] = _number(queue.get(field))
        causes = queue.get("drops_by_cause")
        if isinstance(causes, Mapping):
            for cause, n in sorted(causes.items()):
                out[f"{name}.dropped.{cause}"] = _number(n)
    return out
