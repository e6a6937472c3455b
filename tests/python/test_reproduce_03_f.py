"""03.F1–03.F3, 03.F5–03.F7 (spec 03 §3, path P-TM): the quick forms through the CLI, and
their pure helpers.

Each quick form runs once (module fixture, about 10 s on 2 cores); the tests then read what
it wrote. The helper tests need no engine."""

from __future__ import annotations

import math
import subprocess
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from lfnlab.reproduce.ch03_end_node_rate_control import f1_gbe_fe as f1
from lfnlab.reproduce.ch03_end_node_rate_control import f2_ipg_sweep as f2
from lfnlab.reproduce.ch03_end_node_rate_control import f3_disk as f3
from lfnlab.reproduce.ch03_end_node_rate_control import f5_cps as f5
from lfnlab.reproduce.ch03_end_node_rate_control import f6_handover as f6
from lfnlab.reproduce.ch03_end_node_rate_control import f7_ipg_cps as f7
from lfnlab.reproduce.ch03_end_node_rate_control import f_common as fc
from lfnlab.reproduce.ch03_end_node_rate_control.f_series import EXPERIMENTS
from support import passed_checks, run_cli, run_quick_forms

IDS = ["03.F1", "03.F2", "03.F3", "03.F5", "03.F6", "03.F7"]
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
EXPECTATION_COLUMNS = ["expectation", "observed", "agrees", "notes"]
FILES = {
    "03.F1": ["paper-table1.csv", "f1-trials.csv", "f1-stats.csv", "f1-ptm28-table1.csv", "f1-trials.png"],
    "03.F2": ["paper-fig7.csv", "paper-fig7.png", "f2-nic-rate.csv", "f2-fe-reference.csv", "f2-trials.csv"],
    "03.F3": ["paper-fig8-9.csv", "paper-fig8-9.png", "f3-averages.csv", "f3-stats.csv"],
    "03.F5": [
        "paper-fig16-17.png",
        "paper-fig18-19.csv",
        "paper-fig18-19.png",
        "f5-averages.csv",
        "f5-cps-rounds.csv",
        "f5-busy-idle.csv",
        "f5-trials.csv",
    ],
    "03.F6": ["paper-fig21.csv", "paper-fig21.png", "f6-cps-rounds.csv", "f6-trial.csv"],
    "03.F7": ["paper-table-cps.csv", "paper-fig20.csv", "paper-fig20.png", "f7-averages.csv", "f7-cps-rounds.csv"],
}


@pytest.fixture(scope="module")
def quick_outputs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[Path, subprocess.CompletedProcess[str]]]:
    """Each experiment's quick form, run once: ID → (output directory, completed process)."""
    work = tmp_path_factory.mktemp("reproduce03f")
    return run_quick_forms(IDS, work)


def test_listed_in_the_catalogue_in_id_order() -> None:
    assert [e.id for e in EXPERIMENTS] == IDS
    p = run_cli("reproduce", "--list")
    assert p.returncode == 0, p.stderr
    ids = [line.split()[0] for line in p.stdout.splitlines()]
    assert [i for i in ids if i in IDS] == IDS


# ------------------------------------------------------------------ quick forms


@pytest.mark.engine
@pytest.mark.parametrize("experiment_id", IDS)
def test_quick_form_passes_and_writes_its_files(
    experiment_id: str, quick_outputs: dict[str, tuple[Path, subprocess.CompletedProcess[str]]]
) -> None:
    d, p = quick_outputs[experiment_id]
    checks = passed_checks(experiment_id, d, p)
    for name in FILES[experiment_id] + ["expectations.csv"]:
        assert (d / name).is_file(), name
        if name.endswith(".png"):
            assert (d / name).read_bytes()[:8] == PNG_MAGIC, name
            assert f"]({name})" in (d / "report.md").read_text(encoding="utf-8")
    report = (d / "report.md").read_text(encoding="utf-8")
    assert report.startswith(f"# {experiment_id}: ")
    expectations = pd.read_csv(d / "expectations.csv")
    assert list(expectations.columns) == EXPECTATION_COLUMNS
    assert set(expectations["agrees"]) <= {"yes", "no", "partly"}
    for run in checks["runs"]:
        assert (d / run / "summary.json").is_file(), run
    assert sorted(checks["files"]) == sorted(f.name for f in d.iterdir() if f.is_file())


