"""Helpers of the sweep tests (test_sweep*.py): plan files and result comparisons."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Optional

from support import DUMBBELL_2S, ROOT

from lfnlab import toml_text

#: Wall-clock and per-invocation fields: everything else of a run must be identical
#: whatever the backend or the number of workers.
WALL_COLUMNS = ("wall_seconds",)
RECORD_FILE = "sweep.json"


def write_plan(
    path: Path,
    axes: list[dict[str, Any]],
    *,
    scenario: Optional[Path] = None,
    sets: Optional[dict[str, Any]] = None,
    repetitions: Optional[int] = None,
    seed: Optional[int] = None,
    name: Optional[str] = None,
) -> Path:
    """A plan file at ``path`` on the 2 s dumbbell (1 s runs unless ``sets`` says otherwise)."""
    sweep: dict[str, Any] = {"scenario": os.fspath(scenario or DUMBBELL_2S)}
    if name is not None:
        sweep["name"] = name
    if repetitions is not None:
        sweep["repetitions"] = repetitions
    if seed is not None:
        sweep["seed"] = seed
    sweep["set"] = {"sim.duration": "1s", **(sets or {})}
    path.write_text(toml_text.dumps({"sweep": sweep, "axis": axes}), encoding="utf-8")
    return path


def json_lines(stderr: str) -> list[dict[str, Any]]:
    """The JSON progress objects among stderr's lines."""
    return [json.loads(line) for line in stderr.splitlines() if line.startswith("{")]


def run_dirs(out: Path) -> list[str]:
    """Every entry of ``out/runs`` (hidden staging names included)."""
    return sorted(p.name for p in (out / "runs").iterdir())


def stamp(run_dir: Path) -> tuple[int, int]:
    """Inode and modification time of a run's record: unchanged unless the run was rewritten."""
    st = os.stat(run_dir / RECORD_FILE)
    return st.st_ino, st.st_mtime_ns


def comparable_files(run_dir: Path) -> dict[str, Any]:
    """A run directory's content, wall-clock fields removed: every file's bytes, except
    ``summary.json`` (parsed, without ``wall_seconds``) and the sweep record."""
    out: dict[str, Any] = {}
    for p in sorted(run_dir.rglob("*")):
        if not p.is_file() or p.name == RECORD_FILE:
            continue
        rel = p.relative_to(run_dir).as_posix()
        if rel == "summary.json":
            summary = json.loads(p.read_text(encoding="utf-8"))
            summary.pop("wall_seconds", None)
            out[rel] = summary
        else:
            out[rel] = p.read_bytes()
    return out


EXAMPLES = ROOT / "examples"
