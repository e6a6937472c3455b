"""03.S1 (single-stream grid) and 03.S2 (two streams from one TCP-aware NIC), spec 03 §3.

Each quick form runs once through the command line (module fixture, about 5 s on 2 cores);
the tests read what it wrote. The pure helpers are tested on their own."""

from __future__ import annotations

import csv
import math
import subprocess
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from lfnlab.reproduce.ch03_end_node_rate_control.path03 import sgrid_scenario, stwo_scenario, tcp_nic_qdisc
from lfnlab.reproduce.ch03_end_node_rate_control import s1_grid as s1
from lfnlab.reproduce.ch03_end_node_rate_control import s2_two_streams as s2
from support import passed_checks, run_cli, run_quick_forms

IDS = ["03.S1", "03.S2"]
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
S1_FIGURES = [f"paper-fig{n}" for n in range(26, 34)]

Outputs = dict[str, tuple[Path, subprocess.CompletedProcess[str]]]


@pytest.fixture(scope="module")
def quick_outputs(tmp_path_factory: pytest.TempPathFactory) -> Outputs:
    """Each experiment's quick form, run once: ID → (output directory, completed process)."""
    return run_quick_forms(IDS, tmp_path_factory.mktemp("reproduce03s"))


def _rows(path: Path) -> list[dict[str, str]]:
    with path.open(encoding="utf-8", newline="") as f:
        return list(csv.DictReader(f))


# ------------------------------------------------------------------ catalogue


def test_list_names_both() -> None:
    p = run_cli("reproduce", "--list")
    assert p.returncode == 0, p.stderr
    ids = [line.split()[0] for line in p.stdout.splitlines()]
    assert ids.index("03.S1") < ids.index("03.S2")


# ------------------------------------------------------------------ quick forms


@pytest.mark.engine
@pytest.mark.parametrize("experiment_id", IDS)
def test_quick_form_passes(experiment_id: str, quick_outputs: Outputs) -> None:
    d, p = quick_outputs[experiment_id]
    checks = passed_checks(experiment_id, d, p)
    report = (d / "report.md").read_text(encoding="utf-8")
    assert report.startswith(f"# {experiment_id}: ")
    for png in d.glob("*.png"):
        assert png.read_bytes()[:8] == PNG_MAGIC
        assert f"]({png.name})" in report
    assert sorted(checks["files"]) == sorted(f.name for f in d.iterdir() if f.is_file())
    expectations = _rows(d / "expectations.csv")
    assert expectations and {r["agrees"] for r in expectations} <= {"yes", "no", "partly"}


@pytest.mark.engine
def test_s1_writes_every_figure_and_table(quick_outputs: Outputs) -> None:
    d, _ = quick_outputs["03.S1"]
    for name in S1_FIGURES:
        assert (d / f"{name}.png").read_bytes()[:8] == PNG_MAGIC, name
    runs = pd.read_csv(d / "s1-runs.csv")
    p = s1.QUICK
    n_modes = 2 + len(p.fixed_ipgs_bytes) + 2
    assert len(runs) == len(p.latencies_ms) * n_modes * p.seeds
    assert set(runs["mode"]) == {"fe", "default", "fixed", "dynamic", "dynamic_wire"}
    assert runs["finished"].all() and runs["conservation_holds"].all()
    # Throughput = bytes / completion time.
    np.testing.assert_allclose(runs["throughput_mbps"], p.transfer_bytes * 8 / runs["completion_s"] / 1e6, rtol=1e-9)
    stats = pd.read_csv(d / "s1-stats.csv")
    assert {"mean_mbps", "norm_std", "min_mbps", "max_mbps", "median_mbps"} <= set(stats.columns)
    assert len(stats) == len(p.latencies_ms) * n_modes
    summary = pd.read_csv(d / "s1-summary.csv")
    assert list(summary["latency_ms"]) == list(p.latencies_ms)
    assert {"dyn_handoff_mean_mbps", "dyn_wire_mean_mbps", "best_fixed_ipg_bytes"} <= set(summary.columns)
    fig28 = pd.read_csv(d / "paper-fig28.csv")
    assert list(fig28["fixed_ipg_bytes"]) == list(p.fixed_ipgs_bytes)


