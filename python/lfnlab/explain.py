"""``lfnlab explain``: why a flow got the goodput it got (issue 40).

Per TCP flow of a result: the path's bottleneck, base RTT and BDP, the bottleneck
buffer against the BDP, the utilisation of the wire bound, the share of time the
sender spent under each sending limit (the engine's per-socket accounting,
``summary.json`` ``limited_s``: Linux's ``tcp_chrono`` split), the losses by cause,
the end of slow start, and one plain sentence naming the dominant limit with what
would lift it. ``what_if`` reruns the scenario with that limit lifted.

Everything here reads ``summary.json`` and the resolved ``scenario.toml``; nothing is
reconstructed from traces. Where the rules below choose (the thresholds, the
suggested sizes) they are CHOICEs recorded in docs/explain.md.
"""

from __future__ import annotations

import math
import tomllib
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Optional

from .testbed.units import rate_bps, size_bytes

if TYPE_CHECKING:
    from .result import Result

__all__ = ["FlowExplanation", "Explanation", "explain", "what_if"]

#: Limit names of ``summary.json`` ``limited_s``, in the engine's order.
LIMITS = ("slow_start", "recovery", "congestion_avoidance", "rwnd", "sndbuf", "application", "pacing", "stall")
#: Human names of the limits.
LIMIT_WORDS = {
    "slow_start": "cwnd in slow start",
    "recovery": "cwnd while recovering from losses",
    "congestion_avoidance": "cwnd in congestion avoidance",
    "rwnd": "the receive window",
    "sndbuf": "the send buffer",
    "application": "the application",
    "pacing": "pacing",
    "stall": "the host queue (NIC/qdisc, TSQ)",
}
#: CHOICE (docs/explain.md): at or above this share of the wire bound the path itself is the limit.
PATH_LIMITED_UTILISATION = 0.9
#: CHOICE: a what-if buffer or window is sized for this many BDPs (plus the bottleneck buffer).
HEADROOM_BDP = 2.0
#: Mathis et al. 1997: goodput ≈ MSS/RTT · C/√p with C = √(3/2).
MATHIS_C = math.sqrt(1.5)

MiB = 1 << 20


@dataclass(frozen=True)
class FlowExplanation:
    """Why one flow got its goodput. Rates in bit/s, sizes in bytes, times in s."""

    flow: str
    goodput_bps: float
    wire_bound_bps: float
    utilisation: float
    bottleneck: str
    bottleneck_bps: int
    base_rtt_s: float
    min_rtt_s: Optional[float]
    bdp_bytes: float
    mss_bytes: int
    #: The bottleneck queue's limit (None if it has none we can read) and its ratio to the BDP.
    buffer_bytes: Optional[int]
    buffer_bdp: Optional[float]
    #: Time under each limit (``LIMITS``) and its share of the time measured.
    limited_s: dict[str, float]
    limited_share: dict[str, float]
    #: Losses by cause: ``queue_overflow`` (drops at the flow's queues), ``random`` (link
    #: loss on the data path), ``rcvbuf`` (the receiver's socket), and ``timeouts`` (RTOs).
    losses: dict[str, int]
    retransmitted_segments: int
    slow_start_exit_s: Optional[float]
    slow_start_exit_cwnd: Optional[float]
    #: cwnd at the end of slow start against the BDP in segments.
    slow_start_exit_bdp: Optional[float]
    #: The window the receive buffer allows, bytes (φ·rcvbuf as the profile computes it).
    rwnd_bytes: Optional[float]
    #: Random losses on the data path per data segment sent.
    random_loss_rate: float
    #: The scenario key of the bottleneck's queue table, if it is a link's.
    bottleneck_queue_key: Optional[str]
    dominant: str
    verdict: str
    #: Scenario keys that lift the dominant limit (empty when there is nothing to lift).
    lift: dict[str, str] = field(default_factory=dict)

    def text(self) -> str:
        """The explanation as the command prints it."""
        mbit = lambda bps: f"{bps / 1e6:.2f} Mbit/s"  # noqa: E731
        lines = [
            f"flow {self.flow}",
            f"  goodput          {mbit(self.goodput_bps)} = {100 * self.utilisation:.1f} % of the "
            f"{mbit(self.wire_bound_bps)} wire bound at {self.bottleneck} ({mbit(self.bottleneck_bps)})",
            f"  path             base RTT {1e3 * self.base_rtt_s:.1f} ms"
            + (f" (measured min RTT {1e3 * self.min_rtt_s:.1f} ms)" if self.min_rtt_s is not None else "")
            + f", BDP {self.bdp_bytes / 1e6:.2f} MB = {self.bdp_bytes / self.mss_bytes:.0f} segments",
        ]
        if self.buffer_bytes is not None and self.buffer_bdp is not None:
            lines.append(f"  bottleneck queue {self.buffer_bytes / 1024:.0f} KiB = {self.buffer_bdp:.3f} BDP")
        if self.rwnd_bytes is not None:
            lines.append(f"  receive window   {self.rwnd_bytes / MiB:.2f} MiB = {self.rwnd_bytes / self.bdp_bytes:.2f} BDP")
        lines.append("  limited by       (share of the time the sender was connected)")
        for name in sorted(LIMITS, key=lambda n: -self.limited_s[n]):
            if self.limited_s[name] > 0:
                lines.append(f"    {100 * self.limited_share[name]:5.1f} %  {LIMIT_WORDS[name]}")
        loss = self.losses
        lines.append(
            f"  losses           {loss['queue_overflow']} queue overflow, {loss['random']} random, "
            f"{loss['rcvbuf']} at the receiver's buffer; {loss['timeouts']} RTOs; "
            f"{self.retransmitted_segments} segments retransmitted"
        )
        if self.slow_start_exit_s is not None and self.slow_start_exit_cwnd is not None:
            lines.append(
                f"  slow start       ended at {self.slow_start_exit_s:.3f} s with cwnd {self.slow_start_exit_cwnd:.0f}"
                f" = {self.slow_start_exit_bdp:.2f} BDP"
            )
        lines.append(f"  => {self.verdict}")
        return "\n".join(lines)


