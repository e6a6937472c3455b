"""``summary.json`` of a testbed run and the atomic write of its result directory.

The directory has the simulator's files (``RESULT_FILES``): they are written into a
hidden sibling ``.NAME.partial-PID``, ``summary.json`` last, and renamed into place
only when complete, as crates/lfnlab-core/src/results/write.rs does; an earlier result
at the same path is replaced, any other non-empty directory is refused.

The summary has the simulator's keys (what the testbed cannot measure is null or
empty) and a ``testbed`` object: validity, the relay's statistics, iperf3's summary and
intervals, the kernel, the congestion control in use, the namespace's TCP counters, the
time origin and the measurement window (docs/testbed.md).
"""

from __future__ import annotations

import json
import os
import platform
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Optional

from ..errors import OutputError
from ..result import RESULT_FILES
from .iperf import IperfResult
from .subset import Plan

if TYPE_CHECKING:
    import pyarrow as pa

__all__ = ["Measured", "validity", "summary", "check_out_dir", "write_dir", "LATENESS_P99_LIMIT_US"]

#: Relay lateness p99 above which a run measured the host, not the path (issue 11).
LATENESS_P99_LIMIT_US = 200.0
OVERLOADED = "invalid: host overloaded"
MARKER = "summary.json"
#: The relay's drops that belong to the emulated path (its queue, its random loss); any
#: other reason means the relay itself lost the frame, and the run is not valid.
_PATH_DROPS = ("tail", "link_loss")


@dataclass
class Measured:
    """Everything one run measured, for the summary."""

    repetition: int
    wall_seconds: float
    iperf: IperfResult
    relay: dict[str, Any]
    #: CLOCK_REALTIME ns: the time origin, the first data frame at the relay, the end of iperf3's test.
    t0_ns: int
    data_start_ns: int
    window_end_ns: int
    #: Drop-tail drops toward the receiver in iperf3's window shifted one base RTT earlier.
    drops_in_window: int
    drop_window_ns: tuple[int, int]
    #: Random losses toward the receiver (after the queue and the line) in the same window.
    losses_in_window: int
    tcp_counters: dict[str, int]
    cc_in_use: Optional[str]
    samples: int
    sampler_errors: list[str]
    sysctls: dict[str, dict[str, str]]
    namespaces: tuple[str, ...]
    commands: dict[str, list[str]]
    server: dict[str, Any] = field(default_factory=dict)
    #: The machine's CPU time by category during the transfer, as shares (lab.cpu_share).
    cpu: dict[str, float] = field(default_factory=dict)


def _p99(relay: dict[str, Any]) -> Optional[float]:
    values = [relay[d]["lateness"]["p99_us"] for d in ("a_to_b", "b_to_a") if relay[d]["lateness"]["p99_us"] is not None]
    return max(values) if values else None


def validity(plan: Plan, m: Measured) -> tuple[bool, Optional[str], list[str]]:
    """(valid, short reason, every problem found). A run whose relay ran late, lost frames
    to anything but its queue, or whose connection ran another congestion control
    measured the host, not the scenario: it is reported, never judged."""
    problems: list[tuple[str, str]] = []
    p99 = _p99(m.relay)
    if p99 is not None and p99 > LATENESS_P99_LIMIT_US:
        steal = m.cpu.get("steal")
        stolen = f"; CPU steal {steal:.1%} of the machine's time" if steal is not None else ""
        problems.append((OVERLOADED, f"{OVERLOADED} (relay lateness p99 {p99:g} µs > {LATENESS_P99_LIMIT_US:g} µs{stolen})"))
    for d in ("a_to_b", "b_to_a"):
        other = {k: v for k, v in m.relay[d]["drops_by_reason"].items() if k not in _PATH_DROPS and v}
        if other:
            problems.append(("invalid: relay lost frames", f"invalid: the relay lost frames {d} outside its queue: {other}"))
        if m.relay[d]["csum_not_ready"]:
            n = m.relay[d]["csum_not_ready"]
            problems.append(("invalid: checksum offload on", f"invalid: {n} frames {d} with unfinished checksums"))
    if m.cc_in_use is not None and m.cc_in_use != plan.kernel_cc:
        problems.append(("invalid: wrong congestion control", f"invalid: the connection ran {m.cc_in_use}, not {plan.kernel_cc}"))
    if not problems:
        return True, None, []
    return False, problems[0][0], [p[1] for p in problems]


