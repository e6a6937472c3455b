"""Helpers of the Python tests (imported by the test modules and conftest)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

# The files of a result directory, as the core declares them (the writer and
# load_result use the same list).
from lfnlab.result import RESULT_FILES

ROOT = Path(__file__).resolve().parents[2]
DATA = Path(__file__).resolve().parent / "data"
DUMBBELL_2S = DATA / "dumbbell_2s.toml"

#: Columns named by the interface contract (spec 00 §2.4, spec 06 §6). Tables may have more.
TCP_COLUMNS = (
    "t flow srtt rttvar rto min_rtt latest_rtt cwnd ssthresh in_flight sacked_out lost_out "
    "retrans_out bytes_in_flight snd_una snd_nxt snd_max rwnd rcv_wnd m_used pacing_rate "
    "ca_state dupacks sack_blocks retrans fast_retrans rtos send_stalls cwr_entries dsacks "
    "bytes_acked bytes_read"
).split()
FLOWS_COLUMNS = ["monitor", "flow", "t", "bytes", "packets"]
QUEUES_COLUMNS = ["queue", "t", "bytes", "packets", "max_bytes", "drops", "enqueued"]


def lfnlab_command() -> list[str]:
    """The ``lfnlab`` console script of this interpreter's environment, else the same
    entry point through ``python -m lfnlab.cli``."""
    script = Path(sys.executable).with_name("lfnlab")
    if script.is_file() and os.access(script, os.X_OK):
        return [str(script)]
    return [sys.executable, "-m", "lfnlab.cli"]


def run_cli(*args: str | os.PathLike[str], cwd: Path | None = None, timeout: float = 600) -> subprocess.CompletedProcess[str]:
    """Runs ``lfnlab ARGS`` with no stdin; returns the completed process (text output)."""
    return subprocess.run(
        [*lfnlab_command(), *map(str, args)],
        cwd=cwd,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=timeout,
        env={**os.environ, "RUST_BACKTRACE": "0"},
    )


def write_variant(tmp: Path, name: str, old: str, new: str) -> Path:
    """A copy of the 2 s dumbbell with one text replacement, as ``tmp/name``."""
    text = DUMBBELL_2S.read_text(encoding="utf-8")
    assert old in text, f"{old!r} not in the dumbbell fixture"
    p = tmp / name
    p.write_text(text.replace(old, new, 1), encoding="utf-8")
    return p


def passed_checks(experiment_id: str, d: Path, p: subprocess.CompletedProcess[str]) -> dict[str, Any]:
    """Asserts that a quick form exited 0 and that every check in its ``checks.json`` passed
    with a measured value and a criterion; returns ``checks.json``."""
    assert p.returncode == 0, p.stdout + p.stderr
    checks: dict[str, Any] = json.loads((d / "checks.json").read_text(encoding="utf-8"))
    assert checks["experiment"] == experiment_id and checks["form"] == "quick"
    assert checks["checks"] and checks["passed"] is True
    for c in checks["checks"]:
        assert c["passed"] is True, c
        assert c["measured"] is not None and c["criterion"], c
    return checks


def run_quick_forms(ids: list[str], work: Path) -> dict[str, tuple[Path, subprocess.CompletedProcess[str]]]:
    """``lfnlab reproduce ID --quick --out work/ID`` for each ID: ID → (output directory, process)."""
    return {i: (work / i, run_cli("reproduce", i, "--quick", "--out", work / i)) for i in ids}