@dataclass(frozen=True)
class Explanation:
    """The explanations of a result's TCP flows."""

    flows: list[FlowExplanation]

    def text(self) -> str:
        return "\n\n".join(f.text() for f in self.flows) if self.flows else "no TCP flow with a known path to explain"

    def __str__(self) -> str:
        return self.text()


def explain(result: Result) -> Explanation:
    """Explain each ``tcp_bulk`` flow of ``result`` (needs its resolved scenario)."""
    if result.scenario_toml is None:
        raise ValueError("the result carries no scenario.toml: explain needs the resolved scenario")
    scenario = tomllib.loads(result.scenario_toml)
    summary = result.summary
    flows = []
    for i, f in enumerate(summary["flows"]):
        if f.get("kind") != "tcp_bulk" or not f.get("path") or not f.get("limited_s"):
            continue
        flows.append(_explain_flow(i, f, scenario, summary))
    return Explanation(flows)


def what_if(result: Result, flow: Optional[str] = None) -> list[tuple[FlowExplanation, Optional[float]]]:
    """Rerun the scenario once per explained flow with its dominant limit lifted
    (:attr:`FlowExplanation.lift`); return each explanation with the rerun's goodput
    (None when there was nothing to lift)."""
    from .result import run
    from .scenario import Scenario

    explanation = explain(result)  # raises without a scenario
    assert result.scenario_toml is not None
    origin = str(result.out_dir / "scenario.toml") if result.out_dir is not None else "<result>"
    resolved = tomllib.loads(result.scenario_toml)
    out: list[tuple[FlowExplanation, Optional[float]]] = []
    for e in explanation.flows:
        if flow is not None and e.flow != flow:
            continue
        if not e.lift:
            out.append((e, None))
            continue
        again = run(Scenario.from_dict(resolved, set=e.lift, origin=origin))
        g = next(x["goodput_bps"] for x in again.summary["flows"] if x["name"] == e.flow)
        out.append((e, float(g)))
    return out


