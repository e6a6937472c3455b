"""Scenarios: loaded from TOML files or built from nested dicts, resolved by the core.

A :class:`Scenario` is the fully resolved scenario (every default filled in), as
the core's loader produced it. The same Rust code validates files and dicts, so
both raise the same :class:`~lfnlab.errors.InvalidInputError` with a key path.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any, Union

from . import _native
from .errors import InvalidInputError
from .toml_text import value_text

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python < 3.11 only
    import tomli as tomllib

__all__ = ["Scenario", "Sets"]

#: Overrides: ``{"link[1].queue.limit": "256KiB"}`` or ``["link[1].queue.limit=256KiB"]``.
Sets = Union[Mapping[str, Any], Iterable[str], None]


def _format_value(value: Any) -> str:
    """A Python value as the text after ``=`` in ``--set KEY=VALUE``."""
    # A string goes as typed (the core reads it as TOML or as a bare string);
    # anything else as its TOML value text.
    return value if isinstance(value, str) else value_text(value)


def _normalize_sets(sets: Sets) -> tuple[str, ...]:
    if sets is None:
        return ()
    if isinstance(sets, str):
        return (sets,)
    if isinstance(sets, Mapping):
        return tuple(f"{key}={_override_text(str(key), value)}" for key, value in sets.items())
    return tuple(str(s) for s in sets)


def _override_text(key: str, value: Any) -> str:
    try:
        return _format_value(value)
    except TypeError:
        # The core names overrides "--set" (scenario::SET_ORIGIN).
        raise InvalidInputError(
            f"expected a string, number, boolean, list or table, got {type(value).__name__}", "--set", key
        ) from None


class Scenario:
    """A resolved scenario. Build one with :meth:`from_file` or :meth:`from_dict`.

    Overrides are kept and re-applied to the original input, so a derived
    default (a host NIC rate taken from its link, say) follows an overridden value.
    """

    __slots__ = ("_file", "_json", "_origin", "_sets", "_toml")

    def __init__(self, *, _file: Path | None, _json: str | None, _origin: str, _sets: tuple[str, ...]) -> None:
        self._file = _file
        self._json = _json
        self._origin = _origin
        self._sets = _sets
        if _file is not None:
            self._toml = _native.load_scenario_file(str(_file), list(_sets))
        else:
            assert _json is not None
            self._toml = _native.load_scenario_dict(_json, _origin, list(_sets))

    @classmethod
    def from_file(cls, path: str | os.PathLike[str], set: Sets = None) -> Scenario:
        """Load a scenario file (TOML), applying ``set`` overrides.

        Raises InvalidInputError naming the file and the key path.
        """
        return cls(_file=Path(path), _json=None, _origin=os.fspath(path), _sets=_normalize_sets(set))

    @classmethod
    def from_dict(cls, d: Mapping[str, Any], set: Sets = None, *, origin: str = "<dict>") -> Scenario:
        """Build a scenario from nested dicts shaped like the TOML file.

        ``{"sim": {...}, "node": [{...}], "link": [...], "flow": [...], "monitor": [...]}``.
        Quantities are strings with units (``"1Gbps"``, ``"128KiB"``, ``"100ms"``).
        Raises InvalidInputError naming ``origin`` and the key path.
        """
        if not isinstance(d, Mapping):
            from .errors import InvalidInputError

            raise InvalidInputError(f"expected a mapping, got {type(d).__name__}", origin, "")
        text = json.dumps(d, default=os.fspath)
        return cls(_file=None, _json=text, _origin=origin, _sets=_normalize_sets(set))

    def with_set(self, set: Sets) -> Scenario:
        """A copy with more overrides, e.g. ``s.with_set({"sim.duration": "2s"})``."""
        return Scenario(_file=self._file, _json=self._json, _origin=self._origin, _sets=self._sets + _normalize_sets(set))

    def to_toml(self) -> str:
        """The resolved scenario as TOML, every default filled in (as written to ``scenario.toml``)."""
        return self._toml

    def to_dict(self) -> dict[str, Any]:
        """The resolved scenario as nested dicts."""
        return tomllib.loads(self._toml)

    @property
    def name(self) -> str:
        """``sim.name``: given, or the file stem, or ``scenario`` for a dict."""
        sim = self.to_dict().get("sim", {})
        return str(sim.get("name", "scenario"))

    @property
    def origin(self) -> str:
        """The file path, or the ``origin`` given to :meth:`from_dict`."""
        return self._origin

    @property
    def sets(self) -> tuple[str, ...]:
        """The overrides applied, as ``KEY=VALUE`` strings."""
        return self._sets

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Scenario) and self._toml == other._toml

    def __hash__(self) -> int:
        return hash(self._toml)

    def __repr__(self) -> str:
        return f"Scenario(name={self.name!r}, origin={self._origin!r})"
