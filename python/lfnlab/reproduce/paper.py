"""The papers' published values beside ours: the "Against the paper" section of a report
(issue 39, "What to build" 2).

Only values that reach the code through the spec or an issue are used; each carries its
source. A published value is a point or a range (``low``–``high``); ours agrees with it
when it lies within ±20 % of the range (issue 39's reading of "agrees numerically"). Where
ours differs, the experiment supplies one line naming the mechanism (``why``); a difference
without one is shown as "not explained", never hidden.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Optional

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["Published", "PUBLISHED", "TOLERANCE", "comparison", "COLUMNS"]

#: Relative band around a published value within which ours agrees (issue 39).
TOLERANCE = 0.20

COLUMNS = ["quantity", "paper", "ours", "unit", "ratio", "verdict", "why", "source"]


@dataclass(frozen=True)
class Published:
    """One published value: ``key`` names it within its experiment."""

    key: str
    quantity: str
    low: float
    high: float
    unit: str
    source: str

    @property
    def text(self) -> str:
        if math.isinf(self.high):
            return f"more than {_num(self.low)}"
        return _num(self.low) if self.low == self.high else f"{_num(self.low)}–{_num(self.high)}"

    def agrees(self, ours: float) -> bool:
        if self.low == self.high == 0:
            return ours == 0
        return self.low * (1 - TOLERANCE) <= ours <= self.high * (1 + TOLERANCE)

    def ratio(self, ours: float) -> float:
        """ours / the middle of the range (/ the bound of an open range "more than")."""
        mid = self.low if math.isinf(self.high) else (self.low + self.high) / 2
        return ours / mid if mid else math.nan


def _num(v: float) -> str:
    return f"{v:g}"


def _more_than(key: str, quantity: str, bound: float, unit: str, source: str) -> Published:
    """A published lower bound ("more than ``bound``"): ours agrees from 80 % of it up."""
    return Published(key, quantity, bound, math.inf, unit, source)


def _point(key: str, quantity: str, value: float, unit: str, source: str) -> Published:
    return Published(key, quantity, value, value, unit, source)


_I39 = "issue 39 item"
_FAST_GAP = tuple(
    _point(f"fast-gap-bw-{b}", f"Table IV(b) FAST, gap pacing, {b} KiB: bandwidth", 54.7, "MB/s", f"{_I39} 1")
    for b in (64, 128, 256, 512)
) + tuple(
    _point(f"fast-gap-drops-{b}", f"Table IV(b) FAST, gap pacing, {b} KiB: TailDrops", 0, "frames", f"{_I39} 1")
    for b in (64, 128, 256, 512)
)
_SCALABLE_GAP = tuple(
    Published(f"scalable-gap-bw-{b}", f"Table III(b) Scalable, gap pacing, {b} KiB: bandwidth", 55.8, 57.1, "MB/s", f"{_I39} 2")
    for b in (64, 128, 256, 512)
) + tuple(
    Published(f"scalable-gap-drops-{b}", f"Table III(b) Scalable, gap pacing, {b} KiB: TailDrops", 0, 791, "frames", f"{_I39} 2")
    for b in (64, 128, 256, 512)
)

#: Published values per experiment id, in report order.
PUBLISHED: dict[str, tuple[Published, ...]] = {
    "01.E4": (
        _point("sb-over-full", "Table V: `socket buffer` throughput ÷ `full rate` (\"about half\")", 0.5, "ratio", "spec 01 §4 (E4)"),
        _point("pacing-over-full", "Table V: `pacing` throughput ÷ `full rate` (\"about half\")", 0.5, "ratio", "spec 01 §4 (E4)"),
        _point("sb-over-pacing", "Table V: `socket buffer` ÷ `pacing` throughput (\"about the same\")", 1.0, "ratio", "spec 01 §4 (E4)"),
    ),
    "01.E2": (
        _point("scalable-off-drops-128", "Table III(a) Scalable, no pacing, 128 KiB: TailDrops", 2403, "frames", f"{_I39} 4"),
        _point("scalable-off-drops-256", "Table III(a) Scalable, no pacing, 256 KiB: TailDrops", 1526, "frames", f"{_I39} 4"),
        _point("scalable-off-drops-512", "Table III(a) Scalable, no pacing, 512 KiB: TailDrops", 2946, "frames", f"{_I39} 4"),
        *_SCALABLE_GAP,
        _point("fast-off-bw-64", "Table IV(a) FAST, no pacing, 64 KiB: bandwidth", 12.9, "MB/s", f"{_I39} 3"),
        _point("fast-off-bw-128", "Table IV(a) FAST, no pacing, 128 KiB: bandwidth", 20.4, "MB/s", f"{_I39} 3"),
        _point("fast-off-bw-256", "Table IV(a) FAST, no pacing, 256 KiB: bandwidth", 21.0, "MB/s", f"{_I39} 3"),
        *_FAST_GAP,
    ),
    "02.E2": (
        _point("eta-iw", "η for a transfer that fits in the initial window (ours: the point farthest from 1)", 1.0, "ratio", "spec 02 §5 item 4"),
        Published("peak-size", "response size of the largest η (\"roughly 10 kB to 1 MB\"; ours: median over CC and RTT)", 10e3, 1e6,
                  "B", "spec 02 §5 item 4"),
    ),
    "03.F1": (
        Published("fe-q25000-median", "Table 1, FE, txqueuelen 25000: Middle", 88.6, 88.7, "Mbps", f"{_I39} 5; spec 03 §2.10"),
    ),
    "03.F3": (
        _point("ipg1023-mean", "Figs. 8–9, IPG 1023: average throughput", 453, "Mbps", f"{_I39} 5"),
        _point("ipg8-mean", "Figs. 8–9, IPG 8: average throughput", 53, "Mbps", f"{_I39} 5"),
    ),
    "03.F5": (
        _point("cps-best", "Figs. 18–19, CPS on: best trial", 123, "Mbps", f"{_I39} 5"),
        _point("off-best", "Figs. 18–19, CPS off: best trial", 65.4, "Mbps", f"{_I39} 5"),
    ),
    "03.F7": (_point("ipg-cps-best", "Fig. 20, IPG 256 + CPS: best trial", 208, "Mbps", f"{_I39} 5"),),
    "05.E5.1": (
        _point("f1-var-800-600", "Table I, 800 + 600: flow 1's variance over 100-ms bins (ours: oq_cs)", 4, "(Mbit/s)²", f"{_I39} 8"),
        _point("f1-min-800-600", "Table I, 800 + 600: flow 1's smallest 100-ms bin (ours: oq_cs)", 566, "Mbit/s", f"{_I39} 8"),
        _point("f1-max-800-600", "Table I, 800 + 600: flow 1's largest 100-ms bin (ours: oq_cs)", 574, "Mbit/s", f"{_I39} 8"),
        _point("episode-900-900", "900 + 900: episodes in which one flow wins (ours: oq_cs, mean)", 0.3, "s", f"{_I39} 8"),
        _more_than("starvation-1000-1000", "1000 + 1000, nonblocking class: longest starvation of one flow (ours: oq_cs)", 100, "ms",
                   "spec 05 §2.8 B1, §4"),
        _point("min-1000-1000", "1000 + 1000, nonblocking class: smallest 100-ms bin of a flow (\"down to zero\"; ours: oq_cs)", 0,
               "Mbit/s", "spec 05 §4"),
    ),
    "05.E5.2": (
        _point("ratio-below-line", "ratio out/in below the no-congestion line (ours: the smallest, any flow and configuration)", 1.0,
               "ratio", "spec 05 §4"),
    ),
    "05.E5.5": tuple(
        _point(f"{dev}-f{k}", f"Table II, D-Link, BIC+SACK, 50 ms, flow {k} (ours: rr_simple, {what})", v, "Mbit/s", f"{_I39} 6")
        for dev, what in (("static", "static split"), ("shared", "shared pool"))
        for k, v in ((1, 208.0), (2, 168.0))
    ),
    "04.E4.4": tuple(
        _point(f"k95-b-{rtt}", f"window buffer the 2.6 hosts needed, k·BDP (ours: variant (b), φ = ¾, smallest k reaching 95 % at {rtt} ms)",
               3, "× BDP", "spec 04 §2.8, 06 §2.3")
        for rtt in (100, 200, 400)
    ),
    "04.E4.3": (
        _point("t_up-100", "start-up at 100 ms (\"almost 2 second\")", 2.0, "s", f"{_I39} 7"),
        _point("t_up-400", "start-up at 400 ms (\"6 second\")", 6.0, "s", f"{_I39} 7"),
    ),
}


def comparison(experiment_id: str, ours: Mapping[str, Optional[float]], why: Mapping[str, str]) -> pd.DataFrame:
    """The "Against the paper" rows of ``experiment_id``: every published value with ours
    (``ours[key]``; a missing key is a value this form did not run), the ratio, the verdict
    and, where they differ, ``why[key]``."""
    import pandas as pd

    rows = []
    for p in PUBLISHED.get(experiment_id, ()):
        v = ours.get(p.key)
        if v is None or (isinstance(v, float) and math.isnan(v)):
            rows.append([p.quantity, p.text, "—", p.unit, math.nan, "not run", "", p.source])
            continue
        ok = p.agrees(float(v))
        rows.append(
            [
                p.quantity,
                p.text,
                float(v),
                p.unit,
                p.ratio(float(v)),
                "agrees" if ok else "differs",
                "" if ok else why.get(p.key, "not explained"),
                p.source,
            ]
        )
    return pd.DataFrame(rows, columns=COLUMNS)
