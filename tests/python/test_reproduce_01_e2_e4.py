"""01.E2–01.E4 (spec 01 §3 E2–E4): the quick forms through the CLI, and their pure helpers.

Each quick form runs once (module fixture, about 25 s on 2 cores); the tests then read what
it wrote. The helper tests need no engine."""

from __future__ import annotations

import math
import subprocess
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from lfnlab.reproduce import outcome
from lfnlab.reproduce.ch01_gap_pacing import common01, e2_bandwidth, e3_traces, e4_memory
from support import passed_checks, run_cli, run_quick_forms

IDS = ["01.E2", "01.E3", "01.E4"]
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
PAPER_TABLE_COLUMNS = [
    "buffer_KB",
    "a_without_pacing_BW_MBps",
    "a_without_pacing_TailDrops",
    "b_with_pacing_BW_MBps",
    "b_with_pacing_TailDrops",
    "c_fq_edt_BW_MBps",
    "c_fq_edt_TailDrops",
]
EXPECTATION_COLUMNS = ["expectation", "observed", "agrees", "notes"]
FILES = {
    "01.E2": ["paper-table3.csv", "paper-table4.csv", "e2-runs.csv", "expectations.csv", "e2-bandwidth.png"],
    "01.E3": [f"paper-fig{n}{z}.png" for n in (7, 8, 9, 10) for z in ("", "-zoom")]
    + ["fig7-metrics.csv", "e3-runs.csv", "e3-windows.csv", "expectations.csv"],
    "01.E4": ["paper-table5.csv", "expectations.csv"],
}


@pytest.fixture(scope="module")
def quick_outputs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[Path, subprocess.CompletedProcess[str]]]:
    """Each experiment's quick form, run once: ID → (output directory, completed process)."""
    work = tmp_path_factory.mktemp("reproduce01")
    return run_quick_forms(IDS, work)


def test_listed_in_the_catalogue() -> None:
    p = run_cli("reproduce", "--list")
    assert p.returncode == 0, p.stderr
    ids = [line.split()[0] for line in p.stdout.splitlines()]
    for experiment_id in IDS:
        assert experiment_id in ids


@pytest.mark.engine
@pytest.mark.parametrize("experiment_id", IDS)
def test_quick_form_passes_and_writes_its_files(
    experiment_id: str, quick_outputs: dict[str, tuple[Path, subprocess.CompletedProcess[str]]]
) -> None:
    d, p = quick_outputs[experiment_id]
    checks = passed_checks(experiment_id, d, p)
    for name in FILES[experiment_id]:
        assert (d / name).is_file(), name
        if name.endswith(".png"):
            assert (d / name).read_bytes()[:8] == PNG_MAGIC, name
    report = (d / "report.md").read_text(encoding="utf-8")
    assert report.startswith(f"# {experiment_id}: ")
    for heading in ("## Checks", "## Tables", "## Runs", "## Reproduce"):
        assert heading in report, heading
    expectations = pd.read_csv(d / "expectations.csv")
    assert list(expectations.columns) == EXPECTATION_COLUMNS
    assert len(expectations) >= 3
    assert set(expectations["agrees"]) <= {"yes", "no", "partly"}
    for run in checks["runs"]:
        assert (d / run / "summary.json").is_file(), run
    assert sorted(checks["files"]) == sorted(f.name for f in d.iterdir() if f.is_file())


