"""The relay (``lfnlab emu``, crates/lfnlab-emu) in the emulator's namespace.

Started as ``ip netns exec EMU <python> -m lfnlab.cli emu ...`` (the wheel ships the
relay only inside the native module), under SCHED_FIFO (``--rt``), with its JSON
statistics and per-frame trace in the run's temporary directory. It is up once it says
"relaying"; it stops on SIGTERM, sends what it accepted at the scheduled times and
writes its statistics.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from ..errors import SimulationError
from .lab import IF_EMU_A, IF_EMU_B, Lab
from .registry import Registry, pdeathsig_prefix
from .subset import Plan

__all__ = ["Relay", "start"]

#: Longest wait for the relay to come up, and to stop after SIGTERM, s.
START_TIMEOUT_S = 30.0
STOP_TIMEOUT_S = 30.0
#: The relay stops by itself this long after the planned run, in case this process
#: was killed without a chance to stop it (SIGKILL), s.
SAFETY_MARGIN_S = 120


class Relay:
    """A running relay."""

    def __init__(self, process: subprocess.Popen[bytes], command: list[str], workdir: Path) -> None:
        self.process = process
        self.command = command
        self.stats_path = workdir / "relay-stats.json"
        self.trace_path = workdir / "relay-trace.csv"
        self.stderr_path = workdir / "relay.err"

    def _stderr(self) -> str:
        return self.stderr_path.read_text(encoding="utf-8", errors="replace") if self.stderr_path.exists() else ""

    def wait_ready(self, registry: Registry) -> None:
        deadline = time.monotonic() + START_TIMEOUT_S
        while "relaying" not in self._stderr():
            registry.raise_if_stopped()
            if self.process.poll() is not None:
                raise SimulationError(f"the relay exited with status {self.process.returncode}: {self._stderr().strip()}")
            if time.monotonic() > deadline:
                raise SimulationError(f"the relay did not start within {START_TIMEOUT_S:g} s: {self._stderr().strip()}")
            time.sleep(0.02)

    def stop(self) -> dict[str, Any]:
        """SIGTERM; waits for the statistics. Returns them as a dict."""
        self.process.terminate()
        try:
            status = self.process.wait(STOP_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            raise SimulationError(f"the relay did not stop within {STOP_TIMEOUT_S:g} s of SIGTERM") from None
        if status != 0 or not self.stats_path.is_file():
            raise SimulationError(f"the relay failed (exit status {status}): {self._stderr().strip()}")
        stats: dict[str, Any] = json.loads(self.stats_path.read_text(encoding="utf-8"))
        if stats.get("stopped_by") != "signal":
            raise SimulationError(f"the relay stopped by itself ({stats.get('stopped_by')}) before the run ended")
        return stats


def command(lab: Lab, plan: Plan, workdir: Path, seed: int) -> list[str]:
    """The relay's command line; its loss model draws the simulator's stream of that
    link (``--loss-stream``) under ``seed`` (the scenario's seed + repetition − 1, the
    simulator's seed for the same repetition of a comparison)."""
    ab, ba = plan.a_to_b, plan.b_to_a
    loss = (
        [
            "--loss", repr(ab.loss_p), "--loss-applies-to", "data" if ab.loss_data_only else "all",
            "--seed", str(seed), "--loss-stream", ab.loss_stream,
        ]
        if ab.loss_p > 0
        else []
    )  # fmt: skip
    return [
        *Lab.exec(lab.emu),
        sys.executable, "-m", "lfnlab.cli", "emu",
        "--if-a", IF_EMU_A, "--if-b", IF_EMU_B,
        "--rate", f"{ab.rate_bps}bps", "--delay", f"{ab.delay_ns}ns", "--limit", f"{ab.limit_bytes}B",
        "--rate-ba", f"{ba.rate_bps}bps", "--delay-ba", f"{ba.delay_ns}ns", "--limit-ba", f"{ba.limit_bytes}B",
        *loss,
        "--rt",
        "--stats", str(workdir / "relay-stats.json"),
        "--trace", str(workdir / "relay-trace.csv"),
        "--duration", f"{plan.duration_s + SAFETY_MARGIN_S}s",
    ]  # fmt: skip


def start(lab: Lab, plan: Plan, workdir: Path, registry: Registry, seed: int) -> Relay:
    """Starts the relay between ``ea`` (sender side) and ``eb`` and waits until it relays."""
    cmd = command(lab, plan, workdir, seed)
    out = open(workdir / "relay.out", "wb")
    registry.add_file(out)
    err = open(workdir / "relay.err", "wb")
    registry.add_file(err)
    process = subprocess.Popen(
        [*pdeathsig_prefix(), *cmd], stdin=subprocess.DEVNULL, stdout=out, stderr=err, start_new_session=True
    )
    registry.add_process("relay", process)
    relay = Relay(process, cmd, workdir)
    relay.wait_ready(registry)
    return relay
