"""04.E4.1–E4.8 (10 Gbit/s end hosts on T4-P and T4-R, spec 04 §3).

Each quick form runs once through the command line (module fixture, about 40 s on 2 cores);
the tests read what it wrote. The framing helpers are tested against the unit-test vectors of
spec 04 §2.2 and the scenario builder on its own."""

from __future__ import annotations

import csv
import json
import math
import subprocess
from pathlib import Path

import pandas as pd
import pytest
from lfnlab.reproduce.ch04_ten_gig_hosts import path04 as p4
from lfnlab.reproduce.ch04_ten_gig_hosts import e1_buffer_sweep as e1
from lfnlab.reproduce.ch04_ten_gig_hosts import e3_startup as e3
from lfnlab.reproduce.ch04_ten_gig_hosts import e4_window_requirement as e4
from lfnlab.reproduce.ch04_ten_gig_hosts import e5_mitigation as e5
from lfnlab.reproduce.ch04_ten_gig_hosts import e6_packet_rate as e6
from lfnlab.reproduce.ch04_ten_gig_hosts.cpu04 import core_shares, host_cpu
from lfnlab.reproduce.ch04_ten_gig_hosts import e7_real_routes as e7
from lfnlab.reproduce.ch04_ten_gig_hosts import e8_txqueuelen as e8
from lfnlab.reproduce.ch04_ten_gig_hosts import path04_real_routes as p4r
from lfnlab.reproduce.ch04_ten_gig_hosts.common04 import edge_allowance, phi, window_rate_bps
from support import passed_checks, run_cli, run_quick_forms

IDS = ["04.E4.1", "04.E4.2", "04.E4.3", "04.E4.4", "04.E4.5", "04.E4.6", "04.E4.7", "04.E4.8"]
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
#: The spec's tables and figures of each experiment (F4.1d needs the CPU model: not produced).
FILES = {
    "04.E4.1": ["T4.1.csv", "T4.1-best.csv", "T4.1d.csv", "T4.1-slowdown.csv", "F4.1a.png", "F4.1b.png", "F4.1c.png", "F4.1d.png"],
    "04.E4.2": ["T4.2.csv", "F4.2.png"],
    "04.E4.3": ["T4.3.csv", "T4.3-cpu.csv", "F4.3a.png", "F4.3b.png", "F4.3c.png"],
    "04.E4.4": ["T4.4.csv", "T4.4-k95.csv", "F4.4.png"],
    "04.E4.5": ["T4.5.csv", "T4.5-fifo.csv", "T4.5-router.csv", "F4.5.png"],
    "04.E4.6": ["T4.6.csv", "T4.6-sensitivity.csv", "T4.6-split.csv", "T4.6-sweep.csv", "F4.6.png"],
    "04.E4.7": ["T4.7.csv", "T4.7b.csv", "F4.7a.png", "F4.7b.png", "F4.7c.png"],
    "04.E4.8": ["T4.8.csv", "F4.8.png"],
}

Outputs = dict[str, tuple[Path, subprocess.CompletedProcess[str]]]


@pytest.fixture(scope="module")
def quick_outputs(tmp_path_factory: pytest.TempPathFactory) -> Outputs:
    """Each experiment's quick form, run once: ID → (output directory, completed process)."""
    return run_quick_forms(IDS, tmp_path_factory.mktemp("reproduce04"))


def _rows(path: Path) -> list[dict[str, str]]:
    with path.open(encoding="utf-8", newline="") as f:
        return list(csv.DictReader(f))


# ------------------------------------------------------------------ catalogue


def test_list_names_them_in_order_after_chapter_03() -> None:
    p = run_cli("reproduce", "--list")
    assert p.returncode == 0, p.stderr
    ids = [line.split()[0] for line in p.stdout.splitlines()]
    assert [i for i in ids if i.startswith("04.")] == IDS
    assert ids.index("03.S2") + 1 == ids.index("04.E4.1")


# ------------------------------------------------------------------ quick forms


@pytest.mark.engine
@pytest.mark.parametrize("experiment_id", IDS)
def test_quick_form_passes_and_writes_the_spec_outputs(experiment_id: str, quick_outputs: Outputs) -> None:
    d, p = quick_outputs[experiment_id]
    checks = passed_checks(experiment_id, d, p)
    report = (d / "report.md").read_text(encoding="utf-8")
    assert report.startswith(f"# {experiment_id}: ")
    for heading in ("## What this checks", "## Parameters", "## Checks", "## Tables", "## Figures", "## Notes", "## Runs"):
        assert heading in report, heading
    assert f"lfnlab reproduce {experiment_id} --quick --out {d}" in report
    for name in FILES[experiment_id]:
        assert (d / name).is_file(), name
        assert name in checks["files"]
    for png in d.glob("*.png"):
        assert png.read_bytes()[:8] == PNG_MAGIC
        assert f"]({png.name})" in report
    assert sorted(checks["files"]) == sorted(f.name for f in d.iterdir() if f.is_file())
    for run in checks["runs"]:
        assert (d / run / "summary.json").is_file() and (d / run / "tcp.parquet").is_file(), run
    expectations = _rows(d / "expectations.csv")
    assert expectations and {r["agrees"] for r in expectations} <= {"yes", "no", "partly"}
    assert "CPU model" in report  # what is not built yet is said, not hidden


