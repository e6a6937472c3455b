"""05.E5.0 (switch model validation, spec 05 §3), its bench builder and the native check
entry point."""

from __future__ import annotations

import csv
import math
import subprocess
from pathlib import Path

import numpy as np
import pytest
from lfnlab import _native
from lfnlab.errors import InvalidInputError
from lfnlab.reproduce.ch05_switches import path05 as p5
from support import passed_checks, run_cli, run_quick_forms

IDS = ["05.E5.0", "05.E5.1", "05.E5.2", "05.E5.3", "05.E5.4", "05.E5.5"]
FILES = {"05.E5.0": ["T5.0.csv", "T5.0-cells.csv"], "05.E5.1": ["T5.1.csv", "T5.1-sweeps.csv", "F5.1a.png", "F5.1b.png", "F5.1c.png", "F5.1d.png", "F5.1e.png"], "05.E5.2": ["T5.2.csv", "F5.2a.png", "F5.2b.png"], "05.E5.3": ["T5.3.csv", "F5.3a.png", "F5.3b.png"], "05.E5.4": ["T5.4.csv", "T5.4-points.csv", "F5.4a.png", "F5.4b.png"], "05.E5.5": ["T5.5a.csv", "T5.5b.csv", "T5.5-runs.csv", "F5.5a.png", "F5.5b.png", "F5.5c.png", "F5.5d.png", "F5.5e.png"]}

Outputs = dict[str, tuple[Path, subprocess.CompletedProcess[str]]]


@pytest.fixture(scope="module")
def quick_outputs(tmp_path_factory: pytest.TempPathFactory) -> Outputs:
    return run_quick_forms(IDS, tmp_path_factory.mktemp("reproduce05"))


def test_list_names_chapter_05_between_04_and_06() -> None:
    p = run_cli("reproduce", "--list")
    assert p.returncode == 0, p.stderr
    ids = [line.split()[0] for line in p.stdout.splitlines()]
    assert [i for i in ids if i.startswith("05.")] == IDS
    assert ids.index("04.E4.8") + 1 == ids.index("05.E5.0") < ids.index("06.V1")


def _passed_with_files(experiment_id: str, quick_outputs: Outputs, table: str) -> tuple[Path, list[dict[str, str]]]:
    """The quick form passed every check and wrote its spec files; returns its directory and
    the rows of ``table``."""
    d, p = quick_outputs[experiment_id]
    checks = passed_checks(experiment_id, d, p)
    for name in FILES[experiment_id]:
        assert (d / name).is_file() and name in checks["files"], name
    with (d / table).open(encoding="utf-8", newline="") as f:
        return d, list(csv.DictReader(f))


@pytest.mark.engine
def test_e50_quick_form_passes_every_row_of_t50(quick_outputs: Outputs) -> None:
    _, rows = _passed_with_files("05.E5.0", quick_outputs, "T5.0.csv")
    # One row per check of spec 05 §3 E5.0: HOL, iSLIP, PIM, OQ, RR (two flows), generator (3 TC × 2).
    assert len(rows) == 4 + 2 + 6
    assert all(r["pass"] == "True" for r in rows)
    names = " ".join(r["check"] for r in rows)
    for what in ("head-of-line", "iSLIP", "PIM", "output queueing", "round robin", "generator"):
        assert what in names, what


def test_bench_timing_follows_the_spec_formulas() -> None:
    # spec 05 §2.1: 1500-byte IP packets are 1538 wire bytes, 12.304 µs at 1 Gbit/s;
    # 64-byte frames (IP length 46) are 84 wire bytes.
    assert p5.wire_bytes(1500) == 1538 and p5.wire_bytes(46) == 84 and p5.wire_bytes(20) == 84
    assert math.isclose(p5.frame_time_s(1500), 12.304e-6)
    assert math.isclose(p5.period_s(1500, 500), 24.608e-6)
    # φ ~ U[0, T₂): seeded, inside the period, different per seed.
    phases = {p5.phase_ns(s, 1500, 900) for s in range(1, 20)}
    assert len(phases) == 19 and all(0 <= x < p5.period_s(1500, 900) * 1e9 for x in phases)
    assert p5.phase_ns(3, 1500, 900) == p5.phase_ns(3, 1500, 900)


