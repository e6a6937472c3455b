"""iperf3 (Debian's 3.x) as the ``tcp_bulk`` flow: the server in the receiver's
namespace, the client in the sender's, both with JSON output.

Client options, from the plan:

- ``-t DURATION`` (whole seconds) and ``-C CC`` (the Linux module: reno, cubic, bbr);
- ``--cport 20000``: the data connection's port, below the ephemeral range, so the
  sampler finds it among the sender's sockets (the control connection is ephemeral);
- ``pacing = "internal"``: ``--fq-rate R`` sets SO_MAX_PACING_RATE to R (the
  scenario's ``max_rate``, else 100 Gbit/s, a cap that never binds). Without an fq
  qdisc a finite SO_MAX_PACING_RATE is what switches on the kernel's TCP internal
  pacing (sk_pacing_status = SK_PACING_NEEDED) for cubic and reno; the kernel paces at
  its own sk_pacing_rate (tcp_pacing_ss_ratio 200 % of cwnd/srtt in slow start,
  tcp_pacing_ca_ratio 120 % after). ``pacing = "off"``: no ``--fq-rate``, so reno and
  cubic send unpaced; bbr asks for internal pacing itself in both cases.
"""

from __future__ import annotations

import json
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional

from ..errors import SimulationError
from .lab import RECEIVER_ADDR, Lab
from .registry import Registry, pdeathsig_prefix, run_command
from .subset import Plan

__all__ = ["IperfResult", "start_server", "start_client", "wait_client", "read_json", "client_command", "DATA_PORT"]

SERVER_PORT = 5201
#: The client's data connection binds this port (``--cport``).
DATA_PORT = 20000
#: SO_MAX_PACING_RATE for ``pacing = "internal"`` without ``max_rate``, bit/s.
UNCAPPED_PACING_BPS = 100 * 10**9
#: How long the client may take beyond the test duration (control exchange, drain), s.
CLIENT_MARGIN_S = 60.0
CONNECT_TIMEOUT_MS = 10000


@dataclass(frozen=True)
class IperfResult:
    """What the client's JSON says about the test (``end`` and ``intervals``)."""

    #: The client's whole JSON.
    raw: dict[str, Any]

    @property
    def sent(self) -> dict[str, Any]:
        return dict(self.raw["end"]["sum_sent"])

    @property
    def received(self) -> dict[str, Any]:
        return dict(self.raw["end"]["sum_received"])

    @property
    def retransmits(self) -> int:
        return int(self.sent.get("retransmits", 0))

    @property
    def duration_s(self) -> float:
        """The client's measurement: from its first write to the end of the test timer."""
        return float(self.sent["end"])

    @property
    def sender_cc(self) -> Optional[str]:
        return self.raw["end"].get("sender_tcp_congestion")

    def intervals(self) -> list[dict[str, Any]]:
        """Per report interval: start_s, end_s, bytes, bits_per_second, retransmits, snd_cwnd_bytes, rtt_us."""
        out = []
        for i in self.raw.get("intervals", []):
            s = i["streams"][0] if i.get("streams") else {}
            out.append(
                {
                    "start_s": i["sum"]["start"],
                    "end_s": i["sum"]["end"],
                    "bytes": i["sum"]["bytes"],
                    "bits_per_second": i["sum"]["bits_per_second"],
                    "retransmits": i["sum"].get("retransmits"),
                    "snd_cwnd_bytes": s.get("snd_cwnd"),
                    "rtt_us": s.get("rtt"),
                }
            )
        return out


def _spawn(what: str, cmd: list[str], out_path: Path, registry: Registry) -> subprocess.Popen[bytes]:
    out = open(out_path, "wb")
    registry.add_file(out)
    err = open(out_path.with_suffix(".err"), "wb")
    registry.add_file(err)
    p = subprocess.Popen([*pdeathsig_prefix(), *cmd], stdin=subprocess.DEVNULL, stdout=out, stderr=err, start_new_session=True)
    registry.add_process(what, p)
    return p


def start_server(lab: Lab, workdir: Path, registry: Registry) -> subprocess.Popen[bytes]:
    """``iperf3 -s -1 -J`` in the receiver's namespace, listening when this returns."""
    cmd = [*Lab.exec(lab.rcv), "iperf3", "-s", "-1", "-J", "-B", RECEIVER_ADDR, "-p", str(SERVER_PORT)]
    p = _spawn("iperf3 server", cmd, workdir / "iperf3-server.json", registry)
    probe = [*Lab.exec(lab.rcv), "ss", "-tlnH", f"sport = :{SERVER_PORT}"]
    deadline = time.monotonic() + 10.0
    while not run_command(probe).stdout.strip():
        registry.raise_if_stopped()
        if p.poll() is not None or time.monotonic() > deadline:
            raise SimulationError(f"the iperf3 server did not start: {_text(workdir / 'iperf3-server.err')}")
        time.sleep(0.02)
    return p


def client_command(lab: Lab, plan: Plan) -> list[str]:
    cmd = [
        *Lab.exec(lab.snd), "iperf3", "-c", RECEIVER_ADDR, "-p", str(SERVER_PORT), "--cport", str(DATA_PORT),
        "-t", str(plan.duration_s), "-J", "-C", plan.kernel_cc, "--connect-timeout", str(CONNECT_TIMEOUT_MS),
    ]  # fmt: skip
    if plan.pacing == "internal":
        cmd += ["--fq-rate", str(plan.max_pacing_rate_bps or UNCAPPED_PACING_BPS)]
    return cmd


def start_client(lab: Lab, plan: Plan, workdir: Path, registry: Registry) -> subprocess.Popen[bytes]:
    return _spawn("iperf3 client", client_command(lab, plan), workdir / "iperf3-client.json", registry)


def wait_client(p: subprocess.Popen[bytes], plan: Plan, registry: Registry) -> None:
    """Waits for the client to finish (checking for SIGINT/SIGTERM every 0.1 s)."""
    deadline = time.monotonic() + plan.duration_s + CLIENT_MARGIN_S
    while True:
        registry.raise_if_stopped()
        try:
            p.wait(0.1)
            return
        except subprocess.TimeoutExpired:
            if time.monotonic() > deadline:
                raise SimulationError(f"iperf3 did not finish within {plan.duration_s + CLIENT_MARGIN_S:g} s") from None


def _text(path: Path) -> str:
    return path.read_text(encoding="utf-8", errors="replace").strip() if path.exists() else ""


def read_json(path: Path, what: str) -> dict[str, Any]:
    """An iperf3 JSON output; SimulationError with iperf3's own error if it failed."""
    try:
        doc: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        raise SimulationError(f"{what}: no JSON output ({e}): {_text(path.with_suffix('.err'))}") from None
    if doc.get("error"):
        raise SimulationError(f"{what}: {doc['error']}")
    return doc


def client_result(workdir: Path) -> IperfResult:
    doc = read_json(workdir / "iperf3-client.json", "iperf3 client")
    if "sum_sent" not in doc.get("end", {}) or "sum_received" not in doc["end"]:
        raise SimulationError("iperf3 client: the JSON has no end.sum_sent/sum_received")
    return IperfResult(doc)