@pytest.mark.engine
def test_f1_paper_table1_layout(quick_outputs: dict[str, tuple[Path, subprocess.CompletedProcess[str]]]) -> None:
    d, _ = quick_outputs["03.F1"]
    t = pd.read_csv(d / "paper-table1.csv")
    assert list(t["NIC"]) == ["GbE", "FE"]
    assert list(t.columns[1:]) == [f"q{q}_{s}_Mbps" for q in (100, 25000) for s in ("Min", "Max", "Middle")]
    trials = pd.read_csv(d / "f1-trials.csv")
    assert len(trials) == 2 * 2 * 2 * f1.QUICK.trials, "P-TM and P-TM-2.8 × 2 NICs × 2 txqueuelens × trials"
    ptm = trials[trials["path"] == "P-TM"]
    # The real path (spec 03 §2.10) has no random loss; the P-TM-2.8 variant has the §2.8 model.
    assert (ptm["drops_random_loss"] == 0).all() and (ptm["drops_red"] == 0).all()
    assert set(trials["path"]) == {"P-TM", "P-TM-2.8"}
    for nic, tq in [("GbE", 100), ("FE", 25000)]:
        v = ptm[(ptm["nic"] == nic) & (ptm["txqueuelen"] == tq)]["throughput_Mbps"]
        row = t[t["NIC"] == nic].iloc[0]
        assert row[f"q{tq}_Min_Mbps"] == pytest.approx(v.min())
        assert row[f"q{tq}_Max_Mbps"] == pytest.approx(v.max())
        assert row[f"q{tq}_Middle_Mbps"] == pytest.approx(v.median())


@pytest.mark.engine
def test_f2_nic_rate_is_the_exact_formula(quick_outputs: dict[str, tuple[Path, subprocess.CompletedProcess[str]]]) -> None:
    d, _ = quick_outputs["03.F2"]
    r = pd.read_csv(d / "f2-nic-rate.csv")
    assert list(r["ipg_bytes"]) == list(f2.QUICK.ipgs_bytes)
    np.testing.assert_allclose(r["measured_Mbps"], 1000 * 1526 / (1526 + r["ipg_bytes"]), rtol=1e-9)
    fig = pd.read_csv(d / "paper-fig7.csv")
    assert {"mean_Mbps", "std_Mbps", "min_Mbps", "max_Mbps", "fe_mean_Mbps"} <= set(fig.columns)


@pytest.mark.engine
def test_f7_runs_f5_cases_with_the_same_results(
    quick_outputs: dict[str, tuple[Path, subprocess.CompletedProcess[str]]],
) -> None:
    # Results must not depend on run order: F7's copies of F5's cases equal F5's own runs.
    d5, _ = quick_outputs["03.F5"]
    d7, _ = quick_outputs["03.F7"]
    a5 = pd.read_csv(d5 / "f5-averages.csv").set_index("case")
    a7 = pd.read_csv(d7 / "f7-averages.csv").set_index("case")
    for case in a5.index:
        assert a7.loc[case, "best_Mbps"] == a5.loc[case, "best_Mbps"], case
        assert a7.loc[case, "mean_Mbps"] == a5.loc[case, "mean_Mbps"], case
    table = pd.read_csv(d7 / "paper-table-cps.csv")
    assert list(table["case"]) == ["CPS off", "CPS on, T = 10 ms", "IPG 256 B + CPS T = 10 ms"]


@pytest.mark.engine
def test_f5_and_f6_cps_rounds(quick_outputs: dict[str, tuple[Path, subprocess.CompletedProcess[str]]]) -> None:
    r5 = pd.read_csv(quick_outputs["03.F5"][0] / "f5-cps-rounds.csv")
    assert (r5["model_spaced_rounds"] == 4).all() and (r5["frames_other"] == 0).all()
    r6 = pd.read_csv(quick_outputs["03.F6"][0] / "f6-cps-rounds.csv")
    assert (r6["model_spaced_rounds"] == 7).all() and (r6["frames_other"] == 0).all()
    w = pd.read_csv(quick_outputs["03.F6"][0] / "paper-fig21.csv")
    assert list(w["rtt_index"]) == [-1, 0, 1, 2]


# ------------------------------------------------------------------ f_common (no engine)


def test_seeds_and_labels() -> None:
    assert fc.seeds(3) == [1, 2, 3]
    with pytest.raises(ValueError):
        fc.seeds(0)
    assert fc.trial_label("gbe-q00100", 7) == "gbe-q00100-s07"
    assert sorted([fc.trial_label("a", 10), fc.trial_label("a", 2)]) == ["a-s02", "a-s10"]


