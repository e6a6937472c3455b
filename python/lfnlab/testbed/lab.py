"""The lab of one run: three network namespaces joined by two veth pairs.

```
 PREFIX-snd (10.201.0.1) tb0 ── ea [PREFIX-emu: lfnlab emu] eb ── tb0 (10.201.0.2) PREFIX-rcv
```

``PREFIX`` is ``lfnlab-<pid>-<n>``: unique per process and per lab, so runs in
parallel never share a name, and cleanup deletes exactly this run's namespaces. Every
veth end has MTU 1500 and its offloads off (``ethtool -K DEV gro off gso off tso off
tx off`` and ``gso_max_segs 1``): GRO/GSO/TSO would hand the relay 64 KB super-frames
and tx checksum offload would leave checksums unfinished (crates/lfnlab-emu/README.md).
"""

from __future__ import annotations

import itertools
import os
import re
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

from ..errors import LfnlabError, SimulationError
from .registry import Registry, is_root, run_command
from .subset import Plan

__all__ = ["Lab", "TestbedUnavailableError", "SENDER_ADDR", "RECEIVER_ADDR", "check_host", "build", "tcp_counters", "owner_pid"]

SENDER_ADDR = "10.201.0.1"
RECEIVER_ADDR = "10.201.0.2"
#: The host end of each veth pair (in the sender's and in the receiver's namespace).
IF_HOST = "tb0"
#: The emulator's ends: toward the sender (relay side A) and toward the receiver (side B).
IF_EMU_A = "ea"
IF_EMU_B = "eb"
MTU_BYTES = 1500
#: Programs a run needs (Debian: iproute2, iperf3, ethtool).
TOOLS = ("ip", "iperf3", "ethtool", "ss")
#: Linux defaults of tcp_wmem and tcp_rmem (min, default); the scenario sets the max.
TCP_WMEM_MIN_DEFAULT = (4096, 16384)
TCP_RMEM_MIN_DEFAULT = (4096, 131072)

#: Tcp.* fields of /proc/net/snmp that are settings or gauges, not counters.
_CONSTANTS = frozenset({"RtoAlgorithm", "RtoMin", "RtoMax", "MaxConn", "CurrEstab"})

_labs = itertools.count(1)
#: A lab namespace's name: ``lfnlab-<pid>-<n>-<role>`` (see :class:`Lab`).
_NAME = re.compile(r"^lfnlab-(\d+)-\d+-(snd|emu|rcv)$")


class TestbedUnavailableError(LfnlabError):
    """This machine cannot run the testbed: not root, no network namespaces, a tool missing."""


@dataclass(frozen=True)
class Lab:
    """The namespaces of one run (all three exist until the registry closes)."""

    prefix: str

    @property
    def snd(self) -> str:
        return f"{self.prefix}-snd"

    @property
    def emu(self) -> str:
        return f"{self.prefix}-emu"

    @property
    def rcv(self) -> str:
        return f"{self.prefix}-rcv"

    @staticmethod
    def exec(namespace: str) -> list[str]:
        """The command prefix that runs a program in ``namespace``."""
        return ["ip", "netns", "exec", namespace]


def owner_pid(namespace: str) -> Optional[int]:
    """The process that created lab namespace ``namespace``; None for a name not of a lab."""
    m = _NAME.match(namespace)
    return None if m is None else int(m.group(1))


def check_host() -> None:
    """Raises TestbedUnavailableError unless this process is root and has the tools."""
    if not is_root():
        raise TestbedUnavailableError("the testbed needs root (network namespaces, veth pairs, AF_PACKET, SCHED_FIFO)")
    missing = [t for t in TOOLS if shutil.which(t) is None]
    if missing:
        raise TestbedUnavailableError(
            f"the testbed needs {', '.join(missing)} on the PATH (Debian: apt-get install iproute2 iperf3 ethtool)"
        )


def _must(args: list[str], what: str) -> str:
    r = run_command(args)
    if r.returncode != 0:
        raise SimulationError(f"setting up the lab: {what}: `{' '.join(args)}` failed: {r.stderr.strip() or r.returncode}")
    return r.stdout


def _sysctl(namespace: str, key: str, value: str) -> None:
    _must([*Lab.exec(namespace), "sysctl", "-qw", f"{key}={value}"], f"sysctl {key} in {namespace}")


def read_sysctl(namespace: str, key: str) -> str:
    return " ".join(_must([*Lab.exec(namespace), "sysctl", "-n", key], f"reading {key} in {namespace}").split())


def _buffer(min_default: tuple[int, int], max_bytes: int) -> str:
    lo, default = (min(v, max_bytes) for v in min_default)
    return f"{lo} {default} {max_bytes}"


def host_sysctls(plan: Plan) -> dict[str, dict[str, str]]:
    """The sysctls of the sender's and the receiver's namespace.

    The default congestion control is reno in both: iperf3 sets ``-C`` on a socket
    that was created (and connected) with the namespace default, and a bbr default
    would leave pacing switched on for a cubic or reno flow (bbr's init sets
    sk_pacing_status, which no other module clears). A new namespace inherits the
    initial namespace's default, which is bbr on this kernel. tcp_wmem/tcp_rmem cap
    the autotuned buffers at the scenario's sndbuf/rcvbuf; no metrics are kept
    between connections.
    """
    common = {"net.ipv4.tcp_congestion_control": "reno", "net.ipv4.tcp_no_metrics_save": "1"}
    return {
        "sender": {**common, "net.ipv4.tcp_wmem": _buffer(TCP_WMEM_MIN_DEFAULT, plan.sndbuf_bytes)},
        "receiver": {**common, "net.ipv4.tcp_rmem": _buffer(TCP_RMEM_MIN_DEFAULT, plan.rcvbuf_bytes)},
    }


