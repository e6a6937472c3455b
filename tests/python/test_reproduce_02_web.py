"""02.E3–E5 (spec 02 §4.4–4.6, Web workload on testbed T0): the quick forms through the
CLI, and the pure helpers of ``web02``, ``e3_web_one_user``, ``e4_users`` and
``e5_restricted``.

Each quick form runs once (module fixture, a few seconds on 2 cores); the helper tests need
no engine."""

from __future__ import annotations

import math
import subprocess
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from lfnlab.reproduce.ch02_quick_start import path02
from lfnlab.reproduce.ch02_quick_start import e3_web_one_user as e3
from lfnlab.reproduce.ch02_quick_start import e4_users as e4
from lfnlab.reproduce.ch02_quick_start import e5_restricted as e5
from lfnlab.reproduce.ch02_quick_start import web02 as w
from lfnlab.reproduce.ch02_quick_start.e_series import EXPERIMENTS
from support import passed_checks, run_quick_forms

IDS = ["02.E3", "02.E4", "02.E5"]
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
FILES = {
    "02.E3": ["E3_surge_default.csv", "E3_large_files.csv", "E3_gains.csv", "E3_surge_default.png", "E3_large_files_avg.png"],
    "02.E4": ["E4_large_files.csv", "E4_runs.csv", "E4_benefit.csv", "E4_large_files.png"],
    "02.E5": ["E5_large_files.csv", "E5_runs.csv", "E5_benefit.csv", "E5_large_files.png"],
}
#: Inputs every run table carries in columns (spec 02 §4.1), then the spec's measurements.
RUN_COLUMNS = ["rtt_ms", "model", "http", "cc", "mode", "users", "thresh", "rate_code", "duration_s", "warmup_s"]
MEASURED = ["mean_download_s", "ci95_half_s", "qs_requests", "qs_approved_full", "qs_approved_reduced", "qs_refused"]


@pytest.fixture(scope="module")
def quick_outputs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[Path, subprocess.CompletedProcess[str]]]:
    return run_quick_forms(IDS, tmp_path_factory.mktemp("reproduce02web"))


def test_chapter_02_lists_e1_to_e6() -> None:
    assert [e.id for e in EXPERIMENTS] == ["02.E1", "02.E2", *IDS, "02.E6"]


# ------------------------------------------------------------------ quick forms


@pytest.mark.engine
@pytest.mark.parametrize("experiment_id", IDS)
def test_quick_form_passes_and_writes_its_files(
    experiment_id: str, quick_outputs: dict[str, tuple[Path, subprocess.CompletedProcess[str]]]
) -> None:
    d, p = quick_outputs[experiment_id]
    checks = passed_checks(experiment_id, d, p)
    report = (d / "report.md").read_text(encoding="utf-8")
    assert report.startswith(f"# {experiment_id}: ")
    for name in FILES[experiment_id] + ["expectations.csv"]:
        assert (d / name).is_file(), name
        if name.endswith(".png"):
            assert (d / name).read_bytes()[:8] == PNG_MAGIC, name
            assert f"]({name})" in report
    ex = pd.read_csv(d / "expectations.csv")
    assert set(ex["agrees"]) <= {"shown", "not shown"} and len(ex) >= 1
    for run in checks["runs"]:
        assert (d / run / "objects.parquet").is_file(), run
    assert sorted(checks["files"]) == sorted(f.name for f in d.iterdir() if f.is_file())


@pytest.mark.engine
def test_e3_tables_carry_inputs_and_counts(quick_outputs: dict[str, tuple[Path, subprocess.CompletedProcess[str]]]) -> None:
    d, _ = quick_outputs["02.E3"]
    for model in path02.WEB_MODELS:
        t = pd.read_csv(d / f"E3_{model}.csv")
        assert list(t.columns[: len(RUN_COLUMNS)]) == RUN_COLUMNS
        assert set(MEASURED) <= set(t.columns)
        assert len(t) == 12 and set(t["users"]) == {1} and set(t["model"]) == {model}
        qs = t[t["mode"] == "QS"]
        assert (qs["qs_approved_full"] + qs["qs_approved_reduced"] + qs["qs_refused"] == qs["qs_requests"]).all()
        assert (t.loc[t["mode"] == "SS", "qs_requests"] == 0).all()
    g = pd.read_csv(d / "E3_gains.csv")
    np.testing.assert_allclose(g["gain_s"], g["ss_mean_s"] - g["qs_mean_s"], rtol=1e-12)
    assert set(g["cc"]) == {"reno", "cubic", "mean"}


