"""02.E1 and 02.E2 (spec 02 §4.2–4.3, testbed T0): the quick forms through the CLI, and
their pure helpers.

Each quick form runs once (module fixture, a few seconds on 2 cores); the tests then read
what it wrote. The helper tests need no engine."""

from __future__ import annotations

import math
import subprocess
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from lfnlab.reproduce.ch02_quick_start import path02
from lfnlab.reproduce.ch02_quick_start import common02 as c2
from lfnlab.reproduce.ch02_quick_start import e1_traces as e1
from lfnlab.reproduce.ch02_quick_start import e2_speedup as e2
from lfnlab.reproduce.ch02_quick_start.e_series import EXPERIMENTS
from support import passed_checks, run_cli, run_quick_forms

IDS = ["02.E1", "02.E2"]
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
EXPECTATION_COLUMNS = ["expectation", "observed", "agrees", "notes"]
FILES = {
    "02.E1": ["E1_rtt100.csv", "E1_rtt100.png", "E1_summary.csv"],
    "02.E2": ["E2_reno.csv", "E2_cubic.csv", "E2_reno.png", "E2_cubic.png", "E2_disagreements.csv"],
}
#: spec 02 §4.2: the CSV's leading columns.
E1_COLUMNS = ["rtt_ms", "cc", "mode", "rate_code", "bin_start_s", "rate_mbps"]


@pytest.fixture(scope="module")
def quick_outputs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[Path, subprocess.CompletedProcess[str]]]:
    """Each experiment's quick form, run once: ID → (output directory, completed process)."""
    work = tmp_path_factory.mktemp("reproduce02")
    return run_quick_forms(IDS, work)


def test_listed_in_the_catalogue_in_id_order() -> None:
    assert [e.id for e in EXPERIMENTS][:2] == IDS
    p = run_cli("reproduce", "--list")
    assert p.returncode == 0, p.stderr
    ids = [line.split()[0] for line in p.stdout.splitlines()]
    assert [i for i in ids if i in IDS] == IDS
    assert ids.index("02.E2") < ids.index("03.F1")


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
    assert (d / "report.md").read_text(encoding="utf-8").startswith(f"# {experiment_id}: ")
    expectations = pd.read_csv(d / "expectations.csv")
    assert list(expectations.columns) == EXPECTATION_COLUMNS
    assert set(expectations["agrees"]) <= {"shown", "not shown"}
    for run in checks["runs"]:
        assert (d / run / "summary.json").is_file(), run
    assert sorted(checks["files"]) == sorted(f.name for f in d.iterdir() if f.is_file())


@pytest.mark.engine
def test_e1_csv_columns_and_bins(quick_outputs: dict[str, tuple[Path, subprocess.CompletedProcess[str]]]) -> None:
    d, _ = quick_outputs["02.E1"]
    t = pd.read_csv(d / "E1_rtt100.csv")
    assert list(t.columns[: len(E1_COLUMNS)]) == E1_COLUMNS
    assert {"cwnd", "ssthresh", "data_packets"} <= set(t.columns)
    curves = e1.curves(e1.QUICK.rate6)
    n_bins = round(e1.QUICK.duration_s / 0.1)
    assert len(t) == len(curves) * n_bins
    assert set(t["mode"]) == {"SS", "QS+none", "QS+qs_window"}
    assert t[t["mode"] == "SS"]["rate_code"].isna().all()
    assert set(t[t["mode"] != "SS"]["rate_code"]) == {6, 7}
    # Rates are IP bytes of data packets per 100 ms bin: never above the IP-level link rate
    # (one packet of slack for bin alignment).
    assert (t["rate_mbps"] <= path02.ip_link_rate_bps() / 1e6 + 8 * 1500 / 0.1 / 1e6).all()
    np.testing.assert_allclose(t["rate_mbps"], t["data_packets"] * 1500 * 8 / 0.1 / 1e6, atol=1e-9)
    s = pd.read_csv(d / "E1_summary.csv")
    assert len(s) == len(curves)
    assert s["t95_s"].notna().all()
    qs = s[s["mode"] != "SS"]
    assert (qs["qs_outcome"] == "used").all() and (qs["w_qs"] == qs["w_qs_formula"]).all()


