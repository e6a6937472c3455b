"""01.E1 (gap size vs bandwidth) and 01.V1 (IPG-aware scheduling), spec 01 §3.

Each quick form runs once through the command line (module fixture, about 10 s on 2 cores);
the tests read what it wrote. The helpers' formulas are tested on their own."""

from __future__ import annotations

import csv
import json
import math
import subprocess
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from lfnlab.reproduce.ch01_gap_pacing import e1_gap_sweep as e1
from lfnlab.reproduce.ch01_gap_pacing import v1_classes as v1
from support import passed_checks, run_cli, run_quick_forms

IDS = ["01.E1", "01.V1"]
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
FIG6_COLUMNS = ["gap_bytes", "theory_MBps", "measured_MBps", "rel_error"]


@pytest.fixture(scope="module")
def quick_outputs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[Path, subprocess.CompletedProcess[str]]]:
    """Each experiment's quick form, run once: ID → (output directory, completed process)."""
    work = tmp_path_factory.mktemp("reproduce01")
    return run_quick_forms(IDS, work)


def _checks(d: Path) -> dict[str, Any]:
    return json.loads((d / "checks.json").read_text(encoding="utf-8"))


def _rows(path: Path) -> list[dict[str, str]]:
    with path.open(encoding="utf-8", newline="") as f:
        return list(csv.DictReader(f))


# ------------------------------------------------------------------ catalogue


def test_list_names_both() -> None:
    p = run_cli("reproduce", "--list")
    assert p.returncode == 0, p.stderr
    ids = [line.split()[0] for line in p.stdout.splitlines()]
    for experiment_id in IDS:
        assert experiment_id in ids
    assert ids.index("01.E1") < ids.index("01.V1") < ids.index("06.V1"), ids


# ------------------------------------------------------------------ quick forms


@pytest.mark.engine
@pytest.mark.parametrize("experiment_id", IDS)
def test_quick_form_passes(
    experiment_id: str, quick_outputs: dict[str, tuple[Path, subprocess.CompletedProcess[str]]]
) -> None:
    d, p = quick_outputs[experiment_id]
    checks = passed_checks(experiment_id, d, p)
    report = (d / "report.md").read_text(encoding="utf-8")
    assert report.startswith(f"# {experiment_id}: ")
    for png in d.glob("*.png"):
        assert png.read_bytes()[:8] == PNG_MAGIC
        assert f"]({png.name})" in report
    assert sorted(checks["files"]) == sorted(f.name for f in d.iterdir() if f.is_file())
    expectations = _rows(d / "expectations.csv")
    assert expectations and set(expectations[0]) >= {"expectation", "observed", "agrees"}


@pytest.mark.engine
def test_e1_writes_paper_fig6(quick_outputs: dict[str, tuple[Path, subprocess.CompletedProcess[str]]]) -> None:
    d, _ = quick_outputs["01.E1"]
    assert (d / "paper-fig6.png").read_bytes()[:8] == PNG_MAGIC
    frame = pd.read_csv(d / "paper-fig6.csv")
    assert list(frame.columns[:4]) == FIG6_COLUMNS
    assert "measured_frame_MBps" in frame.columns
    # The points the quick form must keep (the brief): 0, 84, 1538, a split gap, 64 KiB.
    gaps = set(frame["gap_bytes"])
    assert {0, 84, 1538, 65536} <= gaps and any(g > 4096 for g in gaps)
    assert (frame["rel_error"].abs() <= e1.TOLERANCE).all()
    half = frame[frame["gap_bytes"] == 1538].iloc[0]
    assert half["measured_MBps"] == pytest.approx(62.5, rel=1e-9)
    # Frame bytes are 1518/1538 of wire bytes for full-size packets.
    np.testing.assert_allclose(frame["measured_frame_MBps"], frame["measured_MBps"] * 1518 / 1538, rtol=1e-12)


@pytest.mark.engine
def test_v1_writes_its_tables(quick_outputs: dict[str, tuple[Path, subprocess.CompletedProcess[str]]]) -> None:
    d, _ = quick_outputs["01.V1"]
    v1d = pd.read_csv(d / "v1d.csv")
    assert {"mode", "flow", "goodput_MBps", "taildrops"} <= set(v1d.columns)
    assert len(v1d) == 2 * len(v1.V1D_MODES)
    v1a = pd.read_csv(d / "v1a.csv")
    assert v1a["event_hash"].iloc[0] == v1a["event_hash"].iloc[1] != v1a["event_hash"].iloc[2]
    bc = pd.read_csv(d / "v1bc.csv")
    assert set(bc["case"]) == {"V1b", "V1c"}
    assert (d / "v1bc_rates.png").is_file()


