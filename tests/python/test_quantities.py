"""The parameter rows of reports and experiment pages (`reproduce.quantities.describe`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

from lfnlab.reproduce import quantities as q


@dataclass(frozen=True)
class _P:
    rtts_s: tuple[float, ...] = field(default=(0.0, 0.1), metadata={"label": "RTT", "unit": "s"})
    best: Optional[tuple[tuple[int, float, float], ...]] = field(
        default=((9198, 0.1, 512 * 2**20), (1500, 0.0, 2**20)), metadata={"label": "best", "unit": ("bytes", "s", "B")}
    )
    none: Optional[tuple[tuple[int, float, float], ...]] = field(default=None, metadata={"unit": ("bytes", "s", "B")})


def test_records_show_each_position_in_its_own_unit() -> None:
    rows = dict(q.describe(_P()))
    assert rows["RTT"] == "0 s, 100 ms"
    assert rows["best"] == "(9198 bytes, 100 ms, 512 MiB); (1500 bytes, 0 s, 1 MiB)"
    assert rows["none"] == "—"
    assert dict(q.describe(_P(best=())))["best"] == "—"