@pytest.mark.engine
def test_e2_table_columns_and_grid(quick_outputs: dict[str, tuple[Path, subprocess.CompletedProcess[str]]]) -> None:
    d, _ = quick_outputs["02.E2"]
    p = e2.QUICK
    for cc in p.ccs:
        t = pd.read_csv(d / f"E2_{cc}.csv")
        assert {
            "rtt_ms",
            "size_bytes",
            "cc",
            "t_ss_mean_s",
            "t_ss_min_s",
            "t_ss_max_s",
            "t_qs_mean_s",
            "t_qs_min_s",
            "t_qs_max_s",
            "eta_sim",
            "eta_model_g2",
            "eta_model_g15",
        } <= set(t.columns)
        assert len(t) == len(p.rtts_s) * len(p.sizes_bytes)
        assert (t["cc"] == cc).all()
        np.testing.assert_allclose(t["eta_sim"], t["t_ss_mean_s"] / t["t_qs_mean_s"], rtol=1e-12)
        assert (t["t_ss_min_s"] <= t["t_ss_mean_s"]).all() and (t["t_ss_mean_s"] <= t["t_ss_max_s"]).all()
        assert (t["eta_sim_min"] <= t["eta_sim"] + 1e-12).all() and (t["eta_sim"] <= t["eta_sim_max"] + 1e-12).all()


# ------------------------------------------------------------------ path02 (no engine)


def test_t0_scenario_keys() -> None:
    s = path02.t0_scenario(
        "x", rtt_s=0.2, cc="cubic", mode="qs", ssthresh_policy="qs_window", rate_code=6, response_bytes=2000,
        duration_s=3.0, seed=4, monitor_bin_s=0.2, capture_packets=10, trace_bin_s=0.01,
    )  # fmt: skip
    d = s.to_dict()
    (link,) = d["link"]
    assert link["rate"] == "10Mbps" and link["delay"] == "100ms"
    nodes = {n["name"]: n for n in d["node"]}
    assert nodes["S"]["quickstart"]["capacity"] == "10Mbps" and nodes["S"]["txqueuelen"] == 1000
    assert nodes["C"]["txqueuelen"] == 1000 and "quickstart" not in nodes["C"]
    (f,) = d["flow"]
    assert (f["kind"], f["from"], f["to"], f["profile"]) == ("request_response", "C", "S", "linux-2.6")
    assert f["cc_params"]["variant"] == "linux-2.6.20" and f["cc_params"]["initial_ssthresh"] == 100
    assert f["tcp"]["ack_policy"] == "linux_like" and f["tcp"]["rwnd_policy"] == "full_buffer"
    assert f["quickstart"]["rate_code"] == 6 and f["quickstart"]["ssthresh_policy"] == "qs_window"
    assert f["sndbuf"] == f["rcvbuf"] == "8MiB" and f["response"] == "2kB"  # as resolved by the loader
    (m,) = d["monitor"]
    assert (m["link"], m["point"], m["capture_packets"]) == ("S->C", "ingress", 10)
    ss = path02.t0_scenario("y", rtt_s=0.1, cc="reno", mode="ss", duration_s=1.0, seed=1).to_dict()
    assert "quickstart" not in ss["flow"][0] and "response" not in ss["flow"][0] and not ss["flow"][0].get("cc_params")
    for bad in ({"mode": "fast"}, {"cc": "vegas"}, {"mode": "ss", "rate_code": 6}):
        kw = {"rtt_s": 0.1, "cc": "reno", "mode": "qs", "duration_s": 1.0, "seed": 1, **bad}
        with pytest.raises(ValueError):
            path02.t0_scenario("z", **kw)


