"""Rates, sizes and times of a *resolved* scenario as exact integers.

The core's loader has already checked every value (spec 00 §2.1), so this only
reads the unit tables of docs/reference/scenario-keys.md ("Value types").
"""

from __future__ import annotations

import re
from fractions import Fraction

__all__ = ["rate_bps", "size_bytes", "time_ns"]

_NUMBER = re.compile(r"^([0-9.eE+-]+)\s*(.*)$")

_RATE_UNITS = {
    "bps": 1, "kbps": 10**3, "Mbps": 10**6, "Gbps": 10**9, "Tbps": 10**12,
    "B/s": 8, "kB/s": 8 * 10**3, "KB/s": 8 * 10**3, "MB/s": 8 * 10**6, "GB/s": 8 * 10**9,
}  # fmt: skip
_SIZE_UNITS = {
    "B": 1, "KiB": 2**10, "MiB": 2**20, "GiB": 2**30, "kB": 10**3, "KB": 10**3, "MB": 10**6, "GB": 10**9,
}  # fmt: skip
_TIME_UNITS_NS = {
    "ps": Fraction(1, 1000), "ns": 1, "us": 10**3, "µs": 10**3, "μs": 10**3, "ms": 10**6, "s": 10**9,
}  # fmt: skip


def _parse(text: str, units: dict[str, int | Fraction], what: str) -> Fraction:
    m = _NUMBER.match(text.strip())
    if m is None or m.group(2) not in units:
        raise ValueError(f"expected a {what} such as the scenario loader writes, got {text!r}")
    return Fraction(m.group(1)) * units[m.group(2)]


def rate_bps(text: str) -> int:
    """``"100Mbps"`` → 100000000."""
    return int(_parse(text, _RATE_UNITS, "rate"))


def size_bytes(text: str) -> int:
    """``"128KiB"`` → 131072."""
    return int(_parse(text, _SIZE_UNITS, "size"))


def time_ns(text: str) -> int:
    """``"50ms"`` → 50000000 (rounded down to whole ns)."""
    return int(_parse(text, _TIME_UNITS_NS, "time"))
