"""06.V5: packet, byte and sequence conservation in every run (spec 06 §7 V5)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from ...result import Result
from .. import quantities as q
from ..measure import flow_rows
from ..outcome import Check, Outcome, Table
from .path06 import FLOW, bdp_bytes, path_scenario
from ..engine import Case, Experiment


@dataclass(frozen=True)
class Params:
    rate_bps: float = field(metadata={"label": "bottleneck rate C", "unit": "bps"})
    rtt_s: float = field(metadata={"label": "RTT", "unit": "s"})
    duration_s: float = field(metadata={"label": "duration of each run", "unit": "s"})
    trace: str = field(default="event", metadata={"label": "TCP trace mode (a row after every event)"})
    seed: int = field(default=1, metadata={"label": "seed"})


FULL = Params(rate_bps=1e8, rtt_s=0.02, duration_s=30.0)
QUICK = Params(rate_bps=1e8, rtt_s=0.02, duration_s=3.0)


def cases(p: Params) -> list[Case]:
    """A set of runs that drives every drop cause and recovery path: tail drops (NewReno, CUBIC),
    random loss without SACK or timestamps, an outage with timeouts, a receive-window
    limit, delayed ACKs on a finite transfer, and the modern profile (PRR, fq + EDT pacing)."""
    bdp = bdp_bytes(p.rate_bps, p.rtt_s)
    common: dict[str, Any] = dict(
        rate_bps=p.rate_bps, rtt_s=p.rtt_s, duration_s=p.duration_s, trace={"mode": p.trace}, seed=p.seed
    )
    small = {"kind": "droptail", "limit": q.size(round(bdp / 2))}
    big = {"kind": "droptail", "limit": q.size(round(8 * bdp))}
    outage = {
        "kind": "bernoulli",
        "p": 1.0,
        "applies_to": "all",
        "start": q.time(p.duration_s / 3),
        "stop": q.time(p.duration_s / 3 + 1.5),
    }
    runs = {
        "tail-newreno": path_scenario(
            "06.V5-tail-newreno", queue=small, sndbuf_bytes=4 * bdp, rcvbuf_bytes=4 * bdp, **common
        ),
        "tail-cubic": path_scenario(
            "06.V5-tail-cubic", queue=small, sndbuf_bytes=4 * bdp, rcvbuf_bytes=4 * bdp, cc="cubic", **common
        ),
        "random-nosack": path_scenario(
            "06.V5-random-nosack",
            queue=big,
            sndbuf_bytes=4 * bdp,
            rcvbuf_bytes=4 * bdp,
            loss={"kind": "bernoulli", "p": 1e-3},
            tcp={"sack": False, "timestamps": False},
            **common,
        ),
        "outage-rto": path_scenario(
            "06.V5-outage-rto", queue=small, sndbuf_bytes=4 * bdp, rcvbuf_bytes=4 * bdp, loss=outage, **common
        ),
        "rwnd-limited": path_scenario(
            "06.V5-rwnd-limited", queue=big, sndbuf_bytes=4 * bdp, rcvbuf_bytes=bdp, **common
        ),
        "finite-delayed": path_scenario(
            "06.V5-finite-delayed",
            queue={"kind": "droptail", "limit_packets": 20},
            sndbuf_bytes=4 * bdp,
            rcvbuf_bytes=4 * bdp,
            tcp={"ack_policy": "delayed"},
            transfer_bytes=round(p.rate_bps * p.duration_s / 8 / 4),
            **common,
        ),
        "modern-cubic-fq": path_scenario(
            "06.V5-modern-cubic-fq",
            queue=small,
            sndbuf_bytes=4 * bdp,
            rcvbuf_bytes=4 * bdp,
            cc="cubic",
            profile="linux-modern",
            **common,
        ),
    }
    return [Case(label, scenario, audit) for label, scenario in runs.items()]


def audit(r: Result) -> dict[str, Any]:
    """The conservation identities of one run, from its summary and its TCP trace."""
    s = r.summary
    c = s["conservation"]
    rows = flow_rows(r.tcp, FLOW)
    una = rows["snd_una"].to_numpy(dtype=np.int64)
    read = rows["bytes_read"].to_numpy(dtype=np.int64)
    smax = rows["snd_max"].to_numpy(dtype=np.int64)
    flow = s["flows"][0]
    return {
        "holds": bool(c["holds"]),
        "frames_emitted": c["frames_emitted"],
        "frames_delivered": c["frames_delivered"],
        "frames_dropped": c["frames_dropped"],
        "frames_queued_at_end": c["frames_queued_at_end"],
        "frames_on_links_at_end": c["frames_on_links_at_end"],
        "frames_balance": c["frames_emitted"]
        - (c["frames_delivered"] + c["frames_dropped"] + c["frames_queued_at_end"]
           + c["frames_processing_at_end"] + c["frames_on_links_at_end"]),
        "bytes_balance": c["bytes_emitted"]
        - (c["bytes_delivered"] + c["bytes_dropped"] + c["bytes_queued_at_end"]
           + c["bytes_processing_at_end"] + c["bytes_on_links_at_end"]),
        "queue_drops": sum(qs["dropped"] for qs in s["queues"]),
        "trace_rows": len(rows),
        "rows_una_above_read": int(np.sum(una > read)),
        "rows_read_above_snd_max": int(np.sum(read > smax)),
        "rows_read_decreasing": int(np.sum(np.diff(read) < 0)),
        "final_bytes_read": int(read[-1]) if len(read) else 0,
        "bytes_delivered": flow["bytes_delivered"],
        "retransmitted_segments": flow["retransmitted_segments"],
        "timeouts": flow["timeouts"],
    }


def analyse(p: Params, results: Mapping[str, Any]) -> Outcome:
    frame = pd.DataFrame([{"run": label, **a} for label, a in results.items()])
    n = len(frame)
    out = Outcome()
    out.checks.append(
        Check.equal("runs whose summary reports conservation.holds", int(frame["holds"].sum()), n, criterion=f"all {n}")
    )
    out.checks.append(
        Check.equal(
            "runs with frames emitted ≠ delivered + dropped + queued + on links",
            int((frame["frames_balance"] != 0).sum()),
            0,
        )
    )
    out.checks.append(
        Check.equal(
            "runs with bytes emitted ≠ delivered + dropped + queued + on links",
            int((frame["bytes_balance"] != 0).sum()),
            0,
        )
    )
    out.checks.append(
        Check.equal(
            "runs dropping fewer frames in total than their queues report",
            int((frame["frames_dropped"] < frame["queue_drops"]).sum()),
            0,
        )
    )
    out.checks.append(
        Check.equal(
            "trace rows with snd_una > bytes_read",
            int(frame["rows_una_above_read"].sum()),
            0,
            criterion=f"0 of {int(frame['trace_rows'].sum())}",
        )
    )
    out.checks.append(
        Check.equal(
            "trace rows with bytes_read > snd_max",
            int(frame["rows_read_above_snd_max"].sum()),
            0,
            criterion=f"0 of {int(frame['trace_rows'].sum())}",
        )
    )
    out.checks.append(Check.equal("trace rows where bytes_read decreases", int(frame["rows_read_decreasing"].sum()), 0))
    out.checks.append(
        Check.equal(
            "runs whose final bytes_read ≠ bytes_delivered",
            int((frame["final_bytes_read"] != frame["bytes_delivered"]).sum()),
            0,
        )
    )
    finite = results["finite-delayed"]
    out.checks.append(
        Check.equal(
            "finite-delayed: bytes delivered = bytes sent by the application",
            finite["bytes_delivered"],
            round(p.rate_bps * p.duration_s / 8 / 4),
            unit="B",
        )
    )
    out.tables.append(
        Table(
            "conservation",
            "Per run: the end-of-run identity in frames and bytes (balance = emitted − "
            "delivered − dropped − queued − on links), queue drops against all drops, and the sequence "
            "order at every trace row.",
            frame,
        )
    )
    out.notes.append(
        "The engine also checks the identity at the end of every run and fails the run if it does not hold "
        "(docs/choices.md); here it is re-derived from `summary.json`. Drops not made by a queue are random "
        "losses on a link, so queue drops may be fewer than all drops, never more."
    )
    out.notes.append(
        "Sequence order uses the event-mode trace, a row after every ACK, transmission and timer: snd_una "
        "(sender) ≤ bytes_read (receiving application) ≤ snd_max (sender) at every row; each byte reaches the "
        "application once, so the final bytes_read equals the summary's bytes_delivered."
    )
    return out


EXPERIMENT = Experiment(
    id="06.V5",
    title="conservation",
    summary="frames, bytes and sequence numbers are conserved in runs that exercise every drop and recovery path",
    reference="spec 06 §7 (V5)",
    checks=(
        "Seven runs cover tail drops (NewReno, CUBIC), random loss without SACK or timestamps, an outage that forces "
        "timeouts, a receive-window limit, delayed ACKs on a finite transfer and the `linux-modern` profile with fq/EDT "
        "pacing. In each, the frames and bytes emitted by hosts must equal those delivered, dropped (by cause), still "
        "queued and still on links at the end; at every row of the event trace snd_una ≤ bytes read by the receiving "
        "application ≤ snd_max; and every byte must reach the application once (final bytes_read = bytes delivered)."
    ),
    full=FULL,
    quick=QUICK,
    cases=cases,
    analyse=analyse,
)