# ------------------------------------------------------------------ E1 helpers


def test_theory_halves_at_one_packet_of_gap() -> None:
    # Equation (2): 125e6 × 1538/(1538 + 1538) = 62.5e6 exactly.
    assert e1.theory_wire_bytes_per_s(1538) == 62.5e6
    assert e1.theory_wire_bytes_per_s(0) == 125e6
    # 64 KiB: 125e6 × 1538/67074 = 2.866237... MB/s.
    assert e1.theory_wire_bytes_per_s(65536) == pytest.approx(125e6 * 1538 / 67074)


@pytest.mark.parametrize(
    ("gap", "frames"),
    [(0, 0), (84, 1), (1538, 1), (4096, 1), (4097, 2), (6144, 2), (12288, 3), (65536, 16), (70000, 16)],
)
def test_gap_frames_per_gap_is_ceil_g_over_4096(gap: int, frames: int) -> None:
    assert e1.gap_frames_per_gap(gap) == frames


def test_gaps_below_the_minimum_frame_have_no_fixed_count() -> None:
    with pytest.raises(ValueError):
        e1.gap_frames_per_gap(50)
    with pytest.raises(ValueError):
        e1.expected_counts(50, 1.0)


def test_expected_counts_follow_the_timing() -> None:
    # g = 0: one packet every 12.304 µs from t = 0: ⌊0.1 s/12.304 µs⌋ + 1 = 8128, no gaps.
    assert e1.expected_counts(0, 0.1) == (8128, 0)
    # g = 1538: T = 24.608 µs; the gap before packet k starts at (k − 1)·T + 12.304 µs.
    assert e1.expected_counts(1538, 0.1) == (4064, 4064)
    # g = 84: T = 12.976 µs; the last gap would start after the end.
    assert e1.expected_counts(84, 0.1) == (7707, 7706)
    # A packet starting exactly at t = D counts (T = 16 µs divides 0.1 s).
    assert e1.expected_counts(462, 0.1) == (6251, 6250)


def test_measure_rate_uses_whole_periods() -> None:
    t = np.arange(5) * 24.608e-6 + 12.304e-6
    assert e1.measure_rate(t, 1538) == pytest.approx(62.5e6, rel=1e-12)
    assert math.isnan(e1.measure_rate(t[:1], 1538))


# ------------------------------------------------------------------ V1 helpers


def test_longest_back_to_back() -> None:
    w = v1.WIRE_PS
    # a a (back to back) · gap · a · b a a a (the b breaks the run; then three back to back).
    t = np.array([0, w, 3 * w, 4 * w, 5 * w, 6 * w, 7 * w], dtype=np.int64)
    f = np.array(["a", "a", "a", "b", "a", "a", "a"])
    assert v1.longest_back_to_back(t, f, "a") == 3
    assert v1.longest_back_to_back(t, f, "b") == 1
    assert v1.longest_back_to_back(t[:3], f[:3], "a") == 2
    assert v1.longest_back_to_back(t[:0], f[:0], "a") == 0


def test_bin_rates_and_line_use_take_whole_bins() -> None:
    flows = pd.DataFrame(
        {
            "monitor": ["m"] * 4,
            "flow": ["x", "x", "y", "x"],
            "t": [0.0, 0.5, 0.5, 1.0],
            "bytes": [1518, 3036, 1518, 1518],
            "packets": [1, 2, 1, 1],
        }
    )
    assert v1.bin_rates(flows, "m", 0.5, 1.0) == {"x": 2 * 1538 / 0.5, "y": 1538 / 0.5}
    hosts = pd.DataFrame(
        {
            "host": ["snd", "snd"],
            "t": [0.0, 1.0],
            "dma_real_bytes": [1518, 3036],
            "frames": [1, 2],
            "gap_wire_bytes": [7, 100],
        }
    )
    assert v1.line_use(hosts, "snd", 1.0, 2.0) == (2 * 1538, 100)


def test_v1_scenarios_validate() -> None:
    # Every scenario of the quick form loads (the scenario loader checks every key).
    p = v1.QUICK
    for variant in ("plain", "class1", "off"):
        assert v1.v1a_scenario(p, variant).to_dict()["sim"]["duration"]
    for case, rates in (("v1b", p.v1b_rates), ("v1c", p.v1c_rates)):
        d = v1.udp_scenario(p, case, rates).to_dict()
        classes = d["node"][0]["qdisc"]["classes"]
        assert [c["dst"] for c in classes] == [["rcv1"], ["rcv2"]]
    for mode in v1.V1D_MODES:
        d = v1.v1d_scenario(p, mode).to_dict()
        assert len(d["flow"]) == 2
