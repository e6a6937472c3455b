"""01.V1: end-to-end verification of the IPG-aware classful scheduler (spec 01 §3 V1, §2.5).

The qdisc-level properties are unit-tested in Rust (``crates/lfnlab-core/src/net/ipg/tests.rs``,
a NIC loop pulling from the qdisc); here the same properties are shown through whole scenarios:

- V1a: one class. The same TCP transfer (Scalable TCP on the spec 01 §2.8 path, B = 128 KiB)
  with plain gap pacing (the default class 0) and with its traffic put in an explicit class 1
  (``dst = ["rcv"]``, ``tcp_estimate``) must give the same run: same event hash, same traces.
- V1b: two classes with fixed rates 40 and 25 MB/s (sum below the GbE line rate), each saturated
  by a UDP source at 1.1× its rate: each class leaves at its rate within 1 %, gap frames fill
  the rest of the line (real + gap wire bytes = line rate within 0.1 %), and no class sends more
  than two real packets back to back (spec 01 §2.5, last property).
- V1c: fixed 100 and 50 MB/s (oversubscribed): no gap frames at all, the line is fully used
  (within 0.1 %), and neither class leaves above its rate by more than 1 %.
- V1d: one GbE sender, two Scalable TCP flows to two destinations behind separate 128 KiB
  TailDrop bottlenecks (40 MB/s, RTT 100 ms; 25 MB/s, RTT 200 ms): no pacing, one class for the
  host total, one class per destination. The spec gives no criterion: the table ``v1d`` reports
  goodput and TailDrops; the checks are model properties only (conservation, goodput below each
  bottleneck's wire bound C·1448/1538).

V1b/V1c measure in steady state: the UDP sources exceed their class rates by only 10 %, so for the
first few hundred microseconds a class's queue runs empty between packets and the line idles
(an empty qdisc sends nothing, spec 01 §2.4). The runs last ``warmup + measure`` seconds and the
rates are taken over ``[warmup, warmup + measure)``: whole monitor bins at the sender's egress
for the classes, whole one-second ``hosts`` bins for real and gap wire bytes.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Optional

import numpy as np
import pandas as pd

from ...result import Result
from ... import build as b
from ...scenario import Scenario
from .. import quantities as q
from ..engine import Case, Experiment
from ..figures import finish_axes, new_figure
from ..measure import WIRE_OVERHEAD_BYTES
from ..outcome import Check, Figure, Outcome, Table, expectation, expectations_table
from .path01 import HOST_TCP, NIC_BYTES_PER_S, PROFILE, WIRE_BYTES, ipg_qdisc, path_scenario
from .common01 import MB, flow_entry, goodput_bound, host_entry, queue_entry

#: V1b/V1c per-class rate tolerance and line-use tolerance (spec 01 §3 V1; the issue's V1 acceptance).
CLASS_TOLERANCE = 0.01
LINE_TOLERANCE = 0.001
#: spec 01 §2.5: apart from runs caused by gaps below gap_pkt_min, at most two back to back.
MAX_BACK_TO_BACK = 2
#: Picoseconds per wire byte at 1 Gbit/s; the wire time of a full-size frame.
PS_PER_BYTE = 8000
WIRE_PS = WIRE_BYTES * PS_PER_BYTE
#: The sender's egress toward the router/emulator (V1b/V1c monitor and capture).
EGRESS = "snd->r"
#: Most frames captured per V1b/V1c run (≈ 81 300 per second at line rate).
CAPTURE_LIMIT = 400_000
#: V1d modes: label → caption (the sender's qdisc: pfifo, one ipg class, one class per destination).
V1D_CAPTIONS = {"off": "no pacing", "single": "single class (host total)", "classes": "two classes (per destination)"}
V1D_MODES = tuple(V1D_CAPTIONS)


@dataclass(frozen=True)
class Params:
    v1a_duration_s: float = field(metadata={"label": "V1a duration", "unit": "s"})
    v1d_duration_s: float = field(metadata={"label": "V1d duration", "unit": "s"})
    v1a_buffer_bytes: float = field(
        default=128 * 2**10, metadata={"label": "V1a TailDrop buffer B (path C 62.5 MB/s, RTT 200 ms)", "unit": "B"}
    )
    v1b_rates_MBps: tuple[float, float] = field(
        default=(40.0, 25.0), metadata={"label": "V1b class rates (fixed, wire)", "unit": "MB/s"}
    )
    v1c_rates_MBps: tuple[float, float] = field(
        default=(100.0, 50.0), metadata={"label": "V1c class rates (fixed, wire)", "unit": "MB/s"}
    )
    source_factor: float = field(default=1.1, metadata={"label": "V1b/V1c UDP source rate / class rate"})
    warmup_s: int = field(default=1, metadata={"label": "V1b/V1c warm-up before measuring", "unit": "s"})
    measure_s: int = field(default=1, metadata={"label": "V1b/V1c measured interval", "unit": "s"})
    udp_txqueuelen: int = field(default=100_000, metadata={"label": "V1b/V1c txqueuelen", "unit": "packets"})
    monitor_bin_s: float = field(default=0.01, metadata={"label": "V1b/V1c monitor bin", "unit": "s"})
    v1d_c_MBps: tuple[float, ...] = field(
        default=(40.0, 25.0), metadata={"label": "V1d bottleneck rates C (flows f1, f2; wire)", "unit": "MB/s"}
    )
    v1d_rtt_s: tuple[float, ...] = field(default=(0.1, 0.2), metadata={"label": "V1d RTTs (f1, f2)", "unit": "s"})
    v1d_buffer_bytes: float = field(default=128 * 2**10, metadata={"label": "V1d TailDrop buffers", "unit": "B"})
    v1d_early_s: float = field(default=10.0, metadata={"label": "V1d start-up interval for drop counts", "unit": "s"})
    seed: int = field(default=1, metadata={"label": "seed"})

    @property
    def v1b_rates(self) -> tuple[float, float]:
        """Class rates, wire bytes/s."""
        return (self.v1b_rates_MBps[0] * MB, self.v1b_rates_MBps[1] * MB)

    @property
    def v1c_rates(self) -> tuple[float, float]:
        return (self.v1c_rates_MBps[0] * MB, self.v1c_rates_MBps[1] * MB)

    @property
    def v1d_bottlenecks(self) -> tuple[tuple[float, float], ...]:
        """(C wire bytes/s, RTT s) per destination."""
        if len(self.v1d_c_MBps) != len(self.v1d_rtt_s):
            raise ValueError("one RTT per V1d bottleneck")
        return tuple((c * MB, rtt) for c, rtt in zip(self.v1d_c_MBps, self.v1d_rtt_s))


FULL = Params(v1a_duration_s=60.0, v1d_duration_s=300.0)
QUICK = Params(v1a_duration_s=20.0, v1d_duration_s=60.0)


# ---------------------------------------------------------------- pure helpers


def longest_back_to_back(t_ps: np.ndarray, flows: np.ndarray, flow: str, wire_ps: int = WIRE_PS) -> int:
    """Longest run of consecutive frames of ``flow`` that start exactly one frame time after the
    previous one (no gap frame and no other flow's frame between), from a capture of frame start
    times in integer picoseconds, in order (spec 01 §2.5 last property)."""
    best = run = 0
    prev_end: int | None = None
    for t, f in zip(t_ps.tolist(), flows.tolist()):
        if f == flow:
            run = run + 1 if prev_end is not None and t == prev_end else 1
            best = max(best, run)
            prev_end = t + wire_ps
        else:
            prev_end = None
    return best


def bin_rates(flows: pd.DataFrame, monitor: str, a_s: float, b_s: float) -> dict[str, float]:
    """Wire bytes/s of each flow through ``monitor`` over the whole bins that start in [a, b):
    (frame bytes + 20·packets)/(b − a)."""
    eps = 1e-9
    rows = flows[(flows["monitor"] == monitor) & (flows["t"] >= a_s - eps) & (flows["t"] < b_s - eps)]
    wire = rows["bytes"] + WIRE_OVERHEAD_BYTES * rows["packets"]
    return {str(f): float(v) / (b_s - a_s) for f, v in wire.groupby(rows["flow"]).sum().items()}


def line_use(hosts: pd.DataFrame, host: str, a_s: float, b_s: float) -> tuple[float, float]:
    """(real, gap) wire bytes/s that ``host`` put on its line in the one-second ``hosts`` bins
    starting in [a, b): real = frame bytes + 20 per frame, gap = ``gap_wire_bytes``."""
    eps = 1e-9
    rows = hosts[(hosts["host"] == host) & (hosts["t"] >= a_s - eps) & (hosts["t"] < b_s - eps)]
    real = float(rows["dma_real_bytes"].sum() + WIRE_OVERHEAD_BYTES * rows["frames"].sum())
    return real / (b_s - a_s), float(rows["gap_wire_bytes"].sum()) / (b_s - a_s)


# ---------------------------------------------------------------- scenarios


def _class_table(rates: tuple[float, float]) -> list[dict[str, Any]]:
    return [
        {"id": i + 1, "dst": [f"rcv{i + 1}"], "rate_source": "fixed", "rate": q.rate(8 * r)}
        for i, r in enumerate(rates)
    ]


def udp_scenario(p: Params, case: str, rates: tuple[float, float]) -> Scenario:
    """V1b/V1c: snd —GbE→ router r —10 GbE→ rcv1, rcv2 (no bottleneck after the NIC); two UDP
    sources at ``source_factor``× their class rates (udp_cbr rates are wire rates)."""
    duration = p.warmup_s + p.measure_s
    net = b.Network(b.Sim(f"01.V1-{case}", duration=q.time(duration), seed=p.seed, trace=b.Trace(mode="off")))
    snd = net.add(b.Host("snd", mtu=1500, nic_rate="1Gbps", txqueuelen=p.udp_txqueuelen, qdisc=ipg_qdisc(classes=_class_table(rates))))
    r = net.add(b.Router("r"))
    rcvs = [net.add(b.Host(f"rcv{i + 1}", mtu=1500)) for i in range(2)]
    net.add(b.Link(snd, r, rate="1Gbps", delay="0s"))
    for rcv in rcvs:
        net.add(b.Link(r, rcv, rate="10Gbps", delay="0s"))
    for i, rate in enumerate(rates):
        net.add(b.Flow(f"u{i + 1}", snd, f"rcv{i + 1}", kind="udp_cbr", rate=q.rate(round(8 * rate * p.source_factor)), size=1500))
    net.add(b.Monitor(*EGRESS.split("->"), bin=q.time(p.monitor_bin_s), capture_packets=CAPTURE_LIMIT))
    return net.scenario()


def v1a_scenario(p: Params, variant: str) -> Scenario:
    """V1a on the spec 01 §2.8 path: ``plain`` (default single class), ``class1`` (the flow's
    destination in an explicit class 1, tcp_estimate), ``off`` (no pacing: the control)."""
    qdisc = (
        ipg_qdisc(classes=[{"id": 1, "dst": ["rcv"], "rate_source": "tcp_estimate"}]) if variant == "class1" else None
    )
    return path_scenario(
        f"01.V1a-{variant}",
        cc="scalable",
        pacing="off" if variant == "off" else "gap_packets",
        buffer_bytes=p.v1a_buffer_bytes,
        duration_s=p.v1a_duration_s,
        qdisc=qdisc,
        monitor_bin_s=0.0005,
        queue_bin_s=0.1,
        seed=p.seed,
    )


def v1d_scenario(p: Params, mode: str) -> Scenario:
    """V1d: snd —GbE→ emulator wan → rcv_i through a TailDrop FIFO of B and a shaper at C_i with
    RTT_i/2 one way (spec 01 §2.8 per destination); two Scalable flows f1, f2 (host model §2.7)."""
    qdisc: Optional[dict[str, Any]] = None
    if mode == "single":
        qdisc = ipg_qdisc()  # class 0, tcp_estimate: the sum of both flows' equation (1)
    elif mode == "classes":
        qdisc = ipg_qdisc(
            classes=[
                {"id": i + 1, "dst": [f"rcv{i + 1}"], "rate_source": "tcp_estimate"}
                for i in range(len(p.v1d_bottlenecks))
            ]
        )
    elif mode != "off":
        raise ValueError(f"unknown V1d mode {mode!r}")
    net = b.Network(b.Sim(f"01.V1d-{mode}", duration=q.time(p.v1d_duration_s), seed=p.seed, trace=b.Trace(mode="bin", bin="1s")))
    snd = net.add(b.Host("snd", mtu=1500, nic_rate="1Gbps", txqueuelen=1000, qdisc=qdisc))
    wan = net.add(b.Emulator("wan"))
    net.add(b.Link(snd, wan, rate="1Gbps", delay="0s"))
    for i, (c, rtt) in enumerate(p.v1d_bottlenecks):
        rcv = net.add(b.Host(f"rcv{i + 1}", mtu=1500, profile=PROFILE))
        net.add(b.Link(wan, rcv, rate=q.rate(8 * c), delay=q.time(rtt / 2.0), queue=b.DropTail(limit=q.size(p.v1d_buffer_bytes))))
        pacing = {"kind": "off" if mode == "off" else "gap_packets"}
        net.add(b.Flow(f"f{i + 1}", snd, rcv, kind="tcp_bulk", cc="scalable", profile=PROFILE, sndbuf="32MiB", rcvbuf="32MiB", tcp=dict(HOST_TCP), pacing=pacing))
        net.add(b.Monitor(wan, rcv, bin="1s"))
    return net.scenario()


# ---------------------------------------------------------------- measurement


def _keep_udp(r: Result) -> dict[str, Any]:
    cap = r.packets[r.packets["monitor"] == EGRESS]
    t_ps = np.rint(cap["t"].to_numpy(dtype=float) * 1e12).astype(np.int64)
    sent = int(host_entry(r.summary, "snd")["frames"])
    if len(cap) != sent:
        raise RuntimeError(f"capture holds {len(cap)} of {sent} frames: raise CAPTURE_LIMIT")
    flows = cap["flow"].to_numpy()
    runs = {f: longest_back_to_back(t_ps, flows, f) for f in sorted(set(flows.tolist()))}
    return {"summary": r.summary, "flows": r.flows, "hosts": r.hosts, "runs": runs}


def _keep_trace(r: Result) -> dict[str, Any]:
    return {"summary": r.summary, "tcp": r.tcp, "flows": r.flows, "hosts": r.hosts, "queues": r.queues}


def _keep_v1d(r: Result) -> dict[str, Any]:
    return {"summary": r.summary, "queues": r.queues}


# ---------------------------------------------------------------- cases and analysis


def cases(p: Params) -> list[Case]:
    """V1a's three runs, V1b and V1c, and V1d's three modes."""
    runs = [Case(f"v1a-{v}", v1a_scenario(p, v), _keep_trace) for v in ("plain", "class1", "off")]
    runs += [Case(case, udp_scenario(p, case, rates), _keep_udp) for case, rates in (("v1b", p.v1b_rates), ("v1c", p.v1c_rates))]
    runs += [Case(f"v1d-{m}", v1d_scenario(p, m), _keep_v1d) for m in V1D_MODES]
    return runs


def analyse(p: Params, res: Mapping[str, Any]) -> Outcome:
    out = Outcome()
    _v1a(p, res, out)
    bc = [_v1bc(p, "v1b", p.v1b_rates, res["v1b"], out), _v1bc(p, "v1c", p.v1c_rates, res["v1c"], out)]
    out.tables.append(
        Table(
            "v1bc",
            f"V1b/V1c per class over [{p.warmup_s}, {p.warmup_s + p.measure_s}) s: departure rate at the sender's egress "
            "(wire bytes = frame + 20, monitor bins), its error against the class rate, the rate over the whole run "
            "(start-up included) and the longest run of back-to-back real packets of the class over the whole run "
            "(packet capture).",
            pd.concat([b[0] for b in bc], ignore_index=True),
        )
    )
    out.tables.append(
        Table(
            "v1bc_line",
            f"V1b/V1c line use over [{p.warmup_s}, {p.warmup_s + p.measure_s}) s from the sender's `hosts` bins: real "
            "wire bytes/s, gap wire bytes/s and their sum over the line rate (125 MB/s); gap frames and IFQ drops "
            "over the whole run.",
            pd.DataFrame([b[1] for b in bc]),
        )
    )
    out.figures.append(_v1bc_figure(p, res))
    _v1d(p, res, out)
    _expectations(p, bc, out)
    return out


def _v1a(p: Params, res: Mapping[str, Any], out: Outcome) -> None:
    plain, class1, off = res["v1a-plain"], res["v1a-class1"], res["v1a-off"]
    rows = []
    for label, m in (
        ("plain gap pacing (class 0)", plain),
        ("explicit class 1, dst rcv", class1),
        ("control: no pacing", off),
    ):
        s = m["summary"]
        rows.append(
            {
                "run": label,
                "event_hash": s["event_hash"],
                "events": s["events_executed"],
                "goodput_MBps": s["flows"][0]["goodput_bps"] / 8 / MB,
                "taildrops": queue_entry(s)["dropped"],
                "retransmitted_segments": s["flows"][0]["retransmitted_segments"],
                "gap_frames": host_entry(s)["gap_frames"],
            }
        )
    out.tables.append(
        Table(
            "v1a",
            f"V1a: Scalable TCP on the spec 01 §2.8 path (C 62.5 MB/s, RTT 200 ms, B {q.show_size(p.v1a_buffer_bytes)}), "
            f"{q.show_time(p.v1a_duration_s)}. The control shows that the event hash does see a change of the "
            "sender's schedule.",
            pd.DataFrame(rows),
        )
    )
    a, b = plain["summary"], class1["summary"]
    out.checks.append(
        Check.equal("V1a: event hash, explicit class 1 = plain gap pacing", b["event_hash"], a["event_hash"])
    )
    same = [name for name in ("tcp", "flows", "hosts", "queues") if plain[name].equals(class1[name])]
    out.checks.append(
        Check.equal(
            "V1a: identical result tables (tcp, flows: monitor M at 500 µs, hosts, queues)",
            ", ".join(same) if same else "none",
            "tcp, flows, hosts, queues",
        )
    )
    out.checks.append(
        Check.within("V1a: gap frames sent (pacing was active)", host_entry(a)["gap_frames"], 1, None, criterion="≥ 1")
    )
    out.checks.append(
        Check.equal(
            "V1a control: no pacing changes the event hash",
            off["summary"]["event_hash"] != a["event_hash"],
            True,
            criterion="hash differs from plain gap pacing",
        )
    )


def _v1bc(
    p: Params, case: str, rates: tuple[float, float], m: dict[str, Any], out: Outcome
) -> tuple[pd.DataFrame, dict[str, Any]]:
    a, b = float(p.warmup_s), float(p.warmup_s + p.measure_s)
    if not (float(p.warmup_s).is_integer() and float(p.measure_s).is_integer()):
        raise ValueError("warm-up and measured interval must be whole seconds (hosts bins are 1 s)")
    s = m["summary"]
    snd = host_entry(s, "snd")
    measured = bin_rates(m["flows"], EGRESS, a, b)
    whole = bin_rates(m["flows"], EGRESS, 0.0, b)
    real, gap = line_use(m["hosts"], "snd", a, b)
    ifq_drops = queue_entry(s, "snd:ifq")["dropped"]
    over = sum(rates) >= NIC_BYTES_PER_S
    tag = "V1c" if case == "v1c" else "V1b"
    rows = []
    for i, target in enumerate(rates):
        flow = f"u{i + 1}"
        got = measured.get(flow, 0.0)
        rows.append(
            {
                "case": tag,
                "class": i + 1,
                "dst": f"rcv{i + 1}",
                "target_MBps": target / MB,
                "source_MBps": target * p.source_factor / MB,
                "measured_MBps": got / MB,
                "rel_error": (got - target) / target,
                "whole_run_MBps": whole.get(flow, 0.0) / MB,
                "longest_back_to_back": m["runs"].get(flow, 0),
            }
        )
        if over:
            out.checks.append(
                Check.within(
                    f"V1c: class {i + 1} ({target / MB:g} MB/s) departure rate / target",
                    got / target,
                    None,
                    1 + CLASS_TOLERANCE,
                    criterion=f"≤ {1 + CLASS_TOLERANCE:g} (never above its rate by more than 1 %)",
                )
            )
        else:
            out.checks.append(
                Check.within(
                    f"V1b: class {i + 1} ({target / MB:g} MB/s) departure rate / target",
                    got / target,
                    1 - CLASS_TOLERANCE,
                    1 + CLASS_TOLERANCE,
                    criterion=f"1 ± {CLASS_TOLERANCE:g}",
                )
            )
        out.checks.append(
            Check.within(
                f"{tag}: class {i + 1} longest run of back-to-back real packets",
                m["runs"].get(flow, 0),
                None,
                MAX_BACK_TO_BACK,
                unit="packets",
                criterion=f"≤ {MAX_BACK_TO_BACK} (spec 01 §2.5)",
            )
        )
    use = (real + gap) / NIC_BYTES_PER_S
    if over:
        out.checks.append(Check.equal("V1c: gap frames over the whole run", snd["gap_frames"], 0))
        out.checks.append(
            Check.within(
                "V1c: aggregate real wire rate / line rate",
                real / NIC_BYTES_PER_S,
                1 - LINE_TOLERANCE,
                1 + LINE_TOLERANCE,
                criterion=f"1 ± {LINE_TOLERANCE:g}",
            )
        )
    else:
        out.checks.append(
            Check.within(
                "V1b: (real + gap wire bytes) / line rate",
                use,
                1 - LINE_TOLERANCE,
                1 + LINE_TOLERANCE,
                criterion=f"1 ± {LINE_TOLERANCE:g} (gap frames fill the rest of the line)",
            )
        )
    # Precondition: a shared IFQ that overflows would let one class take the other's slots.
    out.checks.append(Check.equal(f"{tag}: IFQ drops (precondition: the shared IFQ never overflows)", ifq_drops, 0))
    line = {
        "case": tag,
        "class_rates_MBps": " + ".join(f"{r / MB:g}" for r in rates),
        "real_wire_MBps": real / MB,
        "gap_wire_MBps": gap / MB,
        "expected_gap_wire_MBps": max(0.0, NIC_BYTES_PER_S - sum(rates)) / MB,
        "line_use": use,
        "gap_frames_whole_run": snd["gap_frames"],
        "ifq_drops": ifq_drops,
    }
    return pd.DataFrame(rows), line


def _v1bc_figure(p: Params, res: Mapping[str, Any]) -> Figure:
    fig, axes = new_figure(2, 1, height=6.0, sharex=True)
    for ax, case, rates in zip(axes, ("v1b", "v1c"), (p.v1b_rates, p.v1c_rates)):
        f = res[case]["flows"]
        f = f[f["monitor"] == EGRESS]
        for i, target in enumerate(rates):
            rows = f[f["flow"] == f"u{i + 1}"]
            wire = (rows["bytes"] + WIRE_OVERHEAD_BYTES * rows["packets"]) / p.monitor_bin_s / MB
            ax.step(rows["t"], wire, where="post", color=f"C{i}", linewidth=1.0, label=f"class {i + 1} → rcv{i + 1}")
            ax.axhline(
                target / MB,
                color=f"C{i}",
                linestyle="--",
                linewidth=0.8,
                label=f"class {i + 1} rate {target / MB:g} MB/s",
            )
        ax.axvspan(p.warmup_s, p.warmup_s + p.measure_s, color="gray", alpha=0.08, label="measured interval")
        ax.set_ylabel("departure rate (wire MB/s)")
        ax.set_title(f"V1{case[-1]}: fixed {' + '.join(f'{r / MB:g}' for r in rates)} MB/s", fontsize="medium")
        ax.set_ylim(bottom=0.0)
        finish_axes(ax)
    axes[-1].set_xlabel("time (s)")
    fig.suptitle(f"01.V1: per-class departure rate at the sender's egress ({q.show_time(p.monitor_bin_s)} bins)")
    return Figure(
        "v1bc_rates",
        "Per-class departure rate in monitor bins at the sender's egress (wire bytes), with each class's fixed rate.",
        fig,
    )


def _v1d(p: Params, res: Mapping[str, Any], out: Outcome) -> None:
    rows = []
    for mode in V1D_MODES:
        m = res[f"v1d-{mode}"]
        s = m["summary"]
        out.checks.append(Check.equal(f"V1d {mode}: packet conservation holds", s["conservation"]["holds"], True))
        for i, (c, rtt) in enumerate(p.v1d_bottlenecks):
            flow = flow_entry(s, f"f{i + 1}")
            name = f"wan->rcv{i + 1}"
            qrows = m["queues"][m["queues"]["queue"] == name]
            early = int(qrows[qrows["t"] < p.v1d_early_s - 1e-9]["drops"].sum())
            goodput = flow["goodput_bps"] / 8
            bound = goodput_bound(c)
            rows.append(
                {
                    "mode": V1D_CAPTIONS[mode],
                    "flow": flow["name"],
                    "bottleneck_MBps": c / MB,
                    "rtt_ms": rtt * 1e3,
                    "goodput_MBps": goodput / MB,
                    "wire_bound_MBps": bound / MB,
                    "goodput_over_bound": goodput / bound,
                    "taildrops": queue_entry(s, name)["dropped"],
                    f"taildrops_first_{p.v1d_early_s:g}s": early,
                    "retransmitted_segments": flow["retransmitted_segments"],
                    "timeouts": flow["timeouts"],
                }
            )
            out.checks.append(
                Check.within(
                    f"V1d {mode}: {flow['name']} goodput ≤ C·1448/1538",
                    goodput / MB,
                    None,
                    bound / MB,
                    unit="MB/s",
                    criterion=f"≤ {bound / MB:.4g} MB/s (C = {c / MB:g} MB/s)",
                )
            )
    frame = pd.DataFrame(rows)
    gaps = {mode: host_entry(res[f"v1d-{mode}"]["summary"])["gap_frames"] for mode in V1D_MODES}
    out.tables.append(
        Table(
            "v1d",
            f"V1d: two Scalable TCP flows from one GbE sender, {q.show_time(p.v1d_duration_s)}; "
            f"f1 → 40 MB/s, RTT 100 ms; f2 → 25 MB/s, RTT 200 ms; TailDrop {q.show_size(p.v1d_buffer_bytes)} each. "
            "Goodput = application bytes delivered / duration; TailDrops at each emulator FIFO (whole run and the "
            f"first {p.v1d_early_s:g} s, i.e. slow start).",
            frame,
        )
    )
    out.notes.append(_v1d_description(p, frame, gaps))


def _v1d_description(p: Params, frame: pd.DataFrame, gaps: dict[str, int]) -> str:
    def cell(mode: str, flow: str, col: str) -> float:
        return float(frame[(frame["mode"] == V1D_CAPTIONS[mode]) & (frame["flow"] == flow)][col].iloc[0])

    parts = []
    for mode in V1D_MODES:
        g = [cell(mode, f, "goodput_MBps") for f in ("f1", "f2")]
        d = [int(cell(mode, f, "taildrops")) for f in ("f1", "f2")]
        parts.append(
            f"{mode}: f1 {g[0]:.2f} MB/s ({g[0] / (goodput_bound(p.v1d_bottlenecks[0][0]) / MB):.0%} of its bound), "
            f"{d[0]} drops; f2 {g[1]:.2f} MB/s ({g[1] / (goodput_bound(p.v1d_bottlenecks[1][0]) / MB):.0%}), {d[1]} drops; "
            f"{gaps[mode]} gap frames"
        )
    early_col = f"taildrops_first_{p.v1d_early_s:g}s"
    total = {m: cell(m, "f1", "taildrops") + cell(m, "f2", "taildrops") for m in V1D_MODES}
    early = {m: cell(m, "f1", early_col) + cell(m, "f2", early_col) for m in V1D_MODES}
    ranking = " < ".join(sorted(V1D_MODES, key=lambda m: (total[m], m)))
    shares = ", ".join(f"{m} {early[m] / total[m]:.0%}" if total[m] else f"{m} n/a (no drops)" for m in V1D_MODES)
    return (
        "V1d (spec 01 §4 states no expectation; described only). "
        + "; ".join(parts)
        + f". Ranking by total TailDrops: {ranking}. Share of the TailDrops that fall in the first "
        f"{p.v1d_early_s:g} s (slow start): {shares}. The single class spaces the merged stream by the sum of both "
        "flows' equation (1) estimates and serves the two flows' packets in FIFO order, so neither flow's own "
        "spacing is controlled; two classes space each destination's packets by its own estimate. Both paced modes "
        "share one IFQ of 1000 packets with `send_stall_policy = block` (spec 01 §2.7): when it is full a flow waits "
        "for a slot whatever its class, so the classes are not isolated at the IFQ, and the time a segment waits in "
        "the qdisc is part of the srtt that sets its class's rate (spec 01 §2.2, Open point 2)."
    )


def _expectations(p: Params, bc: list[tuple[pd.DataFrame, dict[str, Any]]], out: Outcome) -> None:
    v1b, v1c = bc[0][0], bc[1][0]
    b_err = float(v1b["rel_error"].abs().max())
    c_over = float(((v1c["measured_MBps"] - v1c["target_MBps"]) / v1c["target_MBps"]).max())
    line_c = bc[1][1]
    shares = ", ".join(
        f"class {int(r['class'])} {r['measured_MBps']:.3f} of {r['target_MBps']:g}" for _, r in v1c.iterrows()
    )
    largest = v1c.iloc[int(np.argmax(v1c["target_MBps"].to_numpy()))]
    others_full = all(
        abs(r["measured_MBps"] - r["target_MBps"]) / r["target_MBps"] <= CLASS_TOLERANCE
        for _, r in v1c.iterrows()
        if r["class"] != largest["class"]
    )
    out.tables.append(
        Table(
            "expectations",
            "Spec 01 §4 (V1) and §2.5, qualitative: what the runs show.",
            expectations_table(
                [
                    expectation(
                        "per-class rates match their targets when the sum of targets is below the line rate",
                        f"V1b: largest |rate error| {b_err:.2g} over the classes "
                        f"({', '.join(f'{r:.3f}' for r in v1b['measured_MBps'])} MB/s)",
                        "yes" if b_err <= CLASS_TOLERANCE else "no",
                        "read as: within 1 % (the check)",
                    ),
                    expectation(
                        "under oversubscription the line is fully used without gap frames and no class exceeds its target",
                        f"V1c: {line_c['gap_frames_whole_run']} gap frames, line use {line_c['line_use']:.5f}, "
                        f"largest excess over a target {c_over:+.2%}",
                        "yes"
                        if line_c["gap_frames_whole_run"] == 0
                        and abs(line_c["line_use"] - 1) <= LINE_TOLERANCE
                        and c_over <= CLASS_TOLERANCE
                        else "no",
                    ),
                    expectation(
                        "(§2.5) when oversubscribed the shortfall falls on the classes with the largest rates, "
                        "shares not proportional",
                        f"V1c MB/s: {shares}",
                        "yes" if others_full else "no",
                        "read as: every class but the largest gets its full rate",
                    ),
                ]
            ),
        )
    )
    out.notes.append(
        f"V1b/V1c sources: `udp_cbr` at {p.source_factor:g}× each class rate (its rate is a wire rate, spec 05 §2.5), "
        f"txqueuelen {p.udp_txqueuelen} so the shared IFQ never overflows in {p.warmup_s + p.measure_s} s (checked: "
        "no IFQ drops). With a small IFQ the faster source fills it and the other class's datagrams are refused at "
        "the sender: an IFQ effect, not the scheduler's. UDP is paced because its classes have fixed rates "
        "(spec 01 §2.5 classifier)."
    )
    out.notes.append(
        "Back-to-back runs are read from the egress packet capture (frame start times in ps): two frames of the same "
        "class are back to back when the second starts exactly one frame time (1538·8 ns) after the first, with no gap "
        "frame and no other class's frame between."
    )


EXPERIMENT = Experiment(
    id="01.V1",
    title="IPG-aware scheduling",
    summary="classful ipg qdisc end to end: one class equals plain gap pacing, fixed-rate classes get their rates "
    "and gap frames fill the line, oversubscribed classes get no gaps; two TCP flows to two bottlenecks",
    reference="spec 01 §3 (V1), §2.5",
    checks=(
        "V1a: the same Scalable TCP transfer paced by the default class and by an explicit class for its destination "
        "gives the same event hash and identical result tables (and a run without pacing gives a different hash). "
        "V1b: two classes with fixed 40 and 25 MB/s, each fed by a UDP source 10 % faster, leave the sender within 1 % "
        "of their rates, real plus gap wire bytes fill the line within 0.1 %, and no class sends more than two real "
        "packets back to back. V1c: fixed 100 and 50 MB/s (more than the line): no gap frame is sent, real wire bytes "
        "fill the line within 0.1 %, no class exceeds its rate by more than 1 %. Rates are measured over a "
        "steady-state second after a warm-up; the shared IFQ must not overflow. V1d (no pass criterion in the spec): "
        "packet conservation holds and each flow's goodput stays below its bottleneck's wire bound C·1448/1538."
    ),
    full=FULL,
    quick=QUICK,
    cases=cases,
    analyse=analyse,
)
