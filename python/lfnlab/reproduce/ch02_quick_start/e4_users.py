"""02.E4: increasing number of users (spec 02 §4.5).

Testbed T0 (spec 02 §4.1) at RTT 200 ms, θ = 1.0; the large-files Web model (spec 02 §3.2.3;
surge default is the option ``model``); U ∈ {1, 2, 5, 10, 15, 20, 25, 30} users; for each U
six runs (Reno, Cubic × http10, http11, http11_pipe) with slow start and six with
Quick-Start: 96 runs of 3600 s, 60 s warm-up.

Per U and mode: the mean object download time averaged over the six runs, the meter's link
utilization (mean over the runs), the approval ratio (approvals / requests over the six
runs) and the mean approved rate (over every approval of the six runs). The sweep's
variants, per-U table and figure are shared with 02.E5, which repeats E4 with θ ∈ {1.0, 0.5}.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from ..engine import Case, Experiment
from ..figures import finish_axes, new_figure
from ..outcome import Figure, Outcome, Table
from .path02 import CCS, HTTP_VARIANTS
from .common02 import expectation, expectations_table, shown
from .web02 import RTT_S, WARMUP_S, Variant, runs_table, web_cases, web_checks

#: spec 02 §4.5: the users grid.
USERS = (1, 2, 5, 10, 15, 20, 25, 30)
#: spec 02 §4.5: slow start and Quick-Start, both with θ = 1.0: (mode, θ).
SWEEP_MODES = (("ss", 1.0), ("qs", 1.0))


@dataclass(frozen=True)
class Params:
    users: tuple[int, ...] = field(metadata={"label": "users U"})
    duration_s: float = field(metadata={"label": "simulated time per run", "unit": "s"})
    model: str = field(default="large_files", metadata={"label": "workload model"})
    https: tuple[str, ...] = field(default=HTTP_VARIANTS, metadata={"label": "HTTP variants"})
    ccs: tuple[str, ...] = field(default=CCS, metadata={"label": "congestion controls"})
    seed: int = field(default=1, metadata={"label": "seed"})


FULL = Params(users=USERS, duration_s=3600.0)
QUICK = Params(users=(1, 10), duration_s=600.0)


def sweep_variants(p: Any, modes: Sequence[tuple[str, float]]) -> list[Variant]:
    """Every (U, HTTP, CC) for each (mode, θ) of ``modes``."""
    return [Variant(p.model, h, cc, mode, u, th) for u in p.users for mode, th in modes for h in p.https for cc in p.ccs]


def cases(p: Params) -> list[Case]:
    """One run per U, mode, HTTP variant and CC."""
    return web_cases("02.E4", sweep_variants(p, SWEEP_MODES), p.duration_s, p.seed)


def per_users(runs: pd.DataFrame) -> pd.DataFrame:
    """Per mode and U, over that mode's runs (HTTP × CC): mean of the runs' mean download
    times and its spread, the mean utilization, the approval ratio and the mean approved
    rate over all the runs' requests and approvals."""
    rows = []
    for (mode, u), g in runs.groupby(["mode", "users"], sort=False):
        approvals = g["qs_approved_full"] + g["qs_approved_reduced"]
        req = int(g["qs_requests"].sum())
        approved_mbps = (g["approved_mean_mbps"].fillna(0.0) * approvals).sum()
        rows.append(
            {
                "mode": mode,
                "users": int(u),
                "thresh": g["thresh"].iloc[0],
                "runs": len(g),
                "mean_download_s": float(g["mean_download_s"].mean()),
                "min_run_mean_s": float(g["mean_download_s"].min()),
                "max_run_mean_s": float(g["mean_download_s"].max()),
                "objects": int(g["objects"].sum()),
                "utilization": float(g["utilization"].mean()),
                "qs_requests": req,
                "qs_approved_full": int(g["qs_approved_full"].sum()),
                "qs_approved_reduced": int(g["qs_approved_reduced"].sum()),
                "qs_refused": int(g["qs_refused"].sum()),
                "approval_ratio": float(approvals.sum()) / req if req else math.nan,
                "approved_mean_mbps": float(approved_mbps / approvals.sum()) if approvals.sum() else math.nan,
            }
        )
    return pd.DataFrame(rows).sort_values(["mode", "users"], kind="stable").reset_index(drop=True)


def benefit(pu: pd.DataFrame, qs_mode: str = "QS") -> pd.DataFrame:
    """Per U: SS and ``qs_mode`` mean download times and the relative benefit 1 − QS/SS."""
    ss = pu[pu["mode"] == "SS"].set_index("users")["mean_download_s"]
    qs = pu[pu["mode"] == qs_mode].set_index("users")["mean_download_s"]
    return pd.DataFrame({"users": ss.index, "ss_s": ss.values, "qs_s": qs.reindex(ss.index).values, "benefit_rel": 1.0 - qs.reindex(ss.index).values / ss.values})


def _grows(x: np.ndarray) -> bool:
    return bool(len(x) > 1 and x[-1] > x[0])


