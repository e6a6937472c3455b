"""scripts/e52-grid-time: the issue-8 timing bench runs the experiment's grid code for the
configurations given, writes their T5.2, and rejects a bad argument with exit status 2."""

import subprocess
import sys
from pathlib import Path

import pandas as pd

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "e52-grid-time"


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True, timeout=600)


def test_quick_grid_of_one_configuration(tmp_path: Path) -> None:
    r = _run("rr_simple", str(tmp_path), "--quick", "--workers", "2")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "runs 121" in r.stdout and "FAIL" not in r.stdout
    grid = pd.read_csv(tmp_path / "T5.2.csv")
    assert set(grid["config"]) == {"rr_simple"} and len(grid) == 121
    assert grid["conservation_holds"].all()


def test_unknown_configuration_is_refused(tmp_path: Path) -> None:
    r = _run("rr_simple,no_such_switch", str(tmp_path), "--quick")
    assert r.returncode == 2
    assert "configs: expected names among" in r.stderr and "no_such_switch" in r.stderr
    assert not (tmp_path / "T5.2.csv").exists()
