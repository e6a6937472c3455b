"""The golden digests (scripts/golden.py, issues 36 and 37): every example scenario
still gives the event hash and result files recorded in tests/golden/digests.json.
The reproductions' digests take minutes; run `python scripts/golden.py check` for
those before and after a refactor."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_examples_match_their_golden_digests() -> None:
    p = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "golden.py"), "check", "--examples", "--workers", "1"],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert p.returncode == 0, p.stdout[-4000:] + p.stderr[-2000:]
    assert "0 differences" in p.stdout
