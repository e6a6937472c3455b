"""The spec 05 §2.8 checklist criteria on hand-made T5.1/T5.3/T5.4 rows."""

from __future__ import annotations

from typing import Any

import pandas as pd
from lfnlab.reproduce.ch05_switches import checklist05 as ck

FULL = 1000 * 1518 / 1538  # R_line·L2/W, Mbit/s


def _t51(config: str, a: int, b: int, **kw: Any) -> dict[str, Any]:
    row = {"config": config, "variant": "main", "TC1_Mbps": a, "TC2_Mbps": b, "f1_mean_Mbps": FULL / 2, "f2_mean_Mbps": FULL / 2,
           "f1_var_Mbps2": 0.0, "f2_var_Mbps2": 0.0, "f1_ratio_out_in": 1.0, "f2_ratio_out_in": 1.0, "aggregate_mean_Mbps": FULL,
           "starvation_ms": 0.0, "unfair_ms": 0.0, "f1_levels": 1}
    row.update(kw)
    return row


def test_b1_needs_a_long_starvation_and_a_full_aggregate() -> None:
    main = pd.DataFrame([
        _t51("x", 1000, 1000, starvation_ms=150.0),
        _t51("y", 1000, 1000, starvation_ms=150.0, aggregate_mean_Mbps=0.9 * FULL),
        _t51("z", 1000, 1000, starvation_ms=90.0),
    ])
    sweeps = pd.DataFrame(columns=main.columns)
    t = ck.e51_behaviours(main, sweeps, ("x", "y", "z", "w"))
    assert list(t["B1"]) == ["yes", "no", "no", "—"]
    assert list(t["B10"]) == ["—"] * 4, "no 64-byte run: not tested"
    assert ck.nobody(t)[:1] == ["B2"]


def test_b6_needs_every_saturated_pair_even_and_steady() -> None:
    even = [_t51("rr", a, b) for a, b in ((1000, 1000), (900, 800))]
    uneven = [_t51("oq", 1000, 1000), _t51("oq", 900, 800, f1_mean_Mbps=600.0, f2_mean_Mbps=FULL - 600.0)]
    t = ck.e51_behaviours(pd.DataFrame(even + uneven), pd.DataFrame(columns=list(even[0])), ("rr", "oq"))
    assert list(t["B6"]) == ["yes", "no"]


def test_b7_forms_and_b8_from_run_lengths_and_gaps() -> None:
    def row(config: str, tc: int, run: float, burst: int, gaps: dict[int, int]) -> dict[str, Any]:
        r: dict[str, Any] = {"config": config, "TC1_Mbps": tc, "TC2_Mbps": tc}
        for f in (1, 2):
            r[f"f{f}_mean_run"] = run
            r[f"f{f}_burst_max"] = burst
            for k in range(1, 9):
                r[f"f{f}_dseq_{k}"] = gaps.get(k, 0)
            r[f"f{f}_dseq_>8"] = gaps.get(9, 0)
        return r

    t53 = pd.DataFrame([row("rr", 1000, 1.0, 1, {2: 1000}), row("rr", 400, 1.0, 0, {1: 1000}),
                        row("oq", 1000, 4000.0, 13000, {1: 990, 9: 10}), row("oq", 400, 1.0, 0, {1: 1000})])
    t = ck.e53_behaviours(t53, ("rr", "oq"))
    assert list(t["B7s"]) == ["yes", "no"] and list(t["B7n"]) == ["no", "yes"] and list(t["B8"]) == ["yes", "yes"]


def test_b9_splits_regular_and_noisy_at_five_percent() -> None:
    fits = pd.DataFrame([{"config": "a", "slope": 1.0, "residual_std_over_mean_loss": 0.01},
                         {"config": "b", "slope": 0.5, "residual_std_over_mean_loss": 0.2},
                         {"config": "c", "slope": 0.0, "residual_std_over_mean_loss": 0.0}])
    t = ck.e54_behaviours(fits)
    assert list(t["B9r"]) == ["yes", "no", "no"] and list(t["B9n"]) == ["no", "yes", "no"]


def test_every_behaviour_has_a_stated_criterion() -> None:
    assert set(ck.CRITERIA) >= {"B1", "B2", "B3", "B4", "B5", "B6", "B7s", "B7n", "B8", "B9r", "B9n", "B10", "B11v", "B11r", "B11s"}
    c = ck.criteria_table(["B1", "B6"])
    assert list(c["behaviour"]) == ["B1", "B6"] and all(len(x) > 20 for x in c["criterion (CHOICE)"])


def test_tables_give_the_checklist_and_the_criteria_of_its_behaviours() -> None:
    t = pd.DataFrame([{"config": "oq_cs", "B9r": "no", "B9n": "yes"}])
    checklist, criteria = ck.tables("E5.4", "Which configuration shows B9", t)
    assert (checklist.name, checklist.caption) == ("B-checklist-E5.4", "Which configuration shows B9, by the criteria of B-criteria-E5.4.")
    assert checklist.frame is t
    assert (criteria.name, criteria.caption) == ("B-criteria-E5.4", "The numeric criterion of each behaviour (CHOICE).")
    assert list(criteria.frame["behaviour"]) == ["B9r", "B9n"]
    assert ck.tables("E5.5", "B11", t, each="each part of B11")[1].caption == "The numeric criterion of each part of B11 (CHOICE)."