@pytest.mark.engine
def test_e2_tables_have_the_papers_layout(
    quick_outputs: dict[str, tuple[Path, subprocess.CompletedProcess[str]]],
) -> None:
    d, _ = quick_outputs["01.E2"]
    for name in ("paper-table3.csv", "paper-table4.csv"):
        t = pd.read_csv(d / name)
        assert list(t.columns) == PAPER_TABLE_COLUMNS, name
        assert list(t["buffer_KB"]) == [64, 128, 256, 512]
        bound = common01.goodput_bound(62.5e6) / 1e6
        for col in (c for c in PAPER_TABLE_COLUMNS if c.endswith("_BW_MBps")):
            assert ((t[col] > 0) & (t[col] <= bound)).all(), col
        for col in (c for c in PAPER_TABLE_COLUMNS if c.endswith("_TailDrops")):
            assert (t[col] >= 0).all() and t[col].dtype.kind == "i", col
    runs = pd.read_csv(d / "e2-runs.csv")
    assert len(runs) == 2 * 3 * 4, "the whole grid: 2 variants × 3 pacing cases × 4 buffers"
    for col in ("retransmitted_segments", "rto_count", "gap_wire_bytes", "mean_target_rate_MBps"):
        assert col in runs.columns
    assert (runs[runs["pacing"] != "gap_packets"]["gap_wire_bytes"] == 0).all()
    assert (runs[runs["pacing"] == "gap_packets"]["gap_wire_bytes"] > 0).all()


@pytest.mark.engine
def test_e3_fig7_metrics(quick_outputs: dict[str, tuple[Path, subprocess.CompletedProcess[str]]]) -> None:
    d, _ = quick_outputs["01.E3"]
    t = pd.read_csv(d / "fig7-metrics.csv")
    assert list(t.columns) == [
        "metric",
        "without_pacing",
        "with_gap_pacing",
        "fq_edt",
        "ratio_gap_over_without",
        "ratio_fq_over_without",
    ]
    assert len(t) == len(e3_traces.FIG7_ROWS)
    runs = pd.read_csv(d / "e3-runs.csv")
    assert len(runs) == 9, "three (variant, B) sets × three pacing cases"


@pytest.mark.engine
def test_e4_table5(quick_outputs: dict[str, tuple[Path, subprocess.CompletedProcess[str]]]) -> None:
    d, _ = quick_outputs["01.E4"]
    t = pd.read_csv(d / "paper-table5.csv")
    assert list(t["case"]) == ["mbench only", "socket buffer", "pacing", "full rate"]
    for col in ("memory_bandwidth_MBps", "throughput_MBps", "r_dma_real_MBps", "r_dma_gap_MBps", "r_copy_MBps",
                "r_pkt_per_s", "r_gap_pkt_per_s"):
        assert col in t.columns, col
    assert t.loc[0, "memory_bandwidth_MBps"] == 3200.0
    # Only the paced case DMAs gap frames.
    assert list(t["r_dma_gap_MBps"] > 0) == [False, False, True, False]


# --- pure helpers (no engine) -----------------------------------------------------------------


def test_window_cap_is_the_payload_share_of_rate_times_rtt() -> None:
    # 62.5e6 · 1448/1538 · 0.2 = 11,768,530.56 B (spec 01 §3 E4 case 2).
    assert abs(common01.window_cap_bytes(62.5e6, 0.2) - 11_768_530) <= 1
    assert abs(e4_memory.w_cap(e4_memory.FULL) - 11_768_530) <= 1


def test_advertised_window_rounds_down_to_the_scale() -> None:
    # 65535·2^7 = 8,388,480 < 11,768,531 ≤ 65535·2^8 = 16,776,960: s = 8; ⌊11768531/256⌋·256 = 11,768,320.
    assert common01.window_scale_shift(11_768_531) == 8
    assert common01.advertised_window(11_768_531) == 11_768_320
    assert common01.window_scale_shift(65535) == 0
    assert common01.advertised_window(65535) == 65535
    # φ = ½ of 32 MiB: 16 MiB, s = 9 (65535·2^8 < 2^24), a multiple of 512.
    assert common01.advertised_window(32 * 2**20, 0.5) == 16 * 2**20


