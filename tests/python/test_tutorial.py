"""docs/tutorial.md runs top to bottom as written (issue 40): every shell and Python block
in order, in a fresh directory that holds the repository's `examples/`, with `lfnlab` on
the PATH. Only the install block is left out: the suite runs in the installed package."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from support import ROOT

pytestmark = pytest.mark.engine

BLOCK = re.compile(r"```(sh|python)\n(.*?)```", re.S)


def blocks() -> list[tuple[str, str]]:
    text = (ROOT / "docs" / "tutorial.md").read_text(encoding="utf-8")
    return [(kind, code) for kind, code in BLOCK.findall(text) if "python3 -m venv" not in code]


def test_the_tutorial_runs_top_to_bottom(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    if shutil.which("tshark") is None:
        pytest.skip("tshark is not installed (the tutorial's pcap step reads a capture with it)")
    (tmp_path / "examples").symlink_to(ROOT / "examples")
    env = dict(os.environ, PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}", MPLBACKEND="Agg")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("MPLBACKEND", "Agg")
    scope: dict[str, object] = {}
    ran = []
    for kind, code in blocks():
        if kind == "sh":
            p = subprocess.run(["bash", "-e", "-o", "pipefail", "-c", code], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600)
            assert p.returncode == 0, f"{code}\n--- stdout\n{p.stdout[-2000:]}\n--- stderr\n{p.stderr[-2000:]}"
        else:
            exec(compile(code, "docs/tutorial.md", "exec"), scope)
        ran.append(kind)
    assert ran.count("sh") >= 5 and ran.count("python") >= 3, ran
    # What the blocks said they would leave behind.
    for made in ("out/dumbbell/report.html", "out/dumbbell-pcap/access.pcap", "out/sweep-buffers/index.parquet", "out/06.V1/report.html"):
        assert (tmp_path / made).is_file(), made