def test_bench_dict_builds_a_valid_scenario_with_a_burst() -> None:
    s = p5.bench_scenario("t", config="voq_exh", tc1_mbps=1000, tc2_mbps=0, duration_s=0.01, seed=2, burst2=(10, 0.002))
    d = s.to_dict()
    flow2 = next(f for f in d["flow"] if f["name"] == "flow2")
    # Ten back-to-back frames at line rate: the source stops inside the tenth period.
    assert flow2["rate"] == "1Gbps"
    assert d["node"][2]["switch"]["config"] == "voq_exh"


def test_switch_check_rejects_bad_arguments_as_invalid_input() -> None:
    with pytest.raises(InvalidInputError) as e:
        _native.switch_check("hol", 32, 100)
    assert e.value.key_path == "check" and "hol_saturated" in str(e.value)
    with pytest.raises(InvalidInputError) as e:
        _native.switch_check("hol_saturated", 65, 100)
    assert e.value.key_path == "ports"
    with pytest.raises(ValueError):
        _native.switch_check("islip_bernoulli", 8, 100, load=1.5)


@pytest.mark.engine
def test_e51_quick_form_passes_and_covers_every_configuration_and_pair(quick_outputs: Outputs) -> None:
    from lfnlab.reproduce.ch05_switches import e1_two_cbr as e1

    d, rows = _passed_with_files("05.E5.1", quick_outputs, "T5.1.csv")
    got = {(r["config"], int(r["TC1_Mbps"]), int(r["TC2_Mbps"])) for r in rows}
    assert got == {(c, a, b) for c in e1.QUICK.configs for a, b in e1.QUICK.pairs}
    # Every figure has one panel per configuration, named in the report.
    report = (d / "report.md").read_text(encoding="utf-8")
    for letter in "abcde":
        assert f"](F5.1{letter}.png)" in report


def test_e51_run_labels_are_unique_and_name_their_variant() -> None:
    from lfnlab.reproduce.ch05_switches import e1_two_cbr as e1

    runs = e1.runs(e1.FULL)
    labels = [r.label(1) for r in runs]
    assert len(labels) == len(set(labels))
    # 12 pairs × 9 configurations, J sweep 2 pairs × 2 values × 9, 64-byte × 9, B_total 2 × 3, speedup 2, B_sub 2 × 2.
    assert len(runs) == 12 * 9 + 2 * 2 * 9 + 9 + 2 * 3 + 2 + 2 * 2
    assert {r.variant for r in runs} >= {"main", "J 100 ns", "J 1000 ns", "64-byte frames", "B_total 16 MiB", "s 1.25", "B_sub 8 KiB"}
    every = e1._all_runs(e1.FULL)
    assert len({r.label(1) for r in every}) == len(every)
    # The beat study adds, at 800 + 600 and 900 + 900: δ_sw 0, independent clocks and J 12.3 µs; and
    # J 100 ns, 1 µs at 800 + 600 (the main runs and 900 + 900's J runs already exist).
    assert len(every) - len(runs) == 2 * 3 + 2
    assert {r.variant for r in every} >= {"δ_sw 0 ppm", "independent clocks", "J 12304 ns"}


@pytest.mark.engine
def test_a_shared_pool_beats_at_the_switch_clock_offset() -> None:
    """Issue 39 item 8: with two CBR inputs over a full complete-sharing pool, each flow's
    share is a fixed function of the departure phase. With δ_sw = 0 the share never moves;
    with δ_sw = 50 ppm flow 1's output swings with a line on a harmonic of |δ_sw|/D."""
    import lfnlab
    from lfnlab.reproduce.ch05_switches import e1_two_cbr as e1
    from lfnlab.reproduce.ch05_switches.common05 import OUTPUT, series

    duration, bin_s = 3.0, 0.001
    a, b = 500, 3000

    def flow1(ppm: float) -> np.ndarray:
        sc = p5.bench_scenario("beat", config="oq_cs", tc1_mbps=800, tc2_mbps=600, duration_s=duration, seed=1,
                               switch={"clock_ppm": ppm}, bin_s=bin_s)
        r = lfnlab.run(sc)
        assert e1.switch_clock_ppm(r) == ppm
        return series(r.flows, OUTPUT, "flow1", bin_s, int(duration / bin_s)).bytes[a:b] * 8 / bin_s / 1e6

    still = flow1(0.0).reshape(-1, 100).mean(axis=1)
    assert still.var() < 1.0
    moving = flow1(50.0)
    hundred = moving.reshape(-1, 100).mean(axis=1)
    assert hundred.var() > 100.0
    predicted = p5.frame_time_s(1500) / 50e-6  # 0.246 s
    measured = e1.dominant_period_s(moving, bin_s)
    row = {"period_s": measured, "beat_predicted_s": predicted, "harmonic": round(predicted / measured)}
    assert e1.on_harmonic(row, (b - a) * bin_s), row


