"""`lfnlab compare` and `lfnlab reproduce real.M1`: the simulator beside real Linux TCP
(docs/compare.md).

The flags and the refusals need nothing; the runs need root, `ip netns`, iperf3, ethtool
and ss and are skipped with the reason otherwise: one 3-s CUBIC comparison with two
repetitions a side, and real.M1's quick form (two cells, one repetition).
"""

from __future__ import annotations

import json
import math
import signal
import subprocess
import time
from pathlib import Path

import pandas as pd
import pytest

from lfnlab.compare.summary import cell_summary, relative_difference
from support import lfnlab_command, run_cli
from test_testbed import CUBIC, SKIP, _assert_nothing_left, _wait_for_transfer, needs_testbed

SHORT = CUBIC.replace('duration = "15s"', 'duration = "3s"')


def _scenario(tmp: Path, text: str = SHORT) -> Path:
    p = tmp / "cubic.toml"
    p.write_text(text, encoding="utf-8")
    return p


# --- flags (no root needed) ---------------------------------------------------


def test_relative_difference() -> None:
    assert relative_difference(115.0, 100.0) == pytest.approx(0.15)
    assert relative_difference(50.0, 100.0) == pytest.approx(-0.5)
    assert relative_difference(0.0, 0.0) == 0.0
    assert relative_difference(3.0, 0.0) == math.inf
    assert math.isnan(relative_difference(math.nan, 1.0))


def _rows(sim: list[float], ker: list[float], valid: list[bool]) -> pd.DataFrame:
    rows = [
        {"side": "simulator", "status": "done", "goodput_bps": g, "drops": 10, "losses": 3, "retransmitted": 13, "valid": True}
        for g in sim
    ]
    rows += [
        {"side": "kernel", "status": "done", "goodput_bps": g, "drops": 20, "losses": 3, "retransmitted": 24, "valid": v}
        for g, v in zip(ker, valid)
    ]
    rows.append({"side": "kernel", "status": "failed: x", "goodput_bps": math.nan, "drops": -1, "losses": -1, "retransmitted": -1, "valid": False})
    return pd.DataFrame(rows)


def test_the_band_flags_what_lies_outside_it() -> None:
    s = cell_summary(_rows([80e6, 80e6], [100e6, 90e6, 60e6], [True, False, False]), 0.15).set_index("metric")
    g = s.loc["goodput"]
    assert g["kernel_median"] == 90e6 and g["kernel_min"] == 60e6 and g["kernel_max"] == 100e6  # the failed run is left out
    assert g["kernel_valid_median"] == 100e6
    assert g["difference"] == pytest.approx(80 / 90 - 1)
    assert not g["outside_band"]  # −11 %
    assert s.loc["bottleneck drops", "outside_band"]  # 10 against 20: −50 %
    assert s.loc["random losses", "difference"] == 0 and not s.loc["random losses", "outside_band"]
    s = cell_summary(_rows([80e6], [100e6], [False]), 0.15).set_index("metric")
    assert s.loc["goodput", "outside_band"]  # −20 %
    assert math.isnan(s.loc["goodput", "kernel_valid_median"])  # no valid run


# --- refusals (no root needed) ------------------------------------------------


def test_bad_arguments_and_unsupported_scenarios_exit_2(tmp_path: Path) -> None:
    path = _scenario(tmp_path)
    for args, option in (
        (["--tolerance", "-3"], "--tolerance"),
        (["--tolerance", "lots"], "--tolerance"),
        (["--repetitions", "0"], "--repetitions"),
        (["--workers", "x"], "--workers"),
    ):
        p = run_cli("compare", path, *args, "--out", tmp_path / "out", timeout=60)
        assert p.returncode == 2, (args, p.stderr)
        assert p.stderr.startswith(f"error: <arguments>: {option}: "), (args, p.stderr)
    vegas = _scenario(tmp_path, SHORT.replace('cc = "cubic"', 'cc = "vegas"'))
    p = run_cli("compare", vegas, "--out", tmp_path / "out", timeout=60)
    assert p.returncode == 2 and p.stderr.startswith(f"error: {vegas}: flow[0].cc: "), p.stderr
    assert not (tmp_path / "out").exists()


