"""The error messages of bad input, listed for a reader to judge (issue 12):
``docs/reference/error-messages.md`` is the catalogue below with the message each
case gives now. Every message names its key path or argument and what was expected.

Regenerate the page after a deliberate change: ``LFNLAB_BLESS=1 pytest tests/python/test_error_messages.py``.
"""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path
from typing import Any

import pytest

import lfnlab
from support import ROOT, run_cli

PAGE = ROOT / "docs" / "reference" / "error-messages.md"

#: Scenario overrides of examples/dumbbell.toml (the Python API and `--set` take the same path).
SCENARIO: list[tuple[str, dict[str, Any]]] = [
    ("a rate without a unit", {"link[1].rate": 500}),
    ("an unknown rate unit", {"link[1].rate": "500Mb"}),
    ("a negative time", {"link[1].delay": "-1ms"}),
    ("a size that is not one", {"link[1].queue.limit": "lots"}),
    ("an unknown key", {"link[1].colour": "red"}),
    ("a link to an unknown node", {"link[1].from": "wam"}),
    ("an unknown congestion control", {"flow[0].cc": "tahoe"}),
    ("an unknown node kind", {"node[1].kind": "hub"}),
    ("a zero duration", {"sim.duration": "0s"}),
    ("a negative seed", {"sim.seed": -1}),
    ("a string for a count", {"node[0].txqueuelen": "many"}),
    ("an MTU out of range", {"node[0].mtu": 100000}),
    ("an IP version that is neither", {"node[0].ip_version": 5}),
    ("an unknown pacing kind", {"flow[0].pacing": {"kind": "warp"}}),
    ("an unknown queue kind", {"link[1].queue.kind": "red_ish"}),
    ("an index past the end", {"flow[5].cc": "cubic"}),
    ("a monitor link without an arrow", {"monitor[0].link": "a-b"}),
    ("a trace mode that does not exist", {"sim.trace.mode": "verbose"}),
    ("a capture of a link that does not exist", {"capture": [{"link": "snd->rcv"}]}),
    ("a capture snap length below the Ethernet minimum", {"capture": [{"link": "snd->wan", "snaplen": "10B"}]}),
    ("a zero event limit", {"sim.max_events": 0}),
    ("a monitor bin of 1 ns over a 60 s run", {"monitor[0].bin": "1ns"}),
]

#: Sweep plans, as the TOML text after the `[sweep]` header line.
PLANS: list[tuple[str, str]] = [
    ("a plan without a base scenario", '[sweep]\nname = "p"\n'),
    ("an axis without values", '[sweep]\nscenario = "dumbbell.toml"\n[[axis]]\nkey = "flow[0].cc"\nvalues = []\n'),
    ("an axis key that is not a key path", '[sweep]\nscenario = "dumbbell.toml"\n[[axis]]\nkey = "flow[0.cc"\nvalues = ["cubic"]\n'),
    ("an unknown plan key", '[sweep]\nscenario = "dumbbell.toml"\nrepeat = 3\n'),
    ("a zero repetition count", '[sweep]\nscenario = "dumbbell.toml"\nrepetitions = 0\n'),
]

#: Command lines (run in a scratch directory that holds dumbbell.toml and plan.toml).
COMMANDS: list[tuple[str, list[str]]] = [
    ("a scenario file that does not exist", ["run", "absent.toml"]),
    ("an override without '='", ["run", "dumbbell.toml", "--set", "sim.duration"]),
    ("an output directory that is a file", ["run", "dumbbell.toml", "--out", "dumbbell.toml"]),
    ("an unknown bench scenario", ["bench", "--scenario", "nope"]),
    ("an unknown experiment", ["reproduce", "09.X1", "--quick"]),
    ("zero sweep workers", ["sweep", "plan.toml", "--workers", "0"]),
    ("a report of a directory that is no result", ["report", "."]),
]

