"""Quantities as scenario strings (spec 00 §2.1) and as text for reports.

Scenario strings are exact: a rate in whole bit/s, a size in whole bytes, a time
in whole nanoseconds, written in the largest unit that divides the value.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Union

# The scenario strings are the public builder's (lfnlab.build).
from ..build import rate, size, time

__all__ = ["rate", "size", "time", "show_rate", "show_time", "show_size", "describe"]


def show_rate(bps: float) -> str:
    for factor, unit in ((1e9, "Gbit/s"), (1e6, "Mbit/s"), (1e3, "kbit/s")):
        if bps >= factor:
            return f"{bps / factor:g} {unit}"
    return f"{bps:g} bit/s"


def show_time(seconds: float) -> str:
    if seconds == 0 or seconds >= 1:
        return f"{seconds:g} s"
    if seconds >= 1e-3:
        return f"{seconds * 1e3:g} ms"
    return f"{seconds * 1e6:g} µs"


def show_size(nbytes: float) -> str:
    """Binary units for whole KiB/MiB (memory, spec 06 §1.1), else decimal."""
    n = int(nbytes) if float(nbytes).is_integer() else None
    if n is not None and n >= 2**20 and n % 2**20 == 0:
        return f"{n // 2**20} MiB"
    if n is not None and n >= 2**10 and n % 2**10 == 0 and n < 2**20:
        return f"{n // 2**10} KiB"
    if nbytes >= 1e6:
        return f"{nbytes / 1e6:g} MB"
    if nbytes >= 1e3:
        return f"{nbytes / 1e3:g} kB"
    return f"{nbytes:g} B"


_SHOW = {"bps": show_rate, "s": show_time, "B": show_size}


def _show(value: Any, unit: Union[str, tuple[str, ...]]) -> str:
    if isinstance(unit, tuple):  # a list of records, one unit per position: "(a, b); (c, d)"
        return "; ".join("(" + ", ".join(_show(x, u) for x, u in zip(v, unit)) + ")" for v in value) if value else "—"
    if isinstance(value, (tuple, list)):
        return ", ".join(_show(v, unit) for v in value)
    if value is None:
        return "—"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if unit in _SHOW and isinstance(value, (int, float)):
        return _SHOW[unit](value)
    if isinstance(value, float):
        return f"{value:g}" + (f" {unit}" if unit else "")
    return str(value) + (f" {unit}" if unit else "")


def describe(params: Any) -> list[tuple[str, str]]:
    """(label, value) rows of a parameters dataclass whose fields carry
    ``metadata={"label": ..., "unit": ...}`` (unit ``bps``, ``s``, ``B`` or free text; for a
    tuple of records, a tuple of such units, one per position)."""
    rows = []
    for f in dataclasses.fields(params):
        label = f.metadata.get("label", f.name)
        rows.append((label, _show(getattr(params, f.name), f.metadata.get("unit", ""))))
    return rows