@pytest.mark.engine
def test_e41_table_covers_the_grid(quick_outputs: Outputs) -> None:
    d, _ = quick_outputs["04.E4.1"]
    t = pd.read_csv(d / "T4.1.csv")
    assert len(t) == len(e1.points(e1.QUICK))
    assert set(t["nic"]) == {e1.CHELSIO, e1.INTEL} and set(t["mtu"]) == {9198, 1500}
    assert (t["sustained_Gbps"] <= t["r_ref_Gbps"]).all()
    wl = t[t["window_limited"]]
    assert len(wl) >= 4
    # The window bound is φ·B/RTT with φ = ½.
    bound = 0.5 * wl["buffer_MiB"] * 2**20 * 8 / (wl["rtt_ms"] / 1e3) / 1e9
    pd.testing.assert_series_equal(wl["window_bound_Gbps"], bound, check_names=False)
    # F4.1d: one row per write size; a smaller write never beats a larger one (each call costs
    # c_syscall more per byte at the sender, §2.7), and it keeps the sender busier.
    w = pd.read_csv(d / "T4.1d.csv").sort_values("write_KiB")
    assert list(w["write_KiB"]) == [x / 1024 for x in e1.QUICK.write_sweep.sizes_bytes]
    assert (w["sustained_Gbps"].diff().dropna() >= -0.005 * w["sustained_Gbps"].max()).all()
    assert w["hs_system"].iloc[0] > w["hs_system"].iloc[-1]
    assert (d / "F4.1d.png").is_file()
    # §5: c_mem and c_sack_walk only add cycles, so no variant beats the default curve beyond the seeds' jitter.
    sd = pd.read_csv(d / "T4.1-slowdown.csv")
    assert len(sd) == len(e1.QUICK.slowdown.buffers_bytes)
    ratios = sd[[c for c in sd.columns if c.endswith("_over_default")]]
    assert ratios.shape[1] == 2 and (ratios.to_numpy() <= 1.005).all()


def _level_off_rows(stalls: tuple[float, float], exits: tuple[float, float], rates: tuple[float, float]) -> pd.DataFrame:
    """T4.1 rows of one curve at RTT 400 ms: 512 MiB (window-limited) and two buffers whose
    window covers R_ref, with the given send stalls, slow-start exit cwnd and rates."""
    rows = [dict(buffer_MiB=512.0, send_stalls=0.0, ss_exit_cwnd_max=float("nan"), sustained_Gbps=5.37, window_limited=True)]
    rows += [dict(buffer_MiB=b, send_stalls=s, ss_exit_cwnd_max=x, sustained_Gbps=r, window_limited=False)
             for b, s, x, r in zip((1024.0, 1536.0), stalls, exits, rates)]
    t = pd.DataFrame(rows).assign(mtu=9198, nic=e1.CHELSIO, rtt_ms=400.0, bdp_segments=45704.0, edge_allowance=0.0067)
    t["sustained_Gbps_min"] = t["sustained_Gbps_max"] = t["sustained_Gbps"]
    t["rate_over_window_bound"] = t["sustained_Gbps"] / (0.5 * t["buffer_MiB"] * 2**20 * 8 / 0.4 / 1e9)
    return t


