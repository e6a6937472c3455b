"""02.E3: Web, one user (spec 02 §4.4).

Testbed T0 (spec 02 §4.1) at RTT 200 ms with one ``web`` flow of one user (spec 02 §3.2),
both workload models (surge default, large files) × HTTP ∈ {http10, http11, http11_pipe} ×
CC ∈ {Reno, Cubic} × {slow start, Quick-Start}: 24 runs of 3600 s, objects started in the
first 60 s discarded. Every run has the same seed, so every run builds the same catalogue,
and a single user picks the same objects in the same order and thinks the same times
between them: slow start and Quick-Start fetch the same sequence of objects.

Per run: mean object download time with the 95 % batch-means interval, the servers'
Quick-Start requests, approvals (full, reduced) and refusals (``web02``).
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
from ..outcome import Check, Figure, Outcome, Table
from .path02 import CCS, HTTP_VARIANTS, MODES, WEB_MODELS
from .common02 import expectation, expectations_table, shown
from .web02 import RTT_S, WARMUP_S, Variant, batch_means, paired_differences, runs_table, web_cases, web_checks

_CC = {"reno": "Reno", "cubic": "Cubic"}


@dataclass(frozen=True)
class Params:
    models: tuple[str, ...] = field(metadata={"label": "workload models"})
    duration_s: float = field(metadata={"label": "simulated time per run", "unit": "s"})
    users: int = field(default=1, metadata={"label": "users U"})
    https: tuple[str, ...] = field(default=HTTP_VARIANTS, metadata={"label": "HTTP variants"})
    ccs: tuple[str, ...] = field(default=CCS, metadata={"label": "congestion controls"})
    seed: int = field(default=1, metadata={"label": "seed"})


FULL = Params(models=WEB_MODELS, duration_s=3600.0)
QUICK = Params(models=WEB_MODELS, duration_s=900.0)


def variants(p: Params) -> list[Variant]:
    return [Variant(m, h, cc, mode, p.users) for m in p.models for h in p.https for cc in p.ccs for mode in MODES]


def cases(p: Params) -> list[Case]:
    """One run per workload model, HTTP variant, CC and mode."""
    return web_cases("02.E3", variants(p), p.duration_s, p.seed)


def gains(runs: pd.DataFrame, kept: Mapping[str, Mapping[str, Any]], users: int) -> tuple[pd.DataFrame, int]:
    """Per model, HTTP variant and CC (and ``mean`` of the CCs): SS and QS mean download
    time with their half-widths, the gain SS − QS (s and relative) and whether the two
    intervals are apart (QS + h < SS − h); then the paired gain: the mean over the same
    objects of SS − QS with its batch-means half-width, and whether that interval excludes
    0. Also returns the number of pairs whose objects differ (0 when the pairing holds)."""
    rows, mismatched = [], 0
    for (model, http), g in runs.groupby(["model", "http"], sort=False):
        per_cc = []
        for cc, c in g.groupby("cc", sort=False):
            ss, qs = c[c["mode"] == "SS"].iloc[0], c[c["mode"] == "QS"].iloc[0]
            a = kept[Variant(model, http, cc, "ss", users).label]["sequence"]
            b = kept[Variant(model, http, cc, "qs", users).label]["sequence"]
            d, bad = paired_differences(a, b)
            mismatched += bad
            pm, ph, _ = batch_means(d["start_s"], d["diff_s"])
            per_cc.append((cc, ss["mean_download_s"], ss["ci95_half_s"], qs["mean_download_s"], qs["ci95_half_s"], pm, ph, len(d)))
        if len(per_cc) > 1:
            x = np.array([r[1:7] for r in per_cc], dtype=float)
            # Mean of the CCs; the half-width of a mean of independent estimates.
            h = np.sqrt((x[:, [1, 3, 5]] ** 2).sum(axis=0)) / len(x)
            per_cc.append(("mean", x[:, 0].mean(), h[0], x[:, 2].mean(), h[1], x[:, 4].mean(), h[2], sum(r[7] for r in per_cc)))
        for cc, ss, hs, qs, hq, pm, ph, n in per_cc:
            rows.append(
                {
                    "model": model,
                    "http": http,
                    "cc": cc,
                    "ss_mean_s": ss,
                    "ss_ci95_half_s": hs,
                    "qs_mean_s": qs,
                    "qs_ci95_half_s": hq,
                    "gain_s": ss - qs,
                    "gain_rel": (ss - qs) / ss if ss else math.nan,
                    "intervals_apart": bool(qs + hq < ss - hs),
                    "pairs": n,
                    "paired_gain_s": pm,
                    "paired_ci95_half_s": ph,
                    "paired_gain_positive": bool(pm - ph > 0),
                }
            )
    return pd.DataFrame(rows), mismatched


def expectations(g: pd.DataFrame) -> pd.DataFrame:
    """Spec 02 §5 point 6, read from the gains table (per CC rows, not the CC mean)."""
    per = g[g["cc"] != "mean"]
    out = []
    below = bool((per["gain_s"] > 0).all())
    out.append(
        expectation(
            "§5.6 mean object download time with Quick-Start is below slow start for every HTTP variant and both models",
            "; ".join(f"{r.model} {r.http} {r.cc}: SS {r.ss_mean_s:.3f} s, QS {r.qs_mean_s:.3f} s" for r in per.itertuples()),
            shown(below),
            "shown if QS < SS in every (model, HTTP, CC) run pair",
        )
    )
    models = list(dict.fromkeys(per["model"]))
    if {"surge_default", "large_files"} <= set(models):
        s = per[per["model"] == "surge_default"].set_index(["http", "cc"])["gain_s"]
        lf = per[per["model"] == "large_files"].set_index(["http", "cc"])["gain_s"]
        ok = bool((lf > s.reindex(lf.index)).all())
        out.append(
            expectation(
                "§5.6 the absolute gain is small for the surge-default model and large for the large-files model",
                "; ".join(f"{h} {cc}: {s[(h, cc)]:.3f} s vs {lf[(h, cc)]:.3f} s" for h, cc in lf.index),
                shown(ok),
                "shown if the large-files gain exceeds the surge-default gain for every (HTTP, CC)",
            )
        )
    ok, obs = [], []
    for (m, cc), c in per.groupby(["model", "cc"], sort=False):
        gh = c.set_index("http")["gain_s"]
        if "http10" in gh and len(gh) > 1:
            ok.append(bool(gh["http10"] >= gh.drop("http10").max()))
            obs.append(f"{m} {cc}: " + ", ".join(f"{h} {v:.3f} s" for h, v in gh.items()))
    out.append(
        expectation(
            "§5.6 the gain is largest for HTTP/1.0 (every file starts a new connection)",
            "; ".join(obs) or "not evaluated",
            shown(bool(ok) and all(ok)),
            "shown if the absolute gain of http10 is at least that of each persistent variant, per model and CC",
        )
    )
    pers = per[per["http"] != "http10"]
    out.append(
        expectation(
            "§5.6 the gain is still clear for persistent HTTP/1.1 with and without pipelining (requests after idle)",
            "; ".join(
                f"{r.model} {r.http} {r.cc}: {r.gain_rel:.0%}, paired gain {r.paired_gain_s:.3f} ± {r.paired_ci95_half_s:.3f} s "
                f"({'unpaired intervals apart' if r.intervals_apart else 'unpaired intervals overlap'})"
                for r in pers.itertuples()
            )
            or "not evaluated",
            shown(bool(len(pers)) and bool(pers["paired_gain_positive"].all())),
            "shown if, for every persistent (model, HTTP, CC), the 95 % interval of the paired gain (the same objects "
            "under SS and QS) lies above 0; the unpaired intervals of the two means are given for reference",
        )
    )
    return expectations_table(out)


def bar_figure(g: pd.DataFrame, model: str, ccs: Sequence[str]) -> Any:
    """Grouped bars: groups = HTTP variant, bars = SS / QS, one panel per entry of ``ccs``
    (``mean``: the CCs averaged); error bars are the 95 % half-widths."""
    fig, axes = new_figure(1, len(ccs), width=5.0 * len(ccs), height=4.2)
    for ax, cc in zip(axes, ccs):
        d = g[(g["model"] == model) & (g["cc"] == cc)]
        x = np.arange(len(d))
        ax.bar(x - 0.2, d["ss_mean_s"], 0.4, yerr=d["ss_ci95_half_s"], capsize=3, color="C0", label="slow start")
        ax.bar(x + 0.2, d["qs_mean_s"], 0.4, yerr=d["qs_ci95_half_s"], capsize=3, color="C1", label="Quick-Start")
        ax.set_xticks(x, list(d["http"]))
        ax.set_ylabel("mean object download time (s)")
        ax.set_title(f"{'Reno and Cubic averaged' if cc == 'mean' else _CC.get(cc, cc)}")
        finish_axes(ax)
    fig.suptitle(f"02.E3: one Web user, {model} model, RTT {RTT_S * 1e3:g} ms")
    return fig


def analyse(p: Params, kept: Mapping[str, Any]) -> Outcome:
    vs = variants(p)
    out = Outcome()
    out.checks += web_checks(vs, kept, p.duration_s)
    runs = runs_table(vs, kept, p.duration_s)
    g, mismatched = gains(runs, kept, p.users)
    out.checks.append(
        Check.equal(
            "object pairs of an SS and a QS run that are not the same object",
            mismatched,
            0,
            criterion="= 0 (same seed: each user picks the same objects in the same order, spec 02 §2.7)",
        )
    )
    for m in p.models:
        out.tables.append(
            Table(
                f"E3_{m}",
                f"{m} model, one user: every run's inputs, the mean object download time of the objects started after "
                f"{WARMUP_S:g} s with its 95 % batch-means half-width, the median, the servers' Quick-Start counts "
                "(requests, full and reduced approvals, refusals), the approval ratio and mean approved rate, the meter's "
                "utilization, and the realized catalogue (spec 02 §3.2.3).",
                runs[runs["model"] == m].reset_index(drop=True),
                digits=5,
            )
        )
    out.tables.append(
        Table(
            "E3_gains",
            "Per model, HTTP variant and CC (`mean`: the two CCs averaged): SS and QS mean download time with 95 % "
            "half-widths, the gain SS − QS in seconds and relative to SS, whether the two intervals are apart, and the "
            "paired gain: SS − QS over the same objects (pairs started after the warm-up in both runs) with its 95 % "
            "batch-means half-width.",
            g,
            digits=4,
        )
    )
    out.tables.append(Table("expectations", "Spec 02 §5 point 6: qualitative, not checks; `notes` says how `agrees` is read.", expectations(g)))
    for m in p.models:
        out.figures.append(
            Figure(f"E3_{m}", f"{m}: mean object download time per HTTP variant, SS vs QS, Reno and Cubic side by side.", bar_figure(g, m, p.ccs))
        )
        if len(p.ccs) > 1:
            out.figures.append(
                Figure(f"E3_{m}_avg", f"{m}: the same, Reno and Cubic averaged.", bar_figure(g, m, ("mean",)))
            )
    out.notes += notes(runs, kept, vs)
    return out


def notes(runs: pd.DataFrame, kept: Mapping[str, Mapping[str, Any]], vs: Sequence[Variant]) -> list[str]:
    cat = runs.drop_duplicates("model")[["model", "catalogue_mean_file_bytes", "catalogue_median_file_bytes", "catalogue_mean_object_bytes", "catalogue_median_object_bytes"]]
    return [
        "Realized catalogues (spec 02 §3.2.3; the same in every run of a model, one seed): "
        + "; ".join(
            f"{r.model}: files mean {r.catalogue_mean_file_bytes / 1e3:.1f} kB, median {r.catalogue_median_file_bytes / 1e3:.1f} kB; "
            f"objects mean {r.catalogue_mean_object_bytes / 1e3:.1f} kB, median {r.catalogue_median_object_bytes / 1e3:.1f} kB"
            for r in cat.itertuples()
        )
        + ".",
        "One user on an otherwise idle link: the QS function's meter holds only the user's own traffic. After a think "
        "time of at least 2 s (Pareto k = 2 s) the meter interval before the request and the two-slot approval ring "
        "(H = 2 s) are empty, so the first request of an object is approved in full; requests within an object (http10: "
        "one per file) see the previous file's bytes in the meter and are reduced or refused — see the approval counts.",
        "Confidence intervals: 10 batch means of consecutive objects (equal counts ±1) after the warm-up; t(0.975; 9) = "
        "2.262. The interval of a CC mean combines the two runs' half-widths as independent estimates.",
        "Paired comparison: with one seed the SS and QS runs fetch the same objects in the same order (checked), so the "
        "per-object difference SS − QS removes the object-size variance that dominates the surge-default model's "
        "heavy-tailed sizes (Pareto α = 1.1): its interval decides whether a gain is clear, where the two unpaired "
        "intervals may overlap although every object is faster.",
    ]


EXPERIMENT = Experiment(
    id="02.E3",
    title="Quick-Start: Web, one user",
    summary="Mean object download time of one surge-style Web user (both workload models, HTTP/1.0, HTTP/1.1, "
    "pipelining; Reno and Cubic) with slow start and with Quick-Start on T0 at 200 ms, 1 h per run",
    reference="spec 02 §4.4, §3.2, §4.1",
    checks=(
        "Properties every Web run must have, not the paper's claims: each run covers its duration with packet "
        "conservation (which includes that every request that reached the server whole was answered); every "
        "catalogue has 2000 files and 1240 objects (§3.2.2); every run has at least 10 objects after the warm-up; no "
        "object downloads faster than its unavoidable round trips plus the serialization of its bodies; slow-start runs "
        "send no Quick-Start request and every Quick-Start run does; an http10 server asks once per connection; every "
        "approval a server saw was granted by the QS function and none exceeds the 5.12 Mbit/s request; the meter's "
        "utilization stays below the IP share of the wire. Spec 02 §5 point 6 is compared in the `expectations` table."
    ),
    full=FULL,
    quick=QUICK,
    cases=cases,
    analyse=analyse,
)
