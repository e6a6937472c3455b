"""TOML text for values given from Python: the ``VALUE`` of a ``--set KEY=VALUE``
override (scenarios and sweep plans), and a small writer for plans given as dicts (saved
as ``OUT/plan.toml``).

The core parses the text after ``=`` as a TOML value when it is one, else as a bare
string (crates/lfnlab-core/src/scenario/set.rs). A sweep always sends TOML, so a string
value such as ``"5"`` stays a string and never turns into the integer 5.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from typing import Any

__all__ = ["value_text", "dumps", "is_table_array"]

_BARE_KEY = re.compile(r"^[A-Za-z0-9_-]+$")


def key_text(key: str) -> str:
    """A table key: bare when TOML allows it, else quoted."""
    return key if _BARE_KEY.match(key) else json.dumps(key)


def value_text(value: Any) -> str:
    """``value`` (str, int, float, bool, list, dict) as one line of TOML value syntax."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return json.dumps(value)  # a JSON string is a TOML basic string
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return "nan"
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
        return repr(value)
    if isinstance(value, Mapping):
        items = ", ".join(f"{key_text(str(k))} = {value_text(v)}" for k, v in value.items())
        return "{ " + items + " }" if items else "{}"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(value_text(v) for v in value) + "]"
    raise TypeError(f"no TOML form for a {type(value).__name__}")


def is_table_array(value: Any) -> bool:
    return isinstance(value, (list, tuple)) and bool(value) and all(isinstance(v, Mapping) for v in value)


def dumps(document: Mapping[str, Any]) -> str:
    """A TOML document: scalars and arrays as ``key = value``, tables as ``[a.b]``
    sections, arrays of tables as ``[[a]]``."""
    lines: list[str] = []
    _table(lines, [], document)
    return "\n".join(lines).lstrip("\n") + "\n"


def _table(lines: list[str], path: list[str], table: Mapping[str, Any]) -> None:
    for k, v in table.items():
        if not isinstance(v, Mapping) and not is_table_array(v):
            lines.append(f"{key_text(str(k))} = {value_text(v)}")
    for k, v in table.items():
        here = [*path, key_text(str(k))]
        if isinstance(v, Mapping):
            lines += ["", f"[{'.'.join(here)}]"]
            _table(lines, here, v)
        elif is_table_array(v):
            for item in v:
                lines += ["", f"[[{'.'.join(here)}]]"]
                _table(lines, here, item)