def test_e41_level_off_is_read_where_a_covering_buffer_ran_without_a_send_stall() -> None:
    """Issue 39 item 7: where every buffer covering R_ref took a send stall, the level-off check
    gives way to one of the mechanism (each stall ended slow start below the BDP), which fails
    when a stall did not, or when a seed never left slow start; with one clean covering buffer
    the level-off is checked as before and fails below 0.98 of the hosts' limit."""
    import dataclasses

    p = dataclasses.replace(e1.QUICK, curves=(e1.Curve(9198, e1.CHELSIO, (0.4,), tuple(b * 2**20 for b in (512.0, 1024.0, 1536.0))),))

    def verdicts(t: pd.DataFrame) -> dict[str, bool]:
        return {c.name: c.passed for c in e1._checks(p, t) if "RTT 400 ms" in c.name and "window-limited" not in c.name}

    stalled = verdicts(_level_off_rows((1.0, 1.0), (30195.0, 30189.0), (5.01, 4.99)))
    assert list(stalled.values()) == [True] and "slow start did not end below the BDP" in next(iter(stalled))
    assert e1.stalled_level_offs(p, _level_off_rows((1.0, 1.0), (30195.0, 30189.0), (5.01, 4.99)))
    assert list(verdicts(_level_off_rows((1.0, 1.0), (30195.0, 46000.0), (5.01, 4.99))).values()) == [False]
    assert list(verdicts(_level_off_rows((1.0, 1.0), (30195.0, float("nan")), (5.01, 4.99))).values()) == [False]
    clean = verdicts(_level_off_rows((1.0, 0.0), (30195.0, float("nan")), (5.01, 8.34)))
    assert list(clean.values()) == [True] and "level-off" in next(iter(clean))
    assert list(verdicts(_level_off_rows((1.0, 0.0), (30195.0, float("nan")), (5.01, 7.9))).values()) == [False]
    assert not e1.stalled_level_offs(p, _level_off_rows((1.0, 0.0), (30195.0, float("nan")), (5.01, 8.34)))


@pytest.mark.engine
def test_e42_ratio_against_the_header_prediction(quick_outputs: Outputs) -> None:
    d, _ = quick_outputs["04.E4.2"]
    t = pd.read_csv(d / "T4.2.csv")
    for mtu, g in t.groupby("mtu"):
        assert (g["header_prediction"] == p4.mss_eff(int(mtu), 4) / p4.mss_eff(int(mtu), 6)).all()
    assert ((t["ratio_v4_v6"] / t["header_prediction"] - 1).abs() <= 0.01).all()


@pytest.mark.engine
def test_e44_reports_the_smallest_k_per_curve(quick_outputs: Outputs) -> None:
    d, _ = quick_outputs["04.E4.4"]
    k95 = pd.read_csv(d / "T4.4-k95.csv")
    assert len(k95) == len(e4.QUICK.variants) * len(e4.QUICK.rtts_s)
    assert set(k95["smallest_k_95pct"]) <= set(e4.QUICK.ks)
    t = pd.read_csv(d / "T4.4.csv")
    assert len(t) == len(e4.QUICK.variants) * len(e4.QUICK.rtts_s) * len(e4.QUICK.ks)


@pytest.mark.engine
def test_e45_one_row_per_configuration_and_rtt(quick_outputs: Outputs) -> None:
    d, _ = quick_outputs["04.E4.5"]
    t = pd.read_csv(d / "T4.5.csv")
    assert len(t) == len(e5.CONFIGS) * len(e5.QUICK.rtts_s)
    paused = t[t["pause"]]
    assert (paused["rx_fifo_drop"] == 0).all()
    assert (t[~t["pause"] & t["cap_Gbps"].isna()]["rx_fifo_drop"] > 0).all()


@pytest.mark.engine
def test_e48_stalls_fall_with_the_queue(quick_outputs: Outputs) -> None:
    d, _ = quick_outputs["04.E4.8"]
    t = pd.read_csv(d / "T4.8.csv")
    assert list(t["txqueuelen"]) == sorted(e8.QUICK.txqueuelens)
    # Window cuts never rise with the queue, the shortest queue stalls, and a queue that holds
    # the steady excess (steady_qdisc_need) does not.
    assert t["cwr_entries"].is_monotonic_decreasing
    assert t["send_stalls"].iloc[0] > 0
    assert (t[t["txqueuelen"] >= 1.5 * t["steady_qdisc_need"]]["send_stalls"] == 0).all()
    assert (t["qdisc_max_packets"] <= t["txqueuelen"]).all()


@pytest.mark.engine
def test_e43_three_views_per_rtt_and_the_cpu_per_core(quick_outputs: Outputs) -> None:
    d, _ = quick_outputs["04.E4.3"]
    t = pd.read_csv(d / "T4.3.csv")
    assert len(t) == 3 * len(e3.QUICK.runs)
    assert list(t["view"][:3]) == list(e3.VIEWS)
    # The router counts L2 octets: above the receiver's goodput by about L2/MSS_eff.
    for rtt_ms in t["rtt_ms"].unique():
        at = t[t["rtt_ms"] == rtt_ms].set_index("view")
        assert at.loc["router", "sustained_Gbps"] / at.loc["receiver", "sustained_Gbps"] == pytest.approx(9216 / 9126, rel=0.02)
        assert at.loc["receiver", "t_up_s"] >= at.loc["receiver", "ramp_floor_s"]
    cpu = pd.read_csv(d / "T4.3-cpu.csv")
    assert len(cpu) == len(e3.QUICK.runs) * 2 * 2  # RTTs × hosts × cores
    assert (cpu[["user", "system", "softirq", "idle"]].sum(axis=1) - 1.0).abs().max() < 1e-9


