"""Resource limits and killed runs (issue 12): a run that would exceed its limits
stops cleanly with exit status 1, a message, and results marked partial; a run
killed at any moment never leaves a file that parses as complete but is not."""

from __future__ import annotations

import json
import os
import random
import re
import signal
import subprocess
import time
from pathlib import Path

import pyarrow.parquet as pq
import pytest

import lfnlab
from support import ROOT, lfnlab_command, run_cli

pytestmark = pytest.mark.engine

DUMBBELL = ROOT / "examples" / "dumbbell.toml"


def test_a_100_tbit_link_for_an_hour_stops_at_its_wall_timeout(tmp_path: Path) -> None:
    out = tmp_path / "out"
    t0 = time.monotonic()
    p = run_cli(
        "run", DUMBBELL, "--out", out,
        "--set", "sim.duration=3600s", "--set", "link[0].rate=100Tbps", "--set", "link[1].rate=100Tbps",
        "--set", "node[0].nic_rate=100Tbps", "--set", "node[2].nic_rate=100Tbps",
        "--set", "flow[0].sndbuf=4GiB", "--set", "flow[0].rcvbuf=4GiB", "--set", "sim.wall_timeout=2s",
    )
    assert time.monotonic() - t0 < 60
    assert p.returncode == 1, p.stderr
    assert "stopped early" in p.stderr and "wall_timeout" in p.stderr and str(out) in p.stderr
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    assert summary["partial"]["limit"] == "wall_timeout"
    assert 0 < summary["duration_s"] == summary["partial"]["stopped_at_s"] < 3600
    assert summary["conservation"]["holds"]


def test_the_python_api_raises_on_a_partial_run(tmp_path: Path) -> None:
    s = lfnlab.Scenario.from_file(DUMBBELL, set={"sim.max_events": 10_000})
    with pytest.raises(lfnlab.SimulationError, match="max_events reached"):
        lfnlab.run(s, out=tmp_path / "out")
    assert json.loads((tmp_path / "out" / "summary.json").read_text(encoding="utf-8"))["partial"]["limit"] == "max_events"
    with pytest.raises(lfnlab.InvalidInputError) as e:
        lfnlab.Scenario.from_file(DUMBBELL, set={"sim.max_events": 0})
    assert e.value.key_path == "sim.max_events"


def _parses(path: Path) -> bool:
    try:
        if path.suffix == ".parquet":
            pq.read_table(path)
        elif path.suffix == ".json":
            json.loads(path.read_text(encoding="utf-8"))
        else:
            return True
    except Exception:
        return False
    return True


def test_a_killed_run_never_leaves_a_file_that_looks_complete(tmp_path: Path) -> None:
    # A run with a large event-mode TCP trace, so that writing takes a while too.
    args = ["run", str(DUMBBELL), "--set", "sim.duration=20s", "--set", 'sim.trace.mode="event"', "--quiet"]
    reference = tmp_path / "reference"
    t0 = time.monotonic()
    done = subprocess.run([*lfnlab_command(), *args, "--out", str(reference)], stdin=subprocess.DEVNULL, timeout=600)
    whole_s = time.monotonic() - t0
    assert done.returncode == 0
    complete = {p.name: p.read_bytes() for p in reference.iterdir()}

    rng = random.Random(12)  # the kill moments; a failure names the iteration
    for i in range(20):
        work = tmp_path / f"kill{i}"
        work.mkdir()
        proc = subprocess.Popen([*lfnlab_command(), *args, "--out", str(work / "out")], stdin=subprocess.DEVNULL)
        time.sleep(rng.uniform(0.0, whole_s * 1.1))
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=60)
        for path in work.rglob("*"):
            if path.is_file() and path.name in complete and _parses(path):
                assert path.read_bytes() == complete[path.name] or path.name == "summary.json", f"kill {i}: {path} parses but differs"
            if path.name == "summary.json" and _parses(path):
                # The marker is written last: every file beside it is complete.
                siblings = {p.name for p in path.parent.iterdir()}
                assert siblings >= complete.keys(), f"kill {i}: {path.parent} has summary.json but not every file"
        out = work / "out"
        if out.exists():
            assert {p.name for p in out.iterdir()} == complete.keys(), f"kill {i}: a result directory is complete or absent"


def test_ctrl_c_stops_lfnlab_run_in_python_promptly_and_marks_the_result(tmp_path: Path) -> None:
    """Issue 40: SIGINT during `lfnlab.run()` (Jupyter's "interrupt kernel") was ignored
    until the run finished. The run (minutes of wall time uninterrupted) now stops within
    2 s of the signal and raises KeyboardInterrupt, leaving no result directory behind."""
    import sys

    out = tmp_path / "out"
    code = (
        "import lfnlab, sys\n"
        f"s = lfnlab.Scenario.from_file({str(DUMBBELL)!r}, set={{'sim.duration': '6000s'}})\n"
        "print('running', flush=True)\n"
        f"lfnlab.run(s, out={str(out)!r})\n"
    )
    p = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert p.stdout is not None and p.stdout.readline().strip() == "running"
    time.sleep(1.0)
    sent = time.monotonic()
    p.send_signal(signal.SIGINT)
    _, err = p.communicate(timeout=60)
    waited = time.monotonic() - sent
    assert p.returncode != 0 and "KeyboardInterrupt" in err, err
    assert waited < 2.0, f"stopped {waited:.1f} s after SIGINT"
    assert not out.exists(), sorted(p.name for p in out.iterdir())


def test_ctrl_c_stops_lfnlab_run_with_a_message_and_exit_130(tmp_path: Path) -> None:
    """Issue 40: `lfnlab run` interrupted died with no word. Now the first SIGINT stops the
    run at its next slice, writes what ran (marked partial), says so and exits 130."""
    out = tmp_path / "out"
    cmd = [*lfnlab_command(), "run", str(DUMBBELL), "--set", "sim.duration=6000s", "--out", str(out), "--progress", "none"]
    p = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    time.sleep(1.5)
    sent = time.monotonic()
    p.send_signal(signal.SIGINT)
    _, err = p.communicate(timeout=60)
    assert p.returncode == 130, (p.returncode, err)
    assert time.monotonic() - sent < 5.0
    assert re.search(r"interrupted at [\d.]+ s of 6000 s simulated; the results in .* cover what ran", err), err
    partial = json.loads((out / "summary.json").read_text(encoding="utf-8"))["partial"]
    assert partial["limit"] == "interrupted", partial
