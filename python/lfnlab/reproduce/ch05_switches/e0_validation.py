"""05.E5.0: model validation against the standard literature results (spec 05 §3 E5.0).

Four checks run the switch mechanisms under synthetic cell traffic (``_native.switch_check``,
the Rust module ``net::switch::saturation``): head-of-line blocking in M2, one PIM iteration,
iSLIP and output queueing under uniform Bernoulli arrivals. Two run whole scenarios on the
generator bench of :mod:`.path05`: the round-robin switch with two line-rate inputs, and the
generator's own timing.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from ...result import Result
from ..engine import Case, Experiment
from ..outcome import Check, Outcome, Table
from .path05 import bench_scenario, period_s, wire_bytes


@dataclass(frozen=True)
class Params:
    ports: int = field(metadata={"label": "N (cell checks)"})
    slots: int = field(metadata={"label": "measured slots (after 20 000 of warm-up)"})
    rr_duration_s: float = field(metadata={"label": "round-robin run", "unit": "s"})
    gen_duration_s: float = field(metadata={"label": "generator run", "unit": "s"})
    load: float = field(default=0.95, metadata={"label": "Bernoulli load (iSLIP, OQ)"})
    gen_tcs_mbps: tuple[float, ...] = field(default=(100.0, 500.0, 1000.0), metadata={"label": "generator TC", "unit": "Mbit/s"})
    seed: int = field(default=1, metadata={"label": "seed"})


FULL = Params(ports=32, slots=200_000, rr_duration_s=12.0, gen_duration_s=12.0)
QUICK = Params(ports=32, slots=20_000, rr_duration_s=1.0, gen_duration_s=0.5)

#: spec 05 §3 E5.0 pass criteria.
HOL_LIMIT = 2.0 - math.sqrt(2.0)
HOL_BAND = 0.02
PIM_BAND = 0.02
DELIVERED_MIN = 0.995
RR_BAND = 0.005


def _cell_check(name: str, p: Params) -> dict[str, int]:
    from ... import _native

    return dict(_native.switch_check(name, p.ports, p.slots, p.load, p.seed))


def _gen_label(tc: float) -> str:
    return f"gen-tc{round(tc):04d}"


def _frames_sent(flows: pd.DataFrame, monitor: str, flow: str) -> int:
    rows = flows[(flows["monitor"] == monitor) & (flows["flow"] == flow)]
    return int(rows["packets"].sum())


def _keep(r: Result) -> dict[str, Any]:
    return {"summary": r.summary, "flows": r.flows}


def cases(p: Params) -> list[Case]:
    """The two bench checks: the round robin at 1000 + 1000, and the generator alone at each TC."""
    out = [Case("rr-1000-1000", bench_scenario("05.E5.0-rr", config="rr_simple", tc1_mbps=1000, tc2_mbps=1000, duration_s=p.rr_duration_s, seed=p.seed, bin_s=0.1), _keep)]
    for tc in p.gen_tcs_mbps:
        out.append(Case(_gen_label(tc), bench_scenario(f"05.E5.0-{_gen_label(tc)}", config="oq_cs", tc1_mbps=tc, tc2_mbps=0, duration_s=p.gen_duration_s, seed=p.seed, bin_s=0.1, generator_monitor=True), _keep))
    return out


def analyse(p: Params, kept: Mapping[str, Any]) -> Outcome:
    n = p.ports
    # The cell checks are computations of the switch mechanisms, not scenarios: they run here.
    hol = _cell_check("hol_saturated", p)
    pim = _cell_check("pim_saturated", p)
    islip = _cell_check("islip_bernoulli", p)
    oq = _cell_check("oq_bernoulli", p)
    per_port = lambda t: t["delivered"] / t["capacity"]  # noqa: E731
    ratio = lambda t: t["delivered"] / t["offered"]  # noqa: E731
    pim_expect = 1.0 - (1.0 - 1.0 / n) ** n
    checks = [
        Check.within(f"head-of-line limit: M2, random selection, N = {n}, saturated, fixed cells: throughput per port",
                     per_port(hol), HOL_LIMIT - HOL_BAND, HOL_LIMIT + HOL_BAND, criterion=f"0.586 ± {HOL_BAND} (2 − √2)"),
        Check.within(f"iSLIP: M3, I = 1, N = {n}, Bernoulli load {p.load:g}, 1 MiB per input: delivered/offered",
                     ratio(islip), DELIVERED_MIN, None, criterion=f"≥ {DELIVERED_MIN}"),
        Check.within(f"PIM: M3, I = 1, N = {n}, every VOQ backlogged: throughput per port",
                     per_port(pim), pim_expect - PIM_BAND, pim_expect + PIM_BAND, criterion=f"1 − (1 − 1/N)^N = {pim_expect:.4f} ± {PIM_BAND}"),
        Check.within(f"output queueing: M1, N = {n}, Bernoulli load {p.load:g}: delivered/offered",
                     ratio(oq), DELIVERED_MIN, None, criterion=f"≥ {DELIVERED_MIN}"),
    ]
    flows = {f["name"]: f for f in kept["rr-1000-1000"]["summary"]["flows"]}
    a, b = (flows[f"flow{k}"]["bytes_delivered"] for k in (1, 2))
    for k, x in ((1, a), (2, b)):
        checks.append(Check.within(f"round robin: M4, two inputs at 1000 Mbit/s into one output: share of flow {k}",
                                   x / (a + b), 0.5 - RR_BAND, 0.5 + RR_BAND, criterion=f"0.5 ± {RR_BAND}"))
    w = wire_bytes(1500)
    for tc in p.gen_tcs_mbps:
        sent = _frames_sent(kept[_gen_label(tc)]["flows"], "ch2->dut", "flow1")
        expect = math.floor(p.gen_duration_s / period_s(1500, tc) + 1e-9) + 1
        checks.append(Check.equal(f"generator at TC {tc:g} Mbit/s: frames sent in [0, {p.gen_duration_s:g} s) (frame k at k·T)",
                                  sent, expect, criterion=f"= floor(D/T) + 1 = {expect}"))
        checks.append(Check.within(f"generator at TC {tc:g} Mbit/s: wire count", sent * w * 8 / p.gen_duration_s / 1e6,
                                   tc - w * 8 / p.gen_duration_s / 1e6, tc + w * 8 / p.gen_duration_s / 1e6, unit="Mbit/s",
                                   criterion="= TC within one frame"))
    table = pd.DataFrame([{"check": c.name, "measured": c.measured_text(), "criterion": c.criterion, "pass": c.passed} for c in checks])
    raw = pd.DataFrame([{"check": k, **v} for k, v in (("hol_saturated", hol), ("pim_saturated", pim), ("islip_bernoulli", islip), ("oq_bernoulli", oq))])
    return Outcome(
        checks=checks,
        tables=[
            Table("T5.0", "One row per check of spec 05 §3 E5.0, with its pass criterion and whether it holds.", table),
            Table("T5.0-cells", "Raw counts of the cell-level checks: cells offered, delivered and dropped in the measurement "
                  "window, left queued at the end, and the window's capacity (ports × slots).", raw),
        ],
        notes=[
            "The cell checks run the switch mechanisms themselves (`net/switch/saturation.rs`) with outputs that take one cell "
            "per slot, as in the literature; a warm-up of 20 000 slots precedes the measurement window.",
            f"Karol et al. give 0.5858 for large N; at N = {n} the exact finite-N value is a little higher.",
        ],
    )


EXPERIMENT = Experiment(
    id="05.E5.0",
    title="switch model validation",
    summary="literature checks of the switch models: HOL blocking 2 − √2, one PIM iteration 1 − (1 − 1/N)^N, iSLIP and "
    "output queueing at load 0.95, round-robin 50/50 split, generator timing (T5.0)",
    reference="spec 05 §3 (E5.0), §2.2–2.5",
    checks=(
        "Every row of T5.0 is a check with the spec's pass criterion; the experiment fails if one does not hold. The cell "
        "checks use N = 32 and synthetic traffic; the round-robin and generator checks run whole scenarios on the bench."
    ),
    full=FULL,
    quick=QUICK,
    cases=cases,
    analyse=analyse,
)

__all__ = ["EXPERIMENT", "FULL", "QUICK", "Params", "cases", "analyse"]
