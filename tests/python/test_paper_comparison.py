"""The "Against the paper" table (issue 39, What to build 2): published values beside ours,
the ratio, the verdict and the named mechanism where they differ."""

from __future__ import annotations

import math

import pytest

from lfnlab.reproduce.paper import COLUMNS, PUBLISHED, TOLERANCE, Published, comparison


def test_a_point_agrees_within_the_tolerance_band() -> None:
    p = Published("k", "q", 100.0, 100.0, "MB/s", "issue 39 item 1")
    assert p.agrees(100 * (1 + TOLERANCE)) and p.agrees(100 * (1 - TOLERANCE))
    assert not p.agrees(100 * (1 + TOLERANCE) + 1e-9) and not p.agrees(79.0)
    assert p.ratio(50.0) == pytest.approx(0.5)


def test_a_range_and_a_zero() -> None:
    r = Published("k", "q", 55.8, 57.1, "MB/s", "s")
    assert r.text == "55.8–57.1" and r.agrees(45.0) and not r.agrees(44.0)
    z = Published("z", "q", 0, 0, "frames", "s")
    assert z.agrees(0) and not z.agrees(1) and math.isnan(z.ratio(3))


def test_comparison_rows_name_the_mechanism_or_say_it_is_missing() -> None:
    keys = [p.key for p in PUBLISHED["03.F3"]]
    frame = comparison("03.F3", {keys[0]: 453.0, keys[1]: 10.0}, {})
    assert list(frame.columns) == COLUMNS
    assert list(frame["verdict"]) == ["agrees", "differs"]
    assert list(frame["why"]) == ["", "not explained"]
    frame = comparison("03.F3", {keys[1]: 10.0}, {keys[1]: "the interface queue"})
    assert list(frame["verdict"]) == ["not run", "differs"] and frame["why"].iloc[1] == "the interface queue"
    assert comparison("no.such", {}, {}).empty


def test_every_published_value_has_a_source_and_a_unique_key() -> None:
    for exp, values in PUBLISHED.items():
        keys = [p.key for p in values]
        assert len(keys) == len(set(keys)), exp
        assert all(p.source and p.low <= p.high for p in values), exp


def test_a_lower_bound_agrees_from_eighty_percent_of_it_up() -> None:
    b = Published("k", "q", 100.0, math.inf, "ms", "spec")
    assert b.text == "more than 100"
    assert b.agrees(80.0) and b.agrees(1e6) and not b.agrees(79.0)
    assert b.ratio(250.0) == pytest.approx(2.5)


def test_every_experiment_with_published_values_compares_them() -> None:
    """An experiment listed in PUBLISHED must set its report's rows (``comparison("ID", …)``);
    a report without them says that no published value reaches the code."""
    import re
    from pathlib import Path

    import lfnlab.reproduce as pkg

    sources = "\n".join(p.read_text(encoding="utf-8") for p in Path(pkg.__file__).parent.rglob("*.py"))
    for exp in PUBLISHED:
        assert re.search(r"comparison\(\s*[\"']" + re.escape(exp) + r"[\"']", sources), exp
