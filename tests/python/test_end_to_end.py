"""Runs of the 2 s dumbbell through the command line and the Python API (spec 00 §2.4).

These need the engine (lfnlab_core::sim::run)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pandas as pd
import pyarrow.parquet as pq
import pytest

import lfnlab
from support import DUMBBELL_2S, FLOWS_COLUMNS, QUEUES_COLUMNS, RESULT_FILES, TCP_COLUMNS, run_cli

pytestmark = pytest.mark.engine

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


@pytest.fixture(scope="module")
def cli_result(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """`lfnlab run dumbbell.toml --out DIR`, once for the module: (DIR, stdout)."""
    work = tmp_path_factory.mktemp("e2e")
    scenario = work / "dumbbell.toml"
    shutil.copyfile(DUMBBELL_2S, scenario)
    out = work / "result"
    p = run_cli("run", scenario, "--out", out)
    assert p.returncode == 0, p.stderr
    return out, p.stdout


def test_run_writes_every_result_file(cli_result: tuple[Path, str]) -> None:
    out, stdout = cli_result
    assert sorted(f.name for f in out.iterdir()) == sorted(RESULT_FILES)
    assert "bulk" in stdout and "Mbit/s" in stdout and str(out) in stdout
    assert not [f for f in out.parent.iterdir() if f.name.startswith(".")], "temporary directories left behind"


def test_tables_have_the_spec_columns(cli_result: tuple[Path, str]) -> None:
    out, _ = cli_result
    for name, columns in (("tcp", TCP_COLUMNS), ("flows", FLOWS_COLUMNS), ("queues", QUEUES_COLUMNS)):
        table = pq.read_table(out / f"{name}.parquet")
        missing = [c for c in columns if c not in table.column_names]
        assert not missing, (name, missing)
        assert table.num_rows > 0, name
    tcp = pq.read_table(out / "tcp.parquet").to_pandas()
    assert set(tcp["flow"]) == {"bulk"}
    assert tcp["t"].between(0.0, 2.0).all()
    assert tcp["bytes_acked"].is_monotonic_increasing


def test_summary_has_the_spec_fields(cli_result: tuple[Path, str]) -> None:
    out, _ = cli_result
    text = (out / "summary.json").read_text(encoding="utf-8")
    assert text.endswith("}\n")
    s = json.loads(text)
    for key in ("scenario", "seed", "duration_s", "wall_seconds", "events_executed", "flows", "queues"):
        assert key in s, key
    assert s["scenario"] == "dumbbell"
    assert s["duration_s"] == 2.0
    (flow,) = s["flows"]
    for key in ("goodput_bps", "bytes_delivered", "retransmitted_segments", "timeouts"):
        assert key in flow, key
    assert 0 < flow["goodput_bps"] <= 500e6
    for q in s["queues"]:
        for key in ("enqueued", "dropped", "max_bytes"):
            assert key in q, key


def test_scenario_toml_is_the_resolved_scenario(cli_result: tuple[Path, str]) -> None:
    out, _ = cli_result
    written = lfnlab.Scenario.from_file(out / "scenario.toml")
    original = lfnlab.Scenario.from_file(out.parent / "dumbbell.toml")
    assert written.to_toml() == original.to_toml()


def test_api_returns_the_tables_of_the_files(cli_result: tuple[Path, str], tmp_path: Path) -> None:
    out, _ = cli_result
    r = lfnlab.run(lfnlab.Scenario.from_file(out.parent / "dumbbell.toml"))
    assert r.out_dir is None
    for name in ("flows", "tcp", "queues"):
        pd.testing.assert_frame_equal(getattr(r, name), pq.read_table(out / f"{name}.parquet").to_pandas(), obj=name)
    from_disk = lfnlab.load_result(out)
    for name in ("flows", "tcp", "queues"):
        pd.testing.assert_frame_equal(getattr(r, name), getattr(from_disk, name), obj=name)
    file_summary = json.loads((out / "summary.json").read_text())
    api_summary = dict(r.summary)
    file_summary.pop("wall_seconds")
    api_summary.pop("wall_seconds")
    assert api_summary == file_summary


def test_api_writes_an_identical_result_directory(cli_result: tuple[Path, str], tmp_path: Path) -> None:
    """Same scenario and seed: the same bytes (spec 06 §7 V6), wall_seconds aside."""
    out, _ = cli_result
    again = tmp_path / "again"
    r = lfnlab.run(out.parent / "dumbbell.toml", out=again)
    assert r.out_dir == again
    for f in ("flows.parquet", "tcp.parquet", "queues.parquet", "scenario.toml"):
        assert (again / f).read_bytes() == (out / f).read_bytes(), f
    a, b = (json.loads((d / "summary.json").read_text()) for d in (out, again))
    a.pop("wall_seconds")
    b.pop("wall_seconds")
    assert a == b


def test_run_replaces_an_earlier_result(cli_result: tuple[Path, str], tmp_path: Path) -> None:
    out, _ = cli_result
    target = tmp_path / "r"
    shutil.copytree(out, target)
    (target / "stale.txt").write_text("from an older run")
    p = run_cli("run", out.parent / "dumbbell.toml", "--out", target, "--quiet", "--set", "sim.seed=2")
    assert p.returncode == 0, p.stderr
    assert p.stdout == ""
    assert not (target / "stale.txt").exists()
    assert json.loads((target / "summary.json").read_text())["seed"] == 2


def test_default_out_dir_is_out_slash_name(dumbbell_copy: Path) -> None:
    p = run_cli("run", dumbbell_copy.name, "--quiet", cwd=dumbbell_copy.parent)
    assert p.returncode == 0, p.stderr
    assert (dumbbell_copy.parent / "out" / "dumbbell" / "summary.json").is_file()


def test_plot_command_writes_a_png(cli_result: tuple[Path, str], tmp_path: Path) -> None:
    out, _ = cli_result
    target = tmp_path / "r"
    shutil.copytree(out, target)
    p = run_cli("plot", target)
    assert p.returncode == 0, p.stderr
    png = target / "goodput_cwnd.png"
    assert png.read_bytes()[:8] == PNG_MAGIC
    p = run_cli("plot", target, "--out", tmp_path / "figs" / "g.png")
    assert p.returncode == 0, p.stderr
    assert (tmp_path / "figs" / "g.png").read_bytes()[:8] == PNG_MAGIC


def test_plot_api(cli_result: tuple[Path, str], tmp_path: Path) -> None:
    out, _ = cli_result
    r = lfnlab.load_result(out)
    written = lfnlab.plot.goodput_cwnd(r, tmp_path / "g.png")
    assert written.read_bytes()[:8] == PNG_MAGIC
    series = lfnlab.plot.goodput_series(r)
    t, mbps = series["bulk"]
    assert len(t) == len(mbps) > 0
    # Averaged over the run, goodput cannot exceed the 500 Mbit/s bottleneck (one bin may,
    # when a cumulative ACK ends a recovery).
    assert 0 < mbps.mean() <= 500