def test_target_rate_is_equation_1() -> None:
    # cwnd·1538/RTT: 8127 segments over 200 ms ≈ 62.5 MB/s (the path's BDP in wire bytes).
    assert common01.target_rate(8127, 0.2) == pytest.approx(8127 * 1538 / 0.2)
    assert abs(common01.target_rate(62.5e6 * 0.2 / 1538, 0.2) - 62.5e6) < 1e-6
    tcp = pd.DataFrame(
        {"t": [0.1, 0.2, 0.3], "flow": ["f"] * 3, "cwnd": [2.0, 100.0, 200.0], "srtt": [math.nan, 0.2, 0.25]}
    )
    # The bin before the first RTT sample is skipped: mean of 100·1538/0.2 and 200·1538/0.25.
    want = (100 * 1538 / 0.2 + 200 * 1538 / 0.25) / 2
    assert common01.mean_target_rate(tcp) == pytest.approx(want)
    assert math.isnan(common01.mean_target_rate(tcp.iloc[:1]))


def test_goodput_bound() -> None:
    assert common01.goodput_bound(62.5e6) / 1e6 == pytest.approx(58.8427, abs=1e-4)
    assert common01.frame_rate_bound(125e6) / 1e6 == pytest.approx(123.3745, abs=1e-4)


def test_expectation_rows() -> None:
    row = outcome.expectation("x", "y", "partly")
    assert list(outcome.expectations_table([row]).columns) == EXPECTATION_COLUMNS
    with pytest.raises(ValueError):
        outcome.expectation("x", "y", "maybe")
    assert outcome.verdict(True) == "yes" and outcome.verdict(False) == "no" and outcome.verdict(None) == "partly"


def test_port_a_check_counts_the_runs_where_frames_are_conserved() -> None:
    # spec 01 §2.8: M frames = FIFO enqueued + TailDrops; the second run loses one frame.
    check = common01.port_a_check(pd.Series([10, 7]), pd.Series([8, 6]), pd.Series([2, 0]), "every run")
    assert (check.measured, check.criterion, check.passed) == (1, "= 2 (every run)", False)


def test_cases_cover_the_grid_with_unique_labels() -> None:
    e2 = e2_bandwidth.cases(e2_bandwidth.QUICK)
    assert len(e2) == 2 * 3 * 4 and len({c.label for c in e2}) == len(e2)
    e3 = e3_traces.cases(e3_traces.QUICK)
    assert sorted(c.label for c in e3) == sorted(
        e3_traces.run_label(v, b, p.short) for v, b in e3_traces.run_sets(e3_traces.QUICK) for p in common01.PACINGS
    )
    assert [c.label for c in e4_memory.cases(e4_memory.QUICK)] == list(e4_memory.CASES)


def test_e2_labels_and_paper_table() -> None:
    assert e2_bandwidth.run_label("scalable", "gap_packets", 64 * 1024) == "scalable-gap-064k"
    assert e2_bandwidth.run_label("fast", "fq", 512 * 1024) == "fast-fq-512k"
    rows = [
        {"variant": "fast", "pacing": p, "buffer_KB": b, "goodput_MBps": float(b + i), "taildrops": i}
        for i, p in enumerate(("off", "gap_packets", "fq"))
        for b in (64, 128)
    ]
    t = e2_bandwidth.paper_table(pd.DataFrame(rows), "fast", ("off", "gap_packets", "fq"))
    assert list(t.columns) == PAPER_TABLE_COLUMNS
    assert t.loc[1].tolist() == [128, 128.0, 0, 129.0, 1, 130.0, 2]


def test_e3_zoom_window() -> None:
    # Centred on the drop, shifted to stay inside the window.
    assert e3_traces.zoom_window((0.0, 10.0), 2.8445, "ss") == pytest.approx((2.3445, 3.3445))
    assert e3_traces.zoom_window((0.0, 10.0), 0.2, "ss") == (0.0, 1.0)
    assert e3_traces.zoom_window((100.0, 110.0), 109.9, "ca") == (109.0, 110.0)
    # No drop in the window: 1–2 s in slow start, the first second in CA.
    assert e3_traces.zoom_window((0.0, 10.0), math.nan, "ss") == (1.0, 2.0)
    assert e3_traces.zoom_window((100.0, 110.0), 50.0, "ca") == (100.0, 101.0)