def _veth_end(namespace: str, dev: str) -> None:
    offloads = ["gro", "off", "gso", "off", "tso", "off", "tx", "off"]
    _must([*Lab.exec(namespace), "ethtool", "-K", dev, *offloads], f"offloads of {dev} in {namespace}")
    link = ["link", "set", "dev", dev, "gso_max_segs", "1", "mtu", str(MTU_BYTES), "up"]
    _must(["ip", "-n", namespace, *link], f"{dev} in {namespace}")


def build(plan: Plan, registry: Registry) -> Lab:
    """Creates and configures the namespaces of a run, recorded in ``registry``."""
    lab = Lab(prefix=f"lfnlab-{os.getpid()}-{next(_labs)}")
    for ns in (lab.snd, lab.emu, lab.rcv):
        registry.add_namespace(ns)  # before it exists: a failure half-way is cleaned up too
        r = run_command(["ip", "netns", "add", ns])
        if r.returncode != 0:
            why = r.stderr.strip() or f"status {r.returncode}"
            raise TestbedUnavailableError(f"`ip netns add {ns}` failed: {why} (network namespaces unavailable?)")
        # No IPv6 chatter (router solicitations, DAD) through the relay.
        for key in ("net.ipv6.conf.all.disable_ipv6", "net.ipv6.conf.default.disable_ipv6"):
            _sysctl(ns, key, "1")
    for ns, peer in ((lab.snd, IF_EMU_A), (lab.rcv, IF_EMU_B)):
        veth = ["link", "add", "dev", IF_HOST, "type", "veth", "peer", "name", peer, "netns", lab.emu]
        _must(["ip", "-n", ns, *veth], f"veth {ns}-{lab.emu}")
    for ns, dev in ((lab.snd, IF_HOST), (lab.emu, IF_EMU_A), (lab.emu, IF_EMU_B), (lab.rcv, IF_HOST)):
        _veth_end(ns, dev)
    for ns, addr in ((lab.snd, SENDER_ADDR), (lab.rcv, RECEIVER_ADDR)):
        _must(["ip", "-n", ns, "link", "set", "dev", "lo", "up"], f"lo in {ns}")
        _must(["ip", "-n", ns, "addr", "add", f"{addr}/24", "dev", IF_HOST], f"address of {ns}")
    settings = host_sysctls(plan)
    for ns, role in ((lab.snd, "sender"), (lab.rcv, "receiver")):
        for key, value in settings[role].items():
            _sysctl(ns, key, value)
            if read_sysctl(ns, key) != value:
                raise SimulationError(f"setting up the lab: {key} in {ns} reads {read_sysctl(ns, key)!r}, not {value!r}")
    return lab


#: The columns of a ``cpu`` line of /proc/stat (proc(5)), in USER_HZ ticks.
_CPU_COLUMNS = ("user", "nice", "system", "idle", "iowait", "irq", "softirq", "steal")


def cpu_times() -> dict[str, int]:
    """The machine's CPU time so far by category (the ``cpu`` line of /proc/stat), ticks;
    empty where /proc/stat cannot be read."""
    try:
        first = Path("/proc/stat").read_text(encoding="ascii").splitlines()[0].split()
    except (OSError, IndexError, UnicodeDecodeError):
        return {}
    if first[:1] != ["cpu"]:
        return {}
    return {name: int(v) for name, v in zip(_CPU_COLUMNS, first[1:])}


def cpu_share(before: dict[str, int], after: dict[str, int]) -> dict[str, float]:
    """Each category's share of the CPU time between two :func:`cpu_times` readings. On a
    virtual machine ``steal`` is the time its virtual CPUs wanted to run and the
    hypervisor ran something else: a relay whose CPU is stolen departs late."""
    delta = {k: after[k] - before[k] for k in _CPU_COLUMNS if k in before and k in after}
    total = sum(delta.values())
    return {k: v / total for k, v in delta.items()} if total > 0 else {}


def tcp_counters(namespace: str) -> dict[str, int]:
    """The namespace's non-zero TCP counters (``Tcp.*`` of /proc/net/snmp, ``TcpExt.*``
    of /proc/net/netstat): the kernel's own count of timeouts, fast retransmits, …"""
    text = _must([*Lab.exec(namespace), "cat", "/proc/net/snmp", "/proc/net/netstat"], f"TCP counters of {namespace}")
    counters: dict[str, int] = {}
    lines = text.splitlines()
    for head, values in zip(lines, lines[1:]):
        names, numbers = head.split(), values.split()
        if names[0] in ("Tcp:", "TcpExt:") and numbers[0] == names[0] and not names[1].lstrip("-").isdigit():
            for name, number in zip(names[1:], numbers[1:]):
                if name not in _CONSTANTS and number.lstrip("-").isdigit() and int(number) != 0:
                    counters[f"{names[0][:-1]}.{name}"] = int(number)
    return counters