def test_e43_slow_start_floor() -> None:
    assert e3.iw_segments(9126) == 2 and e3.iw_segments(1448) == 3 and e3.iw_segments(1095) == 4
    # 0.9 × 8 Gbit/s × 0.1 s = 90 MB = 9862 segments of 9126 B: log2(9862 / 2) rounds of 100 ms.
    w = 0.9 * 8e9 * 0.1 / (8 * 9126)
    assert e3.min_ramp_s(0.1, 8e9) == pytest.approx(0.1 * math.log2(w / 2))
    assert e3.min_ramp_s(0.1, 1.0) == 0.0


@pytest.mark.engine
def test_e46_tables_cover_every_variant(quick_outputs: Outputs) -> None:
    d, _ = quick_outputs["04.E4.6"]
    t = pd.read_csv(d / "T4.6.csv")
    assert len(t) == len(e6.QUICK.rtts_s) * len(e6.QUICK.mtus) * len(e6.IRQ)
    assert set(t["irq"]) == set(e6.IRQ)
    # With standard frames a core is saturated; the frame rate is the goodput in full segments.
    std = t[t["mtu"] == 1500]
    assert (std[["hs_busiest", "hr_busiest"]].max(axis=1) > 0.95).all()
    assert std["frames_per_s"].to_numpy() == pytest.approx((std["sustained_Gbps"] * 1e9 / (8 * 1428)).to_numpy())
    sens = pd.read_csv(d / "T4.6-sensitivity.csv")
    assert len(sens) == len(e6.QUICK.mtus) * 2 * len(e6.QUICK.sensitivity)
    # A dearer segment never raises the rate; a cheaper one never lowers it (beyond the seed's jitter).
    dearer = sens[sens["factor"] > 1]
    assert (dearer["change_measured"] <= 0.005).all()
    sweep = pd.read_csv(d / "T4.6-sweep.csv")
    assert sorted(set(sweep["offered_Gbps"])) == [c / 1e9 for c in e6.QUICK.caps_bps]


@pytest.mark.engine
def test_e47_rows_for_every_point_and_the_state_split(quick_outputs: Outputs) -> None:
    d, _ = quick_outputs["04.E4.7"]
    t = pd.read_csv(d / "T4.7.csv")
    assert list(t["point"]) == [pt.key for pt in e7.points(e7.QUICK)]
    assert set(t[t["part"] == "P"]["topology"]) == {"T4-P"}
    # Send stalls and CWR entries are per-run counters averaged over the seeds.
    assert {"send_stalls", "cwr_entries", "ss_exit_cwnd"} <= set(t.columns)
    assert (t["send_stalls"] >= 0).all() and (t["cwr_entries"] >= 0).all()
    # Route b spends part of the run in Bad; the loss-free route never does.
    b = t[t["point"] == "main-b"].iloc[0]
    assert 0 < b["bad_share"] < 1 and b["bad_bins"] > 0
    assert t[t["point"] == "main-a"].iloc[0]["bad_share"] == 0
    # The κ_B row differs from route b only in κ_B; its circuit carries at most κ_B·R_mac(10g_wan)
    # while Bad, so its Bad-state bins stay under that and under its own Good-state bins. (Not
    # necessarily under route b's: there the losses alone set the Bad rate, and in the quick
    # form's 8 s that rate can sit below the cap: 1.88 against 2.06 Gbit/s at c8fdc1c.)
    kb = t[t["part"] == "kb"].iloc[0]
    assert kb["kappa_bad"] < 1 and set(t[t["part"] != "kb"]["kappa_bad"]) == {1.0}
    assert kb["bad_mean_Gbps"] <= kb["kappa_bad"] * e7.WAN_R_MAC_BPS / 1e9
    assert kb["bad_mean_Gbps"] < kb["good_mean_Gbps"]
    # X pauses its hosts only, and each main run reports those two generators.
    s = json.loads((d / "runs" / "main-b-s01" / "summary.json").read_text())
    assert sorted(g["name"] for g in s["switch_pause"]) == ["xi->hr", "xo->hs"]


