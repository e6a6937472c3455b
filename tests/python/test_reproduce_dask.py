"""`lfnlab reproduce` on Dask (issue 37): `--dask local` and `--scheduler` give the same
output as the local threads, and a worker killed mid-run loses no run and duplicates none."""

from __future__ import annotations

import json
import os
import signal
import sys
from pathlib import Path

import pytest
from dask_support import dask_cluster, run_killing_a_worker
from support import lfnlab_command, run_cli

try:
    import distributed  # noqa: F401
except ImportError:  # CI must run these: scripts/bootstrap installs the `dask` extra
    if os.environ.get("CI"):
        raise
    pytest.skip("Dask is not installed (pip install 'lfnlab[dask]')", allow_module_level=True)
pytestmark = [pytest.mark.engine, pytest.mark.skipif(sys.platform == "win32", reason="uses SIGKILL")]

#: 19 runs of up to a few seconds each: long enough to kill a worker partway.
EXPERIMENT = "04.E4.1"
RUN_S = 600


def output_files(out: Path) -> dict[str, bytes]:
    """Every file of a reproduce output but the raw runs' wall-clock summaries, with the
    output's own path (named by report.md and report.html) replaced."""
    files: dict[str, bytes] = {}
    for p in sorted(out.rglob("*")):
        rel = p.relative_to(out).as_posix()
        if not p.is_file() or rel.endswith(("/summary.json", "/reproduce.json")):
            continue
        files[rel] = p.read_bytes().replace(str(out).encode(), b"OUT")
    for p in sorted(out.glob("runs/*/summary.json")):  # without its wall_seconds
        summary = json.loads(p.read_text(encoding="utf-8"))
        summary.pop("wall_seconds", None)
        files[p.relative_to(out).as_posix()] = json.dumps(summary, sort_keys=True).encode()
    return files


def test_on_dask_with_a_worker_killed_midway_the_output_is_the_threads(tmp_path: Path) -> None:
    threads = tmp_path / "threads"
    p = run_cli("reproduce", EXPERIMENT, "--quick", "--workers", "2", "--out", threads, timeout=RUN_S)
    assert p.returncode == 0, p.stderr
    expected = output_files(threads)
    runs = json.loads((threads / "checks.json").read_text(encoding="utf-8"))["runs"]
    assert len(runs) >= 10

    local = tmp_path / "dask-local"
    p = run_cli("reproduce", EXPERIMENT, "--quick", "--dask", "local", "--workers", "2", "--out", local, timeout=RUN_S)
    assert p.returncode == 0, p.stderr
    assert "runs on a local Dask cluster of 2 workers" in p.stdout
    assert output_files(local) == expected

    out = tmp_path / "scheduler"
    with dask_cluster(tmp_path) as cluster:
        command = [*lfnlab_command(), "reproduce", EXPERIMENT, "--quick", "--scheduler", cluster.address, "--out", str(out)]
        run = run_killing_a_worker(command, cluster, lambda: len(list(out.glob("runs/*/reproduce.json"))), 3, tmp_path, RUN_S)
        report = f"{run.stderr}\n{cluster.log_text()}"
        assert run.killed_after is not None and run.killed_after < len(runs), f"the runs ended before a worker could be killed\n{report}"
        assert cluster.workers[0].wait(timeout=10) == -signal.SIGKILL
    # The scheduler gave the killed worker's task to the other one: no run lost, none twice.
    assert run.returncode == 0, report
    assert sorted(p.name for p in (out / "runs").iterdir()) == sorted(r.split("/", 1)[1] for r in runs), "debris or a missing run"
    assert output_files(out) == expected


def test_workers_and_a_scheduler_exclude_each_other(tmp_path: Path) -> None:
    p = run_cli("reproduce", "06.V6", "--quick", "--workers", "2", "--scheduler", "tcp://127.0.0.1:9", "--out", tmp_path / "o")
    assert p.returncode == 2 and "--workers" in p.stderr.splitlines()[0]
    p = run_cli("reproduce", "06.V6", "--quick", "--dask", "local", "--scheduler", "tcp://127.0.0.1:9", "--out", tmp_path / "o")
    assert p.returncode == 2
