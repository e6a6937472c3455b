"""Build a scenario in Python from small typed objects (issue 37 item 3).

Each object stands for one table of the scenario file and writes exactly that
table (:meth:`to_dict`): the keys are the file's keys (docs/reference/scenario-keys.md),
quantities are the file's strings with units (``"1Gbps"``, ``"128KiB"``, ``"100ms"``;
:func:`rate`, :func:`size` and :func:`time` write them from numbers), and a key left
at ``None`` is left out, so the core fills in its default. Nothing is checked here:
:meth:`Network.scenario` hands the dict to the core's loader, the one place a scenario
is validated, which names the key path of anything wrong.

>>> from lfnlab import build as b
>>> net = b.Network(b.Sim("dumbbell", duration="60s"))
>>> snd, wan, rcv = net.add(b.Host("snd")), net.add(b.Emulator("wan")), net.add(b.Host("rcv"))
>>> net.add(b.Link(snd, wan, rate="1Gbps", delay="0s"))
>>> net.add(b.Link(wan, rcv, rate="500Mbps", delay="100ms", queue=b.DropTail(limit="128KiB")))
>>> net.add(b.Flow("bulk", snd, rcv, kind="tcp_bulk", cc="cubic"))
>>> net.add(b.Monitor(wan, rcv, bin="1ms"))
>>> s = net.scenario()  # an lfnlab.Scenario, resolved by the core

A key the objects do not name (a host's ``cpu`` table, a link's ``impair``, …) goes in
``keys``, as it would be written in the file.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any, Optional, TypeVar, Union

from .scenario import Scenario, Sets

__all__ = [
    "Sim",
    "Trace",
    "Host",
    "Router",
    "Emulator",
    "Switch",
    "DropTail",
    "Link",
    "Flow",
    "Monitor",
    "Network",
    "rate",
    "size",
    "time",
]

Table = Mapping[str, Any]


def _whole(value: float, what: str) -> int:
    n = round(value)
    if abs(value - n) > 1e-6 * max(1.0, abs(value)):
        raise ValueError(f"{what} {value!r} is not a whole number")
    return int(n)


def rate(bps: float) -> str:
    """A rate in bit/s as scenario text, exact: ``1e9`` → ``"1Gbps"``, ``62.5e6 * 8`` → ``"500Mbps"``."""
    n = _whole(bps, "rate in bit/s")
    for factor, unit in ((10**9, "Gbps"), (10**6, "Mbps"), (10**3, "kbps")):
        if n % factor == 0:
            return f"{n // factor}{unit}"
    return f"{n}bps"


def size(nbytes: float) -> str:
    """A size in bytes as scenario text, exact and unprefixed: ``6.25e6`` → ``"6250000B"``."""
    return f"{_whole(nbytes, 'size in bytes')}B"


def time(seconds: float) -> str:
    """A time in seconds as scenario text, exact to the nanosecond: ``0.025`` → ``"25ms"``."""
    ns = _whole(seconds * 1e9, "time in ns")
    for factor, unit in ((10**9, "s"), (10**6, "ms"), (10**3, "us")):
        if ns % factor == 0:
            return f"{ns // factor}{unit}"
    return f"{ns}ns"


def _table(obj: Any, *, skip: tuple[str, ...] = (), rename: Optional[Mapping[str, str]] = None) -> dict[str, Any]:
    """The dataclass ``obj`` as a scenario table: fields in declaration order, ``None`` left
    out, nested objects as their tables, ``keys`` merged last."""
    out: dict[str, Any] = {}
    for f in dataclasses.fields(obj):
        if f.name in skip or f.name == "keys":
            continue
        v = getattr(obj, f.name)
        if v is None:
            continue
        out[(rename or {}).get(f.name, f.name)] = v.to_dict() if hasattr(v, "to_dict") else (dict(v) if isinstance(v, Mapping) else v)
    out.update(getattr(obj, "keys", None) or {})
    return out


@dataclasses.dataclass
class Trace:
    """``[sim.trace]``: ``mode`` ``bin`` (default), ``event`` or ``off``; ``bin`` its width."""

    mode: Optional[str] = None
    bin: Optional[str] = None

    def to_dict(self) -> dict[str, Any]:
        return _table(self)


@dataclasses.dataclass
class Sim:
    """``[sim]``: the run's name (its output directory), simulated duration and seed."""

    name: str
    duration: str
    seed: Optional[int] = None
    trace: Optional[Trace] = None
    keys: Optional[Table] = None

    def to_dict(self) -> dict[str, Any]:
        return _table(self)


