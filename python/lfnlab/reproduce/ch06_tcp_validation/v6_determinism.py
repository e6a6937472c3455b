"""06.V6: one seed, one world: identical event logs and summaries (spec 06 §7 V6)."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from ...result import RESULT_FILES, Result
from ..outcome import Check, Outcome, Table
from .path06 import path_scenario
from ..engine import Case, Experiment


@dataclass(frozen=True)
class Params:
    rate_bps: float = field(metadata={"label": "bottleneck rate C", "unit": "bps"})
    rtt_s: float = field(metadata={"label": "RTT", "unit": "s"})
    buffer_bytes: float = field(metadata={"label": "bottleneck buffer", "unit": "B"})
    loss_p: float = field(metadata={"label": "Bernoulli loss p (random stream in use)"})
    duration_s: float = field(metadata={"label": "duration", "unit": "s"})
    seed: int = field(metadata={"label": "seed (runs a–d)"})
    other_seed: int = field(metadata={"label": "seed of run e"})
    socket_bytes: float = field(default=64 * 2**20, metadata={"label": "socket buffers", "unit": "B"})
    cc: str = field(default="newreno", metadata={"label": "congestion control"})
    profile: str = field(default="linux-2.6", metadata={"label": "profile"})


FULL = Params(rate_bps=1e9, rtt_s=0.05, buffer_bytes=200_000, loss_p=1e-4, duration_s=5.0, seed=1, other_seed=2)
QUICK = Params(rate_bps=1e9, rtt_s=0.05, buffer_bytes=200_000, loss_p=1e-4, duration_s=2.0, seed=1, other_seed=2)

#: Runs: label → (trace table, seed is the other one). Run a is the reference.
RUNS = {
    "a-bin": ({"mode": "bin", "bin": "10ms"}, False),
    "b-bin-again": ({"mode": "bin", "bin": "10ms"}, False),
    "c-trace-off": ({"mode": "off"}, False),
    "d-trace-event": ({"mode": "event"}, False),
    "e-other-seed": ({"mode": "bin", "bin": "10ms"}, True),
}
REFERENCE = "a-bin"


def summary_without_wall_clock(summary: dict[str, Any]) -> str:
    """``summary.json`` as canonical JSON without ``wall_seconds`` (the one field that may differ)."""
    return json.dumps({k: v for k, v in summary.items() if k != "wall_seconds"}, sort_keys=True)


def file_digests(directory: Path) -> dict[str, str]:
    """SHA-256 of each result file; ``summary.json`` without its wall-clock field."""
    digests = {}
    for name in RESULT_FILES:
        if name == "summary.json":
            data = summary_without_wall_clock(json.loads((directory / name).read_text(encoding="utf-8"))).encode()
        else:
            data = (directory / name).read_bytes()
        digests[name] = hashlib.sha256(data).hexdigest()
    return digests


def _keep(r: Result) -> dict[str, Any]:
    """The summary, the digests of the result files, and the TCP trace's length."""
    assert r.out_dir is not None
    return {"summary": r.summary, "digests": file_digests(r.out_dir), "tcp_rows": len(r.tcp)}


def cases(p: Params) -> list[Case]:
    """The runs a–e of :data:`RUNS`; one name for all: the name is part of the scenario and of summary.json."""
    return [
        Case(
            label,
            path_scenario(
                "06.V6",
                rate_bps=p.rate_bps,
                rtt_s=p.rtt_s,
                duration_s=p.duration_s,
                queue={"kind": "droptail", "limit": f"{round(p.buffer_bytes)}B"},
                sndbuf_bytes=p.socket_bytes,
                rcvbuf_bytes=p.socket_bytes,
                cc=p.cc,
                profile=p.profile,
                loss={"kind": "bernoulli", "p": p.loss_p},
                trace=trace,
                seed=p.other_seed if other else p.seed,
            ),
            _keep,
        )
        for label, (trace, other) in RUNS.items()
    ]


def analyse(p: Params, results: Mapping[str, Any]) -> Outcome:
    ref = results[REFERENCE]
    out = Outcome()
    rows = []
    for label, m in results.items():
        s = m["summary"]
        differ = [name for name in RESULT_FILES if m["digests"][name] != ref["digests"][name]]
        rows.append(
            {
                "run": label,
                "seed": s["seed"],
                "trace": RUNS[label][0]["mode"],
                "event_hash": s["event_hash"],
                "events_executed": s["events_executed"],
                "tcp_rows": m["tcp_rows"],
                "goodput_bps": s["flows"][0]["goodput_bps"],
                "retransmitted_segments": s["flows"][0]["retransmitted_segments"],
                "summary_equals_a": summary_without_wall_clock(s) == summary_without_wall_clock(ref["summary"]),
                "files_differing_from_a": " ".join(differ) or "none",
            }
        )
    by = {r["run"]: r for r in rows}
    for label in ("b-bin-again", "c-trace-off", "d-trace-event"):
        out.checks.append(
            Check.equal(f"{label}: event hash = run a's", by[label]["event_hash"], ref["summary"]["event_hash"])
        )
        out.checks.append(
            Check.equal(f"{label}: summary.json = run a's (without wall_seconds)", by[label]["summary_equals_a"], True)
        )
    out.checks.append(
        Check.equal(
            "b-bin-again: every result file identical to run a's", by["b-bin-again"]["files_differing_from_a"], "none"
        )
    )
    # The trace mode is part of the scenario, and it decides tcp.parquet and whether the
    # burstiness diagnostic busy.parquet is recorded (spec 03 §2.1); nothing else may change.
    for label, allowed in (
        ("c-trace-off", "tcp.parquet busy.parquet scenario.toml"),
        ("d-trace-event", "tcp.parquet scenario.toml"),
    ):
        out.checks.append(
            Check.equal(
                f"{label}: files differing from run a's",
                by[label]["files_differing_from_a"],
                allowed,
                criterion="only " + " and ".join(allowed.split()),
            )
        )
    out.checks.append(
        Check.equal(
            "e-other-seed: event hash differs from run a's (the seed is used)",
            by["e-other-seed"]["event_hash"] != ref["summary"]["event_hash"],
            True,
        )
    )
    out.tables.append(
        Table(
            "determinism",
            "Every run against run a: event-log hash, summary without `wall_seconds`, "
            "and which result files differ byte for byte.",
            pd.DataFrame(rows),
        )
    )
    out.notes.append(
        "Runs a–d share scenario and seed and differ only in `sim.trace.mode`; they run in parallel threads, "
        "so equality also shows that neither scheduling nor tracing reaches the simulation."
    )
    out.notes.append(
        "`summary.json` is compared without `wall_seconds`, the only field allowed to vary (docs/choices.md)."
    )
    return out


EXPERIMENT = Experiment(
    id="06.V6",
    title="determinism",
    summary="the same scenario and seed give the same event-log hash and summary, with tracing on or off",
    reference="spec 06 §7 (V6)",
    checks=(
        "A lossy run (Bernoulli loss, so the random streams matter) is made twice with the same seed, once with the "
        "TCP trace off and once in event mode. All four must have the same event-log hash and the same `summary.json` "
        "(wall-clock seconds aside); the repeat must reproduce every result file byte for byte, and the runs that "
        "change only the trace mode may differ only in `tcp.parquet`, the `scenario.toml` that records the mode and (with the trace off) `busy.parquet`, which is recorded only with traces on. "
        "A fifth run with another seed must give another hash."
    ),
    full=FULL,
    quick=QUICK,
    cases=cases,
    analyse=analyse,
)