@pytest.mark.engine
def test_s2_writes_its_table_and_figure(quick_outputs: Outputs) -> None:
    d, _ = quick_outputs["03.S2"]
    assert (d / "paper-fig35.png").read_bytes()[:8] == PNG_MAGIC
    table = pd.read_csv(d / "paper-table-two-stream.csv")
    p = s2.QUICK
    assert len(table) == len(p.rtt_points) * (p.seeds + 1)
    assert set(table["rtt_timestamp_point"]) == set(s2.RTT_POINTS)
    assert {"s0_mbps", "s1_mbps", "s0_max_ready_wait_us", "s1_won", "s1_lost"} <= set(table.columns)
    runs = pd.read_csv(d / "s2-runs.csv")
    assert (runs["won"] == runs["frames"]).all()
    assert (runs["max_ready_wait_us"] <= s2.ready_wait_bound_s(2) * 1e6).all()


# ------------------------------------------------------------------ S1 helpers


@pytest.mark.parametrize(
    ("ipg", "bps", "ticks"),
    # n = ⌈IPG·8/Y / 64 ns⌉: IPG/8 at 1 Gbit/s; 8 B at 100 Mbit/s = 640 ns = 10 ticks.
    [(8, 1e9, 1), (16, 1e9, 2), (1023, 1e9, 128), (1024, 1e9, 128), (16384, 1e9, 2048), (8, 1e8, 10), (9, 1e9, 2)],
)
def test_expected_fixed_count(ipg: int, bps: float, ticks: int) -> None:
    assert s1.expected_fixed_count(ipg, bps) == ticks


def test_modes_and_labels() -> None:
    ms = s1.modes(s1.FULL)
    assert len(ms) == 2 + 12 + 2  # FE, Default, 12 Fixed, 2 Dynamic: 960 runs with 6 L × 10 seeds
    assert len({m.key for m in ms}) == len(ms)
    assert [m.fixed_ipg_bytes for m in ms if m.kind == "fixed"] == list(s1.FIXED_IPGS_BYTES)
    # Both RTT sources are explicit: the loaded default (wire_departure) must not make them equal.
    assert s1.DYNAMIC.qdisc is not None and s1.DYNAMIC.qdisc["rtt_timestamp_point"] == "tcp_handoff"
    assert s1.DYNAMIC_WIRE.qdisc is not None and s1.DYNAMIC_WIRE.qdisc["rtt_timestamp_point"] == "wire_departure"
    assert s1.run_label(2, s1.fixed_mode(16384), 10) == "L002-fixed16384-s10"


def test_s1_scenarios_validate() -> None:
    for m in s1.modes(s1.QUICK):
        for latency in (2, 50):
            d = sgrid_scenario("t", latency_ms=latency, nic_bps=m.nic_bps, qdisc=m.qdisc, transfer_bytes=1e6).to_dict()
            assert d["flow"][0]["pacing"]["kind"] == ("tcp_nic" if m.qdisc is not None else "off")


def _runs(rows: list[tuple[str, int, int, int, float]]) -> pd.DataFrame:
    """Synthetic S1 runs: (mode, fixed IPG, L, seed, throughput)."""
    return pd.DataFrame(
        [
            {
                "mode": m,
                "label": m,
                "fixed_ipg_bytes": g,
                "latency_ms": L,
                "seed": s,
                "throughput_mbps": x,
                "completion_s": 1.0 / x if x > 0 else math.nan,
                "finished": x > 0,
                "timeouts": 0,
            }
            for m, g, L, s, x in rows
        ]
    )


def test_cell_stats_best_fixed_and_summary() -> None:
    rows = []
    for L, base in ((2, 900.0), (50, 40.0)):
        for seed, noise in ((1, -1.0), (2, 1.0)):
            rows += [
                ("fe", -1, L, seed, 90.0 + noise),
                ("default", -1, L, seed, base + 10 * noise),
                ("fixed", 8, L, seed, base + 10 * noise),
                ("fixed", 1024, L, seed, (500.0 if L == 2 else 70.0) + noise),
                ("dynamic", -1, L, seed, base / 2 + noise),
                ("dynamic_wire", -1, L, seed, base + noise),
            ]
    rows.append(("dynamic", -1, 50, 3, 0.0))  # an unfinished run
    runs = _runs(rows)
    stats = s1.cell_stats(runs)
    d50 = stats[(stats["mode"] == "dynamic") & (stats["latency_ms"] == 50)].iloc[0]
    assert (d50["runs"], d50["finished"]) == (3, 2)
    assert d50["mean_mbps"] == pytest.approx(20.0)
    # norm std = sample std / mean: values 19 and 21.
    assert d50["norm_std"] == pytest.approx(math.sqrt(2) / 20.0)
    best = s1.best_fixed(stats).set_index("latency_ms")
    assert best.loc[2, "fixed_ipg_bytes"] == 8 and best.loc[50, "fixed_ipg_bytes"] == 1024
    summary = s1.summary_table(stats)
    assert list(summary["best_fixed_ipg_bytes"]) == [8, 1024]
    assert list(summary["dyn_handoff_finished"]) == [2, 2]
    assert s1.same_as_default(runs, 8) == 4
    table = s1.expectations(stats)
    assert set(table["agrees"]) <= {"yes", "no", "partly"}
    first = table.iloc[0]
    assert first["expectation"].startswith("at the longer latencies FE beats") and first["agrees"] == "yes"