@pytest.mark.engine
def test_e52_quick_form_covers_the_reduced_grid_for_every_configuration(quick_outputs: Outputs) -> None:
    from lfnlab.reproduce.ch05_switches import e2_isolines as e2

    _, rows = _passed_with_files("05.E5.2", quick_outputs, "T5.2.csv")
    # spec 05 §3 E5.2 reduced mode: step 100 Mbit/s, 0..1000 on both axes.
    assert e2.QUICK.rates == tuple(range(0, 1001, 100)) and e2.FULL.rates == tuple(range(0, 1001, 20))
    got = {(r["config"], int(r["TC1_Mbps"]), int(r["TC2_Mbps"])) for r in rows}
    assert got == {(c, a, b) for c in e2.QUICK.configs for a in e2.QUICK.rates for b in e2.QUICK.rates}
    for r in rows:
        # A silent flow has no ratio; a flow with load has one in [0, 1] (a hair above at most).
        for f, tc in (("f1", int(r["TC1_Mbps"])), ("f2", int(r["TC2_Mbps"]))):
            v = float(r[f"{f}_ratio_out_in"] or "nan")  # NaN is written as an empty cell
            assert math.isnan(v) if tc == 0 else 0.0 <= v <= 1.001, (r["config"], r["TC1_Mbps"], r["TC2_Mbps"], f, v)


@pytest.mark.engine
def test_e52_resumed_after_its_runs_reuses_the_bench_journal_and_writes_the_same_tables(quick_outputs: Outputs, tmp_path: Path) -> None:
    """05.E5.2 interrupted after its runs (here: its tables and report removed) and resumed:
    every bench run comes from runs/bench.journal, none runs again, and the tables are the
    same bytes (the full grid is about 3 h of bench runs: reproduce.bench_journal)."""
    import shutil

    from lfnlab.reproduce.bench_journal import JOURNAL

    d, _ = quick_outputs["05.E5.2"]
    out = tmp_path / "e52"
    shutil.copytree(d, out)
    journal = out / "runs" / JOURNAL
    assert journal.stat().st_size > 0
    before = journal.read_bytes()
    for f in out.iterdir():
        if f.is_file():
            f.unlink()
    p = run_cli("reproduce", "05.E5.2", "--quick", "--resume", "--progress", "none", "--out", out)
    assert p.returncode == 0, p.stderr
    assert journal.read_bytes() == before, "no bench run was made again"
    for name in ("T5.2.csv", "checks.json"):
        assert (out / name).read_bytes() == (d / name).read_bytes(), name


def test_e52_declares_its_event_loop_runs_beside_the_bench_grid_and_independent_of_it() -> None:
    from lfnlab.reproduce.ch05_switches import e2_isolines as e2
    from lfnlab.reproduce.engine import BenchCase, Case

    cases = e2.cases(e2.QUICK)
    bench = [c for c in cases if isinstance(c, BenchCase)]
    loop = [c for c in cases if isinstance(c, Case)]
    assert len(bench) == len(e2.QUICK.configs) * len(e2.QUICK.rates) ** 2 * e2.QUICK.reps
    # One event-loop run per configuration at SPOT, under the label of its runs/ directory; the
    # bench labels (no directory) differ from it, so the engine can hold both in one `kept`.
    assert [c.label for c in loop] == [f"{c}-0600-0700-r1" for c in e2.QUICK.configs]
    assert len({c.label for c in cases}) == len(cases)
    # The same scenario on both sides: made from the parameters alone, not from a result.
    by_label = {c.label: c for c in bench}
    for c in loop:
        assert by_label[f"bench-{c.label}"].build().to_toml() == c.scenario.to_toml()