def test_link_rates_and_bdp() -> None:
    assert path02.ip_link_rate_bps() == pytest.approx(10e6 * 1500 / 1538)
    assert path02.bdp_segments(0.2) == pytest.approx(162.5488, abs=1e-4)
    assert path02.qs_rate_bps(7) == 5.12e6 and path02.qs_rate_bps(6) == 2.56e6 and path02.qs_rate_bps(0) == 0


# ------------------------------------------------------------------ common02 (no engine)


def test_rate_bins_subtract_l2_header_and_control_frames() -> None:
    # Bins of 100 ms; the monitor omits empty bins. Bin 1: the SYN-ACK (68 IP bytes);
    # bin 2: the server's ACK (52) and 42 data packets of 1500; bin 4: 3 data packets.
    flows = pd.DataFrame(
        {
            "monitor": "S->C",
            "flow": "rr",
            "t": [0.1, 0.2, 0.4],
            "bytes": [68 + 18, 52 + 18 + 42 * 1518, 3 * 1518],
            "packets": [1, 43, 3],
        }
    )
    control = pd.DataFrame({"t": [0.1002, 0.2004], "l3_bytes": [68, 52]})
    b = c2.rate_bins(flows, bin_s=0.1, n_bins=6, control=control)
    assert list(b["packets"]) == [0, 1, 43, 0, 3, 0]
    assert list(b["data_packets"]) == [0, 0, 42, 0, 3, 0]
    assert list(b["ip_bytes"]) == [0, 0, 63000, 0, 4500, 0]
    np.testing.assert_allclose(b["rate_mbps"], [0, 0, 5.04, 0, 0.36, 0])
    np.testing.assert_allclose(b["bin_start_s"], np.arange(6) * 0.1)
    raw = c2.rate_bins(flows, bin_s=0.1, n_bins=3)
    assert list(raw["ip_bytes"]) == [0, 68, 52 + 63000]
    assert c2.ip_bytes(1518, 1) == 1500
    with pytest.raises(ValueError):
        c2.rate_bins(flows, bin_s=0.1, n_bins=3, control=pd.DataFrame({"t": [0.05], "l3_bytes": [68]}))


def test_control_frames_and_trace_at_bin_ends() -> None:
    pk = pd.DataFrame({"t": [0.1, 0.2, 0.21], "l3_bytes": [68, 52, 1500], "payload": [0, 0, 1440]})
    assert c2.control_frames(pk)["l3_bytes"].tolist() == [68, 52]
    tcp = pd.DataFrame({"t": [0.05, 0.1, 0.15, 0.2, 0.3], "cwnd": [1, 3, 5, 7, 9], "ssthresh": [np.inf] * 5})
    v = c2.trace_at_bin_ends(tcp, bin_s=0.1, n_bins=4)
    assert v["cwnd"].tolist() == [3, 7, 9, 9]
    v = c2.trace_at_bin_ends(tcp, bin_s=0.02, n_bins=2)
    assert math.isnan(v["cwnd"].iloc[0]) and math.isnan(v["cwnd"].iloc[1])
    assert c2.first_bin_above([0, 0.1, 0.2, 0.3], [1, 9.3, 9.2, 9.5], 9.265) == 0.1
    assert math.isnan(c2.first_bin_above([0, 0.1], [1, 2], 9.0))
    t, cwnd, ssth = c2.ss_exit(pd.DataFrame({"t": [0.1, 0.2, 0.3], "cwnd": [50, 101.05, 101.3], "ssthresh": [100, 100, 100]}))
    assert (t, cwnd, ssth) == (0.2, 101.05, 100)
    assert all(math.isnan(x) for x in c2.ss_exit(tcp))


