"""Atheris fuzz target: the sweep plan parser and checker (issue 12 §1; docs/sweep.md).

    .venv/bin/python fuzz/python/sweep_plan.py CORPUS_DIR... -max_total_time=60

Each input is a plan file's text, written beside a copy of the examples so that
``sweep.scenario = "dumbbell.toml"`` resolves. Loading answers a plan, or an
``InvalidInputError`` naming the plan file and, for anything inside the plan, a
key path; anything else (another exception, a panic surfacing as one) is a crash.
A plan that loads expands into its runs (ids, overrides) without error.
"""

from __future__ import annotations

import shutil
import sys
import tempfile
from pathlib import Path

import atheris

with atheris.instrument_imports(include=["lfnlab"]):
    from lfnlab.errors import InvalidInputError
    from lfnlab.sweep.plan import load_plan

ROOT = Path(__file__).resolve().parents[2]
WORK = Path(tempfile.mkdtemp(prefix="lfnlab-fuzz-plan-"))
for example in (ROOT / "examples").glob("*.toml"):
    shutil.copy(example, WORK / example.name)
PLAN = WORK / "plan.toml"


def one_input(data: bytes) -> None:
    PLAN.write_bytes(data)
    try:
        plan = load_plan(PLAN)
    except InvalidInputError as e:
        assert e.file == str(PLAN) or e.file.startswith(str(WORK)), f"error names {e.file!r}: {e}"
        assert e.message, repr(e)
        return
    # Only plans that stay small are expanded: a huge grid is valid but not this target's business.
    if plan.total <= 10_000:
        points = plan.points()
        assert len(points) == plan.total
        assert len({p.run_id for p in points}) == len(points), "run ids collide"


def main() -> None:
    try:
        atheris.Setup(sys.argv, one_input)
        atheris.Fuzz()
    finally:
        shutil.rmtree(WORK, ignore_errors=True)


if __name__ == "__main__":
    main()
