"""What an experiment hands to the report: checks, tables, figures and its runs.

An experiment computes every value from its run outputs (spec 06 §7); these
classes only carry the values and say whether each criterion holds.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Optional, Union

if TYPE_CHECKING:
    import pandas as pd
    from matplotlib.figure import Figure as MplFigure

__all__ = ["Check", "Table", "Figure", "RunRecord", "Outcome", "AGREES", "expectation", "expectations_table", "verdict", "shown"]

Measured = Union[float, int, bool, str]


def _fmt(value: Any, digits: int = 6) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return "n/a"
        text = f"{value:.{digits}g}"
        # A value that only rounds to a whole number shows the digits that tell it is
        # not one (issue 40: 06.V1 printed "1" for a ratio of 0.99999991).
        d = digits
        while math.isfinite(value) and value != round(value) and float(text) == round(value) and d < 17:
            d += 1
            text = f"{value:.{d}g}"
        return text
    return str(value)


@dataclass(frozen=True)
class Check:
    """One pass criterion and the value measured for it.

    Attributes:
        name: what is checked, e.g. ``goodput newreno [20, 60] s``.
        measured: the value computed from the run outputs.
        criterion: the rule in words, e.g. ``≥ 0.98·bound and ≤ bound + 0.1 %``.
        passed: whether ``measured`` satisfies the criterion.
        lower, upper: numeric bounds when the criterion is an interval (inclusive).
        unit: unit of ``measured`` and the bounds (``bit/s``, ``s``, ``rounds``; empty if none).
    """

    name: str
    measured: Measured
    criterion: str
    passed: bool
    lower: Optional[float] = None
    upper: Optional[float] = None
    unit: str = ""

    @classmethod
    def within(
        cls,
        name: str,
        measured: float,
        lower: Optional[float],
        upper: Optional[float],
        *,
        unit: str = "",
        criterion: str = "",
    ) -> Check:
        """``lower ≤ measured ≤ upper`` (either bound may be None). NaN never passes."""
        ok = not (isinstance(measured, float) and math.isnan(measured))
        if lower is not None:
            ok = ok and measured >= lower
        if upper is not None:
            ok = ok and measured <= upper
        if not criterion:
            u = f" {unit}" if unit else ""
            if lower is not None and upper is not None:
                criterion = f"in [{_fmt(lower)}, {_fmt(upper)}]{u}"
            elif lower is not None:
                criterion = f"≥ {_fmt(lower)}{u}"
            else:
                criterion = f"≤ {_fmt(upper)}{u}"
        return cls(name, measured, criterion, bool(ok), lower, upper, unit)

    @classmethod
    def equal(cls, name: str, measured: Measured, expected: Measured, *, unit: str = "", criterion: str = "") -> Check:
        """``measured == expected`` (exact: for counts, hashes and flags)."""
        return cls(name, measured, criterion or f"= {_fmt(expected)}", measured == expected, unit=unit)

    def measured_text(self) -> str:
        return _fmt(self.measured) + (
            f" {self.unit}" if self.unit and not isinstance(self.measured, (bool, str)) else ""
        )

    def to_json(self) -> dict[str, Any]:
        measured: Any = self.measured
        if hasattr(measured, "item"):  # a numpy scalar
            measured = measured.item()
        if isinstance(measured, float) and not math.isfinite(measured):
            measured = None  # JSON has no NaN/inf
        return {
            "name": self.name,
            "measured": measured,
            "unit": self.unit,
            "lower": self.lower,
            "upper": self.upper,
            "criterion": self.criterion,
            "passed": self.passed,
        }


@dataclass(frozen=True)
class Table:
    """A result table: written as ``OUT/<name>.csv`` and shown in the report.

    ``digits`` is the number of significant digits of floats in the report (the CSV keeps all).
    """

    name: str
    caption: str
    frame: pd.DataFrame = field(repr=False)
    digits: int = 6


@dataclass(frozen=True)
class Figure:
    """A figure: written as ``OUT/<name>.png`` and embedded in the report."""

    name: str
    caption: str
    figure: MplFigure = field(repr=False)


@dataclass(frozen=True)
class RunRecord:
    """One raw run of the experiment: its label and result directory (relative to OUT)."""

    label: str
    directory: str
    summary: dict[str, Any] = field(repr=False)


@dataclass
class Outcome:
    """Everything an experiment produced. ``notes`` are paragraphs for the report
    (how a value is measured, a caveat); ``runs`` is filled in by the run context."""

    checks: list[Check] = field(default_factory=list)
    tables: list[Table] = field(default_factory=list)
    figures: list[Figure] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    runs: list[RunRecord] = field(default_factory=list)
    #: "Against the paper" rows (:func:`lfnlab.reproduce.paper.comparison`), or None.
    paper: Optional[pd.DataFrame] = None

    @property
    def passed(self) -> bool:
        """True when there is at least one check and every check passed."""
        return bool(self.checks) and all(c.passed for c in self.checks)

    def failed(self) -> list[Check]:
        return [c for c in self.checks if not c.passed]


#: What an ``expectations`` row may say of the paper's expectation: chapters 01, 03 and 04
#: judge ``yes`` / ``no`` / ``partly``, chapter 02 ``shown`` / ``not shown`` (spec 02 §5).
AGREES = ("yes", "no", "partly", "shown", "not shown")


def expectation(text: str, observed: str, agrees: str, notes: str = "") -> dict[str, str]:
    """One row of an ``expectations`` table: the paper's sentence (shortened), what was
    measured, the verdict (one of :data:`AGREES`), and how it was read from the numbers."""
    if agrees not in AGREES:
        raise ValueError(f"agrees must be one of {', '.join(AGREES)}, got {agrees!r}")
    return {"expectation": text, "observed": observed, "agrees": agrees, "notes": notes}


def expectations_table(rows: Sequence[Mapping[str, str]]) -> pd.DataFrame:
    """The ``expectations`` table of a reproduction."""
    import pandas as pd

    return pd.DataFrame(list(rows), columns=["expectation", "observed", "agrees", "notes"])


def verdict(ok: Optional[bool]) -> str:
    """``yes``/``no`` (``partly`` when ``None``)."""
    return "partly" if ok is None else ("yes" if ok else "no")


def shown(ok: bool) -> str:
    """``shown``/``not shown`` (spec 02 §5)."""
    return "shown" if ok else "not shown"
