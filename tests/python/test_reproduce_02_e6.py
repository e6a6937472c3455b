"""02.E6 (spec 02 §4.7, router-function work accounting): the quick form through the CLI,
the counter and work identities it checks, and the processing delay of a saturated
serial processor through the library."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pandas as pd
import pytest

from lfnlab import run
from lfnlab.reproduce.ch02_quick_start import e6_router_work as e6
from support import passed_checks, run_quick_forms


@pytest.fixture(scope="module")
def quick_output(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, subprocess.CompletedProcess[str]]:
    return run_quick_forms(["02.E6"], tmp_path_factory.mktemp("reproduce02e6"))["02.E6"]


@pytest.mark.engine
def test_quick_form_passes_and_writes_the_counters(quick_output: tuple[Path, subprocess.CompletedProcess[str]]) -> None:
    d, p = quick_output
    passed_checks("02.E6", d, p)
    assert (d / "E6_work.png").read_bytes().startswith(b"\x89PNG\r\n\x1a\n")
    frame = pd.read_csv(d / "E6_counters.csv")
    assert len(frame) == len(e6.QUICK.loads_pps) * len(e6.QUICK.shares)
    for c in e6.COUNTERS:
        assert f"{c}_per_s" in frame.columns
    # No request, no option work: the cost is base + meter for every packet.
    none = frame[frame["share"] == 0.0]
    base, meter = e6.QUICK.proc_us[:2]
    assert (none["qs_requests_seen_per_s"] == 0).all()
    assert (abs(none["mean_cost_us"] - (base + meter)) < 1e-12).all()
    # Every packet asks: every one is decided.
    every = frame[frame["share"] == 1.0]
    assert (every["qs_requests_seen_per_s"] == every["packets_per_s"]).all()


def test_expected_work_is_the_cost_formula() -> None:
    c = {"packets": 1000, "qs_requests_seen": 10, "qs_reports_seen": 2, "qs_approved_full": 4, "qs_approved_reduced": 1, "nonce_fields_rerandomized": 3}
    # 1000·(1 + 2) + 12·4 + 5·8 + 3·16
    assert e6.expected_work_us(c, (1.0, 2.0, 4.0, 8.0, 16.0)) == 3000 + 48 + 40 + 48


def test_checks_fail_on_inconsistent_counters() -> None:
    p = e6.Params(loads_pps=(100.0,), shares=(1.0,), duration_s=1.0)
    qi = {
        "name": e6.EGRESS, "packets": 100, "bytes": 5000, "qs_requests_seen": 100, "qs_approved_full": 90,
        "qs_approved_reduced": 0, "qs_denied": 5, "qs_rate_limited": 0, "nonce_fields_rerandomized": 0,
        "ip_csum_updates": 95, "qs_reports_seen": 0, "meter_updates": 100,
        "proc_delay_mean_s": 0.0, "proc_delay_max_s": 0.0, "proc_busy_fraction": 0.0, "proc_backlog_max": 0,
    }
    failed = [c.name for c in e6.checks([(100.0, 1.0)], {e6.label(100.0, 1.0): {"quickstart_interfaces": [qi]}}, p) if not c.passed]
    # 90 + 0 + 5 ≠ 100 decisions; zero work and delay against the formula.
    assert any("full + reduced + denied" in n for n in failed)
    assert any("processor work" in n for n in failed)
    assert any("mean processing delay" in n for n in failed)


@pytest.mark.engine
def test_a_saturated_serial_processor_adds_waiting() -> None:
    # 300 000 packet/s are 3.33 µs apart; a 4 µs base cost saturates the serial
    # processor (busy 4/3.33 = 1.2), while `parallel` delays each packet by 4 µs only.
    out = {}
    for disc in ("serial", "parallel"):
        p = e6.Params(loads_pps=(300_000.0,), shares=(0.0,), duration_s=0.05, proc_us=(4.0, 0.0, 0.0, 0.0, 0.0), discipline=disc)
        r = run(e6.scenario(f"e6-{disc}", 300_000.0, 0.0, p))
        out[disc] = e6.interface(r.summary)
    assert out["parallel"]["proc_delay_mean_s"] == pytest.approx(4e-6, abs=1e-12)
    assert out["serial"]["proc_busy_fraction"] == pytest.approx(1.2, rel=0.01)
    assert out["serial"]["proc_delay_mean_s"] > 100e-6
    assert out["serial"]["proc_backlog_max"] > 100


@pytest.mark.engine
def test_the_notes_recipe_for_measured_costs_runs_them(tmp_path: Path) -> None:
    """The report's note says how to run E6 with one's own costs: a replaced experiment
    whose parameters carry them (engine.Experiment is a frozen declaration)."""
    import dataclasses

    costs = (2.0, 0.5, 0.25, 1.0, 0.125)
    mine = dataclasses.replace(e6.EXPERIMENT, quick=dataclasses.replace(e6.QUICK, loads_pps=(10_000.0,), shares=(1.0,), duration_s=0.2, proc_us=costs))
    outcome = mine.run(quick=True, workers=1, out=tmp_path / "mine")
    note = next(n for n in outcome.notes if "measured costs" in n)
    assert "dataclasses.replace(EXPERIMENT, full=dataclasses.replace(FULL, proc_us=...))" in note
    (work,) = [t.frame for t in outcome.tables if "mean_cost_us" in t.frame.columns]
    assert work["mean_cost_us"].iloc[0] > costs[0]  # base plus the per-QS-packet costs, from the costs given