@pytest.mark.engine
def test_e53_quick_form_passes_and_logs_every_configuration(quick_outputs: Outputs) -> None:
    from lfnlab.reproduce.ch05_switches import e3_seq_traces as e3

    _, rows = _passed_with_files("05.E5.3", quick_outputs, "T5.3.csv")
    assert {(r["config"], int(r["TC1_Mbps"])) for r in rows} == {(c, a) for c in e3.QUICK.configs for a, _ in e3.QUICK.cases}
    # Every flow was forwarded in every log: runs exist and the Δseq histogram counts them.
    for r in rows:
        for f in ("f1", "f2"):
            total = sum(int(v) for k, v in r.items() if k.startswith(f"{f}_dseq_"))
            assert total > 0 or float(r[f"{f}_mean_run"]) == 0.0, r["config"]


@pytest.mark.engine
def test_e54_quick_form_fits_every_configuration(quick_outputs: Outputs) -> None:
    from lfnlab.reproduce.ch05_switches import e4_burst as e4

    d, rows = _passed_with_files("05.E5.4", quick_outputs, "T5.4.csv")
    assert [r["config"] for r in rows] == list(e4.QUICK.configs)
    with (d / "T5.4-points.csv").open(encoding="utf-8", newline="") as f:
        points = list(csv.DictReader(f))
    assert len(points) == len(e4.QUICK.configs) * len(e4.QUICK.bursts) * e4.QUICK.reps
    # The CBR flow fills the line: a burst of N frames costs it frames in every configuration.
    assert all(int(pt["cbr_loss"]) > 0 for pt in points)


@pytest.mark.engine
def test_e55_quick_form_fills_tables_ii_and_iii_for_every_cc_sack_and_device(quick_outputs: Outputs) -> None:
    from lfnlab.reproduce.ch05_switches import e5_tcp as e5

    d, rows = _passed_with_files("05.E5.5", quick_outputs, "T5.5a.csv")
    # spec 05 §3 E5.5: rows CC × SACK × device, columns 0 and 50 ms, cells "flow 1 & flow 2".
    assert {(r["CC"], r["SACK"], r["device"]) for r in rows} == {(c, s, dev) for c in ("BIC", "Reno") for s in ("on", "off") for dev in e5.CONFIGS_E55}
    for r in rows:
        for col in ("0 ms", "50 ms"):
            a, b = (float(x) for x in r[col].split(" & "))
            assert 0.0 <= a + b <= 941.5 * 1.001, (r, col)
    with (d / "T5.5b.csv").open(encoding="utf-8", newline="") as f:
        assert len(list(csv.DictReader(f))) == len(rows)
    # The simple switch holds at most B_port = 32 KiB; the nonblocking oq_cs fills its 4 MiB at some point.
    with (d / "T5.5-runs.csv").open(encoding="utf-8", newline="") as f:
        runs = list(csv.DictReader(f))
    assert max(int(r["memory_max_bytes"]) for r in runs if r["config"] == "rr_simple") <= 32 * 1024
    assert len(runs) == len(e5.runs(e5.QUICK)) * e5.QUICK.seeds


def test_e55_bench_refuses_an_unknown_cc_and_delays_half_the_rtt_each_way() -> None:
    from lfnlab.reproduce.ch05_switches import path05_tcp as pt

    with pytest.raises(ValueError, match="cc"):
        pt.tcp_bench_dict("x", config="oq_cs", rtt_s=0.05, cc="cubic", sack=True, duration_s=1, flow2_start_s=0.5, seed=1)
    d = pt.tcp_bench_dict("x", config="oq_cs", rtt_s=0.05, cc="bic", sack=False, duration_s=1, flow2_start_s=0.5, seed=1)
    m_ns = [lk for lk in d["link"] if (lk["from"], lk["to"]) == ("m", "ns")][0]
    # d = RTT/2 on the M–NS link (spec 05 §5), plus its 10-m cable.
    assert m_ns["delay"] == "25000050ns"
    assert all(f["tcp"]["sack"] is False for f in d["flow"])
    assert d["flow"][0]["cc_params"] == {"variant": "linux"}