def expectations(pu: pd.DataFrame) -> pd.DataFrame:
    """Spec 02 §5 point 7."""
    out = []
    grow = []
    for mode in ("SS", "QS"):
        m = pu[pu["mode"] == mode].sort_values("users")
        grow.append((mode, m["users"].to_numpy(), m["mean_download_s"].to_numpy()))
    out.append(
        expectation(
            "§5.7 download times grow with the number of users",
            "; ".join(f"{mode}: " + ", ".join(f"U={u} {t:.2f} s" for u, t in zip(us, ts)) for mode, us, ts in grow),
            shown(all(_grows(ts) for _, _, ts in grow)),
            "shown if, for SS and QS, the mean at the largest U exceeds the mean at the smallest U",
        )
    )
    b = benefit(pu)
    out.append(
        expectation(
            "§5.7 the Quick-Start benefit shrinks with the number of users",
            ", ".join(f"U={int(r.users)} {r.benefit_rel:.0%}" for r in b.itertuples()),
            shown(bool(len(b) > 1 and b["benefit_rel"].iloc[-1] < b["benefit_rel"].iloc[0])),
            "shown if the relative benefit 1 − QS/SS at the largest U is below that at the smallest U",
        )
    )
    q = pu[pu["mode"] == "QS"].sort_values("users")
    out.append(
        expectation(
            "§5.7 fewer requests are approved and approvals are smaller as the load grows",
            ", ".join(f"U={int(r.users)} ratio {r.approval_ratio:.2f}, {r.approved_mean_mbps:.2f} Mbit/s" for r in q.itertuples()),
            shown(bool(len(q) > 1 and q["approval_ratio"].iloc[-1] < q["approval_ratio"].iloc[0] and q["approved_mean_mbps"].iloc[-1] < q["approved_mean_mbps"].iloc[0])),
            "shown if the approval ratio and the mean approved rate at the largest U are below those at the smallest U",
        )
    )
    return expectations_table(out)


_COLOURS = {"SS": "C0", "QS": "C1"}


def users_figure(pu: pd.DataFrame, title: str) -> Any:
    """Mean download time vs U (every mode), utilization vs U, approval ratio and mean
    approved rate vs U (Quick-Start modes)."""
    fig, (a, b, c) = new_figure(1, 3, width=15.0, height=4.4)
    for i, (mode, m) in enumerate(pu.groupby("mode", sort=False)):
        m = m.sort_values("users")
        col = _COLOURS.get(mode, f"C{i + 2}")
        a.errorbar(
            m["users"],
            m["mean_download_s"],
            yerr=[m["mean_download_s"] - m["min_run_mean_s"], m["max_run_mean_s"] - m["mean_download_s"]],
            marker="o",
            capsize=3,
            color=col,
            label=mode,
        )
        b.plot(m["users"], m["utilization"], marker="o", color=col, label=mode)
        if mode != "SS":
            c.plot(m["users"], m["approval_ratio"], marker="o", color=col, label=f"{mode}: approval ratio")
            c.plot(m["users"], m["approved_mean_mbps"] / 5.12, marker="s", linestyle="--", color=col, label=f"{mode}: mean approved / 5.12 Mbit/s")
    a.set_ylabel("mean object download time (s), bars: run min–max")
    b.set_ylabel("link utilization (meter, IP bytes / C·T)")
    b.set_ylim(0, 1.0)
    c.set_ylabel("share")
    c.set_ylim(0, 1.05)
    for ax in (a, b, c):
        ax.set_xlabel("users U")
        finish_axes(ax)
    fig.suptitle(title)
    return fig


def analyse(p: Params, kept: Mapping[str, Any]) -> Outcome:
    vs = sweep_variants(p, SWEEP_MODES)
    runs = runs_table(vs, kept, p.duration_s)
    out = Outcome()
    out.checks += web_checks(vs, kept, p.duration_s)
    pu = per_users(runs)
    out.tables.append(
        Table(
            f"E4_{p.model}",
            f"Per mode and U over the {len(p.https) * len(p.ccs)} runs (HTTP × CC): the mean of the runs' mean object "
            f"download times (objects started after {WARMUP_S:g} s) with the smallest and largest run mean, the objects, "
            "the meter's utilization, the Quick-Start requests, approvals and refusals, the approval ratio and the mean "
            "approved rate.",
            pu,
            digits=4,
        )
    )
    out.tables.append(Table("E4_runs", "Every run: inputs and measurements (as 02.E3's tables).", runs, digits=5))
    out.tables.append(Table("E4_benefit", "Per U: SS and QS mean download time and the relative benefit 1 − QS/SS.", benefit(pu), digits=4))
    out.tables.append(Table("expectations", "Spec 02 §5 point 7: qualitative, not checks; `notes` says how `agrees` is read.", expectations(pu)))
    out.figures.append(
        Figure(
            f"E4_{p.model}",
            "Left: mean object download time vs users (SS, QS; bars: smallest and largest run mean). Middle: the meter's "
            "utilization. Right: Quick-Start approval ratio and mean approved rate (relative to the 5.12 Mbit/s request).",
            users_figure(pu, f"02.E4: {p.model} model, RTT {RTT_S * 1e3:g} ms, θ = 1.0"),
        )
    )
    out.notes.append(
        "Utilization is the QS function's meter (IP bytes of every packet leaving S, including the warm-up) over C·T; "
        "the IP share of the wire caps it at 1500/1538 = 0.975. Every run uses seed 1: the same catalogue for every run."
    )
    return out


EXPERIMENT = Experiment(
    id="02.E4",
    title="Quick-Start: increasing number of users",
    summary="Mean object download time, link utilization and Quick-Start approvals for 1–30 Web users (large-files "
    "model, three HTTP variants × Reno/Cubic) with slow start and with Quick-Start on T0 at 200 ms, 1 h per run",
    reference="spec 02 §4.5, §3.2, §2.5",
    checks=(
        "The Web-run properties of 02.E3 over every run of the sweep (duration and conservation, catalogue, batches, the "
        "round-trip floor of each download, request and approval bookkeeping, the utilization bound). Spec 02 §5 point "
        "7 is compared in the `expectations` table."
    ),
    full=FULL,
    quick=QUICK,
    cases=cases,
    analyse=analyse,
)
