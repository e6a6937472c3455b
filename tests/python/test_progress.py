"""The progress display of `lfnlab run` (issue 10, docs/progress.md): a line
rewritten in place on a terminal, JSON lines on request, nothing otherwise."""

from __future__ import annotations

import json
import os
import pty
import re
import select
import subprocess
import time
from pathlib import Path

import pytest

from support import ROOT, lfnlab_command

pytestmark = pytest.mark.engine

#: 40 s of the dumbbell: about a second of wall time, several updates at 5 per second.
LONG = ["run", str(ROOT / "examples" / "dumbbell.toml"), "--set", "sim.duration=40s"]
ERASE = "\r\x1b[2K"
LINE = re.compile(r"dumbbell: ([0-9.]+) / 40\.000 s simulated \((\d+) %\), ([0-9.]+)× real time")


def run_in_pty(args: list[str], timeout_s: float = 300) -> tuple[int, str]:
    """Runs ``lfnlab ARGS`` with stdout and stderr on a pseudo-terminal; returns
    the exit status and everything it wrote."""
    main, sub = pty.openpty()
    proc = subprocess.Popen([*lfnlab_command(), *args], stdin=subprocess.DEVNULL, stdout=sub, stderr=sub, close_fds=True)
    os.close(sub)
    chunks: list[bytes] = []
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        ready, _, _ = select.select([main], [], [], 0.5)
        if ready:
            try:
                data = os.read(main, 65536)
            except OSError:  # EIO: the child closed the terminal
                break
            if not data:
                break
            chunks.append(data)
        elif proc.poll() is not None:
            break
    os.close(main)
    status = proc.wait(timeout=60)
    return status, b"".join(chunks).decode("utf-8", errors="replace")


def test_a_terminal_sees_the_progress_line_update(tmp_path: Path) -> None:
    status, text = run_in_pty([*LONG, "--out", str(tmp_path / "out")])
    assert status == 0, text
    updates = [m for part in text.split(ERASE) if (m := LINE.search(part))]
    assert len(updates) >= 2, f"expected several updates of one line, got: {text!r}"
    sims = [float(m.group(1)) for m in updates]
    assert sims == sorted(sims) and sims[-1] > sims[0], "simulated time advances"
    assert all(float(m.group(3)) > 0 for m in updates), "a sim/wall ratio is shown"
    # The line is erased before the results are printed.
    assert text.rstrip().endswith(f"results in {tmp_path / 'out'}")
    assert "goodput" in text.split(ERASE)[-1]


def test_no_progress_when_output_is_a_file_or_quiet(tmp_path: Path) -> None:
    log = tmp_path / "log.txt"
    with log.open("w") as f:
        proc = subprocess.run([*lfnlab_command(), *LONG, "--out", str(tmp_path / "a")], stdin=subprocess.DEVNULL, stdout=f, stderr=f, timeout=300)
    assert proc.returncode == 0
    text = log.read_text(encoding="utf-8")
    assert "\x1b" not in text and "\r" not in text and "simulated (" not in text
    assert "results in" in text
    status, text = run_in_pty([*LONG, "--out", str(tmp_path / "b"), "--quiet"])
    assert status == 0 and text == "", repr(text)


def test_progress_json_lines(tmp_path: Path) -> None:
    proc = subprocess.run(
        [*lfnlab_command(), *LONG, "--out", str(tmp_path / "out"), "--progress", "json", "--quiet"],
        stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == ""
    lines = [json.loads(line) for line in proc.stderr.splitlines()]
    assert len(lines) >= 2
    assert all(line["kind"] == "run" and line["total_s"] == 40.0 for line in lines)
    assert [line["done"] for line in lines] == [False] * (len(lines) - 1) + [True]
    assert lines[-1]["sim_s"] == 40.0
    summary = json.loads((tmp_path / "out" / "summary.json").read_text(encoding="utf-8"))
    assert lines[-1]["events"] == summary["events_executed"]


def test_lfnlab_run_calls_its_progress_callable_up_to_the_end() -> None:
    """Issue 40: `lfnlab.run(..., progress=f)` for a notebook's progress bar."""
    import lfnlab

    seen: list[dict[str, float]] = []
    s = lfnlab.Scenario.from_file(ROOT / "examples" / "dumbbell.toml", set={"sim.duration": "40s"})
    lfnlab.run(s, progress=seen.append)
    assert len(seen) >= 2, seen
    assert all(p["total_s"] == 40.0 for p in seen)
    sim = [p["sim_s"] for p in seen]
    assert sim == sorted(sim) and sim[-1] == 40.0, sim
    events = [p["events"] for p in seen]
    assert events == sorted(events) and events[-1] > 0
    # At most one call per 250 ms of wall time, plus the one at the end.
    assert len(seen) <= 2 + seen[-1]["wall_s"] / 0.25


def test_an_exception_in_the_progress_callable_stops_the_run(tmp_path: Path) -> None:
    import lfnlab

    class Enough(Exception):
        pass

    def stop_at_one_second(p: dict[str, float]) -> None:
        if p["sim_s"] >= 1.0:
            raise Enough(p["sim_s"])

    s = lfnlab.Scenario.from_file(ROOT / "examples" / "dumbbell.toml", set={"sim.duration": "600s"})
    out = tmp_path / "stopped"
    t0 = time.monotonic()
    with pytest.raises(Enough):
        lfnlab.run(s, out=out, progress=stop_at_one_second)
    assert time.monotonic() - t0 < 60
    assert not out.exists(), "an interrupted run leaves no result directory"
