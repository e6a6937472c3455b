"""Every bad-input case of the issue-2 acceptance list, through the command line
(exit status 2, message naming the file and the key path, no traceback or panic) and
through the Python API (a ValueError subclass carrying the key path)."""

from __future__ import annotations

from pathlib import Path

import pytest

import lfnlab
from support import DUMBBELL_2S, run_cli

ISOLATED = """
[[node]]
name = "iso"
kind = "host"

[[node]]
name = "r2"
kind = "router"

[[link]]
from = "iso"
to = "r2"
rate = "1Gbps"
delay = "1ms"
"""

# (case, old text, new text, key path the error must name)
CASES = [
    ("unknown key", 'rate = "500Mbps"', 'rate = "500Mbps"\ncolour = "red"', "link[1].colour"),
    ("bare number", 'rate = "500Mbps"', "rate = 500", "link[1].rate"),
    ("wrong unit", 'rate = "500Mbps"', 'rate = "500Mb"', "link[1].rate"),
    ("negative delay", 'delay = "100ms"', 'delay = "-100ms"', "link[1].delay"),
    ("link to an unknown node", 'from = "wan"', 'from = "wam"', "link[1].from"),
    ("missing required field", 'rate = "500Mbps"', "", "link[1].rate"),
    ("unknown congestion control", 'cc = "newreno"', 'cc = "tahoe"', "flow[0].cc"),
    ("duplicate node name", 'name = "wan"', 'name = "snd"', "node[1].name"),
    ("no route between a flow's ends", 'to = "rcv"\ncc', 'to = "iso"\ncc', "flow[0]"),
]


def variant(tmp: Path, old: str, new: str, extra: str = "") -> Path:
    text = DUMBBELL_2S.read_text(encoding="utf-8")
    assert old in text, old
    p = tmp / "bad.toml"
    p.write_text(text.replace(old, new, 1) + extra, encoding="utf-8")
    return p


@pytest.mark.parametrize("case,old,new,key_path", CASES, ids=[c[0] for c in CASES])
def test_cli_and_api_name_file_and_key_path(tmp_path: Path, case: str, old: str, new: str, key_path: str) -> None:
    bad = variant(tmp_path, old, new, ISOLATED if case.startswith("no route") else "")
    p = run_cli("validate", bad)
    assert p.returncode == 2, (case, p.stdout, p.stderr)
    assert p.stderr.startswith(f"error: {bad}: {key_path}"), (case, p.stderr)
    assert "Traceback" not in p.stderr and "panicked" not in p.stderr
    with pytest.raises(ValueError) as info:
        lfnlab.Scenario.from_file(bad)
    err = info.value
    assert isinstance(err, lfnlab.errors.InvalidInputError)
    assert err.key_path.startswith(key_path), (case, err.key_path)
    assert err.file == str(bad)


def test_toml_syntax_error_names_file_and_line(tmp_path: Path) -> None:
    bad = variant(tmp_path, "seed = 1", "seed = = 1")
    p = run_cli("validate", bad)
    assert p.returncode == 2
    assert p.stderr.startswith(f"error: {bad}"), p.stderr
    assert "line" in p.stderr, p.stderr
    with pytest.raises(ValueError):
        lfnlab.Scenario.from_file(bad)


def test_run_also_refuses_bad_input(tmp_path: Path) -> None:
    bad = variant(tmp_path, 'rate = "500Mbps"', 'rate = "500Mb"')
    p = run_cli("run", bad, "--out", tmp_path / "out")
    assert p.returncode == 2
    assert not (tmp_path / "out").exists()