# ------------------------------------------------------------------ S2 helpers


def test_ready_wait_bound_is_frame_slots() -> None:
    # (1518 + 8 + 8) bytes × 8 ns = 12.272 µs per full-size frame at 1 Gbit/s.
    assert s2.frame_slot_s() == pytest.approx(12.272e-6, rel=1e-12)
    assert s2.ready_wait_bound_s(2) == pytest.approx(24.544e-6, rel=1e-12)
    with pytest.raises(ValueError):
        s2.ready_wait_bound_s(0)


def test_acked_progress() -> None:
    t = np.arange(1, 31) * 0.1  # 0.1 .. 3.0 s
    acked = np.minimum(t, 2.5) * 1e6
    pr = s2.acked_progress(t, acked, end_s=3.0)
    # Windows [0,1], [1,2], [2,3]: the last rises from 2.0 to 2.5 MB.
    assert (pr["monotone"], pr["windows"], pr["stalled_windows"]) == (True, 3, 0)
    assert math.isnan(pr["first_stall_s"])
    flat = np.where(t > 1.0, 1e6, t * 1e6)
    pr = s2.acked_progress(t, flat, end_s=3.0)
    assert (pr["stalled_windows"], pr["first_stall_s"]) == (2, 1.0)
    back = acked.copy()
    back[5] = 0.0
    assert s2.acked_progress(t, back, end_s=3.0)["monotone"] is False
    # A partial last window is not judged; no samples at all means no rise.
    assert s2.acked_progress(t, acked, end_s=2.95)["windows"] == 2
    assert s2.acked_progress([], [], end_s=2.0)["stalled_windows"] == 2


def test_two_stream_table_and_expectations() -> None:
    rows = []
    for point in s2.RTT_POINTS:
        for run in (1, 2):
            for name, x in (("s0", 100.0 * run), ("s1", 300.0 if point == "wire_departure" else 50.0)):
                rows.append(
                    {
                        "rtt_timestamp_point": point,
                        "run": run,
                        "stream": name,
                        "completion_s": 1.0,
                        "finished": True,
                        "throughput_mbps": x,
                        "timeouts": 0,
                        "frames": 10,
                        "won": 10,
                        "lost": run,
                        "max_ready_wait_us": 12.272 * run,
                        "acked_monotone": True,
                        "windows": 1,
                        "stalled_windows": 0,
                        "first_stall_s": math.nan,
                    }
                )
    runs = pd.DataFrame(rows)
    table = s2.two_stream_table(runs)
    assert list(table["run"]) == ["1", "2", "mean"] * 2
    mean = table[(table["rtt_timestamp_point"] == "tcp_handoff") & (table["run"] == "mean")].iloc[0]
    assert mean["s0_mbps"] == pytest.approx(150.0)
    assert mean["s0_max_ready_wait_us"] == pytest.approx(24.544)  # the longest, not the mean
    assert mean["s1_lost"] == pytest.approx(1.5)
    exp = s2.expectations(runs, s2.ready_wait_bound_s(2) * 1e6)
    share = exp[exp["expectation"].str.startswith("the short-latency stream")]
    assert list(share["agrees"]) == ["no", "yes"]  # 50 vs 150 Mbps; 300 vs 150 Mbps (ratio 2)
    starve = exp[exp["expectation"].str.startswith("neither stream starves")]
    assert list(starve["agrees"]) == ["yes", "yes"]


def test_s2_scenarios_validate() -> None:
    for point in s2.RTT_POINTS:
        nic = tcp_nic_qdisc("dynamic", rtt_timestamp_point=point)
        d = stwo_scenario("t", qdisc=nic, bytes0=1e6, bytes1=1e6).to_dict()
        snd = next(n for n in d["node"] if n["name"] == "snd")
        assert snd["qdisc"]["rtt_timestamp_point"] == point
        assert [f["name"] for f in d["flow"]] == list(s2.STREAMS)