def test_t4r_chain_and_delay_budget() -> None:
    loops = [p4r.Loop("sea"), p4r.Loop("chi", 300e6, (150.0, 150.0, 0.0, 1e-5))]
    d = p4r.t4r_dict("t", rtt_s=0.5, loops=loops, snd_buffer_bytes=2**20, rcv_buffer_bytes=2**21, duration_s=1.0, r_bg_local_bps=300e6)
    links = {(l["from"], l["to"]): l for l in d["link"]}
    chain = [("hs", "xo"), ("xo", "ut"), ("ut", "ot"), ("ot", "sea"), ("sea", "tk1"), ("tk1", "chi"), ("chi", "xi"), ("xi", "hr")]
    assert all(c in links for c in chain)
    assert {links[c]["phy"] for c in chain[3:7]} == {"10g_wan"}
    # RTT = 2 × the one-way delays along the chain (host cables, the 1 ms local loop with two
    # router latencies, four circuits).
    def seconds(text: str) -> float:
        for unit, f in (("ms", 1e-3), ("us", 1e-6), ("ns", 1e-9), ("ps", 1e-12), ("s", 1.0)):
            if text.endswith(unit):
                return float(text[: -len(unit)]) * f
        raise AssertionError(text)

    one_way = sum(seconds(links[c]["delay"]) for c in chain)
    assert 2 * one_way == pytest.approx(0.5, abs=1e-9)
    # Gilbert–Elliott on the JGN loop's outbound circuit only; background from hop to hop.
    assert links[("tk1", "chi")]["loss"]["kind"] == "gilbert_elliott"
    assert "loss" not in links[("chi", "xi")] and "loss" not in links[("ot", "sea")]
    bg = {f["name"]: f for f in d["flow"] if f["kind"] == "udp_cbr"}
    assert set(bg) == {"bg-local", "bg-chi"} and all(f["arrivals"] == "poisson" for f in bg.values())
    assert ("bg-chi-src", "tk1") in links and ("bg-chi-dst", "chi") in links
    flow = d["flow"][0]
    assert (flow["sndbuf"], flow["rcvbuf"]) == ("1048576B", "2097152B")
    with pytest.raises(ValueError):
        p4r.t4r_dict("t", rtt_s=0.0005, loops=loops[:1], snd_buffer_bytes=1, rcv_buffer_bytes=1, duration_s=1.0)


def test_t4r_background_sweep_keeps_every_link_index() -> None:
    # A zero background builds its hosts silent, so the circuit keeps its link index and the
    # engine's `link[{li}].loss.state` stream: the r_bg sweep shares one circuit timeline.
    def build(rate: float) -> dict:
        loops = [p4r.Loop("chi", rate, (150.0, 150.0, 0.0, 1e-5))]
        return p4r.t4r_dict("t", rtt_s=0.322, loops=loops, snd_buffer_bytes=2**20, rcv_buffer_bytes=2**21, duration_s=1.0, r_bg_local_bps=rate)

    silent, loaded = build(0.0), build(300e6)
    ends = lambda d: [(l["from"], l["to"]) for l in d["link"]]  # noqa: E731
    assert ends(silent) == ends(loaded)
    assert [n["name"] for n in silent["node"]] == [n["name"] for n in loaded["node"]]
    assert [f["name"] for f in silent["flow"]] == ["bulk"]
    assert sorted(f["name"] for f in loaded["flow"]) == ["bg-chi", "bg-local", "bulk"]
    # None: no background hosts at all (routes a and c's Seattle loop).
    bare = p4r.t4r_dict("t", rtt_s=0.178, loops=[p4r.Loop("sea")], snd_buffer_bytes=2**20, rcv_buffer_bytes=2**21, duration_s=1.0)
    assert not any(n["name"].startswith("bg-") for n in bare["node"])
    with pytest.raises(ValueError, match="negative"):
        build(-1.0)
    # The E4.7 sweep: the 0 point's circuit is the same link as the main point's.
    p = e7.FULL
    pts = {pt.key: pt for pt in e7.points(p)}
    circuit = lambda pt: next(i for i, l in enumerate(e7.scenario(p, pt, 1, pt.key).to_dict()["link"]) if "loss" in l)  # noqa: E731
    assert circuit(pts["bg-b-bg0M"]) == circuit(pts["main-b"])


def test_e47_notes_name_the_mechanism_of_each_kappa_and_ramp_row() -> None:
    at_1 = pd.Series({"good_mean_Gbps": 2.58, "bad_mean_Gbps": 0.94})
    # A slowed circuit above what the flow carries in Good never binds: timing only.
    assert "never binds" in e7._kappa_note(1.00, at_1, 4.59, 0.0)
    # Below it, with router drops: the router before the circuit overflows.
    slow = e7._kappa_note(0.82, at_1, 2.29, 7913.0)
    assert "overflows (7913 drops per run)" in slow and "never binds" not in slow
    # Neither: only the midpoint caveat.
    assert ";" not in e7._kappa_note(0.9, at_1, 2.29, 0.0)
    real = pd.Series({"sustained_Gbps": 0.50, "circuit_loss": 42.7, "send_stalls": 5.3})
    emu = pd.Series({"sustained_Gbps": 4.03, "send_stalls": 3.3, "ss_exit_cwnd": 27408.0})
    ramp = e7._ramp_note(real, emu)
    assert "3 send stall(s) in slow start (exit cwnd 27408 segments)" in ramp
    assert "43 circuit losses per run and 5 send stall(s)" in ramp
    calm = e7._ramp_note(pd.Series({"sustained_Gbps": 4.0, "circuit_loss": 0.0, "send_stalls": 0.0}), pd.Series({"sustained_Gbps": 4.03, "send_stalls": 0.0, "ss_exit_cwnd": math.nan}))
    assert "send stall" not in calm and "sustains only" not in calm


