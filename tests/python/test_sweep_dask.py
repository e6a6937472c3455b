"""Sweeps on a real Dask cluster: a scheduler and two workers as separate processes on
127.0.0.1. One worker is killed (SIGKILL) partway through; re-running the plan
completes it, every run once, with results identical to the local process pool's."""

from __future__ import annotations

import json
import os
import signal
import sys
from collections.abc import Iterator
from pathlib import Path

import pandas as pd
import pytest
from dask_support import Cluster, dask_cluster, run_killing_a_worker
from support import lfnlab_command, run_cli
from sweep_support import EXAMPLES, comparable_files, json_lines, run_dirs, write_plan

import lfnlab
from lfnlab.sweep import read_index

try:
    import distributed  # noqa: F401
except ImportError:  # CI must run these: scripts/bootstrap installs the `dask` extra
    if os.environ.get("CI"):
        raise
    pytest.skip("Dask is not installed (pip install 'lfnlab[dask]')", allow_module_level=True)
pytestmark = [pytest.mark.engine, pytest.mark.skipif(sys.platform == "win32", reason="uses SIGKILL")]

#: Seconds to wait for a sweep.
SWEEP_S = 180


@pytest.fixture()
def cluster(tmp_path: Path) -> Iterator[Cluster]:
    """A scheduler and two single-threaded workers without nannies (a SIGKILL really ends one)."""
    with dask_cluster(tmp_path) as c:
        yield c


def test_a_killed_worker_loses_no_run_and_results_match_the_local_pool(tmp_path: Path, cluster: Cluster) -> None:
    # 12 runs of a few tenths of a second each: long enough to kill a worker partway.
    plan = write_plan(
        tmp_path / "dask.toml",
        [{"key": "link[1].queue.limit", "values": ["32KiB", "128KiB", "512KiB"]}, {"key": "flow[0].cc", "values": ["newreno", "cubic"]}],
        scenario=EXAMPLES / "dumbbell.toml",
        sets={"sim.duration": "4s", "link[1].delay": "5ms", "link[1].rate": "800Mbps"},
        repetitions=2,
    )
    out = tmp_path / "dask-out"
    command = [*lfnlab_command(), "sweep", str(plan), "--out", str(out), "--scheduler", cluster.address, "--progress", "json"]
    first = run_killing_a_worker(command, cluster, lambda: len(list(out.glob("runs/*/sweep.json"))), 3, tmp_path, SWEEP_S)
    report = f"{first.stderr}\n{cluster.log_text()}"
    assert first.killed_after is not None and first.killed_after < 12, f"the sweep ended before a worker could be killed\n{report}"
    assert cluster.workers[0].wait(timeout=10) == -signal.SIGKILL
    # The scheduler gives the lost worker's task to the other one; a run the cluster
    # could not finish would be left unrecorded (exit 1) for the next sweep.
    assert first.returncode in (0, 1), report
    assert "Traceback" not in first.stderr

    second = run_cli("sweep", plan, "--out", out, "--scheduler", cluster.address, "--progress", "json", timeout=SWEEP_S)
    assert second.returncode == 0, second.stderr
    final = json_lines(second.stderr)[-1]
    assert (final["done"], final["failed"], final["lost"], final["remaining"], final["total"]) == (12, 0, 0, 0, 12)

    index = read_index(out)
    assert len(index) == 12 and set(index["status"]) == {"done"} and index["run_id"].is_unique
    assert run_dirs(out) == sorted(index["run_id"]), "a run directory twice, or debris left"
    for run_id in index["run_id"]:
        record = json.loads((out / "runs" / run_id / "sweep.json").read_text(encoding="utf-8"))
        assert record["status"] == "done" and record["run_id"] == run_id

    # The same plan on the local process pool: identical runs.
    local = lfnlab.sweep(plan, tmp_path / "local-out", workers=2, progress="none")
    pd.testing.assert_frame_equal(index.drop(columns="wall_seconds"), local.drop(columns="wall_seconds"))
    for run_id in index["run_id"]:
        assert comparable_files(out / "runs" / run_id) == comparable_files(tmp_path / "local-out" / "runs" / run_id), run_id
    assert index["queue_drops"].nunique() > 1 and index["goodput_bps"].nunique() > 1, "the axes change the results"


def test_a_local_dask_cluster_gives_the_local_pools_results(tmp_path: Path) -> None:
    plan = write_plan(tmp_path / "p.toml", [{"key": "flow[0].cc", "values": ["newreno", "cubic"]}])
    on_dask = lfnlab.sweep(plan, tmp_path / "dask", dask_local=True, workers=1, progress="none")
    local = lfnlab.sweep(plan, tmp_path / "local", workers=1, progress="none")
    assert on_dask.attrs["sweep"] == {"total": 2, "done": 2, "failed": 0, "lost": 0, "reused": 0, "ran": 2}
    pd.testing.assert_frame_equal(on_dask.drop(columns="wall_seconds"), local.drop(columns="wall_seconds"))
    for run_id in local["run_id"]:
        assert comparable_files(tmp_path / "dask" / "runs" / run_id) == comparable_files(tmp_path / "local" / "runs" / run_id)


def test_an_unreachable_scheduler_is_a_clear_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from lfnlab.sweep import SweepBackendError
    from lfnlab.sweep.execute import DaskCluster

    plan = write_plan(tmp_path / "p.toml", [{"key": "flow[0].cc", "values": ["newreno"]}])
    monkeypatch.setattr(DaskCluster, "connect_timeout_s", 0.5)
    with pytest.raises(SweepBackendError, match=r"cannot connect to the Dask scheduler at tcp://127\.0\.0\.1:9"):
        lfnlab.sweep(plan, tmp_path / "out", scheduler="tcp://127.0.0.1:9", progress="none")
    assert read_index(tmp_path / "out").empty, "the index is written, with no run"
    p = run_cli("sweep", plan, "--out", tmp_path / "out", "--scheduler", "tcp://127.0.0.1:9")
    assert p.returncode == 1 and "Traceback" not in p.stderr
    assert "error: cannot connect to the Dask scheduler at tcp://127.0.0.1:9: " in p.stderr