def _explain_flow(i: int, f: dict[str, Any], scenario: dict[str, Any], summary: dict[str, Any]) -> FlowExplanation:
    path = f["path"]
    spec = scenario["flow"][i]
    tcp = spec.get("tcp", {})
    mss = int(path["mss_bytes"])
    bdp = path["bottleneck_bps"] * path["base_rtt_s"] / 8.0
    limited = {k: float(f["limited_s"][k]) for k in LIMITS}
    if f.get("completion_s") is not None:
        # A finished transfer is "application-limited" from its end on; that says nothing.
        limited["application"] = max(0.0, limited["application"] - (summary["duration_s"] - f["completion_s"]))
    total = sum(limited.values()) or 1.0
    share = {k: v / total for k, v in limited.items()}
    buffer, queue_key = _queue_limit(scenario, path["bottleneck"], mss)
    rwnd = _window_bytes(spec, tcp, "rcvbuf")
    hops = set(path["hops"])
    drops = sum(q["dropped"] for q in summary["queues"] if q["name"] in hops)
    random = sum(x["dropped"] for x in summary.get("link_losses", []) if x["link"] in hops)
    losses = {"queue_overflow": int(drops), "random": int(random), "rcvbuf": int(f.get("rcvbuf_drops", 0)), "timeouts": int(f["timeouts"])}
    # Data segments sent ≈ delivered + retransmitted: the denominator of the random loss rate.
    segments = f["bytes_delivered"] / mss + f["retransmitted_segments"]
    util = f["goodput_bps"] / path["wire_bound_bps"] if path["wire_bound_bps"] > 0 else 0.0
    exit_cwnd = f.get("slow_start_exit_cwnd")
    e = dict(
        flow=f["name"],
        goodput_bps=float(f["goodput_bps"]),
        wire_bound_bps=float(path["wire_bound_bps"]),
        utilisation=util,
        bottleneck=path["bottleneck"],
        bottleneck_bps=int(path["bottleneck_bps"]),
        base_rtt_s=float(path["base_rtt_s"]),
        min_rtt_s=f.get("min_rtt_s"),
        bdp_bytes=bdp,
        mss_bytes=mss,
        buffer_bytes=buffer,
        buffer_bdp=buffer / bdp if buffer is not None and bdp > 0 else None,
        limited_s=limited,
        limited_share=share,
        losses=losses,
        retransmitted_segments=int(f["retransmitted_segments"]),
        slow_start_exit_s=f.get("slow_start_exit_s"),
        slow_start_exit_cwnd=exit_cwnd,
        slow_start_exit_bdp=exit_cwnd * mss / bdp if exit_cwnd is not None and bdp > 0 else None,
        rwnd_bytes=rwnd,
        random_loss_rate=random / segments if segments > 0 else 0.0,
        bottleneck_queue_key=queue_key,
    )
    dominant, verdict, lift = _verdict(i, e, spec)
    return FlowExplanation(**e, dominant=dominant, verdict=verdict, lift=lift)