def test_bad_intervals_from_transitions() -> None:
    assert e7.bad_intervals([[1.0, True], [2.5, False], [4.0, True]], 10.0) == [(1.0, 2.5), (4.0, 10.0)]
    assert e7.bad_intervals([], 10.0) == []


# ------------------------------------------------------------------ CPU measurements and formulas (spec 04 §2.7)


def test_cpu_cap_with_scaled_costs_and_split_cores() -> None:
    costs = p4.Costs().scaled("c_seg_tx", 1.3)
    assert costs.c_seg_tx == pytest.approx(5200) and costs.c_seg_rx == p4.C_SEG_RX
    fc = p4.frame_cycles(1500, 6, costs)
    assert fc["sender"]["softirq"] == pytest.approx(5200 + 300 + 1250)
    assert p4.cpu_cap_bps(1500, 6, costs) == pytest.approx(2.2e9 / sum(fc["sender"].values()) * 1428 * 8)
    # Split cores: the busier share per frame binds; for MTU 1500 the sender's softirq work.
    assert p4.cpu_cap_bps(1500, 6, split_cores=True) == pytest.approx(2.2e9 / 5550 * 1428 * 8)
    # A cheaper receiver leaves the sender binding: the cap does not move.
    assert p4.cpu_cap_bps(1500, 6, p4.Costs().scaled("c_seg_rx", 0.7)) == p4.cpu_cap_bps(1500, 6)


def test_core_shares_cut_the_window_to_whole_bins() -> None:
    core = {"bins_user_s": [0.1, 0.1, 0.2, 0.2], "bins_system_s": [0.0, 0.0, 0.3, 0.5], "bins_softirq_s": [0.5, 0.5, 0.4, 0.3]}
    shares = core_shares(core, 1.0, 2.0, 4.0)
    assert shares["user"] == pytest.approx(0.2)
    assert shares["system"] == pytest.approx(0.4)
    assert shares["busy"] == pytest.approx(0.95)
    # A window starting inside a bin begins at the next whole bin.
    assert core_shares(core, 1.0, 2.5, 4.0)["busy"] == pytest.approx(1.0)
    summary = {
        "host_cpus": [
            {
                "host": "hr",
                "bin_s": 1.0,
                "freq_ghz": 2.0,
                "interrupts": 10,
                "rx_frames": 1000,
                "packets_built": 500,
                "cores": [dict(core, idle=0.5), {"idle": 1.0}],
            }
        ]
    }
    h = host_cpu(summary, "hr", 4.0, 0.5)
    assert h["cycles_per_frame"] == pytest.approx(0.5 * 4.0 * 2e9 / 1000)
    assert h["interrupts_per_frame"] == pytest.approx(0.01)
    assert h["busiest"] == pytest.approx(0.95) and h["cores"][1]["busy"] == 0


# ------------------------------------------------------------------ framing (spec 04 §2.2)


@pytest.mark.parametrize(
    ("mtu", "ip", "mss", "wire", "frames_per_s", "ceiling_gbps"),
    # The unit-test vectors of spec 04 §2.2 (R_mac 10 Gbit/s).
    [
        (1500, 4, 1448, 1538, 812_744, 9.4148),
        (1500, 6, 1428, 1538, 812_744, 9.2848),
        (9000, 4, 8948, 9038, 138_305, 9.9004),
        (9000, 6, 8928, 9038, 138_305, 9.8783),
        (9198, 4, 9146, 9236, 135_340, 9.9026),
        (9198, 6, 9126, 9236, 135_340, 9.8809),
    ],
)
def test_framing_vectors(mtu: int, ip: int, mss: int, wire: int, frames_per_s: int, ceiling_gbps: float) -> None:
    assert p4.mss_eff(mtu, ip) == mss
    assert p4.wire_bytes(mtu) == wire
    assert round(p4.R_MAC_LAN_BPS / (8 * wire)) == frames_per_s
    assert round(p4.R_MAC_LAN_BPS * mss / wire / 1e9, 4) == ceiling_gbps


