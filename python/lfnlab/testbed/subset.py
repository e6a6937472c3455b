"""The scenarios the testbed can run, and the plan it runs them by.

Supported (docs/testbed.md): two hosts and one emulator node between them, one link
from each host to the emulator, one ``tcp_bulk`` flow from one host to the other with
``cc`` reno, newreno, cubic or bbr and ``pacing`` internal or off, its socket buffers,
Bernoulli loss on the link from the emulator to the receiver, and monitors at the
emulator's egress. Everything else must stay at its default: the
check resolves a scenario holding only the supported keys and refuses the first key
path where the given scenario differs, so no setting is silently ignored.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Optional

from ..errors import InvalidInputError
from ..scenario import Scenario
from ..toml_text import value_text
from .units import rate_bps, size_bytes, time_ns

__all__ = ["Direction", "Monitor", "Plan", "check", "KERNEL_CC", "UNLIMITED_QUEUE_BYTES"]

#: Scenario ``cc`` → Linux congestion control module. Linux "reno" is NewReno
#: (RFC 6582 recovery, with SACK when negotiated): both names map to it.
KERNEL_CC = {"reno": "reno", "newreno": "reno", "cubic": "cubic", "bbr": "bbr"}
#: Relay limit for an emulator queue without a limit (the default reverse queue,
#: which in the simulator never drops): far above what an ACK stream queues.
UNLIMITED_QUEUE_BYTES = 2**20
#: Smallest socket buffer the testbed sets (the kernel's tcp_wmem/tcp_rmem minimum).
MIN_BUFFER_BYTES = 4096
_PACING = ("internal", "off")
_SUPPORTED = (
    "the testbed runs two hosts and one emulator node between them, one link from each host "
    "to the emulator, one tcp_bulk flow (cc reno, newreno, cubic or bbr; pacing internal or off; "
    "sndbuf, rcvbuf), Bernoulli loss on the link from the emulator to the receiver, and monitors at the "
    "emulator's egress; see docs/testbed.md"
)


@dataclass(frozen=True)
class Direction:
    """How the relay shapes one direction (the emulator's egress queue of that direction)."""

    #: Line rate of the direction, wire bytes (the slower of its two links).
    rate_bps: int
    #: One-way delay: the delays of both links added.
    delay_ns: int
    #: Drop-tail limit, L2 bytes.
    limit_bytes: int
    #: The emulator egress queue's name in the simulator's results, e.g. ``"wan->rcv"``.
    queue: str
    #: Bernoulli loss per frame after the queue and the line (the simulator's
    #: ``link.loss`` on the link from the emulator toward this direction's host).
    loss_p: float = 0.0
    #: The loss may drop only frames carrying data (``applies_to = "data"``).
    loss_data_only: bool = True
    #: The simulator's name of that loss's random stream (``link[i].loss``): the relay
    #: draws from it under the run's seed, so both sides lose the same data frames by count.
    loss_stream: str = ""


@dataclass(frozen=True)
class Monitor:
    """A ``[[monitor]]`` at one of the emulator's egresses."""

    link: str
    #: ``"a_to_b"`` (toward the receiver) or ``"b_to_a"`` (toward the sender).
    direction: str
    bin_ns: int


@dataclass(frozen=True)
class Plan:
    """A checked scenario, in the terms the testbed runs it."""

    origin: str
    name: str
    seed: int
    #: The resolved scenario (written to ``scenario.toml``).
    scenario_toml: str
    sender: str
    emulator: str
    receiver: str
    flow: str
    #: ``cc`` as the scenario names it, and the Linux module that runs it.
    cc: str
    kernel_cc: str
    #: ``"internal"`` or ``"off"``.
    pacing: str
    #: ``pacing.max_rate`` (SO_MAX_PACING_RATE), bit/s; None when not given.
    max_pacing_rate_bps: Optional[int]
    sndbuf_bytes: int
    rcvbuf_bytes: int
    #: iperf3 takes whole seconds.
    duration_s: int
    #: Sender → receiver (the data) and receiver → sender (the ACKs).
    a_to_b: Direction
    b_to_a: Direction
    monitors: tuple[Monitor, ...]

    @property
    def base_rtt_ns(self) -> int:
        """Propagation RTT: the one-way delays of both directions."""
        return self.a_to_b.delay_ns + self.b_to_a.delay_ns


class _Checker:
    def __init__(self, scenario: Scenario) -> None:
        self.origin = scenario.origin
        self.d = scenario.to_dict()

    def fail(self, key_path: str, message: str) -> InvalidInputError:
        return InvalidInputError(f"{message}; {_SUPPORTED}", self.origin, key_path)


def _topology(c: _Checker) -> tuple[str, str, list[dict[str, Any]]]:
    nodes = c.d.get("node", [])
    kinds = [n["kind"] for n in nodes]
    if sorted(kinds) != ["emulator", "host", "host"]:
        raise c.fail("node", f"expected two hosts and one emulator, got {len(nodes)} nodes ({', '.join(kinds) or 'none'})")
    emulator = nodes[kinds.index("emulator")]["name"]
    hosts = [n["name"] for n in nodes if n["kind"] == "host"]
    links = c.d.get("link", [])
    if len(links) != 2:
        raise c.fail("link", f"expected two links (one from each host to the emulator), got {len(links)}")
    for i, link in enumerate(links):
        ends = {link["from"], link["to"]}
        if emulator not in ends or not ends & set(hosts) or len(ends) != 2:
            got = f'{link["from"]} - {link["to"]}'
            raise c.fail(f"link[{i}]", f'expected a link between a host and the emulator "{emulator}", got {got}')
    if {links[0]["from"], links[0]["to"]} == {links[1]["from"], links[1]["to"]}:
        raise c.fail("link[1]", "expected one link from each host to the emulator, got two links between the same nodes")
    return emulator, hosts[0], links


def _flow(c: _Checker, hosts: set[str]) -> dict[str, Any]:
    flows = c.d.get("flow", [])
    if len(flows) != 1:
        raise c.fail("flow", f"expected one tcp_bulk flow, got {len(flows)} flows")
    f = flows[0]
    if f["kind"] != "tcp_bulk":
        raise c.fail("flow[0].kind", f'expected "tcp_bulk", got "{f["kind"]}"')
    if {f["from"], f["to"]} != hosts:
        raise c.fail("flow[0].to", "expected a flow from one host to the other")
    if f.get("cc") not in KERNEL_CC:
        names = ", ".join(KERNEL_CC)
        raise c.fail("flow[0].cc", f'expected one of {names} (the kernel modules reno, cubic, bbr), got "{f.get("cc")}"')
    pacing = f.get("pacing", {})
    if pacing.get("kind") not in _PACING:
        raise c.fail(
            "flow[0].pacing.kind",
            f'expected "internal" or "off" (this kernel has no fq qdisc; linux-modern paces with fq by default), '
            f'got "{pacing.get("kind")}"',
        )
    if "max_rate" in pacing and pacing["kind"] != "internal":
        raise c.fail("flow[0].pacing.max_rate", 'expected max_rate only with kind = "internal"')
    for key in ("sndbuf", "rcvbuf"):
        if size_bytes(f[key]) < MIN_BUFFER_BYTES:
            raise c.fail(f"flow[0].{key}", f'expected at least 4KiB (the kernel\'s tcp_wmem/tcp_rmem minimum), got "{f[key]}"')
    if time_ns(f.get("start", "0s")) != 0:
        raise c.fail("flow[0].start", f'expected "0s": the testbed starts the transfer at once, got "{f["start"]}"')
    return f


def _egress(c: _Checker, links: list[dict[str, Any]], emulator: str, host: str) -> tuple[int, int, int, str, Optional[dict[str, Any]]]:
    """The link between the emulator and `host`: (rate host→emulator, rate emulator→host,
    delay, key path of the emulator's egress queue, that queue)."""
    i = next(i for i, l in enumerate(links) if host in (l["from"], l["to"]))
    link = links[i]
    forward, reverse = rate_bps(link["rate"]), rate_bps(link.get("reverse_rate", link["rate"]))
    if link["from"] == emulator:
        return reverse, forward, time_ns(link["delay"]), f"link[{i}].queue", link.get("queue")
    return forward, reverse, time_ns(link["delay"]), f"link[{i}].reverse_queue", link.get("reverse_queue")


def _limit(c: _Checker, key: str, queue: Optional[dict[str, Any]], required: bool) -> int:
    if queue is None or queue.get("kind") != "droptail":
        kind = None if queue is None else queue.get("kind")
        raise c.fail(f"{key}.kind", f'expected a "droptail" queue at the emulator, got {kind!r}')
    if "limit_packets" in queue:
        got = queue["limit_packets"]
        raise c.fail(f"{key}.limit_packets", f'expected a byte limit (limit = "128KiB"): the relay counts L2 bytes, got limit_packets = {got}')
    if "limit" not in queue:
        if required:
            raise c.fail(f"{key}.limit", 'expected a byte limit on the bottleneck queue, e.g. limit = "128KiB"')
        return UNLIMITED_QUEUE_BYTES
    limit = size_bytes(queue["limit"])
    if limit < 1518:
        raise c.fail(f"{key}.limit", f"expected at least one full frame (1518 B), got {limit} B")
    return limit


def _loss(c: _Checker, links: list[dict[str, Any]], emulator: str, receiver: str, duration_ns: int) -> tuple[float, bool, str]:
    """(p, data only, stream name) of the one loss the relay reproduces: ``bernoulli`` on the link
    declared from the emulator to the receiver, for the whole run. The simulator applies
    a link's loss to frames arriving at its ``to`` end, after the emulator's queue and
    line; the relay loses them at the same place (crates/lfnlab-emu/src/loss.rs)."""
    found = (0.0, True, "")
    for i, link in enumerate(links):
        loss = link.get("loss")
        if loss is None:
            continue
        key = f"link[{i}].loss"
        if (link["from"], link["to"]) != (emulator, receiver):
            raise c.fail(
                key,
                f'expected random loss only on a link declared from the emulator "{emulator}" to the receiver '
                f'"{receiver}" (the data after the bottleneck), got a loss on {link["from"]} -> {link["to"]}',
            )
        if loss.get("kind") != "bernoulli":
            raise c.fail(f"{key}.kind", f'expected "bernoulli" (the relay has no Gilbert–Elliott model), got "{loss.get("kind")}"')
        if time_ns(loss.get("start", "0s")) != 0:
            raise c.fail(f"{key}.start", f'expected "0s": the relay loses frames for the whole run, got "{loss["start"]}"')
        if "stop" in loss and time_ns(loss["stop"]) < duration_ns:
            raise c.fail(f"{key}.stop", f'expected the end of the run: the relay loses frames for the whole run, got "{loss["stop"]}"')
        # sim/build.rs link_loss: Stream::derive(seed, "link[{li}].loss").
        found = (float(loss["p"]), loss.get("applies_to", "data") == "data", f"link[{i}].loss")
    return found


def _monitors(c: _Checker, emulator: str, sender: str, receiver: str) -> tuple[Monitor, ...]:
    out = []
    for i, m in enumerate(c.d.get("monitor", [])):
        direction = {f"{emulator}->{receiver}": "a_to_b", f"{emulator}->{sender}": "b_to_a"}.get(m["link"])
        if direction is None:
            wanted = f'"{emulator}->{receiver}" or "{emulator}->{sender}"'
            raise c.fail(f"monitor[{i}].link", f"expected {wanted} (the relay sees only the emulator's egress), got \"{m['link']}\"")
        if m.get("point", "egress") != "egress":
            raise c.fail(f"monitor[{i}].point", f'expected "egress", got "{m["point"]}"')
        if m.get("capture_packets", 0):
            raise c.fail(f"monitor[{i}].capture_packets", "expected 0: the testbed captures no packets")
        out.append(Monitor(link=m["link"], direction=direction, bin_ns=time_ns(m["bin"])))
    return tuple(out)


def _canonical(d: dict[str, Any]) -> dict[str, Any]:
    """The scenario with only the keys the testbed reproduces; the rest at its defaults."""
    f = d["flow"][0]
    link_keys = ("from", "to", "rate", "reverse_rate", "delay", "queue", "reverse_queue", "loss")
    flow_keys = ("name", "kind", "from", "to", "start", "cc", "sndbuf", "rcvbuf", "pacing")
    # The kernel autotunes up to sndbuf/rcvbuf (tcp_wmem[2]/tcp_rmem[2]): unlocked buffers
    # are what the testbed runs, so saying so is accepted.
    unlocked = {k: False for k in ("sndbuf_lock", "rcvbuf_lock") if f.get("tcp", {}).get(k) is False}
    return {
        "sim": d["sim"],
        "node": [{"name": n["name"], "kind": n["kind"]} for n in d["node"]],
        "link": [{k: l[k] for k in link_keys if k in l} for l in d["link"]],
        "flow": [{**{k: f[k] for k in flow_keys if k in f}, **({"tcp": unlocked} if unlocked else {})}],
        "monitor": d.get("monitor", []),
    }


def _first_difference(given: Any, canon: Any, path: str) -> Optional[tuple[str, Any, Any]]:
    if isinstance(given, dict) and isinstance(canon, dict):
        for key in list(given) + [k for k in canon if k not in given]:
            sub = f"{path}.{key}" if path else key
            if key not in canon or key not in given:
                return sub, given.get(key), canon.get(key)
            found = _first_difference(given[key], canon[key], sub)
            if found is not None:
                return found
        return None
    if isinstance(given, list) and isinstance(canon, list) and len(given) == len(canon):
        for i, (g, c) in enumerate(zip(given, canon)):
            found = _first_difference(g, c, f"{path}[{i}]")
            if found is not None:
                return found
        return None
    return None if given == canon else (path, given, canon)


def _check_defaults(c: _Checker) -> None:
    canon = Scenario.from_dict(_canonical(c.d), origin=c.origin).to_dict()
    found = _first_difference(c.d, canon, "")
    if found is None:
        return
    path, given, default = found
    if default is None:
        raise c.fail(path, f"not supported by the testbed (the scenario sets {value_text(given)})")
    raise c.fail(path, f"the testbed runs this at its default {value_text(default)} only, the scenario has {value_text(given)}")


def check(scenario: Scenario) -> Plan:
    """The plan for ``scenario``, or InvalidInputError naming the file, the key path and
    what the testbed supports."""
    c = _Checker(scenario)
    if c.d.get("capture"):
        raise c.fail("capture", "the testbed writes no pcap files")
    emulator, _, links = _topology(c)
    hosts = {n["name"] for n in c.d["node"] if n["kind"] == "host"}
    f = _flow(c, hosts)
    sender, receiver = f["from"], f["to"]
    duration_ns = time_ns(c.d["sim"]["duration"])
    if duration_ns % 10**9 or duration_ns == 0:
        raise c.fail("sim.duration", f'expected a whole number of seconds, at least 1 (iperf3 -t), got "{c.d["sim"]["duration"]}"')
    _check_defaults(c)

    s_up, s_down, s_delay, s_key, s_queue = _egress(c, links, emulator, sender)
    r_up, r_down, r_delay, r_key, r_queue = _egress(c, links, emulator, receiver)
    if s_up < r_down:
        key = s_key.split(".")[0]
        raise c.fail(
            f"{key}.rate",
            f"expected the sender's link to be at least as fast as the emulator's egress toward the receiver "
            f"({r_down} bit/s): the testbed shapes only in the emulator, got {s_up} bit/s",
        )
    loss_p, loss_data_only, loss_stream = _loss(c, links, emulator, receiver, duration_ns)
    a_to_b = Direction(
        r_down, s_delay + r_delay, _limit(c, r_key, r_queue, True), f"{emulator}->{receiver}", loss_p, loss_data_only, loss_stream
    )
    b_to_a = Direction(min(r_up, s_down), s_delay + r_delay, _limit(c, s_key, s_queue, False), f"{emulator}->{sender}")
    pacing = f["pacing"]
    return Plan(
        origin=c.origin,
        name=str(c.d["sim"].get("name", "scenario")),
        seed=int(c.d["sim"].get("seed", 0)),
        scenario_toml=scenario.to_toml(),
        sender=sender,
        emulator=emulator,
        receiver=receiver,
        flow=f["name"],
        cc=f["cc"],
        kernel_cc=KERNEL_CC[f["cc"]],
        pacing=pacing["kind"],
        max_pacing_rate_bps=rate_bps(pacing["max_rate"]) if "max_rate" in pacing else None,
        sndbuf_bytes=size_bytes(f["sndbuf"]),
        rcvbuf_bytes=size_bytes(f["rcvbuf"]),
        duration_s=duration_ns // 10**9,
        a_to_b=a_to_b,
        b_to_a=b_to_a,
        monitors=_monitors(c, emulator, sender, receiver),
    )