def test_qs_window_and_pacing_plan() -> None:
    # spec 02 §2.3.6: ⌊640000·τ/1500⌋ at 5.12 Mbit/s, ⌊320000·τ/1500⌋ at 2.56 Mbit/s.
    assert c2.qs_window_segments(7, 0.1) == 42
    assert c2.qs_window_segments(7, 0.2) == 85
    assert c2.qs_window_segments(7, 0.4) == 170
    assert c2.qs_window_segments(6, 0.1) == 21
    assert c2.qs_window_segments(7, 0.02) == 8
    # spec 02 §2.3.7 test vectors.
    assert c2.pacing_plan(42, 100, 3) == [3] * 14
    assert c2.pacing_plan(250, 100, 1) == [3] * 50 + [2] * 50
    assert c2.pacing_plan(10, 100, 1) == [1] * 10
    assert c2.pacing_plan(2, 100, 3) == [2]
    assert c2.pacing_plan(85, 200, 3) == [4] + [3] * 27
    assert c2.plan_text([4, 3, 3]) == "3 chunks: 1×4 + 2×3 = 10"
    assert c2.clusters_text([]) == "0 chunks"
    with pytest.raises(ValueError):
        c2.pacing_plan(0, 100, 3)


def test_arrival_clusters() -> None:
    d = 8 * 1538 / 10e6
    t = [0.0, d, 2 * d, 0.007, 0.007 + d, 0.007 + 2 * d, 0.014]
    assert c2.arrival_clusters(t, 1.5 * d) == [3, 3, 1]
    assert c2.arrival_clusters([], 1.0) == []


def test_qs_bin_rate_bounds() -> None:
    lo, hi = c2.qs_bin_rate_bounds_bps(7, 0.1)
    assert lo == pytest.approx(5.0e6) and hi == pytest.approx(5.12e6 * 1.01)
    # W_qs packets of 1500 IP bytes over τ fall inside the bounds for every RTT of E1/E2.
    for code in (6, 7):
        for rtt in (0.02, 0.05, 0.1, 0.2, 0.4):
            lo, hi = c2.qs_bin_rate_bounds_bps(code, rtt)
            r = c2.qs_window_segments(code, rtt) * 1500 * 8 / rtt
            assert lo < r <= hi, (code, rtt)


def test_ss_clean_rounds() -> None:
    # δ = 1.2304 ms; round j fits its bin while (n_j + j)·δ ≤ 0.9·τ.
    assert c2.ss_clean_rounds(0.1) == [3, 6, 12, 24, 48]
    assert c2.ss_clean_rounds(0.2) == [3, 6, 12, 24, 48, 96]
    assert c2.ss_clean_rounds(0.004) == []


def test_eta_and_its_spread() -> None:
    assert c2.eta([2.0, 4.0], [1.0, 2.0]) == pytest.approx(2.0)
    assert c2.eta([1.0], [1.0]) == 1.0
    assert math.isnan(c2.eta([1.0, math.nan], [1.0, 1.0]))
    assert math.isnan(c2.eta([], [1.0]))
    assert c2.eta_range([2.0, 4.0], [1.0, 2.0]) == (1.0, 4.0)
    assert all(math.isnan(x) for x in c2.eta_range([1.0], [math.nan]))


def test_run_checks_and_expectation_rows() -> None:
    ok = {"duration_s": 1.0, "conservation": {"holds": True}}
    short = {"duration_s": 0.5, "conservation": {"holds": False}}
    checks = c2.run_checks({"a": ok, "b": short}, {"a": 1.0, "b": 1.0})
    assert [c.measured for c in checks] == [1, 1] and not any(c.passed for c in checks)
    rows = c2.expectations_table([c2.expectation("x", "y", c2.shown(True)), c2.expectation("z", "w", c2.shown(False), "n")])
    assert list(rows.columns) == EXPECTATION_COLUMNS and list(rows["agrees"]) == ["shown", "not shown"]
    with pytest.raises(ValueError, match="agrees must be one of"):
        c2.expectation("x", "y", True)  # type: ignore[arg-type]  (the verdict is a word, not a bool)


# ------------------------------------------------------------------ E1 / E2 helpers (no engine)


