"""The golden digests still describe the scenarios the quick reproductions build.

tests/golden/digests.json (scripts/golden.py, the refactor proof of issues 36 and 37) holds,
for every run of every quick reproduction, the digest of its resolved ``scenario.toml``. The
suite checks the examples' digests by running them (test_golden); running every quick
reproduction takes too long for CI, so a change of an experiment's parameters could leave
its golden entry stale unseen (04.E4.2's best B after b8c74f0 did). Building a scenario is
cheap and nothing runs here: each quick form's cases are built and their resolved TOML
(``Scenario.to_toml``, what a run writes to ``scenario.toml``) must match the recorded
digest, and the labels must match the recorded run directories. A failure means: re-record
that experiment (``scripts/golden.py record --only reproduce:ID``) in the commit that
changed it, and say so there.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest
from lfnlab.reproduce.engine import Case
from lfnlab.reproduce.registry import catalogue

GOLDEN = Path(__file__).resolve().parents[1] / "golden" / "digests.json"
RECORDED: dict[str, Any] = json.loads(GOLDEN.read_text(encoding="utf-8"))
EXPERIMENTS = {e.id: e for e in catalogue()}
KEYS = sorted(k.split(":", 1)[1] for k in RECORDED if k.startswith("reproduce:"))


def test_golden_covers_every_simulated_experiment() -> None:
    # scripts/golden.py leaves out the testbed's real.* experiments.
    assert set(KEYS) == {i for i in EXPERIMENTS if not i.startswith("real.")}


@pytest.mark.parametrize("experiment_id", KEYS)
def test_quick_scenarios_match_golden(experiment_id: str) -> None:
    e = EXPERIMENTS[experiment_id]
    runs = RECORDED[f"reproduce:{experiment_id}"]["runs"]
    built = {c.label: c.scenario for c in e.cases(e.quick) if isinstance(c, Case)}
    assert sorted(built) == sorted(runs), "the quick form's run labels differ from the golden record"
    stale = [
        label
        for label, scenario in built.items()
        if hashlib.sha256(scenario.to_toml().encode("utf-8")).hexdigest() != runs[label]["files"]["scenario.toml"]
    ]
    assert stale == [], f"{experiment_id}: scenario.toml differs from the golden record for {stale[:5]}"
