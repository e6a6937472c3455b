"""02.E6 (option of spec 02 §4.7): router-function work accounting.

One forwarding node R between hosts A and B, two 1 Gbit/s interfaces; the QS function on
R's egress toward B (C = 1 Gbit/s, D = 1 s, K = 2, θ = 1.0, ``target_reduce``). A UDP CBR
source at A offers 50-byte IP packets at 100 and 300 000 packet/s; the share of packets
carrying a Quick-Start Rate Request (code 7, 5.12 Mbit/s; a random QS TTL and nonce each)
is 0, 1 % or 100 %, spread evenly (datagram k asks when ⌊k·share⌋ > ⌊(k−1)·share⌋). The
option sits inside the 50 bytes.

Output (spec 02 §4.7): the §2.5.7 counters per second, and with the cost vector
``proc_us`` (``qs.proc.*``) the per-packet processing delay of the serial processor ahead
of R's queue (mean, largest, busy fraction). lfnlab reports work counts, not CPU load: the
cost vector is the user's, and the default one is an illustration, not a measurement.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from ... import build as b
from ...result import Result
from ...scenario import Scenario
from .. import quantities as q
from ..figures import finish_axes, new_figure
from ..outcome import Check, Figure, Outcome, Table
from ..engine import Case, Experiment
from .path02 import qs_rate_bps
from .common02 import run_checks

#: Interface rate and QS capacity (spec 02 §4.7), bit/s.
LINK_BPS = 1e9
#: IP packet length (spec 02 §4.7) and its wire footprint: + 18 header/FCS + 8 preamble + 12 IPG.
PACKET_BYTES = 50
WIRE_BYTES = PACKET_BYTES + 38
#: The egress whose counters are reported.
EGRESS = "R->B"
#: Names of the cost vector's entries, in ``proc_us`` order (spec 02 §2.5.7).
COSTS = ("base_us", "meter_us", "opt_parse_us", "update_us", "nonce_field_us")
#: Counters of spec 02 §2.5.7, in report order.
COUNTERS = (
    "packets",
    "bytes",
    "qs_requests_seen",
    "qs_approved_full",
    "qs_approved_reduced",
    "qs_denied",
    "qs_rate_limited",
    "nonce_fields_rerandomized",
    "ip_csum_updates",
    "qs_reports_seen",
    "meter_updates",
)


@dataclass(frozen=True)
class Params:
    loads_pps: tuple[float, ...] = field(default=(100.0, 300_000.0), metadata={"label": "offered loads", "unit": "packet/s"})
    shares: tuple[float, ...] = field(default=(0.0, 0.01, 1.0), metadata={"label": "share of packets with a QS request"})
    duration_s: float = field(default=10.0, metadata={"label": "simulated time per run", "unit": "s"})
    rate_code: int = field(default=7, metadata={"label": "requested rate code"})
    proc_us: tuple[float, ...] = field(
        default=(1.0, 0.2, 0.5, 1.0, 0.1),
        metadata={"label": "cost vector (base, meter, opt_parse, update, nonce_field), illustrative", "unit": "µs"},
    )
    discipline: str = field(default="serial", metadata={"label": "processor discipline"})
    seed: int = field(default=1, metadata={"label": "seed"})


FULL = Params()
QUICK = Params(duration_s=1.0)


def label(pps: float, share: float) -> str:
    return f"pps{round(pps):06d}-share{round(share * 1000):04d}"


def scenario(name: str, pps: float, share: float, p: Params) -> Scenario:
    """A → R → B with the QS function and the cost vector on R → B."""
    proc = dict(zip(COSTS, p.proc_us))
    net = b.Network(b.Sim(name, duration=q.time(p.duration_s), seed=p.seed, trace=b.Trace(mode="off")))
    a, r, z = net.add(b.Host("A")), net.add(b.Router("R")), net.add(b.Host("B"))
    net.add(b.Link(a, r, rate=q.rate(LINK_BPS), delay="100us"))
    qs = {"capacity": q.rate(LINK_BPS), "proc": {**proc, "discipline": p.discipline}}
    net.add(b.Link(r, z, rate=q.rate(LINK_BPS), delay="100us", keys={"quickstart": qs}))
    # udp_cbr's rate includes preamble and IPG (spec 05 §2.5 rule 1).
    rate = q.rate(pps * WIRE_BYTES * 8)
    net.add(b.Flow("cbr", a, z, kind="udp_cbr", rate=rate, size=PACKET_BYTES, keys={"qs_requests": {"share": share, "rate_code": p.rate_code}}))
    return net.scenario()


def grid(p: Params) -> list[tuple[float, float]]:
    """Every (offered load, request share) of spec 02 §4.7."""
    return [(pps, share) for pps in p.loads_pps for share in p.shares]


def _summary(r: Result) -> dict[str, Any]:
    """Only the summary is read: the counters of R → B and the run checks."""
    return r.summary


def cases(p: Params) -> list[Case]:
    """One run per offered load and request share."""
    if len(p.proc_us) != len(COSTS):
        raise ValueError(f"proc_us needs {len(COSTS)} costs ({', '.join(COSTS)}), got {len(p.proc_us)}")
    return [Case(label(pps, s), scenario(f"02.E6-{label(pps, s)}", pps, s, p), _summary) for pps, s in grid(p)]


def interface(summary: Mapping[str, Any]) -> Mapping[str, Any]:
    for qi in summary["quickstart_interfaces"]:
        if qi["name"] == EGRESS:
            return qi
    raise KeyError(f"no Quick-Start interface {EGRESS} in the summary")


def expected_work_us(c: Mapping[str, Any], proc_us: Sequence[float]) -> float:
    """Σ d_proc over the run from the counters (spec 02 §2.5.7): every packet pays base and
    meter, a packet with an option opt_parse, an approval update, a re-randomized nonce
    field nonce_field."""
    base, meter, opt, update, nonce = proc_us
    options = c["qs_requests_seen"] + c["qs_reports_seen"]
    approvals = c["qs_approved_full"] + c["qs_approved_reduced"]
    return c["packets"] * (base + meter) + options * opt + approvals * update + c["nonce_fields_rerandomized"] * nonce


def row(pps: float, share: float, summary: Mapping[str, Any], p: Params) -> dict[str, Any]:
    qi = interface(summary)
    t = p.duration_s
    out: dict[str, Any] = {"offered_pps": pps, "share": share, "duration_s": t}
    out.update({f"{k}_per_s": qi[k] / t for k in COUNTERS})
    n = max(1, qi["packets"])
    out.update(
        {
            "mean_cost_us": expected_work_us(qi, p.proc_us) / n,
            "proc_delay_mean_us": qi["proc_delay_mean_s"] * 1e6,
            "proc_delay_max_us": qi["proc_delay_max_s"] * 1e6,
            "proc_busy_fraction": qi["proc_busy_fraction"],
            "proc_backlog_max": qi["proc_backlog_max"],
        }
    )
    return out


def checks(points: Sequence[tuple[float, float]], kept: Mapping[str, Mapping[str, Any]], p: Params) -> list[Check]:
    """Properties of the counters and of the delay model, from the definitions alone."""
    t = p.duration_s
    n_ok = req_ok = sum_ok = csum_ok = meter_ok = work_ok = delay_ok = 0
    worst_work = 0.0
    for pps, share in points:
        qi = interface(kept[label(pps, share)])
        n = qi["packets"]
        # The CBR source sends at start + k/pps; the last 200 µs of them are still in transit.
        n_ok += abs(n - pps * t) <= 1 + pps * 300e-6
        req_ok += int(abs(qi["qs_requests_seen"] - np.floor(n * share)) <= 1)
        decided = qi["qs_approved_full"] + qi["qs_approved_reduced"] + qi["qs_denied"]
        sum_ok += decided == qi["qs_requests_seen"]
        # d = 1 at a routing hop: every decision rewrites the option (spec 02 §2.5.7 counter).
        csum_ok += qi["ip_csum_updates"] == decided
        meter_ok += qi["meter_updates"] == n
        work = expected_work_us(qi, p.proc_us)
        rel = abs(qi["proc_busy_fraction"] * t * 1e6 - work) / max(work, 1e-12)
        worst_work = max(worst_work, rel)
        work_ok += rel <= 1e-9
        # A packet never leaves the processor before its own cost is paid; with every
        # cost below the CBR spacing nobody waits, so the mean sojourn is the mean cost.
        mean_cost = work / max(1, n)
        sojourn = qi["proc_delay_mean_s"] * 1e6
        no_wait = p.discipline == "parallel" or max_cost_us(p) < 1e6 / pps
        delay_ok += (abs(sojourn - mean_cost) <= 1e-6 * max(mean_cost, 1.0)) if no_wait else sojourn >= mean_cost - 1e-9
    k = len(points)
    return [
        Check.equal("runs whose packet count is the offered load × duration (±1 and the packets in transit)", n_ok, k),
        Check.equal("runs with ⌊packets · share⌋ requests seen (±1)", req_ok, k),
        Check.equal("runs where full + reduced + denied = requests seen", sum_ok, k),
        Check.equal("runs where checksum updates = decisions (d = 1 at a routing hop)", csum_ok, k),
        Check.equal("runs where meter updates = packets (every packet is metered)", meter_ok, k),
        Check.equal(
            "runs whose processor work Σd equals the §2.5.7 formula over the counters",
            work_ok,
            k,
            criterion=f"= {k} (relative error ≤ 1e-9; worst {worst_work:.1e})",
        ),
        Check.equal(
            "runs whose mean processing delay is the mean cost (no waiting below saturation) or above it",
            delay_ok,
            k,
        ),
    ]


def max_cost_us(p: Params) -> float:
    """The largest d_proc of one packet: an option, an approval, every nonce field of a code."""
    base, meter, opt, update, nonce = p.proc_us
    return base + meter + opt + update + p.rate_code * nonce


def figure(frame: pd.DataFrame, p: Params) -> Any:
    fig, (a, b) = new_figure(1, 2, width=11.0, height=4.2)
    shown = ["packets", "qs_requests_seen", "qs_approved_full", "qs_approved_reduced", "qs_denied", "ip_csum_updates", "nonce_fields_rerandomized"]
    x = np.arange(len(frame))
    w = 0.8 / len(shown)
    for i, c in enumerate(shown):
        a.bar(x + i * w - 0.4 + w / 2, frame[f"{c}_per_s"].clip(lower=0.5), w, label=c)
    a.set_yscale("log")
    a.set_xticks(x)
    a.set_xticklabels([f"{int(r.offered_pps)}/s\n{r.share:.0%}" for r in frame.itertuples()], fontsize="small")
    a.set_ylabel("per second (log; 0 drawn at 0.5)")
    a.set_title("§2.5.7 counters at R → B")
    finish_axes(a)
    for pps, g in frame.groupby("offered_pps"):
        b.plot(g["share"] * 100, g["proc_delay_mean_us"], "o-", label=f"{int(pps)} packet/s: mean")
        b.plot(g["share"] * 100, g["mean_cost_us"], "x:", label=f"{int(pps)} packet/s: mean cost")
    b.set_xlabel("share of packets with a request (%)")
    b.set_ylabel("processing delay per packet (µs)")
    b.set_title(f"{p.discipline} processor, cost vector {', '.join(f'{c:g}' for c in p.proc_us)} µs")
    finish_axes(b)
    fig.suptitle(f"02.E6: router-function work, 50-byte packets, rate code {p.rate_code}")
    return fig


def analyse(p: Params, kept: Mapping[str, Any]) -> Outcome:
    points = grid(p)
    frame = pd.DataFrame([row(pps, s, kept[label(pps, s)], p) for pps, s in points])
    out = Outcome()
    out.checks += run_checks(kept, {k: p.duration_s for k in kept})
    out.checks += checks(points, kept, p)
    out.tables.append(
        Table(
            "E6_counters",
            "Per offered load and request share: the §2.5.7 counters of R → B per second, the mean cost of the "
            "cost vector over the packets, and the processor's mean and largest delay, busy fraction and backlog.",
            frame,
            digits=6,
        )
    )
    out.figures.append(Figure("E6_work", "Left: counters per second. Right: per-packet processing delay and mean cost.", figure(frame, p)))
    out.notes.append(
        "lfnlab reports work counts, not CPU load (spec 02 §2.5.7). The cost vector `proc_us` is an illustration "
        "(base, meter, opt_parse, update, nonce_field in µs); to use your platform's measured costs, run "
        "`dataclasses.replace(EXPERIMENT, full=dataclasses.replace(FULL, proc_us=...))`, or set `qs.proc.*` in a scenario."
    )
    busiest = frame.sort_values(["offered_pps", "share"]).iloc[-1]
    out.notes.append(
        f"At {int(busiest.offered_pps)} packet/s with {busiest.share:.0%} requests the QS function decided "
        f"{busiest.qs_requests_seen_per_s:.0f} requests/s: {busiest.qs_approved_full_per_s:.1f} full, "
        f"{busiest.qs_approved_reduced_per_s:.1f} reduced and {busiest.qs_denied_per_s:.1f} denied per second. "
        f"An approval stays in the history for one to two metering intervals (K = 2, D = 1 s), and the budget "
        f"C − metered rate = {LINK_BPS / 1e6:g} − {busiest.bytes_per_s * 8 / 1e6:g} Mbit/s holds "
        f"{(LINK_BPS - busiest.bytes_per_s * 8) / qs_rate_bps(p.rate_code):.0f} approvals of "
        f"{qs_rate_bps(p.rate_code) / 1e6:g} Mbit/s at a time once the meter has a first interval (spec 02 §2.5.4); the update and nonce costs follow "
        "the approvals, the option-parse cost every request."
    )
    return out


EXPERIMENT = Experiment(
    id="02.E6",
    title="Quick-Start: router-function work accounting (option)",
    summary="one forwarding node, 100 and 300 000 packet/s of 50-byte packets, 0 / 1 % / 100 % with a QS request: "
    "§2.5.7 counters per second and the per-packet delay of a cost vector",
    reference="spec 02 §4.7, §2.5.7",
    checks=(
        "Counter identities from the definitions (packets = load × time, requests = share of packets, full + reduced "
        "+ denied = requests, checksum updates = decisions at a routing hop, one meter update per packet), the "
        "processor's work equal to the §2.5.7 formula over the counters, and its mean delay equal to the mean cost "
        "when no packet waits (or above it otherwise); run duration and packet conservation."
    ),
    full=FULL,
    quick=QUICK,
    cases=cases,
    analyse=analyse,
)