def _queue(name: str, d: dict[str, Any]) -> dict[str, Any]:
    """The emulator's queue of one direction as the simulator reports it: a frame lost at
    random after it was enqueued counts as enqueued, and among the link's losses."""
    by_cause = {k: v for k, v in d["drops_by_reason"].items() if v and k != "link_loss"}
    dropped = d["drops"] - d["drops_by_reason"].get("link_loss", 0)
    return {
        "name": name,
        "enqueued": d["frames_in"] - dropped,
        "dropped": dropped,
        "drops_by_cause": by_cause,
        "max_bytes": d["max_backlog_bytes"],
    }


def _pacing(plan: Plan) -> dict[str, Any]:
    if plan.kernel_cc == "bbr":
        how = "TCP internal pacing (bbr always asks for it)"
    elif plan.pacing == "internal":
        how = "TCP internal pacing (switched on by SO_MAX_PACING_RATE, iperf3 --fq-rate)"
    else:
        how = "none"
    return {"scenario": plan.pacing, "in_use": how, "max_pacing_rate_bps": plan.max_pacing_rate_bps}


def summary(plan: Plan, m: Measured) -> dict[str, Any]:
    valid, reason, problems = validity(plan, m)
    received, sent = m.iperf.received, m.iperf.sent
    counters = m.tcp_counters
    s = lambda ns: (ns - m.t0_ns) / 1e9  # noqa: E731 - seconds from the time origin
    flow = {
        "name": plan.flow,
        "kind": "tcp_bulk",
        "goodput_bps": float(received["bits_per_second"]),
        "bytes_delivered": int(received["bytes"]),
        "retransmitted_segments": m.iperf.retransmits,
        "timeouts": counters.get("TcpExt.TCPTimeouts", 0),
        "fast_retransmits": counters.get("TcpExt.TCPFastRetrans", 0),
        "completion_s": None,
        "cps": None,
        "response_time_s": None,
        "quickstart": None,
        "web": None,
    }
    testbed = {
        "valid": valid,
        "reason": reason,
        "problems": problems,
        "repetition": m.repetition,
        "kernel": platform.release(),
        "iperf3_version": m.iperf.raw.get("start", {}).get("version"),
        "cc_scenario": plan.cc,
        "cc_requested": plan.kernel_cc,
        "cc_in_use": m.cc_in_use,
        "cc_iperf3_sender": m.iperf.sender_cc,
        "pacing": _pacing(plan),
        "sysctls": m.sysctls,
        "time_zero": "one base RTT before the first data frame reached the relay (the simulator's SYN time)",
        "base_rtt_s": plan.base_rtt_ns / 1e9,
        "data_start_s": s(m.data_start_ns),
        "window_s": [s(m.data_start_ns), s(m.window_end_ns)],
        "bottleneck_drops_in_window": m.drops_in_window,
        "drop_window_s": [s(m.drop_window_ns[0]), s(m.drop_window_ns[1])],
        "bottleneck_drops_total": m.relay["a_to_b"]["drops_by_reason"]["tail"],
        "link_losses_in_window": m.losses_in_window,
        "link_loss_p": plan.a_to_b.loss_p,
        "lateness_p99_us": _p99(m.relay),
        "lateness_p99_limit_us": LATENESS_P99_LIMIT_US,
        # Shares of the machine's CPU time during the transfer (/proc/stat): `steal` is the
        # hypervisor's (a virtual CPU that wanted to run and did not).
        "cpu_share": m.cpu,
        # The per-frame trace is read into the tables and not kept.
        "relay": {**m.relay, "trace_path": None},
        "iperf3": {
            "sender": sent,
            "receiver": received,
            # iperf3 counts from its first write; shifted to the time origin.
            "intervals": [
                {**i, "start_s": i["start_s"] + s(m.data_start_ns), "end_s": i["end_s"] + s(m.data_start_ns)}
                for i in m.iperf.intervals()
            ],
            "cpu_utilization_percent": m.iperf.raw["end"].get("cpu_utilization_percent"),
            "server_receiver": m.server.get("end", {}).get("sum_received"),
        },
        "tcp_counters": counters,
        "sampler": {"period_s": 0.1, "samples": m.samples, "errors": m.sampler_errors[:10]},
        "namespaces": list(m.namespaces),
        "commands": m.commands,
    }
    return {
        "scenario": plan.name,
        "seed": plan.seed,
        "duration_s": float(plan.duration_s),
        "wall_seconds": m.wall_seconds,
        "events_executed": None,
        "data_packets": counters.get("TcpExt.TCPOrigDataSent", 0) + counters.get("Tcp.RetransSegs", 0),
        "event_hash": None,
        "flows": [flow],
        "queues": [_queue(plan.a_to_b.queue, m.relay["a_to_b"]), _queue(plan.b_to_a.queue, m.relay["b_to_a"])],
        "hosts": [],
        "nics": [],
        "host_nics": [],
        "link_losses": [
            {"link": plan.a_to_b.queue, "dropped": m.relay["a_to_b"]["drops_by_reason"].get("link_loss", 0), "bad_s": None, "transitions": []}
        ]
        if plan.a_to_b.loss_p > 0
        else [],
        "reordered_frames": 0,
        "host_cpus": [],
        "pause_ports": [],
        "switch_pause": [],
        "switches": [],
        "quickstart_interfaces": [],
        "ttl_drops": 0,
        "conservation": None,
        "testbed": testbed,
    }