@pytest.mark.engine
def test_e4_aggregates_six_runs_per_point(quick_outputs: dict[str, tuple[Path, subprocess.CompletedProcess[str]]]) -> None:
    d, _ = quick_outputs["02.E4"]
    runs = pd.read_csv(d / "E4_runs.csv")
    pu = pd.read_csv(d / "E4_large_files.csv")
    assert set(pu["runs"]) == {6} and set(pu["mode"]) == {"SS", "QS"}
    for r in pu.itertuples():
        g = runs[(runs["mode"] == r.mode) & (runs["users"] == r.users)]
        assert math.isclose(r.mean_download_s, g["mean_download_s"].mean(), rel_tol=1e-9)
        assert r.objects == g["objects"].sum()


@pytest.mark.engine
def test_e5_has_a_curve_per_threshold(quick_outputs: dict[str, tuple[Path, subprocess.CompletedProcess[str]]]) -> None:
    d, _ = quick_outputs["02.E5"]
    pu = pd.read_csv(d / "E5_large_files.csv")
    assert set(pu["mode"]) == {"SS", "QS", "QS θ=0.5"}
    half = pd.read_csv(d / "E5_runs.csv")
    half = half[half["thresh"] == 0.5]
    assert len(half) == 12 and (half["approved_max_mbps"].dropna() <= 2.56 + 1e-9).all()


# ------------------------------------------------------------------ helpers (no engine)


def test_t0_web_scenario_keys() -> None:
    s = path02.t0_web_scenario(
        "x", rtt_s=0.2, cc="cubic", mode="qs", http="http11_pipe", users=7, web_model="surge_default",
        duration_s=100.0, seed=3, thresh=0.5,
    )  # fmt: skip
    d = s.to_dict()
    (f,) = d["flow"]
    assert (f["kind"], f["users"], f["http"], f["web_model"], f["cc"]) == ("web", 7, "http11_pipe", "surge_default", "cubic")
    assert f["quickstart"]["rate_code"] == 7 and f["cc_params"]["variant"] == "linux-2.6.20"
    nodes = {n["name"]: n for n in d["node"]}
    assert nodes["S"]["quickstart"]["thresh"] == 0.5
    assert d["sim"]["trace"]["mode"] == "off"
    ss = path02.t0_web_scenario("y", rtt_s=0.2, cc="reno", mode="ss", http="http10", users=1, web_model="large_files", duration_s=1.0, seed=1)
    assert "quickstart" not in ss.to_dict()["flow"][0]
    for bad in ({"http": "http2"}, {"web_model": "zipf"}, {"mode": "xx"}):
        kw = {"http": "http10", "web_model": "large_files", "mode": "ss", **bad}
        with pytest.raises(ValueError):
            path02.t0_web_scenario("z", rtt_s=0.2, cc="reno", users=1, duration_s=1.0, seed=1, **kw)


def test_batch_means_interval() -> None:
    start = np.arange(100.0)
    d = np.repeat(np.arange(10.0), 10)  # batch k holds ten copies of k
    mean, half, bm = w.batch_means(start[::-1], d[::-1])  # start order, not row order
    np.testing.assert_allclose(bm, np.arange(10.0))
    assert mean == pytest.approx(4.5)
    assert half == pytest.approx(w.T975_9DOF * np.std(np.arange(10.0), ddof=1) / math.sqrt(10))
    m, h, _ = w.batch_means([1.0, 2.0], [3.0, 5.0])
    assert m == 4.0 and math.isnan(h)
    assert math.isnan(w.batch_means([], [])[0])
    with pytest.raises(ValueError):
        w.batch_means(start, d, batches=5)


def test_code_floor_and_download_floor() -> None:
    assert path02.code_floor_bps(5e6) == 2.56e6 and path02.code_floor_bps(10e6) == 5.12e6 and path02.code_floor_bps(5.12e6) == 5.12e6
    assert path02.code_floor_bps(79_999.0) == 0.0 and path02.code_floor_bps(1e12) == path02.qs_rate_bps(15)
    files, body = np.array([1, 3]), np.array([0, 125_000])
    np.testing.assert_allclose(w.download_floor_s("http10", files, body), [0.4, 1.2 + 0.1])
    np.testing.assert_allclose(w.download_floor_s("http11", files, body), [0.2, 0.6 + 0.1])
    np.testing.assert_allclose(w.download_floor_s("http11_pipe", files, body), [0.2, 0.4 + 0.1])


def test_paired_differences_pair_by_user_order() -> None:
    a = pd.DataFrame({"user": [0, 0, 0, 1], "object": [5, 6, 7, 9], "start_s": [10.0, 70.0, 80.0, 90.0], "download_s": [1.0, 2.0, 3.0, 4.0]})
    b = pd.DataFrame({"user": [0, 0, 1], "object": [5, 6, 8], "start_s": [65.0, 75.0, 95.0], "download_s": [0.5, 1.5, 1.0]})
    d, bad = w.paired_differences(a, b)
    # User 0: pair 1 starts before the warm-up in a; pair 2 counts; the third has no partner.
    # User 1: a different object (counted as a mismatch, still paired by order).
    assert list(d["diff_s"]) == [0.5, 3.0] and bad == 1