def test_real_m1_is_catalogued_with_its_matrix() -> None:
    from lfnlab.reproduce.registry import find
    from lfnlab.reproduce.real_testbed.m1_matrix import FULL, _cells

    e = find("real.M1")
    assert e is not None
    cells = _cells(FULL)
    assert len(cells) == 12 and len({c.key for c in cells}) == 12
    asked = {c.key: c.key.rsplit("-", 1)[1] for c in cells}
    assert {(c.plan.cc, asked[c.key], c.plan.a_to_b.limit_bytes) for c in cells} == {
        (cc, pacing, kib * 1024) for cc in ("reno", "cubic", "bbr") for pacing in ("off", "internal") for kib in (128, 512)
    }
    c = cells[0]
    assert c.plan.a_to_b.rate_bps == 100_000_000 and c.plan.base_rtt_ns == 100_000_000 and c.plan.duration_s == 15
    # The kernel autotunes up to sndbuf/rcvbuf (tcp_wmem/tcp_rmem maxima): the simulator's twin runs them unlocked.
    for sim in c.sim_scenarios().values():
        flow = sim.to_dict()["flow"][0]
        assert (flow["sndbuf"], flow["tcp"]["sndbuf_lock"], flow["tcp"]["rcvbuf_lock"]) == ("32MiB", False, False)
    assert c.scenario.to_dict()["flow"][0]["tcp"]["rcvbuf_lock"] is True  # the testbed's side: as given


