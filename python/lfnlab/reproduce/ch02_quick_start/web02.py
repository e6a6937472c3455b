"""Shared pieces of the Web reproductions 02.E3–E5 (spec 02 §3.2, §4.4–4.6): one run's
variant and label, its case (scenario and what the run keeps), the batch-means confidence
interval, the per-run row and table, and the checks every Web run must pass.

Measurement (spec 02 §4.4): the objects of ``objects.parquet`` whose download started at or
after the warm-up (60 s); their mean download time with a 95 % confidence interval from 10
batch means (consecutive objects in start order, equal counts ±1: the batches are long
compared with the correlation of one user's downloads, so their means are near
independent). Quick-Start counts are the server senders' (``summary.flows[0].web``); the
link utilization is the QS function's meter (spec 02 §2.5.2: IP bytes of every packet
leaving S, whole run) over the IP capacity C.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from ...result import Result
from ..engine import Case
from ..outcome import Check
from .path02 import IP_PACKET_BYTES, RATE_BPS, SERVER, WEB_FLOW, WIRE_BYTES, qs_rate_bps, t0_web_scenario
from .common02 import flow_entry, run_checks

__all__ = [
    "RTT_S",
    "WARMUP_S",
    "BATCHES",
    "T975_9DOF",
    "RATE_CODE",
    "Variant",
    "batch_means",
    "paired_differences",
    "keep",
    "scenario",
    "web_cases",
    "run_row",
    "runs_table",
    "download_floor_s",
    "web_checks",
]

#: T0 with RTT 200 ms (spec 02 §4.4–4.6).
RTT_S = 0.200
#: Objects started in the first 60 s are discarded (spec 02 §4.4).
WARMUP_S = 60.0
#: 95 % confidence interval by 10 batch means (spec 02 §4.4).
BATCHES = 10
#: Student's t quantile t(0.975; 9 degrees of freedom) for 10 batch means.
T975_9DOF = 2.2621571627982
#: The requested rate (spec 02 §4.1: rate code 7 = 5.12 Mbit/s).
RATE_CODE = 7
#: The QS function's interface on S's egress (its queue's name in the summary).
QS_INTERFACE = f"{SERVER}:ifq"
#: The IP-level share of the wire of the largest frame: meter bytes ≤ this share of C.
IP_WIRE_SHARE = IP_PACKET_BYTES / WIRE_BYTES


@dataclass(frozen=True)
class Variant:
    """One Web run: workload model, HTTP variant, CC, SS/QS, users and θ."""

    model: str
    http: str
    cc: str
    mode: str
    users: int = 1
    thresh: float = 1.0

    @property
    def label(self) -> str:
        th = f"-th{round(self.thresh * 100):03d}" if self.mode == "qs" else ""
        return f"{self.model}-u{self.users:02d}-{self.http}-{self.cc}-{self.mode}{th}"

    @property
    def mode_label(self) -> str:
        """``SS`` or ``QS`` (``QS θ=0.5`` when θ ≠ 1)."""
        if self.mode == "ss":
            return "SS"
        return "QS" if self.thresh == 1.0 else f"QS θ={self.thresh:g}"


def scenario(experiment: str, v: Variant, duration_s: float, seed: int) -> Any:
    return t0_web_scenario(
        f"{experiment}-{v.label}",
        rtt_s=RTT_S,
        cc=v.cc,
        mode=v.mode,
        http=v.http,
        users=v.users,
        web_model=v.model,
        duration_s=duration_s,
        seed=seed,
        thresh=v.thresh,
        rate_code=RATE_CODE,
    )


def batch_means(start_s: Any, download_s: Any, batches: int = BATCHES) -> tuple[float, float, np.ndarray]:
    """(mean, 95 % half-width, batch means) of the download times, objects taken in start
    order and cut into ``batches`` consecutive batches of equal count (±1).

    The half-width is t(0.975; batches − 1)·s/√batches with s the standard deviation of
    the batch means; NaN when there are fewer objects than batches. Only 10 batches (the
    spec's number) have the tabulated quantile."""
    if batches != BATCHES:
        raise ValueError(f"the t quantile is tabulated for {BATCHES} batches only")
    order = np.argsort(np.asarray(start_s, dtype=float), kind="stable")
    d = np.asarray(download_s, dtype=float)[order]
    if len(d) == 0:
        return math.nan, math.nan, np.array([])
    mean = float(d.mean())
    if len(d) < batches:
        return mean, math.nan, np.array([])
    bm = np.array([b.mean() for b in np.array_split(d, batches)])
    return mean, float(T975_9DOF * bm.std(ddof=1) / math.sqrt(batches)), bm


def paired_differences(a: pd.DataFrame, b: pd.DataFrame) -> tuple[pd.DataFrame, int]:
    """Pair two runs' objects by each user's order: the k-th object of user u in run ``a``
    with the k-th of user u in run ``b``. Runs with the same seed pick the same objects and
    think the same times in that order (one user: exactly; spec 02 §2.7), so a pair is the
    same object fetched under two treatments. Keeps the pairs whose two downloads both
    started after the warm-up; returns (``start_s`` of ``a``, ``diff_s`` = a − b) and the
    number of pairs whose object ids differ (then the pairing does not hold)."""
    rows, mismatched = [], 0
    for u, ga in a.groupby("user", sort=True):
        gb = b[b["user"] == u]
        n = min(len(ga), len(gb))
        xa, xb = ga.iloc[:n], gb.iloc[:n]
        mismatched += int((xa["object"].to_numpy() != xb["object"].to_numpy()).sum())
        both = (xa["start_s"].to_numpy() >= WARMUP_S - 1e-9) & (xb["start_s"].to_numpy() >= WARMUP_S - 1e-9)
        rows.append(
            pd.DataFrame(
                {
                    "start_s": xa["start_s"].to_numpy()[both],
                    "diff_s": xa["download_s"].to_numpy()[both] - xb["download_s"].to_numpy()[both],
                }
            )
        )
    out = pd.concat(rows, ignore_index=True) if rows else pd.DataFrame({"start_s": [], "diff_s": []})
    return out, mismatched


def keep(r: Result) -> dict[str, Any]:
    """The measured objects (start ≥ warm-up), every object in each user's order
    (``sequence``), the summary and the QS interface counters."""
    o = r.objects[r.objects["flow"] == WEB_FLOW]
    measured = o[o["start_s"] >= WARMUP_S - 1e-9][["start_s", "download_s", "bytes", "files", "connections"]]
    iface = next((i for i in r.summary.get("quickstart_interfaces", []) if i["name"] == QS_INTERFACE), {})
    seq = o.sort_values(["user", "start_s"], kind="stable")[["user", "object", "start_s", "download_s"]].reset_index(drop=True)
    return {"summary": r.summary, "objects": measured.reset_index(drop=True), "sequence": seq, "iface": iface}


def web_cases(experiment: str, variants: Sequence[Variant], duration_s: float, seed: int) -> list[Case]:
    """One case per Web run of ``experiment``: its scenario, reduced by :func:`keep`."""
    return [Case(v.label, scenario(experiment, v, duration_s, seed), keep) for v in variants]


def run_row(v: Variant, k: Mapping[str, Any], duration_s: float) -> dict[str, Any]:
    """All inputs in columns (spec 02 §4.1), then the run's measurements."""
    w = flow_entry(k["summary"], WEB_FLOW)["web"]
    o = k["objects"]
    mean, half, _ = batch_means(o["start_s"], o["download_s"])
    approvals = int(w["qs_approved_full"]) + int(w["qs_approved_reduced"])
    req = int(w["qs_requests"])
    iface = k["iface"]
    return {
        "rtt_ms": round(RTT_S * 1e3),
        "model": v.model,
        "http": v.http,
        "cc": v.cc,
        "mode": v.mode_label,
        "users": v.users,
        "thresh": v.thresh if v.mode == "qs" else math.nan,
        "rate_code": RATE_CODE if v.mode == "qs" else pd.NA,
        "duration_s": duration_s,
        "warmup_s": WARMUP_S,
        "objects": len(o),
        "mean_download_s": mean,
        "ci95_half_s": half,
        "median_download_s": float(o["download_s"].median()) if len(o) else math.nan,
        "mean_object_bytes": float(o["bytes"].mean()) if len(o) else math.nan,
        "connections": int(w["connections"]),
        "qs_requests": req,
        "qs_approved_full": int(w["qs_approved_full"]),
        "qs_approved_reduced": int(w["qs_approved_reduced"]),
        "qs_refused": int(w["qs_refused"]),
        "approval_ratio": approvals / req if req else math.nan,
        "approved_mean_mbps": (w.get("qs_approved_mean_bps") or math.nan) / 1e6,
        "approved_max_mbps": (w.get("qs_approved_max_bps") or math.nan) / 1e6,
        "utilization": 8.0 * float(iface.get("bytes", 0)) / (duration_s * RATE_BPS),
        "catalogue_mean_file_bytes": float(w["mean_file_bytes"]),
        "catalogue_median_file_bytes": float(w["median_file_bytes"]),
        "catalogue_mean_object_bytes": float(w["mean_object_bytes"]),
        "catalogue_median_object_bytes": float(w["median_object_bytes"]),
    }


def runs_table(variants: Sequence[Variant], kept: Mapping[str, Mapping[str, Any]], duration_s: float) -> pd.DataFrame:
    """One :func:`run_row` per run, in the order of ``variants``."""
    runs = pd.DataFrame([run_row(v, kept[v.label], duration_s) for v in variants])
    runs["rate_code"] = runs["rate_code"].astype("Int64")
    return runs


def download_floor_s(http: str, files: Any, body_bytes: Any, rtt_s: float = RTT_S, rate_bps: float = RATE_BPS) -> np.ndarray:
    """A lower bound on an object's download time (spec 02 §3.2.1, §3.2.4): the round trips
    no variant can avoid, plus the serialization of the bodies at the link rate.

    http10: a handshake and a request per file, one file after the other (2 RTTs each);
    http11: a request per file, one after the other (1 RTT each, the connection may exist);
    http11_pipe: the base file, then the embedded files in one round (1 RTT, 2 with embedded
    files)."""
    f = np.asarray(files, dtype=float)
    rounds = {"http10": 2.0 * f, "http11": f, "http11_pipe": np.minimum(f, 2.0)}[http]
    return rounds * rtt_s + np.asarray(body_bytes, dtype=float) * 8.0 / rate_bps


def web_checks(variants: Sequence[Variant], kept: Mapping[str, Mapping[str, Any]], duration_s: float) -> list[Check]:
    """What every Web run must satisfy, whatever the load (not the paper's claims)."""
    out = run_checks({v.label: kept[v.label]["summary"] for v in variants}, {v.label: duration_s for v in variants}, "Web runs")
    n = len(variants)
    webs = {v.label: flow_entry(kept[v.label]["summary"], WEB_FLOW)["web"] for v in variants}
    cat = sum(1 for w in webs.values() if (int(w["files"]), int(w["catalogue_objects"])) == (2000, 1240))
    out.append(
        Check.equal(
            "runs whose catalogue has 2000 files and 1240 objects",
            cat,
            n,
            criterion=f"= {n} (spec 02 §3.2.2: 600 base + 640 loner objects from 2000 files)",
        )
    )
    batched = sum(1 for v in variants if len(kept[v.label]["objects"]) >= BATCHES)
    out.append(
        Check.equal(
            f"runs with at least {BATCHES} objects after the warm-up (one per batch)",
            batched,
            n,
            criterion=f"= {n}",
        )
    )
    below = 0
    for v in variants:
        o = kept[v.label]["objects"]
        floor = download_floor_s(v.http, o["files"], o["bytes"])
        below += int((o["download_s"].to_numpy(dtype=float) < floor - 1e-9).sum())
    out.append(
        Check.equal(
            "measured objects faster than their round trips plus serialization allow",
            below,
            0,
            criterion="= 0: download ≥ k·τ + 8·body/C, k = 2·files (http10), files (http11), min(files, 2) (pipelined)",
        )
    )
    ss_req = sum(int(webs[v.label]["qs_requests"]) for v in variants if v.mode == "ss")
    out.append(Check.equal("Quick-Start requests in slow-start runs", ss_req, 0, criterion="= 0"))
    qs = [v for v in variants if v.mode == "qs"]
    asked = sum(1 for v in qs if int(webs[v.label]["qs_requests"]) > 0)
    out.append(Check.equal("Quick-Start runs whose servers asked", asked, len(qs), criterion=f"= {len(qs)}"))
    h10 = [v for v in qs if v.http == "http10"]
    if h10:
        # Each http10 connection carries one response, so its server asks once, on the
        # SYN/ACK; only connections opened in the last RTT may not have sent it yet.
        ok = sum(1 for v in h10 if 0 <= int(webs[v.label]["connections"]) - int(webs[v.label]["qs_requests"]) <= v.users)
        out.append(
            Check.equal(
                "http10 Quick-Start runs with one request per connection",
                ok,
                len(h10),
                criterion=f"= {len(h10)} (0 ≤ connections − requests ≤ U: a request on every SYN/ACK, none after idle)",
            )
        )
    # Every approval a server saw was granted by the QS function (sender ≤ router counts),
    # and no approval exceeds the request.
    granted = sum(
        1
        for v in qs
        if int(webs[v.label]["qs_approved_full"]) <= int(kept[v.label]["iface"].get("qs_approved_full", -1))
        and int(webs[v.label]["qs_approved_full"]) + int(webs[v.label]["qs_approved_reduced"])
        <= int(kept[v.label]["iface"].get("qs_approved_full", -1)) + int(kept[v.label]["iface"].get("qs_approved_reduced", -1))
    )
    out.append(
        Check.equal(
            "Quick-Start runs whose approvals are all the QS function's",
            granted,
            len(qs),
            criterion=f"= {len(qs)} (servers' full and all approvals ≤ the interface's counters)",
        )
    )
    if qs:
        top = max(float(webs[v.label].get("qs_approved_max_bps") or 0.0) for v in qs)
        out.append(
            Check.within(
                "largest approved rate of any Quick-Start run",
                top / 1e6,
                None,
                qs_rate_bps(RATE_CODE) / 1e6,
                unit="Mbit/s",
                criterion=f"≤ Rate({RATE_CODE}) = {qs_rate_bps(RATE_CODE) / 1e6:g} Mbit/s (an approval never exceeds the request)",
            )
        )
    util = max(float(kept[v.label]["iface"].get("bytes", 0)) * 8.0 / (duration_s * RATE_BPS) for v in variants)
    out.append(
        Check.within(
            "largest meter utilization of a run (IP bytes leaving S over C·T)",
            util,
            None,
            IP_WIRE_SHARE,
            criterion=f"≤ 1500/1538 = {IP_WIRE_SHARE:.4f}: IP bytes of full frames are at most that share of the wire",
        )
    )
    return out