def test_best_and_median_trials_break_ties_by_seed() -> None:
    assert fc.best_seed({1: 5.0, 2: 7.0, 3: 7.0}) == 2
    assert fc.median_seed({1: 3.0, 2: 1.0, 3: 2.0, 4: 9.0, 5: 5.0}) == 1  # 1, 2, 3, 5, 9 → 3.0 (seed 1)
    assert fc.median_seed({1: 3.0, 2: 1.0, 3: 2.0}) == 3  # 1.0, 2.0, 3.0 → 2.0 (seed 3)
    assert fc.median_seed({1: 4.0, 2: 1.0}) == 2  # even count: the lower middle


def test_spaced_rounds_follow_spec_03_section_2_5() -> None:
    # Paper example: iw 2, RTT 200 ms → I = 100, 50, 25, 12.5 ms > 10 ms; 6.25 ms hands over.
    assert fc.cps_spaced_rounds(0.2, 0.010) == 4
    # T = 1 ms: 100 … 1.5625 ms spaced (n = 1..7), 0.78 ms hands over.
    assert fc.cps_spaced_rounds(0.2, 0.001) == 7
    # The boundary I_n = T ends spacing (open point 3): 160/2, /4, /8 = 80, 40, 20 > 10; 10 = T stops.
    assert fc.cps_spaced_rounds(0.160, 0.010) == 3
    assert fc.cps_spaced_rounds(0.010, 0.010) == 0
    for rtt in (0.0123, 0.05, 0.2, 0.2000076, 0.5, 1.0):
        for t in (0.001, 0.004, 0.010):
            assert fc.cps_spaced_rounds(rtt, t) == fc.cps_spaced_rounds_closed_form(rtt, t), (rtt, t)


def test_nominal_nic_rate() -> None:
    # spec 03 §2.3: Y·F/(F + IPG); F = 1526 (frame + preamble): 1e9·1526/2549 at IPG 1023.
    assert fc.nominal_nic_bps(1e9, 1023) == pytest.approx(1e9 * 1526 / 2549)
    assert fc.nominal_nic_bps(1e9, 0) == 1e9
    # The paper's example, F = 1500: ≈ 594 Mbit/s.
    assert fc.paper_nic_bps(1e9, 1023) / 1e6 == pytest.approx(594.53, abs=0.01)


def test_delivered_series_subtracts_70_header_bytes_per_frame() -> None:
    flows = pd.DataFrame(
        {
            "monitor": ["r3->rcv"] * 3 + ["snd->r0"],
            "flow": ["f"] * 4,
            "t": [0.0, 1.0, 2.0, 0.0],
            "bytes": [0, 10 * 1518, 1518 + 70, 99999],
            "packets": [0, 10, 2, 5],
        }
    )
    s = fc.delivered_series(flows)
    assert list(s["t_s"]) == [0.0, 1.0, 2.0]
    assert list(s["payload_bytes"]) == [0.0, 14480.0, 1448.0]
    assert s["mbps"].iloc[1] == pytest.approx(14480 * 8 / 1e6)


def test_handshake_rtt_from_capture() -> None:
    pk = pd.DataFrame({"monitor": ["snd->r0", "r0->snd", "snd->r0"], "t": [0.0, 0.2000076, 0.2000083]})
    assert fc.handshake_rtt_s(pk) == pytest.approx(0.2000076)
    assert math.isnan(fc.handshake_rtt_s(pk[pk["monitor"] == "snd->r0"]))


def test_classify_departures() -> None:
    # SYN at 0; SYN-ACK arrives at 0.2: the handshake ACK (52 B) leaves then, the first data
    # segment right behind it ((52 + 18 + 8 + 8) B at 1 Gbit/s = 0.688 µs later); the second
    # segment at the 0.31 s tick; one at an ACK at 0.4; one at neither.
    ack_end = 0.2 + (52 + 18 + 8 + 8) * 8 / 1e9
    sent = pd.DataFrame(
        {
            "t": [0.0, 0.2, ack_end, 0.31, 0.4, 0.4123],
            "kind": ["ack", "ack", "data", "data", "data", "data"],
            "l3_bytes": [60, 52, 1500, 1500, 1500, 1500],
        }
    )
    acks = np.array([0.2, 0.4])
    c = fc.classify_departures(sent, acks, tick_s=0.010, nic_bps=1e9, ipg_bytes=8, until_s=1.0)
    assert c == {"ack": 1, "tick": 1, "queued": 1, "other": 1}
    # Frames after ``until`` are not counted.
    c = fc.classify_departures(sent, acks, tick_s=0.010, nic_bps=1e9, ipg_bytes=8, until_s=0.35)
    assert c == {"ack": 0, "tick": 1, "queued": 1, "other": 0}