@dataclasses.dataclass
class Host:
    """``[[node]] kind = "host"``: an end host, its NIC, IP fields, qdisc and TCP defaults."""

    name: str
    mtu: Optional[int] = None
    nic_rate: Optional[str] = None
    txqueuelen: Optional[int] = None
    ipg_bytes: Optional[int] = None
    ip_version: Optional[int] = None
    ip_ttl: Optional[int] = None
    qdisc: Optional[Table] = None
    profile: Optional[str] = None
    tcp: Optional[Table] = None
    pacing: Optional[Table] = None
    #: The Quick-Start router function on the host's egress (spec 02 §2.5).
    quickstart: Optional[Table] = None
    #: The NIC pipeline (spec 04 §2.4–2.6), e.g. ``{"profile": "chelsio_t110"}``.
    nic: Optional[Table] = None
    #: 802.3x PAUSE (spec 04 §2.5): ``{"send": True, "honour": True}``.
    fc: Optional[Table] = None
    #: The host CPU of spec 04 §2.7 (``{}``: every key at its default).
    cpu: Optional[Table] = None
    keys: Optional[Table] = None

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "kind": "host", **_table(self, skip=("name",))}


@dataclasses.dataclass
class Router:
    """``[[node]] kind = "router"``: forwards through one drop-tail queue per link (TTL −1)."""

    name: str
    #: 802.3x PAUSE of its ports (spec 04 §2.5): ``honour``, and ``send`` per ingress port.
    fc: Optional[Table] = None
    keys: Optional[Table] = None

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "kind": "router", **_table(self, skip=("name",))}


@dataclasses.dataclass
class Emulator:
    """``[[node]] kind = "emulator"``: a GtrcNET-like box that forwards, shapes, delays and drops."""

    name: str
    keys: Optional[Table] = None

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "kind": "emulator", **_table(self, skip=("name",))}


@dataclasses.dataclass
class Switch:
    """``[[node]] kind = "switch"``: a spec 05 switch, ``switch`` its table (``config``, overrides)."""

    name: str
    switch: Optional[Table] = None
    arbiter: Optional[str] = None
    keys: Optional[Table] = None

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "kind": "switch", **_table(self, skip=("name",))}


Node = Union[Host, Router, Emulator, Switch]
NodeRef = Union[Node, str]


def _name(n: NodeRef) -> str:
    return n if isinstance(n, str) else n.name


@dataclasses.dataclass
class DropTail:
    """A drop-tail FIFO of ``limit`` bytes and/or ``limit_packets`` packets."""

    limit: Optional[str] = None
    limit_packets: Optional[int] = None

    def to_dict(self) -> dict[str, Any]:
        return {"kind": "droptail", **_table(self)}


@dataclasses.dataclass
class Link:
    """``[[link]]``: a full-duplex link from ``a`` to ``b`` (``rate`` and ``queue`` for the
    direction a → b; ``reverse_rate`` and ``reverse_queue`` for b → a)."""

    a: NodeRef
    b: NodeRef
    rate: Optional[str] = None
    #: A named PHY (``"1g"``, ``"10g"``, …) instead of ``rate``.
    phy: Optional[str] = None
    delay: str = "0s"
    reverse_rate: Optional[str] = None
    queue: Optional[Union[DropTail, Table]] = None
    reverse_queue: Optional[Union[DropTail, Table]] = None
    loss: Optional[Table] = None
    keys: Optional[Table] = None

    def to_dict(self) -> dict[str, Any]:
        return {"from": _name(self.a), "to": _name(self.b), **_table(self, skip=("a", "b"))}


