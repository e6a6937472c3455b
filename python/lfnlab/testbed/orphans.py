"""The leftovers of a testbed run that was killed with SIGKILL (the one signal its
cleanup cannot catch): its namespaces, and any process still inside them.

A lab's namespaces are named ``lfnlab-<pid>-<n>-<role>`` (:mod:`.lab`), ``pid`` being
the process that created them. A namespace is an orphan when that process is gone,
or when the process now holding the PID started after the namespace was made (the PID
was reused). Only such namespaces are touched: a live run's are never, and nothing
that does not carry the lab's name pattern. Every testbed run reaps orphans before it
builds its own lab, so a killed run's leftovers are gone at the next run.
"""

from __future__ import annotations

import os
import signal
from pathlib import Path
from typing import Optional

from .lab import owner_pid
from .registry import run_command

__all__ = ["NETNS_DIR", "orphans", "reap_orphans"]

NETNS_DIR = Path("/run/netns")


def _boot_time_s() -> float:
    for line in Path("/proc/stat").read_text().splitlines():
        if line.startswith("btime "):
            return float(line.split()[1])
    raise OSError("no btime in /proc/stat")


def _process_start_s(pid: int) -> Optional[float]:
    """When process ``pid`` started (Unix time, s), or None when there is no such process."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    ticks = int(stat.rsplit(")", 1)[1].split()[19])  # field 22, starttime
    return _boot_time_s() + ticks / os.sysconf("SC_CLK_TCK")


def orphans(netns_dir: Path = NETNS_DIR) -> list[str]:
    """The lab namespaces whose creating process is gone."""
    out = []
    try:
        entries = sorted(netns_dir.iterdir())
    except OSError:
        return out
    for entry in entries:
        pid = owner_pid(entry.name)
        if pid is None:
            continue
        started = _process_start_s(pid)
        try:
            made = entry.stat().st_mtime
        except OSError:
            continue
        # A second of slack: the creator started before it made the namespace.
        if started is None or started > made + 1.0:
            out.append(entry.name)
    return out


def reap_orphans(netns_dir: Path = NETNS_DIR) -> list[str]:
    """Kills the processes left in orphan lab namespaces and deletes the namespaces;
    returns the names deleted."""
    reaped = []
    for name in orphans(netns_dir):
        pids = run_command(["ip", "netns", "pids", name]).stdout.split()
        for pid in pids:
            try:
                os.kill(int(pid), signal.SIGKILL)
            except (ProcessLookupError, ValueError):
                pass
        if run_command(["ip", "netns", "del", name]).returncode == 0:
            reaped.append(name)
    return reaped