@pytest.mark.engine
def test_busy_windows_on_a_zero_delay_path_are_one_millisecond(tmp_path: Path) -> None:
    # docs/choices.md busy.parquet: windows of the base RTT, at least 1 ms.
    import lfnlab
    from lfnlab.reproduce.ch05_switches import path05_tcp as pt

    s = pt.tcp_bench_scenario("busy", config="oq_cs", rtt_s=0.0, cc="bic", sack=True, duration_s=0.05, flow2_start_s=0.01, seed=1)
    import pandas as pd

    lfnlab.run(s, out=tmp_path / "busy")
    busy = pd.read_parquet(tmp_path / "busy" / "busy.parquet")
    s1 = busy[busy["host"] == "s1"]
    assert (s1["window_s"].iloc[:-1] == 0.001).all() and 45 <= len(s1) <= 51, s1


def test_e55_b_sub_sweep_runs_the_compared_cell_at_each_sub_queue() -> None:
    # Spec 05 §5: the split of the simple switch's 512 KB is unknown, so B_sub is swept beside
    # the 16 KiB CHOICE; E5.5 does it in the cell compared with the paper (issue 39 item 6).
    from lfnlab.reproduce.ch05_switches import e5_tcp as e5

    side = [r for r in e5.runs(e5.FULL) if r.sub_kib is not None]
    assert [(r.config, r.cc, r.sack, r.rtt_ms, r.sub_kib) for r in side] == [("rr_simple", "bic", True, 50, b) for b in e5.FULL.subs_kib]
    assert e5.QUICK.subs_kib == () and all(r.sub_kib is None for r in e5.runs(e5.QUICK))
    labels = [r.label(s) for r in e5.runs(e5.FULL) for s in (1, 2, 3)]
    assert len(set(labels)) == len(labels)
    main = e5.Run("rr_simple", "bic", True, 50)
    assert e5._queue_limit_kib(e5.FULL, main) == 16.0
    for r in side:
        assert e5._queue_limit_kib(e5.FULL, r) == float(r.sub_kib)
        # Only the sub-queue changes: the same scenario as the main run's otherwise.
        a, b = (e5._scenario(e5.FULL, x, 1).to_dict() for x in (main, r))
        sw_a, sw_b = (next(n["switch"] for n in d["node"] if "switch" in n) for d in (a, b))
        assert {k for k in sw_a if sw_a[k] != sw_b[k]} == {"queue_limit"}


def test_e55_b_sub_table_and_its_reading() -> None:
    import pandas as pd
    from lfnlab.reproduce.ch05_switches import e5_tcp as e5

    def row(config: str, sub: object, mem: object, seed: int, f1: float, f2: float) -> dict[str, object]:
        return {"config": config, "cc": "BIC", "sack": True, "RTT_ms": 50, "B_total_MiB": mem, "B_sub_KiB": sub, "seed": seed,
                "f1_goodput_Mbps": f1, "f2_goodput_Mbps": f2, "f1_retrans_per_s": 1.0, "f2_retrans_per_s": 2.0,
                "f1_dut_drops": 10, "f2_dut_drops": 20, "memory_max_bytes": 1000 * seed}

    per_run = pd.DataFrame([
        row("rr_simple", None, None, 1, 300.0, 200.0), row("rr_simple", None, None, 2, 280.0, 240.0),
        row("rr_simple", 8, None, 1, 200.0, 150.0), row("rr_simple", 32, None, 1, 320.0, 300.0),
        row("oq_cs", None, 16, 1, 400.0, 400.0), row("oq_cs", None, None, 1, 450.0, 450.0),
    ])
    main = e5._main(per_run)
    assert list(main.index) == [0, 1, 5]
    t = e5._b_sub_sweep(16.0, per_run)
    assert list(t["B_sub_KiB"]) == [8.0, 16.0, 32.0]
    assert list(t["seeds"]) == [1, 2, 1]
    assert t.loc[1, "f1_goodput_Mbps"] == 290.0 and t.loc[1, "sum_goodput_Mbps"] == 510.0
    assert t.loc[1, "memory_max_bytes"] == 2000
    text = e5._b_sub_reading(t, 376.0)
    assert "8 KiB 200.0 & 150.0; 16 KiB 290.0 & 220.0" in text and "nearest B_sub = 8 KiB (350)" in text
    assert "nearest B_sub = 32 KiB" in e5._b_sub_reading(t, 600.0)
    # The quick form has no sweep: no sentence, no table.
    assert e5._b_sub_reading(t.iloc[1:2], 376.0) == ""
    assert len(e5._b_sub_sweep(16.0, per_run.iloc[4:])) == 0