def _verdict(i: int, e: dict[str, Any], spec: dict[str, Any]) -> tuple[str, str, dict[str, str]]:
    """The dominant limit, the sentence that names it and the keys that lift it."""
    share: dict[str, float] = e["limited_share"]
    bdp, buffer = e["bdp_bytes"], e["buffer_bytes"] or 0
    util = e["utilisation"]
    if util >= PATH_LIMITED_UTILISATION:
        return (
            "path",
            f"the path: goodput is {100 * util:.1f} % of the wire bound; only a faster bottleneck would raise it",
            {},
        )
    # The cwnd phases count together against the other limits.
    grouped = dict(share)
    cwnd_share = share["slow_start"] + share["recovery"] + share["congestion_avoidance"]
    for k in ("slow_start", "recovery", "congestion_avoidance"):
        grouped.pop(k)
    grouped["cwnd"] = cwnd_share
    top = max(grouped, key=lambda k: grouped[k])
    # A window that holds the BDP plus the bottleneck queue, with headroom.
    need = _mib_ceil(HEADROOM_BDP * bdp + buffer)
    key = f"flow[{i}]"
    if top == "rwnd":
        rwnd = e["rwnd_bytes"]
        rcvbuf = _spec_size(spec, "rcvbuf") or _spec_size(spec.get("tcp") or {}, "rmem_max")
        held = f" at {rwnd / bdp:.2f} BDP" if rwnd else ""
        # The buffer that gives the needed window: the profile's buffer-to-window ratio (1/φ).
        size = _mib_ceil(need * (rcvbuf / rwnd if rwnd and rcvbuf else 1.0))
        return (
            "rwnd",
            f"the receive window: {_buffer_words(spec, 'rcvbuf', 'rmem_max')} holds the window{held} "
            f"({100 * share['rwnd']:.0f} % of the time); a rcvbuf of {_fmt_size(size)} "
            f"(a window of {HEADROOM_BDP:g} × BDP + the bottleneck queue) lifts it",
            {f"{key}.rcvbuf": _fmt_size(size)},
        )
    if top == "sndbuf":
        size = _mib_ceil(2 * need)
        return (
            "sndbuf",
            f"the send buffer: {_buffer_words(spec, 'sndbuf', 'wmem_max')} runs full "
            f"({100 * share['sndbuf']:.0f} % of the time) and holds the flight under "
            f"{HEADROOM_BDP:g} × BDP; a sndbuf of {_fmt_size(size)} lifts it",
            {f"{key}.sndbuf": _fmt_size(size)},
        )
    if top == "application":
        app = spec.get("app_rate")
        if app:
            return (
                "application",
                f"the application: it supplies data at {app} ({100 * share['application']:.0f} % of the time "
                f"the sender had nothing to send); a faster source lifts it",
                {f"{key}.app_rate": f"{max(rate_bps(app) * 10, int(e['bottleneck_bps'] * 2))}bps"},
            )
        return (
            "application",
            f"the application: the sender had nothing to send {100 * share['application']:.0f} % of the time",
            {},
        )
    if top == "pacing":
        cap = (spec.get("pacing") or {}).get("max_rate")
        if cap and rate_bps(cap) < e["bottleneck_bps"]:
            return (
                "pacing",
                f"pacing: max_rate {cap} is below the {e['bottleneck_bps'] / 1e6:.0f} Mbit/s bottleneck "
                f"({100 * share['pacing']:.0f} % of the time pacing held the next segment); removing the cap lifts it",
                {f"{key}.pacing.max_rate": f"{e['bottleneck_bps'] * 10}bps"},
            )
        return (
            "pacing",
            f"pacing: the pacing rate held the next segment {100 * share['pacing']:.0f} % of the time",
            {},
        )
    if top == "stall":
        return (
            "stall",
            f"the host: its queue (NIC, qdisc or TSQ) held the segments {100 * share['stall']:.0f} % of the time",
            {},
        )
    return _cwnd_verdict(e, cwnd_share)


def _cwnd_verdict(e: dict[str, Any], cwnd_share: float) -> tuple[str, str, dict[str, str]]:
    """cwnd is the limit: after which losses, and what they come from."""
    loss = e["losses"]
    share = e["limited_share"]
    mss, rtt = e["mss_bytes"], e["base_rtt_s"]
    bdp = e["bdp_bytes"]
    p = e["random_loss_rate"]
    mathis = mss * 8 / rtt * MATHIS_C / math.sqrt(p) if p > 0 else math.inf
    # Random loss is the limit when it alone would hold a Reno-like flow below the path
    # (Mathis' rate under the wire bound); counting frames would not do: one slow-start
    # overshoot can drop more at the queue than a whole run loses at random.
    if mathis < e["wire_bound_bps"]:
        return (
            "random_loss",
            f"random loss: {loss['random']} frames lost on the path (p ≈ {p:.1e}) keep cwnd low "
            f"({100 * cwnd_share:.0f} % of the time cwnd-limited); the Mathis bound MSS/RTT·1.22/√p is "
            f"{mathis / 1e6:.2f} Mbit/s; a loss-free path lifts it",
            {},
        )
    if loss["queue_overflow"] > 0 or loss["timeouts"] > 0:
        buffer_bdp = e["buffer_bdp"]
        size = _mib_ceil(bdp) if bdp > 0 else None
        where = f"the {e['bottleneck']} queue of {buffer_bdp:.3f} BDP" if buffer_bdp is not None else f"the {e['bottleneck']} queue"
        lift: dict[str, str] = {}
        tail = ""
        queue = e["bottleneck_queue_key"]
        if size is not None and queue is not None and buffer_bdp is not None and buffer_bdp < 1.0:
            lift = {f"{queue}.limit": _fmt_size(size)}
            tail = f"; a queue of 1 BDP ({_fmt_size(size)}) or pacing lifts it"
        return (
            "loss",
            f"losses at {where}: {loss['queue_overflow']} drops and {loss['timeouts']} RTOs cut cwnd "
            f"({100 * share['recovery']:.0f} % of the time recovering, "
            f"{100 * share['congestion_avoidance']:.0f} % regrowing in congestion avoidance){tail}",
            lift,
        )
    phase = max(("slow_start", "congestion_avoidance"), key=lambda k: share[k])
    return (
        "cwnd",
        f"cwnd growth: no loss, but {LIMIT_WORDS[phase]} held the sender {100 * share[phase]:.0f} % of the time; "
        "a longer run or an algorithm that grows faster on this BDP would raise goodput",
        {},
    )