def test_clusters_and_windows() -> None:
    c = fc.clusters([0, 2, 3, 0, 0, 1, 0, 4])
    assert c == {"clusters": 3, "median_start_gap_bins": 3.0, "max_per_bin": 4}
    assert math.isnan(fc.clusters([0, 1, 0])["median_start_gap_bins"])
    counts = pd.DataFrame({"t_ms": np.arange(10.0), "sent": [0, 1, 1, 0, 5, 0, 0, 2, 0, 0], "acks": [0] * 10})
    w = fc.window_clusters(counts, 0.001, 0.008)
    assert w == {"frames": 9, "clusters": 3, "median_gap_ms": 3.0, "max_per_bin": 5, "acks": 0}


def test_run_checks_count_finished_and_conserving_runs() -> None:
    good = {"duration_s": 60.0, "conservation": {"holds": True}}
    bad = {"duration_s": 59.0, "conservation": {"holds": False}}
    checks = fc.run_checks({"a": good, "b": good}, 60.0)
    assert all(c.passed for c in checks)
    checks = fc.run_checks({"a": good, "b": bad}, 60.0)
    assert [c.passed for c in checks] == [False, False]
    assert [c.measured for c in checks] == [1, 1]


# ------------------------------------------------------------------ experiment helpers (no engine)


def test_f1_wire_bound_and_keys() -> None:
    # FE: 1e8 · 1448/1534; GbE: N2 600 Mbit/s · 1448/1518 is the smaller bound.
    assert f1.wire_bound_mbps(1e8, 8) == pytest.approx(100 * 1448 / 1534)
    assert f1.wire_bound_mbps(1e9, 8) == pytest.approx(600 * 1448 / 1518)
    assert f1.case_key(1e9, 100) == "gbe-q00100"
    assert f1.case_key(1e8, 25000, "dt") == "dt-fe-q25000"
    assert f1.FULL.trials == 11 and f1.FULL.duration_s == 60.0 and f1.FULL.txqueuelens == (100, 25000)


def test_f1_expectation_readings() -> None:
    rows = []
    for nic, values in (("GbE", [5.0, 10.0, 30.0]), ("FE", [20.0, 20.2, 20.1])):
        for s, v in enumerate(values, 1):
            for tq in (100, 25000):
                v_tq = v * (tq / 100) ** 0.1
                rows.append(
                    {"path": "P-TM", "nic": nic, "txqueuelen": tq, "seed": s, "throughput_Mbps": v_tq, "send_stalls": 1}
                )
    e = f1.expectations(pd.DataFrame(rows), (100, 25000))
    assert list(e["agrees"][:2]) == ["yes", "yes"]  # GbE spread, FE stable; FE better in most, GbE best beats it
    # FE median × (250)^0.1 ≈ 1.74 ≥ 1.5: helps strongly.
    assert e.iloc[4]["agrees"] == "yes"


def test_f2_sweep_points_and_rate_measure() -> None:
    assert f2.IPGS_BYTES[0] == 8 and f2.IPGS_BYTES[-1] == 1023 and len(f2.IPGS_BYTES) == 17
    assert all(b - a == 64 for a, b in zip(f2.IPGS_BYTES[:-2], f2.IPGS_BYTES[1:-1]))
    # Frames every (1526 + 1023)·8 ns: the rate of 1526-byte units is the formula.
    t = np.arange(100) * (1526 + 1023) * 8e-9
    assert f2.measured_rate_bps(t) == pytest.approx(fc.nominal_nic_bps(1e9, 1023), rel=1e-12)
    assert math.isnan(f2.measured_rate_bps(np.array([0.0])))
    assert f2.spearman(np.array([1.0, 2, 3, 4]), np.array([4.0, 3, 2, 1])) == pytest.approx(-1.0)
    assert f2.rate_capture(0.01) > 0.01 * 1e9 / 8 / 1534


def test_f3_source_bound_ratio_and_cv() -> None:
    t = np.array([0.1, 1.0, 2.0])
    # 500 Mbit/s · 1.8 s = 112.5 MB at t = 2 s: 100 MB is 0.888…
    acked = np.array([0.0, 1e6, 100e6])
    assert f3.source_bound_ratio(acked, t, 500e6) == pytest.approx(100e6 / (62.5e6 * 1.8))
    assert f3.source_bound_ratio(np.array([0.0]), np.array([0.1]), 500e6) == 0.0
    s = pd.DataFrame({"t_s": np.arange(20.0), "mbps": [100.0] * 20})
    assert f3.late_bin_cv(s, 10.0) == 0.0