def test_e1_curves_and_labels() -> None:
    cs = e1.curves(rate6=True)
    assert [c.key for c in cs] == [
        "reno-ss", "reno-qs-none-n7", "reno-qs-qsw-n7", "cubic-ss", "cubic-qs-none-n7", "cubic-qs-qsw-n7",
        "reno-qs-qsw-n6", "cubic-qs-qsw-n6",
    ]  # fmt: skip
    assert len(e1.curves(rate6=False)) == 6
    assert e1.label(0.1, cs[0]) == "rtt100-reno-ss"
    assert [c.mode_label for c in cs[:3]] == ["SS", "QS+none", "QS+qs_window"]


def _e2_frame() -> pd.DataFrame:
    rows = []
    for cc, bump in (("reno", 0.1), ("cubic", 0.0)):
        for rtt in (20, 100):
            for size, segs, eta in ((1000, 1, 1.0), (50_000, 35, 1.6), (10_000_000, 6906, 1.02)):
                e = eta + (bump + rtt / 1000 if eta > 1 else 0.0)
                rows.append(
                    {"cc": cc, "rtt_ms": rtt, "size_bytes": size, "segments": segs, "eta_sim": e,
                     "eta_model_g2": e * 1.01, "eta_model_g15": e * 1.2 if e > 1 else 1.0,
                     "dev_model_g2": 1 / 1.01 - 1, "dev_model_g15": (1 / 1.2 - 1) if e > 1 else 0.0}
                )  # fmt: skip
    return pd.DataFrame(rows)


def test_e2_expectations_read_the_table() -> None:
    t = e2.expectations(_e2_frame())
    assert list(t.columns) == EXPECTATION_COLUMNS
    assert list(t["agrees"]) == ["shown"] * 6


def test_e2_durations_cover_the_model_and_labels_sort() -> None:
    from lfnlab.models.quickstart import AckModel, response_time_ss

    for rtt in (0.02, 0.4):
        for size in (1000, 10_000_000):
            for cc in ("reno", "cubic"):
                t = response_time_ss(size, e2.path_model(rtt, cc, AckModel.delayed()))
                assert e2.duration_s(rtt, size, cc) >= 3 * t + 10
    assert e2.label(0.02, 1000, "reno", "ss", 1) == "rtt020-reno-ss-n00001000-s01"
    assert sorted([e2.label(0.4, 10_000_000, "reno", "qs", 5), e2.label(0.05, 2000, "reno", "qs", 5)])[0].startswith("rtt050")


def test_e2_causes_name_the_known_reasons() -> None:
    row = {
        "rtt_ms": 200, "segments": 3454, "qs_pkts_sent_min": 45, "w_qs": 85, "model_max_window": 1536,
        "model_valid_window": 1017.3, "send_stalls_ss": 2, "send_stalls_qs": 0, "retrans_ss": 0, "retrans_qs": 0,
        "size_bytes": 5_000_000,
    }  # fmt: skip
    text = e2.causes(row, "cubic")
    for part in ("45 of min(W_qs, N) = 85", "65 535-byte", "validity bound", "send stalls SS 2", "Cubic congestion avoidance", "4 MiB"):
        assert part in text, part
    clean = {**row, "segments": 100, "qs_pkts_sent_min": 85, "model_max_window": 85, "send_stalls_ss": 0, "size_bytes": 144_800}
    assert e2.causes(clean, "reno") == ""
    # An application-limited QS round is no cut; a response within W_qs names the chunked first round.
    small = {**clean, "rtt_ms": 20, "segments": 4, "w_qs": 8, "qs_pkts_sent_min": 4, "model_max_window": 4}
    assert e2.causes(small, "reno") == (
        "whole response in the QS round: the model paces each packet at q, the simulation releases chunks of 4 "
        "segments at line rate (spec 02 §2.3.7)"
    )
    mw, bound = e2.model_windows(0.02, 5_000_000, "reno")
    assert bound == pytest.approx((0.02 + 8 * 1538 / 10e6) / (8 * 1538 / 10e6) + 1000)
    assert mw > bound