@dataclasses.dataclass
class Flow:
    """``[[flow]]``: traffic of ``kind`` (``tcp_bulk``, ``udp_cbr``, …) from ``a`` to ``b``."""

    name: str
    a: NodeRef
    b: NodeRef
    kind: str = "tcp_bulk"
    #: ``udp_cbr``: the sending rate and the IP packet size in bytes.
    rate: Optional[str] = None
    size: Optional[int] = None
    #: TCP: congestion control, profile (spec 06 §2.1), socket buffers, parameter overrides.
    cc: Optional[str] = None
    profile: Optional[str] = None
    sndbuf: Optional[str] = None
    rcvbuf: Optional[str] = None
    tcp: Optional[Table] = None
    pacing: Optional[Table] = None
    cc_params: Optional[Table] = None
    #: A transfer of this many bytes instead of unlimited data.
    bytes: Optional[str] = None
    start: Optional[str] = None
    stop: Optional[str] = None
    keys: Optional[Table] = None

    def to_dict(self) -> dict[str, Any]:
        head = {"name": self.name, "kind": self.kind, "from": _name(self.a), "to": _name(self.b)}
        return {**head, **_table(self, skip=("name", "kind", "a", "b"))}


@dataclasses.dataclass
class Monitor:
    """``[[monitor]]``: per-bin counters of the egress of ``a`` toward ``b`` (``point =
    "ingress"``: of the frames arriving at ``b``)."""

    a: NodeRef
    b: NodeRef
    bin: str
    point: Optional[str] = None
    #: Record the first ``capture_packets`` frames from ``capture_from`` on (``packets.parquet``).
    capture_packets: Optional[int] = None
    capture_from: Optional[str] = None
    keys: Optional[Table] = None

    def to_dict(self) -> dict[str, Any]:
        return {"link": f"{_name(self.a)}->{_name(self.b)}", **_table(self, skip=("a", "b"))}


T = TypeVar("T", Host, Router, Emulator, Switch, Link, Flow, Monitor)


@dataclasses.dataclass
class Network:
    """A whole scenario: ``sim`` and the nodes, links, flows and monitors added, in order."""

    sim: Sim
    nodes: list[Node] = dataclasses.field(default_factory=list)
    links: list[Link] = dataclasses.field(default_factory=list)
    flows: list[Flow] = dataclasses.field(default_factory=list)
    monitors: list[Monitor] = dataclasses.field(default_factory=list)

    def add(self, obj: T) -> T:
        """Add a node, link, flow or monitor; returns it (a node is then usable as a link end)."""
        if isinstance(obj, (Host, Router, Emulator, Switch)):
            self.nodes.append(obj)
        elif isinstance(obj, Link):
            self.links.append(obj)
        elif isinstance(obj, Flow):
            self.flows.append(obj)
        elif isinstance(obj, Monitor):
            self.monitors.append(obj)
        else:
            raise TypeError(f"expected a node, Link, Flow or Monitor, got {type(obj).__name__}")
        return obj

    def to_dict(self) -> dict[str, Any]:
        """The scenario as nested dicts shaped like the TOML file (empty sections left out)."""
        d: dict[str, Any] = {"sim": self.sim.to_dict()}
        for key, items in (("node", self.nodes), ("link", self.links), ("flow", self.flows), ("monitor", self.monitors)):
            if items:
                d[key] = [x.to_dict() for x in items]
        return d

    def scenario(self, set: Sets = None, *, origin: Optional[str] = None) -> Scenario:
        """The scenario, loaded and resolved by the core; errors name ``origin`` (default
        ``<sim.name>``) and the key path."""
        return Scenario.from_dict(self.to_dict(), set, origin=origin if origin is not None else f"<{self.sim.name}>")