def test_reference_rates() -> None:
    # Bus term: 8.533 Gbit/s · 9126 / (9216 − 4 + 64) = 8.3950 Gbit/s, below the wire ceiling 9.8809.
    assert p4.r_ref_bps(9198, 6) == pytest.approx(8.533e9 * 9126 / 9276)
    # The cap term: 6 Gbit/s · 9126 / 9236.
    assert p4.r_ref_bps(9198, 6, 6e9) == pytest.approx(6e9 * 9126 / 9236)
    # docs/ten-gig-hosts.md: the receiver limit with one ACK (L2 90 B) per two segments is 8.342 Gbit/s.
    assert p4.receiver_bus_limit_bps(9198, 6) == pytest.approx(8.342e9, rel=1e-4)
    assert p4.ack_l2_bytes(4) == 70 and p4.ack_l2_bytes(6) == 90
    assert p4.bdp_bytes(8e9, 0.1) == 1e8


def test_window_helpers() -> None:
    assert phi(1) == 0.5 and phi(2) == 0.75
    assert window_rate_bps(2 * 2**20, 0.02) == pytest.approx(0.5 * 2 * 2**20 * 8 / 0.02)
    assert window_rate_bps(2**20, 0.0) == math.inf
    assert edge_allowance(0.05, 2.0) == pytest.approx(0.025)
    assert e4.Variant("b", 2, "payload").held == pytest.approx(2 / 3)
    assert e4.Variant("a", 1, "payload").held == 0.5


def test_e8_predicted_qdisc_need() -> None:
    # φ·3·BDP − BDP = ½·BDP of the capped path at 100 ms, in 9126-byte segments, less 1024 descriptors.
    bdp = 6e9 * 9126 / 9236 * 0.1 / 8
    assert e8.qdisc_need_packets(e8.FULL) == pytest.approx(round(3 * bdp) * 0.5 / 9126 - bdp / 9126 - 1024, abs=1e-6)


# ------------------------------------------------------------------ the scenario builder


def test_t4p_dict_keys() -> None:
    d = p4.t4p_dict("t", rtt_s=0.1, buffer_bytes=64 * 2**20, duration_s=2.0, tx_rate_cap_bps=6e9)
    nodes = {n["name"]: n for n in d["node"]}
    assert nodes["hs"]["fc"] == {"send": True, "honour": True} == nodes["hr"]["fc"]
    assert nodes["rs"]["fc"] == {"honour": True} == nodes["rr"]["fc"]
    assert nodes["hs"]["nic"] == {"profile": "chelsio_t110", "tx_rate_cap": "6Gbps"}
    assert nodes["hr"]["nic"] == {"profile": "chelsio_t110"}
    assert nodes["hs"]["mtu"] == 9198 and nodes["hs"]["ip_version"] == 6 and nodes["hs"]["txqueuelen"] == 10000
    # Both hosts run the spec 04 §2.7 CPU model with its defaults; routers have none.
    assert [n.get("cpu") for n in d["node"]] == [{}, None, None, {}]
    links = {(l["from"], l["to"]): l for l in d["link"]}
    assert {l["phy"] for l in d["link"]} == {"10g_lan"}
    # RTT/2 each way plus the two routers' 5 µs forwarding latency; 10 m cables.
    assert links[("rs", "rr")]["delay"] == "50010us"
    assert links[("hs", "rs")]["delay"] == "50ns" == links[("rr", "hr")]["delay"]
    limits = [links[("hs", "rs")]["reverse_queue"], links[("rs", "rr")]["queue"], links[("rs", "rr")]["reverse_queue"], links[("rr", "hr")]["queue"]]
    assert all(x == {"kind": "droptail", "limit": "268435456B"} for x in limits)
    flow = d["flow"][0]
    assert flow["cc"] == "bic" and flow["cc_params"] == {"variant": "bic-2.6.12"} and flow["profile"] == "linux-2.6"
    assert flow["sndbuf"] == flow["rcvbuf"] == "67108864B"
    assert flow["tcp"] == {"adv_win_scale": 1, "truesize_model": "payload", "buffer_semantics": "kernel"}
    assert d["sim"]["trace"] == {"mode": "bin", "bin": "100ms"}


def test_t4p_dict_without_pause_and_with_a_cpu_table() -> None:
    cpu = {"freq": 2.2, "cores": 2, "app_core": 1}
    d = p4.t4p_dict("t", rtt_s=0.0, buffer_bytes=2**20, duration_s=1.0, pause=False, cpu=cpu, mtu=1500, ip_version=4)
    nodes = {n["name"]: n for n in d["node"]}
    assert nodes["hs"]["fc"] == {"send": False, "honour": False} and nodes["rr"]["fc"] == {"honour": False}
    # A CPU table (spec 04 §2.7) goes to both hosts; cpu=None gives ideal hosts.
    assert nodes["hs"]["cpu"] == cpu == nodes["hr"]["cpu"]
    ideal = p4.t4p_dict("t", rtt_s=0.0, buffer_bytes=2**20, duration_s=1.0, cpu=None)
    assert all("cpu" not in n for n in ideal["node"])
    assert "cpu" not in nodes["rs"] and "cpu" not in nodes["rr"]
    assert {l["delay"] for l in d["link"] if l["from"] == "rs"} == {"10us"}