def test_variant_labels_sort_and_name_modes() -> None:
    v = w.Variant("large_files", "http10", "reno", "qs", 5, 0.5)
    assert v.label == "large_files-u05-http10-reno-qs-th050" and v.mode_label == "QS θ=0.5"
    assert w.Variant("large_files", "http10", "reno", "ss", 30).label == "large_files-u30-http10-reno-ss"
    assert w.Variant("m", "h", "c", "qs").mode_label == "QS"
    labels = [x.label for x in e4.sweep_variants(e4.QUICK, (("ss", 1.0), ("qs", 1.0)))]
    assert len(labels) == len(set(labels)) == 2 * 6 * len(e4.QUICK.users)
    assert e5.mode_name(0.25) == "QS θ=0.25"


def _runs(ss: list[float], qs: list[float], users: list[int]) -> pd.DataFrame:
    rows = []
    for u, s, q in zip(users, ss, qs):
        for mode, t in (("SS", s), ("QS", q)):
            for k in range(2):
                rows.append(
                    {"mode": mode, "users": u, "thresh": 1.0, "mean_download_s": t + k * 0.1, "objects": 10, "utilization": 0.1 * u,
                     "qs_requests": 0 if mode == "SS" else 10, "qs_approved_full": 0 if mode == "SS" else 10 - u,
                     "qs_approved_reduced": 0, "qs_refused": 0 if mode == "SS" else u,
                     "approved_mean_mbps": math.nan if mode == "SS" else 5.12 / u}
                )  # fmt: skip
    return pd.DataFrame(rows)


def test_e4_per_users_benefit_and_expectations() -> None:
    pu = e4.per_users(_runs([2.0, 4.0], [1.0, 3.9], [1, 5]))
    q1 = pu[(pu["mode"] == "QS") & (pu["users"] == 1)].iloc[0]
    assert q1["runs"] == 2 and q1["mean_download_s"] == pytest.approx(1.05) and q1["approval_ratio"] == pytest.approx(0.9)
    assert q1["approved_mean_mbps"] == pytest.approx(5.12)
    b = e4.benefit(pu)
    assert list(b["users"]) == [1, 5] and b["benefit_rel"].iloc[0] == pytest.approx(1 - 1.05 / 2.05)
    assert list(e4.expectations(pu)["agrees"]) == ["shown"] * 3
    flat = e4.per_users(_runs([2.0, 2.0], [1.0, 0.5], [1, 5]))
    assert list(e4.expectations(flat)["agrees"])[:2] == ["not shown", "not shown"]


def test_e5_expectation_needs_a_benefit_at_every_u() -> None:
    pu = e4.per_users(_runs([2.0, 4.0], [1.0, 3.9], [1, 5]))
    half = pu[pu["mode"] == "QS"].assign(mode="QS θ=0.5")
    both = pd.concat([pu, half], ignore_index=True)
    assert list(e5.expectations(both, (1.0, 0.5))["agrees"]) == ["shown"]
    worse = pd.concat([pu, half.assign(mean_download_s=5.0)], ignore_index=True)
    assert list(e5.expectations(worse, (1.0, 0.5))["agrees"]) == ["not shown"]
    # Below SS everywhere, but only 5 % at the smallest U: not a clear benefit.
    slight = pd.concat([pu, half.assign(mean_download_s=half["mean_download_s"] * 0 + [1.95, 3.9])], ignore_index=True)
    assert list(e5.expectations(slight, (1.0, 0.5))["agrees"]) == ["not shown"]


def test_e3_expectations_read_the_gains() -> None:
    rows = []
    for model, scale in (("surge_default", 0.2), ("large_files", 1.0)):
        for http, g in (("http10", 1.0), ("http11", 0.5), ("http11_pipe", 0.5)):
            for cc in ("reno", "cubic"):
                rows.append(
                    {"model": model, "http": http, "cc": cc, "ss_mean_s": 3.0, "qs_mean_s": 3.0 - g * scale, "gain_s": g * scale,
                     "gain_rel": g * scale / 3.0, "intervals_apart": False, "paired_gain_s": g * scale,
                     "paired_ci95_half_s": 0.05, "paired_gain_positive": True}
                )  # fmt: skip
    g = pd.DataFrame(rows)
    assert list(e3.expectations(g)["agrees"]) == ["shown"] * 4
    g.loc[g["http"] == "http10", "gain_s"] = 0.01
    assert list(e3.expectations(g)["agrees"])[2] == "not shown"