def check_out_dir(d: Path) -> Optional[str]:
    """Why ``d`` may not receive a result (None if it may): the rules of the simulator's writer."""
    if d.name in ("", ".", ".."):
        return f"{d}: give the result directory a name (not `.`, `..` or `/`)"
    if d.is_symlink():
        return f"{d}: is a symbolic link; give the directory it points to"
    if not d.exists():
        return None
    if not d.is_dir():
        return f"{d}: exists and is not a directory"
    if (d / MARKER).is_file() or not any(d.iterdir()):
        return None
    return f"{d}: exists and is not an lfnlab result directory (no {MARKER}); refusing to replace it"


def write_dir(d: Path, tables: dict[str, pa.Table], summary_doc: dict[str, Any], scenario_toml: str) -> None:
    """Writes the result directory ``d`` atomically (see the module documentation)."""
    import pyarrow.parquet as pq

    reason = check_out_dir(d)
    if reason is not None:
        raise OutputError(reason)
    parent = d.parent
    tmp = parent / f".{d.name}.partial-{os.getpid()}"
    old = parent / f".{d.name}.old-{os.getpid()}"
    try:
        parent.mkdir(parents=True, exist_ok=True)
        shutil.rmtree(tmp, ignore_errors=True)
        tmp.mkdir()
        for f in RESULT_FILES:
            if f.endswith(".parquet"):
                pq.write_table(tables[f.removesuffix(".parquet")], tmp / f, compression="snappy")
        (tmp / "scenario.toml").write_text(scenario_toml, encoding="utf-8")
        (tmp / MARKER).write_text(json.dumps(summary_doc, indent=2, allow_nan=False) + "\n", encoding="utf-8")
        if d.exists():
            shutil.rmtree(old, ignore_errors=True)
            os.rename(d, old)
        os.rename(tmp, d)
        shutil.rmtree(old, ignore_errors=True)
    except (OSError, ValueError) as e:  # ValueError: a NaN in the summary
        shutil.rmtree(tmp, ignore_errors=True)
        if old.exists() and not d.exists():
            os.rename(old, d)
        raise OutputError(f"{d}: cannot write the result: {getattr(e, 'strerror', None) or e}") from None
