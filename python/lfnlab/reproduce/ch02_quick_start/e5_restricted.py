"""02.E5: restricted capacity for Quick-Start (spec 02 §4.6).

02.E4 repeated with the QS function's threshold θ ∈ {1.0, 0.5} (spec 02 §2.5.4, §6 point
4; 0.25 and 0.75 are options of ``thresholds``): for each U, six slow-start runs and six
Quick-Start runs per θ (Reno, Cubic × three HTTP variants), 3600 s, 60 s warm-up.

With θ·C = 5 Mbit/s even an idle link cannot take the 5.12 Mbit/s request: ``target_reduce``
lowers every approval to at most code_floor(θ·C) = 2.56 Mbit/s (spec 02 §4.6 note). That is
a property of the admission formula and is checked on the largest approved rate of the runs
(not on the "full" counts: an idle-restart request may ask for less than 5.12 Mbit/s, spec 02
§6 point 27, and be approved in full).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from ..engine import Case, Experiment
from ..outcome import Check, Figure, Outcome, Table
from .path02 import RATE_BPS, WEB_FLOW, code_floor_bps, qs_rate_bps
from .common02 import expectation, expectations_table, flow_entry, shown
from . import e4_users as e4
from .e4_users import USERS, benefit, per_users, sweep_variants, users_figure
from .web02 import RATE_CODE, RTT_S, WARMUP_S, Variant, runs_table, web_cases, web_checks


#: A "clear" benefit at the smallest U (reading of spec 02 §5 point 8): 10 % of SS.
CLEAR_BENEFIT = 0.10


@dataclass(frozen=True)
class Params(e4.Params):
    """02.E4's parameters and the thresholds θ."""

    thresholds: tuple[float, ...] = field(default=(1.0, 0.5), metadata={"label": "QS thresholds θ"})


FULL = Params(users=USERS, duration_s=3600.0)
QUICK = Params(users=(1, 10), duration_s=600.0)


def sweep_modes(p: Params) -> list[tuple[str, float]]:
    """Slow start (θ does not apply) and Quick-Start at each θ: (mode, θ)."""
    return [("ss", 1.0)] + [("qs", th) for th in p.thresholds]


def cases(p: Params) -> list[Case]:
    """02.E4's runs, the Quick-Start ones once per θ."""
    return web_cases("02.E5", sweep_variants(p, sweep_modes(p)), p.duration_s, p.seed)


def mode_name(thresh: float) -> str:
    return Variant("", "", "", "qs", 1, thresh).mode_label


def threshold_checks(vs: Sequence[Variant], kept: Mapping[str, Mapping[str, Any]]) -> list[Check]:
    """Spec 02 §2.5.4: the budget θ·C − util_bw never exceeds θ·C, so no approval exceeds
    code_floor(θ·C) (nor the request)."""
    out = []
    for th in sorted({v.thresh for v in vs if v.mode == "qs"}):
        cap = min(code_floor_bps(th * RATE_BPS), qs_rate_bps(RATE_CODE))
        qs = [v for v in vs if v.mode == "qs" and v.thresh == th]
        top = max(float(flow_entry(kept[v.label]["summary"], WEB_FLOW)["web"].get("qs_approved_max_bps") or 0.0) for v in qs)
        out.append(
            Check.within(
                f"θ = {th:g}: largest approved rate of any run",
                top / 1e6,
                None,
                cap / 1e6,
                unit="Mbit/s",
                criterion=f"≤ min(code_floor(θ·C), Rate({RATE_CODE})) = {cap / 1e6:g} Mbit/s (θ·C = {th * RATE_BPS / 1e6:g} Mbit/s)",
            )
        )
    return out


def expectations(pu: pd.DataFrame, thresholds: Sequence[float]) -> pd.DataFrame:
    """Spec 02 §5 point 8: with part of the capacity there is still a clear benefit."""
    out = []
    for th in thresholds:
        if th >= 1.0:
            continue
        b = benefit(pu, mode_name(th))
        out.append(
            expectation(
                f"§5.8 with only {th:.0%} of the capacity for Quick-Start there is still a clear benefit over slow start",
                ", ".join(f"U={int(r.users)} {r.benefit_rel:.0%}" for r in b.itertuples()),
                shown(bool(len(b) and (b["benefit_rel"] > 0).all() and b["benefit_rel"].iloc[0] >= CLEAR_BENEFIT)),
                f"shown if QS θ={th:g} has a lower mean download time than SS at every U (benefit 1 − QS/SS > 0) and "
                f"gains at least {CLEAR_BENEFIT:.0%} at the smallest U, the under-used link where §5.7 expects Quick-Start "
                "to help; near saturation the benefit of every θ is small (02.E4)",
            )
        )
    return expectations_table(out)


def analyse(p: Params, kept: Mapping[str, Any]) -> Outcome:
    vs = sweep_variants(p, sweep_modes(p))
    runs = runs_table(vs, kept, p.duration_s)
    out = Outcome()
    out.checks += web_checks(vs, kept, p.duration_s)
    out.checks += threshold_checks(vs, kept)
    pu = per_users(runs)
    ben = pd.concat([benefit(pu, mode_name(th)).assign(mode=mode_name(th), thresh=th) for th in p.thresholds], ignore_index=True)
    out.tables.append(
        Table(
            f"E5_{p.model}",
            f"Per mode (SS, QS per θ) and U over the {len(p.https) * len(p.ccs)} runs (HTTP × CC): as 02.E4's table "
            f"(objects started after {WARMUP_S:g} s).",
            pu,
            digits=4,
        )
    )
    out.tables.append(Table("E5_runs", "Every run: inputs (θ in `thresh`) and measurements.", runs, digits=5))
    out.tables.append(Table("E5_benefit", "Per θ and U: SS and QS mean download time and the relative benefit 1 − QS/SS.", ben, digits=4))
    out.tables.append(Table("expectations", "Spec 02 §5 point 8: qualitative, not checks; `notes` says how `agrees` is read.", expectations(pu, p.thresholds)))
    out.figures.append(
        Figure(
            f"E5_{p.model}",
            "Left: mean object download time vs users for SS and Quick-Start at each θ (bars: smallest and largest run "
            "mean). Middle: the meter's utilization. Right: approval ratio and mean approved rate per θ.",
            users_figure(pu, f"02.E5: {p.model} model, RTT {RTT_S * 1e3:g} ms, θ ∈ {{{', '.join(f'{t:g}' for t in p.thresholds)}}}"),
        )
    )
    out.notes.append(
        "θ limits the sum of the metered rate and the recently approved rates (spec 02 §6 point 4), not the rate of "
        "one connection: a QS connection may still grow beyond θ·C by its congestion control after the QS phase."
    )
    return out


EXPERIMENT = Experiment(
    id="02.E5",
    title="Quick-Start: restricted capacity for Quick-Start",
    summary="02.E4 repeated with the QS threshold θ = 1.0 and 0.5: mean object download time of 1–30 Web users with "
    "slow start and with Quick-Start at each θ",
    reference="spec 02 §4.6, §2.5.4",
    checks=(
        "The Web-run properties of 02.E3 over every run, and the admission bound of spec 02 §2.5.4: no approval exceeds "
        "code_floor(θ·C), so with θ = 0.5 (5 Mbit/s < the 5.12 Mbit/s request) no approval exceeds 2.56 Mbit/s. Spec 02 §5 point 8 is compared in the `expectations` table."
    ),
    full=FULL,
    quick=QUICK,
    cases=cases,
    analyse=analyse,
)