def _queue_limit(scenario: dict[str, Any], port: str, mss: int) -> tuple[Optional[int], Optional[str]]:
    """The byte limit of queue ``port`` ("a->b" for a link's egress, "host:ifq" for a
    host's interface queue) in the resolved scenario, and the key of its queue table
    (``link[j].queue`` or ``link[j].reverse_queue``); None where it has none we can read.
    A packet limit counts full-size frames (MSS + 78 bytes of headers and framing)."""
    if port.endswith(":ifq"):
        host = port.removesuffix(":ifq")
        for n in scenario.get("node", []):
            if n.get("name") == host and n.get("txqueuelen") is not None:
                return int(n["txqueuelen"]) * (mss + 78), None
        return None, None
    a, _, b = port.partition("->")
    for j, link in enumerate(scenario.get("link", [])):
        ends = (link.get("from"), link.get("to"))
        if ends == (a, b):
            table = "queue"
        elif ends == (b, a):
            table = "reverse_queue"
        else:
            continue
        q = link.get(table) or {}
        key = f"link[{j}].{table}"
        limit = q.get("limit")
        if limit is None:
            return None, key
        if isinstance(limit, int):
            return limit * (mss + 78), key
        return size_bytes(limit), key
    return None, None


def _buffer_words(spec: dict[str, Any], key: str, limit: str) -> str:
    """``rcvbuf 256KiB``, or for a buffer the flow leaves to autotuning its era's limit."""
    size = _spec_size(spec, key)
    if size is not None:
        return f"{key} {_fmt_size(size)}"
    return f"the autotuned {key} (up to {limit} {(spec.get('tcp') or {}).get(limit, '?')})"


def _window_bytes(spec: dict[str, Any], tcp: dict[str, Any], which: str) -> Optional[float]:
    """The window a receive buffer allows: φ·rcvbuf under ``linux_fraction``
    (φ from ``adv_win_scale``, spec 06 §2.3), the whole buffer under ``full_buffer``;
    ``setsockopt`` semantics double the memory first. A buffer the flow leaves to
    autotuning counts at its limit (``tcp.rmem_max``)."""
    size = _spec_size(spec, which) or _spec_size(tcp, "rmem_max")
    if size is None:
        return None
    memory = size * (2 if tcp.get("buffer_semantics") == "setsockopt" else 1)
    if tcp.get("rwnd_policy", "linux_fraction") != "linux_fraction":
        return float(memory)
    s = int(tcp.get("adv_win_scale", 1))
    phi = 1.0 - 2.0**-s if s >= 1 else 2.0**s
    return memory * phi


def _spec_size(spec: dict[str, Any], key: str) -> Optional[int]:
    v = spec.get(key)
    return size_bytes(v) if isinstance(v, str) else (int(v) if v is not None else None)


def _mib_ceil(n: float) -> int:
    return max(1, math.ceil(n / MiB)) * MiB


def _fmt_size(n: Optional[int]) -> str:
    if n is None:
        return "(unset)"
    return f"{n // MiB}MiB" if n % MiB == 0 else f"{n // 1024}KiB" if n % 1024 == 0 else f"{n}B"
