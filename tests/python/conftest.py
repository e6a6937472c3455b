"""Shared fixtures. Tests marked ``engine`` run the simulator; the others need only
the scenario loader and the package."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from support import DUMBBELL_2S


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "engine: runs the simulator (lfnlab_core::sim::run)")


@pytest.fixture()
def dumbbell_copy(tmp_path: Path) -> Path:
    """The 2 s dumbbell copied to a scratch directory as ``dumbbell.toml``."""
    p = tmp_path / "dumbbell.toml"
    shutil.copyfile(DUMBBELL_2S, p)
    return p