def test_f3_implied_row_names_the_stall_when_the_trend_reverses() -> None:
    def trials(big_mbps: float, stalls: int) -> pd.DataFrame:
        return pd.DataFrame({
            "ipg_bytes": [8, 8, 1023, 1023],
            "throughput_Mbps": [40.0, 40.0, big_mbps, big_mbps],
            "late_bin_cv": [0.3] * 4,
            "retransmitted_segments": [0] * 4,
            "send_stalls": [1, 1, stalls, stalls],
        })

    row = lambda t: f3.expectations(t, 500.0, (8, 1023)).iloc[-1]  # noqa: E731
    reversed_ = row(trials(23.0, 1))
    assert reversed_["agrees"] == "no" and "send stall" in reversed_["notes"] and "IPG 1023: 1–1" in reversed_["notes"]
    # The paper's order holds: no note; reversed without a stall in every trial: no claimed mechanism.
    assert row(trials(450.0, 1))["notes"] == "" and row(trials(23.0, 0))["notes"] == ""


def test_f5_tables_and_core_busy_match() -> None:
    kept = {
        ("off", s): {"throughput_Mbps": v} for s, v in ((1, 10.0), (2, 12.0))
    } | {("cps10", s): {"throughput_Mbps": v} for s, v in ((1, 15.0), (2, 14.0))}
    a = f5.averages_table(kept, f5.F5_CASES, 2)
    assert list(a["best_seed"]) == [2, 1] and list(a["best_Mbps"]) == [12.0, 15.0]
    assert list(a.columns[:3]) == ["case", "trial_1_Mbps", "trial_2_Mbps"]
    busy = pd.DataFrame(
        {"window_start_s": [0.0, 0.2, 0.4, 0.6], "frames": [1, 3, 4, 8], "busy_ms": [0.0, 0.1, 0.049088, 0.098176]}
    )
    core = pd.DataFrame({"t": [0.0, 0.2, 0.4, 0.6], "frames": [0, 2, 4, 8], "busy_s": [0.0, 0.0, 0.049088e-3, 0.098176e-3]})
    assert f5.busy_matches_core(busy, core) == (2, 2)
    assert f5.busy_matches_core(busy, None) == (0, 0)
    series = pd.DataFrame(
        {"case": ["A", "A", "B", "B"], "seed": [1, 1, 2, 2], "t_s": [0.0, 1.0, 0.0, 1.0], "Mbps": [1.0, 2.0, 3.0, 4.0]}
    )
    w = f5.wide_series(series)
    assert list(w.columns) == ["t_s", "A, seed 1", "B, seed 2"] and list(w["B, seed 2"]) == [3.0, 4.0]


def test_f6_rtt_windows() -> None:
    t = np.arange(0, 60.0)
    sent = np.where(t % 2 == 0, 1, 0)
    counts = pd.DataFrame({"t_ms": t, "sent": sent, "acks": -sent})
    w = f6.rtt_windows(counts, handover_s=0.0205, rtt_s=0.010, before=1, after=2)
    assert list(w["rtt_index"]) == [-1, 0, 1]
    assert list(w["start_s"]) == pytest.approx([0.010, 0.020, 0.030])
    assert list(w["clusters"]) == [5, 5, 5] and list(w["median_gap_ms"]) == [2.0, 2.0, 2.0]
    assert list(w["acks"]) == [5, 5, 5]


def test_f7_table_and_reading() -> None:
    off, on, combo = f5.CPS_OFF, f5.CPS_10MS, f7.f7_case(f7.FULL)
    assert combo.ipg_bytes == 256 and combo.cps_t_s == 0.010 and combo.experiment == "03.F7"
    avg = pd.DataFrame(
        {
            "case": [off.caption, on.caption, combo.caption],
            "best_seed": [1, 2, 3],
            "best_Mbps": [10.0, 20.0, 25.0],
            "mean_Mbps": [9.0, 18.0, 20.0],
        }
    )
    t = f7.cps_table(avg)
    assert list(t.columns) == ["case", "best_seed", "best_trial_average_Mbps", "mean_of_trials_Mbps"]
    assert f7.expectations(t, off, on, combo).iloc[0]["agrees"] == "yes"
    avg.loc[2, "best_Mbps"] = 15.0
    assert f7.expectations(f7.cps_table(avg), off, on, combo).iloc[0]["agrees"] == "partly"