def test_cpu_cap_is_the_cost_formula() -> None:
    # MTU 1500 over IPv6: MSS_eff 1428; the sender's 7287.6 cycles per frame bind (spec 04 §2.7).
    per_frame = 4000 + 1.2 * 1428 + 2200 * 1428 / 131072 + 300 + 1250
    assert p4.cpu_cap_bps(1500, 6) == pytest.approx(2.2e9 / per_frame * 1428 * 8, rel=1e-12)
    # Jumbo frames: the bus binds, not the CPU.
    assert p4.host_limit_bps(9198, 6) == p4.receiver_bus_limit_bps(9198, 6) < p4.cpu_cap_bps(9198, 6)


def test_t4p_scenario_loads_and_the_engine_fills_the_nic() -> None:
    s = p4.t4p_scenario("t", rtt_s=0.05, buffer_bytes=8 * 2**20, duration_s=1.0, rx_fifo_bytes=64 * 2**10, tx_rate_cap_bps=7e9)
    nodes = {n["name"]: n for n in s.to_dict()["node"]}
    assert nodes["hs"]["nic"]["rx_fifo"] == "64KiB" == nodes["hr"]["nic"]["rx_fifo"]
    assert nodes["hs"]["nic"]["tx_rate_cap"] == "7Gbps" and "tx_rate_cap" not in nodes["hr"]["nic"]
    # The bus defaults the reference rate assumes (path04.R_BUS_BPS, ETA_BUS, O_RX_BYTES, O_TX_BYTES).
    assert nodes["hr"]["bus"] == {"model": "shared", "rate": "8533Mbps", "efficiency": 1.0, "o_rx": "64B", "o_tx": "32B"}
    # The sender's bus is unlimited unless asked (spec 04 §5 CHOICE, path04.SENDER_BUS).
    assert nodes["hs"]["bus"]["model"] == p4.SENDER_BUS == "none"
    shared = p4.t4p_scenario("t", rtt_s=0.05, buffer_bytes=2**20, duration_s=1.0, sender_bus="shared").to_dict()
    assert shared["node"][0]["bus"] == nodes["hr"]["bus"]
    with pytest.raises(ValueError, match="sender_bus"):
        p4.t4p_dict("t", rtt_s=0.05, buffer_bytes=2**20, duration_s=1.0, sender_bus="pci")


@pytest.mark.engine
def test_edge_switches_pass_pause_hop_by_hop(tmp_path: Path) -> None:
    """spec 04 §2.11 ``edge_mode = switch``: a bus-limited receiver pauses its edge switch E_r,
    which holds at most sw_xoff (512 KiB) plus the §2.5 headroom from R_r and pauses R_r in turn;
    the backlog waits in R_r's 256 MiB queue, nothing is lost, and the 2 MiB edge buffers never fill."""
    from lfnlab import run

    s = p4.t4p_scenario("edge", rtt_s=0.01, buffer_bytes=64 * 2**20, duration_s=2.0, edge_mode="switch", cpu=None)
    names = [n["name"] for n in s.to_dict()["node"]]
    assert names == ["hs", "es", "rs", "rr", "er", "hr"]
    r = run(s, tmp_path / "edge")
    summ = r.summary
    queues = {q["name"]: q for q in summ["queues"]}
    gens = {g["name"]: g for g in summ["switch_pause"]}
    # 2·W(9198) + 84 + (2 · 50 ns · 10 Gbit/s + 60 · 512 bit)/8 (§2.5 headroom formula).
    headroom = 2 * p4.wire_bytes(9198) + 84 + (1000 + 60 * 512) // 8
    assert gens["er->rr"]["pause_xoff_sent"] > 0
    assert gens["er->rr"]["held_max_bytes"] <= 512 * 2**10 + headroom
    assert queues["er->hr"]["max_bytes"] <= 512 * 2**10 + headroom
    assert queues["rr->er"]["max_bytes"] > 2 * 2**20, "the backlog moved up to the router"
    assert sum(q["dropped"] for q in summ["queues"]) == 0
    assert all(n["rx_fifo_drop"] == 0 for n in summ["host_nics"])
    assert summ["flows"][0]["retransmitted_segments"] == 0
    ports = {p["name"]: p for p in summ["pause_ports"]}
    assert ports["rr->er"]["pause_received"] == gens["er->rr"]["pause_xoff_sent"]
    with pytest.raises(ValueError, match="edge_mode"):
        p4.t4p_dict("x", rtt_s=0.01, buffer_bytes=1e6, duration_s=1.0, edge_mode="bridge")