EXPECTS = re.compile(r"expected|must|one of|nodes are|no link joins|out of range|at least|no such|unknown|not an? |missing|give ", re.IGNORECASE)


def _scenario_message(sets: dict[str, Any]) -> tuple[str, str]:
    with pytest.raises(lfnlab.InvalidInputError) as e:
        lfnlab.Scenario.from_file(ROOT / "examples" / "dumbbell.toml", set=sets)
    return e.value.key_path, e.value.message


def _plan_message(tmp: Path, text: str) -> tuple[str, str]:
    plan = tmp / "plan.toml"
    plan.write_text(text, encoding="utf-8")
    with pytest.raises(lfnlab.InvalidInputError) as e:
        lfnlab.sweep(plan, out=tmp / "never")
    return e.value.key_path, e.value.message


def collect(tmp: Path) -> list[tuple[str, str, str, str]]:
    """(surface, case, input, message) of every case."""
    shutil.copyfile(ROOT / "examples" / "dumbbell.toml", tmp / "dumbbell.toml")
    rows = []
    for case, sets in SCENARIO:
        key, message = _scenario_message(sets)
        assert key, f"{case}: no key path in {message!r}"
        rows.append(("scenario", case, ", ".join(f"`{k} = {v!r}`" for k, v in sets.items()), f"{key}: {message}"))
    for case, text in PLANS:
        key, message = _plan_message(tmp, text)
        assert key, f"{case}: no key path in {message!r}"
        rows.append(("sweep plan", case, "`" + text.strip().replace("\n", "⏎") + "`", f"{key}: {message}"))
    (tmp / "plan.toml").write_text('[sweep]\nscenario = "dumbbell.toml"\n[[axis]]\nkey = "flow[0].cc"\nvalues = ["cubic"]\n', encoding="utf-8")
    for case, args in COMMANDS:
        p = run_cli(*args, cwd=tmp)
        assert p.returncode == 2, (case, p.stdout, p.stderr)
        assert "Traceback" not in p.stderr and "panicked" not in p.stderr, (case, p.stderr)
        first = p.stderr.strip().splitlines()[0]
        rows.append(("command line", case, "`lfnlab " + " ".join(args) + "`", first))
    return rows


def page(rows: list[tuple[str, str, str, str]]) -> str:
    lines = [
        "# Error messages",
        "",
        "<!-- Generated by tests/python/test_error_messages.py (LFNLAB_BLESS=1): do not edit by hand. -->",
        "",
        "What lfnlab answers to bad input, case by case, so that a reader can judge the messages.",
        "Every one names the file or argument, the key path and what was expected; the exit",
        "status is 2. Scenario cases are overrides of `examples/dumbbell.toml`; plan cases are",
        "whole plan files; command-line cases run in a directory holding `dumbbell.toml` and a",
        "valid `plan.toml`.",
        "",
    ]
    for surface in ("scenario", "sweep plan", "command line"):
        lines += [f"## {surface[0].upper() + surface[1:]}", "", "| Case | Input | Message |", "|---|---|---|"]
        for s, case, given, message in rows:
            if s == surface:
                cell = message.replace("|", "\\|")
                lines.append(f"| {case} | {given.replace('|', chr(92) + '|')} | {cell} |")
        lines.append("")
    return "\n".join(lines)


def test_every_message_names_its_key_and_what_was_expected(tmp_path: Path) -> None:
    rows = collect(tmp_path)
    vague = [(case, m) for _, case, _, m in rows if not EXPECTS.search(m)]
    assert not vague, vague
    text = page(rows)
    if os.environ.get("LFNLAB_BLESS"):
        PAGE.write_text(text, encoding="utf-8")
    assert PAGE.is_file() and PAGE.read_text(encoding="utf-8") == text, (
        "docs/reference/error-messages.md is stale: LFNLAB_BLESS=1 pytest tests/python/test_error_messages.py"
    )