@pytest.mark.engine
def test_real_m1_runs_the_kernel_side_after_the_simulator_and_before_the_analysis(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The engine runs the simulator's cases; the testbed's runs follow them, then the
    analysis sees both. The testbed here is a stand-in: each kernel run is the simulator's
    run of the cell with a testbed verdict added (the code path, not the kernel, is tested)."""
    import dataclasses

    import lfnlab
    import lfnlab.compare.runs
    import lfnlab.testbed.lab
    from lfnlab.compare.runs import KernelOutcome
    from lfnlab.reproduce.real_testbed import m1_matrix as m
    from lfnlab.reproduce.real_testbed import matrix

    events: list[str] = []
    monkeypatch.setattr(lfnlab.testbed.lab, "check_host", lambda: events.append("check_host"))

    def kernel(jobs: list, workers: int, say: object) -> list:
        events.append("kernel " + " ".join(j.label for j in jobs))
        assert workers == matrix.TESTBED_LABS
        assert all((tmp_path / "runs" / f"{j.label.replace('kernel', 'sim')}" / "summary.json").is_file() for j in jobs)
        outcomes = []
        for j in jobs:
            r = lfnlab.run(j.scenario, out=j.out)
            flow = r.summary["flows"][0]
            verdict = {"bottleneck_drops_in_window": flow["retransmitted_segments"], "valid": True, "lateness_p99_us": 10.0}
            outcomes.append(KernelOutcome(j, dataclasses.replace(r, summary={**r.summary, "testbed": verdict}), None))
        return outcomes

    monkeypatch.setattr(lfnlab.compare.runs, "run_kernel", kernel)
    outcome = m.EXPERIMENT.run(True, 2, tmp_path)
    # check_host before any run; kernel jobs interleaved across the cells (repetition 1 of each).
    assert events == ["check_host", "kernel b128k-cubic-off-kernel-r1 b128k-cubic-internal-kernel-r1"]
    assert [r.label for r in outcome.runs] == sorted(f"b128k-cubic-{p}-{side}-r1" for p in ("off", "internal") for side in ("sim", "kernel"))
    assert all(c.passed for c in outcome.checks), [(c.name, c.measured) for c in outcome.checks]
    assert outcome.notes[0].startswith("Wall time: ") and "on 2 worker(s)" in outcome.notes[0]
    runs = outcome.tables[1].frame
    assert sorted(runs["side"]) == ["kernel", "kernel", "simulator", "simulator"]
    assert [f.name for f in outcome.figures] == ["F-M1a", "F-M1b", "F-M1c"]


# --- runs (root and network namespaces) ---------------------------------------


def _namespaces() -> set[str]:
    """The namespaces now (names only). A testbed run may remove orphans that another
    test's SIGKILLed run left (testbed/orphans.py), so a run leaves no namespace of its
    own when the set after it is within the set before it."""
    out = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True, check=True).stdout
    return {line.split()[0] for line in out.splitlines() if line.strip()}


@needs_testbed
def test_a_comparison_is_written_side_by_side(tmp_path: Path) -> None:
    before = _namespaces()
    out = tmp_path / "cmp"
    p = run_cli("compare", _scenario(tmp_path), "--out", out, "--repetitions", "2", timeout=180)
    assert p.returncode == 0, p.stderr
    for name in ("runs.csv", "summary.csv", "goodput.png", "cwnd.png", "pacing_rate.png", "report.md", "compare.json"):
        assert (out / name).is_file(), name
    runs = pd.read_csv(out / "runs.csv")
    assert list(runs["side"]) == ["simulator", "simulator", "kernel", "kernel"]
    assert (runs["status"] == "done").all(), runs["status"].tolist()
    for label in runs["run"]:
        assert json.loads((out / "runs" / label / "summary.json").read_text())["flows"][0]["goodput_bps"] > 0
    summary = pd.read_csv(out / "summary.csv")
    assert list(summary["metric"]) == ["goodput", "bottleneck drops", "random losses", "retransmitted segments"]
    report = (out / "report.md").read_text()
    assert "| goodput (Mbit/s) |" in report and "![cwnd](cwnd.png)" in report
    # A second comparison replaces the first; a foreign directory is refused.
    (tmp_path / "foreign").mkdir()
    (tmp_path / "foreign" / "notes.txt").write_text("mine")
    p = run_cli("compare", _scenario(tmp_path), "--out", tmp_path / "foreign", timeout=60)
    assert p.returncode == 2 and "refusing to replace it" in p.stderr, p.stderr
    assert _namespaces() <= before


@needs_testbed
def test_real_m1_quick_form_reports_every_cell(tmp_path: Path) -> None:
    before = _namespaces()
    out = tmp_path / "m1"
    p = run_cli("reproduce", "real.M1", "--quick", "--out", out, timeout=300)
    # 1 when a check fails: a host that delays a retransmission past iperf3's window
    # can do that; the report is complete either way.
    assert p.returncode in (0, 1), p.stderr
    matrix = pd.read_csv(out / "T-M1.csv")
    assert list(matrix["cell"]) == ["b128k-cubic-off", "b128k-cubic-internal"]
    assert (matrix["kernel_runs"] == 1).all() and (matrix["sim_goodput_Mbps"] > 0).all()
    runs = pd.read_csv(out / "T-M1-runs.csv")
    assert sorted(runs["side"]) == ["kernel", "kernel", "simulator", "simulator"]
    checks = json.loads((out / "checks.json").read_text())["checks"]
    assert {c["name"] for c in checks} >= {"testbed runs completed", "simulator runs whose packet conservation holds"}
    assert all(c["passed"] for c in checks if c["name"] == "testbed runs completed")
    for f in ("F-M1a.png", "F-M1b.png", "F-M1c.png", "report.md"):
        assert (out / f).is_file(), f
    assert _namespaces() <= before


@needs_testbed
def test_a_comparison_killed_with_sigterm_leaves_nothing(tmp_path: Path) -> None:
    """Two testbed runs at once in worker threads: SIGTERM reaches the main thread, and
    every run removes its namespaces and processes."""
    long = _scenario(tmp_path, CUBIC)
    p = subprocess.Popen(
        [*lfnlab_command(), "compare", str(long), "--out", str(tmp_path / "out"), "--repetitions", "2", "--workers", "2"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    children = _wait_for_transfer(p)
    time.sleep(2)
    children.update(_wait_for_transfer(p))
    p.send_signal(signal.SIGTERM)
    _, stderr = p.communicate(timeout=60)
    assert p.returncode == 1, stderr
    assert "stopped by SIGTERM" in stderr and "Traceback" not in stderr, stderr
    assert not (tmp_path / "out" / "report.md").exists()
    _assert_nothing_left(p.pid, children)


@pytest.mark.skipif(SKIP is None, reason="the testbed is available here: the refusal needs a host without it")
def test_without_a_testbed_compare_exits_2(tmp_path: Path) -> None:
    p = run_cli("compare", _scenario(tmp_path), "--out", tmp_path / "out", timeout=60)
    assert p.returncode == 2 and p.stderr.startswith("error: "), p.stderr
