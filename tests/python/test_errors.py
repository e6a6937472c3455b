"""The exception hierarchy (STYLE point 12): one base, invalid input is a ValueError
carrying file and key path."""

from __future__ import annotations

import pickle

import pytest

import lfnlab
from lfnlab.errors import InvalidInputError, LfnlabError, OutputError, SimulationError


def test_hierarchy() -> None:
    assert issubclass(InvalidInputError, LfnlabError)
    assert issubclass(InvalidInputError, ValueError)
    assert issubclass(SimulationError, LfnlabError)
    assert issubclass(SimulationError, RuntimeError)
    assert issubclass(OutputError, LfnlabError)
    assert issubclass(OutputError, OSError)
    assert lfnlab.InvalidInputError is InvalidInputError
    assert lfnlab.errors.LfnlabError is LfnlabError


def test_invalid_input_carries_file_and_key_path() -> None:
    e = InvalidInputError("expected a size such as \"128KiB\"", "dumbbell.toml", "link[1].queue.limit")
    assert (e.message, e.file, e.key_path) == ("expected a size such as \"128KiB\"", "dumbbell.toml", "link[1].queue.limit")
    assert str(e) == "dumbbell.toml: link[1].queue.limit: expected a size such as \"128KiB\""
    assert str(InvalidInputError("not TOML", "x.toml", "")) == "x.toml: not TOML"
    with pytest.raises(ValueError):
        raise e


def test_invalid_input_survives_pickling() -> None:
    e = pickle.loads(pickle.dumps(InvalidInputError("m", "f", "k")))
    assert (e.message, e.file, e.key_path) == ("m", "f", "k")


def test_not_a_mapping_is_invalid_input() -> None:
    with pytest.raises(InvalidInputError) as info:
        lfnlab.Scenario.from_dict(["not", "a", "dict"])  # type: ignore[arg-type]
    assert info.value.file == "<dict>"


def test_load_result_of_a_non_result_directory(tmp_path) -> None:
    with pytest.raises(OutputError, match="not an lfnlab result directory"):
        lfnlab.load_result(tmp_path)