def test_e3_fig7_metrics_on_a_synthetic_trace() -> None:
    bin_s = e3_traces.BIN_S
    t = np.arange(0, 10.0, bin_s)
    frames = np.zeros(len(t), dtype=np.int64)
    frames[4000] = 30  # 2.0 s: a 30-frame burst = 30·1518 B in 500 µs = 91.08 MB/s
    frames[10000] = 2  # 5.0 s
    m = pd.DataFrame({"t": t, "bytes": frames * 1518, "packets": frames})
    tcp = pd.DataFrame({"t": t + bin_s, "cwnd": np.arange(len(t), dtype=float), "ssthresh": np.inf, "srtt": 0.2})
    drops = pd.DataFrame({"t": [3.0, 3.5], "drops": [1, 4]})
    r = e3_traces.fig7_metrics(m, tcp, drops, (0.0, 10.0))
    assert r["first_taildrop_s"] == 3.0
    assert r["peak_bin_t_s"] == pytest.approx(2.0)
    assert r["peak_bin_MBps"] == pytest.approx(30 * 1518 / bin_s / 1e6)
    assert r["rtt_avg_at_peak_MBps"] == pytest.approx(30 * 1518 / 0.2 / 1e6)  # the interval [2.0, 2.2)
    assert r["cwnd_at_5s"] == pytest.approx(9999.0)  # the bin ending at 5.0 s
    assert r["rtt_avg_at_5s_MBps"] == pytest.approx(2 * 1518 / 0.2 / 1e6)
    assert e3_traces.loss_episodes(drops, 0.2) == 2
    assert e3_traces.loss_episodes(drops, 1.0) == 1


def test_e3_run_sets_cover_every_figure() -> None:
    sets = e3_traces.run_sets(e3_traces.FULL)
    assert sets == {("scalable", 128 * 1024): 10.0, ("fast", 128 * 1024): 110.0, ("fast", 512 * 1024): 110.0}
    assert max(e3_traces.run_sets(e3_traces.QUICK).values()) == 30.0


def test_e4_memory_model() -> None:
    model = {"m0": 3200e6, "k_dma": 1.0, "k_copy": 2.0, "k_pkt": 0.0}
    # The paced case of spec 01 §2.6 at 62.5 MB/s: 3200 − (61.69 + 61.69) − 2·58.84 ≈ 2959.0 MB/s.
    got = e4_memory.m_app(model, 61.6873e6, 61.6873e6, 58.8427e6, 40637, 40637)
    assert float(got) / 1e6 == pytest.approx(3200 - 2 * 61.6873 - 2 * 58.8427)
    assert float(e4_memory.m_app(model, 0, 0, 0, 0, 0)) == 3200e6
    assert e4_memory.parse_quantity("25600Mbps") / 8 == 3200e6
    assert e4_memory.parse_quantity("0B") == 0.0
    assert e4_memory.parse_quantity(2.0) == 2.0
    with pytest.raises(ValueError):
        e4_memory.parse_quantity("3 furlongs")


def test_e4_scenarios_resolve_as_intended() -> None:
    par = e4_memory.QUICK
    sb = e4_memory.scenario(par, "socket-buffer").to_dict()
    flow = sb["flow"][0]
    assert flow["rcvbuf"] == "11768531B"
    assert flow["tcp"]["rwnd_policy"] == "full_buffer" and flow["tcp"]["buffer_semantics"] == "kernel"
    paced = e4_memory.scenario(par, "pacing").to_dict()
    snd = next(n for n in paced["node"] if n["name"] == "snd")
    assert snd["qdisc"]["kind"] == "ipg" and snd["qdisc"]["rate_source"] == "fixed"
    assert e4_memory.scenario(par, "mbench-only").to_dict()["flow"] == []
    for case in e4_memory.CASES:
        assert e4_memory.memory_model(e4_memory.scenario(par, case).to_dict()) == {
            "m0": 3200e6,
            "k_dma": 1.0,
            "k_copy": 2.0,
            "k_pkt": 0.0,
        }
