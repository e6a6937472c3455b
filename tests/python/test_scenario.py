"""Scenarios from files and dicts go through the same loader (spec 00 §2.2)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

import lfnlab
from lfnlab.errors import InvalidInputError
from support import DUMBBELL_2S, ROOT, write_variant

if sys.version_info >= (3, 11):
    import tomllib
else:
    import tomli as tomllib


def dumbbell_dict() -> dict:
    return tomllib.loads(DUMBBELL_2S.read_text(encoding="utf-8"))


def test_from_dict_resolves_like_from_file(dumbbell_copy: Path) -> None:
    from_file = lfnlab.Scenario.from_file(dumbbell_copy)
    d = dumbbell_dict()
    d["sim"]["name"] = "dumbbell"  # a file's default name is its stem
    from_dict = lfnlab.Scenario.from_dict(d)
    assert from_dict.to_toml() == from_file.to_toml()
    assert from_dict == from_file


def test_default_names(dumbbell_copy: Path) -> None:
    assert lfnlab.Scenario.from_file(dumbbell_copy).name == "dumbbell"
    assert lfnlab.Scenario.from_dict(dumbbell_dict()).name == "scenario"


def test_resolved_toml_is_complete_and_stable(dumbbell_copy: Path) -> None:
    s = lfnlab.Scenario.from_file(dumbbell_copy)
    resolved = s.to_dict()
    assert resolved["sim"]["seed"] == 1
    assert len(resolved["node"]) == 3 and len(resolved["link"]) == 2 and len(resolved["flow"]) == 1
    # The resolved scenario loads back to itself (scenario.toml runs unchanged).
    again = dumbbell_copy.with_name("resolved.toml")
    again.write_text(s.to_toml(), encoding="utf-8")
    assert lfnlab.Scenario.from_file(again).to_toml() == s.to_toml()


def test_set_overrides(dumbbell_copy: Path) -> None:
    base = lfnlab.Scenario.from_file(dumbbell_copy)
    as_dict = lfnlab.Scenario.from_file(dumbbell_copy, set={"sim.seed": 7, "link[1].queue.limit": "256KiB"})
    as_list = lfnlab.Scenario.from_file(dumbbell_copy, set=["sim.seed=7", "link[1].queue.limit=256KiB"])
    assert as_dict == as_list
    assert as_dict != base
    assert as_dict.to_dict()["sim"]["seed"] == 7
    assert base.with_set({"sim.seed": 7, "link[1].queue.limit": "256KiB"}) == as_dict
    assert base.with_set({"sim.seed": 7}).with_set({"link[1].queue.limit": "256KiB"}) == as_dict
    assert base.with_set({}) == base
    assert as_dict.sets == ("sim.seed=7", "link[1].queue.limit=256KiB")


def test_unknown_key_in_dict_names_the_key_path() -> None:
    d = dumbbell_dict()
    d["link"][1]["bogus"] = 1
    with pytest.raises(InvalidInputError) as info:
        lfnlab.Scenario.from_dict(d)
    e = info.value
    assert isinstance(e, ValueError)
    assert e.file == "<dict>"
    assert e.key_path.startswith("link[1]")
    assert "bogus" in str(e)


def test_unknown_key_in_file_names_file_and_key_path(tmp_path: Path) -> None:
    p = write_variant(tmp_path, "typo.toml", 'cc = "newreno"', 'cc = "newreno"\ncolor = "blue"')
    with pytest.raises(ValueError) as info:
        lfnlab.Scenario.from_file(p)
    e = info.value
    assert isinstance(e, InvalidInputError)
    assert e.file.endswith("typo.toml")
    assert e.key_path.startswith("flow[0]")
    assert "color" in str(e)


@pytest.mark.parametrize(
    ("old", "new", "key_path"),
    [
        ('limit = "128KiB"', 'limit = "128 lightyears"', "link[1].queue.limit"),
        ('rate = "500Mbps"', 'rate = "500Mbit"', "link[1].rate"),
        ('delay = "100ms"', "delay = 100", "link[1].delay"),
        ('duration = "2s"', 'duration = "2 fortnights"', "sim.duration"),
    ],
)
def test_bad_unit_names_the_key_path(tmp_path: Path, old: str, new: str, key_path: str) -> None:
    p = write_variant(tmp_path, "bad_unit.toml", old, new)
    with pytest.raises(InvalidInputError) as info:
        lfnlab.Scenario.from_file(p)
    assert info.value.key_path == key_path
    assert info.value.file.endswith("bad_unit.toml")
    assert info.value.message


def test_bad_unit_in_dict_and_in_set(dumbbell_copy: Path) -> None:
    d = dumbbell_dict()
    d["link"][1]["queue"]["limit"] = "lots"
    with pytest.raises(InvalidInputError) as info:
        lfnlab.Scenario.from_dict(d)
    assert info.value.key_path == "link[1].queue.limit"
    with pytest.raises(InvalidInputError) as info:
        lfnlab.Scenario.from_file(dumbbell_copy, set={"link[1].queue.limit": "lots"})
    assert info.value.key_path == "link[1].queue.limit"


def test_missing_file_is_invalid_input(tmp_path: Path) -> None:
    with pytest.raises(InvalidInputError) as info:
        lfnlab.Scenario.from_file(tmp_path / "absent.toml")
    assert info.value.file.endswith("absent.toml")


def test_example_dumbbell_loads() -> None:
    """examples/dumbbell.toml is the flagship job of scripts/bootstrap (spec 00 §2.2)."""
    s = lfnlab.Scenario.from_file(ROOT / "examples" / "dumbbell.toml")
    assert s.name == "dumbbell"
