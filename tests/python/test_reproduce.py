"""`lfnlab reproduce` (spec 00 §2.3, §3) and the 06.V experiments in their --quick form.

Each quick form runs through the command line once (module fixture); the tests then
read what it wrote. The whole module takes about 30 s on 2 cores."""

from __future__ import annotations

import io
import json
import re
import signal
import subprocess
import time
from pathlib import Path

import pytest

from support import lfnlab_command, passed_checks, run_cli, run_quick_forms

IDS = [f"06.V{i}" for i in range(1, 9)]
#: Experiments whose chapter names a figure (the brief: cwnd/goodput, slow start, sawtooth).
WITH_FIGURE = {"06.V1", "06.V2", "06.V4"}
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


@pytest.fixture(scope="module")
def quick_outputs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[Path, subprocess.CompletedProcess[str]]]:
    """Each experiment's quick form, run once: ID → (output directory, completed process)."""
    work = tmp_path_factory.mktemp("reproduce")
    return run_quick_forms(IDS, work)


#: Every catalogued experiment, in --list order (chapter 01 first).
CATALOGUE = ["01.E1", "01.E2", "01.E3", "01.E4", "01.V1", "02.E1", "02.E2", "02.E3", "02.E4", "02.E5", "02.E6", "03.F1", "03.F2", "03.F3", "03.F5", "03.F6", "03.F7", "03.S1", "03.S2", "04.E4.1", "04.E4.2", "04.E4.3", "04.E4.4", "04.E4.5", "04.E4.6", "04.E4.7", "04.E4.8", "05.E5.0", "05.E5.1", "05.E5.2", "05.E5.3", "05.E5.4", "05.E5.5", *IDS, "real.M1", "real.M2"]


def test_list_names_every_experiment() -> None:
    p = run_cli("reproduce", "--list")
    assert p.returncode == 0, p.stderr
    lines = p.stdout.splitlines()
    assert [line.split()[0] for line in lines] == CATALOGUE
    assert all(len(line.split(None, 1)[1]) > 20 for line in lines), "each line has a title and summary"


@pytest.mark.engine
@pytest.mark.parametrize("experiment_id", IDS)
def test_quick_form_passes_and_writes_its_files(
    experiment_id: str, quick_outputs: dict[str, tuple[Path, subprocess.CompletedProcess[str]]]
) -> None:
    d, p = quick_outputs[experiment_id]
    checks = passed_checks(experiment_id, d, p)
    assert f"report in {d / 'report.md'}" in p.stdout
    assert list(d.glob("*.csv")), "at least one table"
    pngs = list(d.glob("*.png"))
    if experiment_id in WITH_FIGURE:
        assert pngs, "a figure"
    for png in pngs:
        assert png.read_bytes()[:8] == PNG_MAGIC
    report = (d / "report.md").read_text(encoding="utf-8")
    assert report.startswith(f"# {experiment_id}: ")
    for heading in ("## What this checks", "## Parameters", "## Checks", "## Runs", "## Reproduce"):
        assert heading in report, heading
    assert f"lfnlab reproduce {experiment_id} --quick --out {d}" in report
    for png in pngs:
        assert f"]({png.name})" in report
    # The raw results of every run, listed in checks.json, are complete result directories.
    assert checks["runs"]
    for run in checks["runs"]:
        assert (d / run / "summary.json").is_file() and (d / run / "tcp.parquet").is_file(), run
    assert sorted(checks["files"]) == sorted(f.name for f in d.iterdir() if f.is_file())


@pytest.mark.engine
def test_output_does_not_depend_on_the_number_of_workers(
    quick_outputs: dict[str, tuple[Path, subprocess.CompletedProcess[str]]], tmp_path: Path
) -> None:
    many, _ = quick_outputs["06.V2"]  # default workers: the CPU count
    one = tmp_path / "one"
    p = run_cli("reproduce", "06.V2", "--quick", "--workers", "1", "--out", one)
    assert p.returncode == 0, p.stderr
    for f in sorted(many.iterdir()):
        if f.is_file():
            a, b = f.read_bytes(), (one / f.name).read_bytes()
            if f.name in ("report.md", "report.html"):  # names its own --out
                a, b = a.replace(str(many).encode(), b"OUT"), b.replace(str(one).encode(), b"OUT")
            assert a == b, f.name


@pytest.mark.engine
def test_rerun_into_its_own_output_replaces_it(
    quick_outputs: dict[str, tuple[Path, subprocess.CompletedProcess[str]]],
) -> None:
    d, _ = quick_outputs["06.V6"]
    stray = d / "runs" / "stale-label"
    stray.mkdir()
    p = run_cli("reproduce", "06.V6", "--quick", "--out", d)
    assert p.returncode == 0, p.stderr
    assert stray.is_dir(), "only directories the previous checks.json listed are removed"
    stray.rmdir()


@pytest.mark.engine
def test_resume_reuses_stamped_runs_and_reruns_the_rest(
    quick_outputs: dict[str, tuple[Path, subprocess.CompletedProcess[str]]], tmp_path: Path
) -> None:
    import shutil

    d, _ = quick_outputs["06.V2"]
    copy = tmp_path / "resumed"
    shutil.copytree(d, copy)
    runs = sorted(p for p in (copy / "runs").iterdir() if p.is_dir())
    assert len(runs) >= 2
    stamp = json.loads((runs[0] / "reproduce.json").read_text(encoding="utf-8"))
    assert set(stamp) == {"scenario_sha256", "engine_sha256"}
    # An interrupted sweep: one run lost its stamp (killed before it was written), one is gone.
    (runs[0] / "reproduce.json").unlink()
    shutil.rmtree(runs[1])
    for f in copy.iterdir():
        if f.is_file():
            f.unlink()
    kept = {r.name: (r / "summary.json").stat().st_ino for r in runs[2:]}
    p = run_cli("reproduce", "06.V2", "--quick", "--resume", "--out", copy)
    assert p.returncode == 0, p.stderr
    for name, inode in kept.items():
        assert (copy / "runs" / name / "summary.json").stat().st_ino == inode, f"{name} was run again"
    assert (runs[0] / "reproduce.json").is_file() and (runs[1] / "summary.json").is_file()
    for f in sorted(d.iterdir()):
        if f.is_file():
            a, b = f.read_bytes(), (copy / f.name).read_bytes()
            if f.name in ("report.md", "report.html"):
                a, b = a.replace(str(d).encode(), b"OUT"), b.replace(str(copy).encode(), b"OUT")
            assert a == b, f.name
    # A stamp that names another engine build is not trusted: that run is made again.
    first = runs[0] / "summary.json"
    before = first.stat().st_ino
    stale = dict(stamp, engine_sha256="0" * 64)
    (runs[0] / "reproduce.json").write_text(json.dumps(stale), encoding="utf-8")
    p = run_cli("reproduce", "06.V2", "--quick", "--resume", "--out", copy)
    assert p.returncode == 0, p.stderr
    assert first.stat().st_ino != before
    assert json.loads((runs[0] / "reproduce.json").read_text(encoding="utf-8")) == stamp


def _interrupted_while_writing_figures(out: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``lfnlab reproduce 06.V2 --quick`` stopped by Ctrl-C after its runs and tables were
    written, while its first figure is saved (in process, so the moment is exact)."""
    from lfnlab.reproduce import command, report

    def interrupt(*_: object, **__: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(report, "save_png", interrupt)
    with pytest.raises(KeyboardInterrupt):
        command.main(["06.V2", "--quick", "--out", str(out)])
    monkeypatch.undo()
    assert list(out.glob("*.csv")), "tables were written"
    assert not (out / "report.md").exists()
    assert json.loads((out / "checks.json").read_text(encoding="utf-8"))["incomplete"] is True


def _same_files(a_dir: Path, b_dir: Path) -> None:
    assert sorted(f.name for f in a_dir.iterdir() if f.is_file()) == sorted(f.name for f in b_dir.iterdir() if f.is_file())
    for f in sorted(a_dir.iterdir()):
        if f.is_file():
            a, b = f.read_bytes(), (b_dir / f.name).read_bytes()
            if f.name in ("report.md", "report.html"):
                a, b = a.replace(str(a_dir).encode(), b"OUT"), b.replace(str(b_dir).encode(), b"OUT")
            assert a == b, f.name


@pytest.mark.engine
def test_resume_finishes_an_output_interrupted_while_its_tables_were_written(
    quick_outputs: dict[str, tuple[Path, subprocess.CompletedProcess[str]]], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    d, _ = quick_outputs["06.V2"]
    out = tmp_path / "interrupted"
    _interrupted_while_writing_figures(out, monkeypatch)
    kept = {r.name: (r / "summary.json").stat().st_ino for r in (out / "runs").iterdir()}
    assert kept
    p = run_cli("reproduce", "06.V2", "--quick", "--resume", "--out", out)
    assert p.returncode == 0, p.stderr
    for name, inode in kept.items():
        assert (out / "runs" / name / "summary.json").stat().st_ino == inode, f"{name} was run again"
    _same_files(d, out)


@pytest.mark.engine
def test_resume_after_sigint_during_the_runs_reuses_what_finished(
    quick_outputs: dict[str, tuple[Path, subprocess.CompletedProcess[str]]], tmp_path: Path
) -> None:
    """Ctrl-C (SIGINT to the process) while the runs go: the process stops at once (the
    runs are native: cli._default_sigint), the stamped runs stay, and ``--resume`` reuses
    them and writes what an uninterrupted run writes."""
    d, _ = quick_outputs["06.V2"]
    out = tmp_path / "sigint"
    cmd = [*lfnlab_command(), "reproduce", "06.V2", "--quick", "--workers", "1", "--progress", "none", "--out", str(out)]
    p = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 300
    while p.poll() is None and not list(out.glob("runs/*/reproduce.json")) and time.monotonic() < deadline:
        time.sleep(0.02)
    assert p.poll() is None, "the experiment finished before it could be interrupted"
    p.send_signal(signal.SIGINT)
    p.communicate(timeout=60)
    assert p.returncode == -signal.SIGINT
    assert json.loads((out / "checks.json").read_text(encoding="utf-8"))["incomplete"] is True
    assert not list(out.glob("*.csv")), "interrupted during the runs, before any table"
    stamped = {s.parent.name: (s.parent / "summary.json").stat().st_ino for s in out.glob("runs/*/reproduce.json")}
    all_runs = {r.name for r in (d / "runs").iterdir() if r.is_dir()}
    assert stamped and set(stamped) < all_runs, "some runs finished, not all"
    r = run_cli("reproduce", "06.V2", "--quick", "--resume", "--out", out)
    assert r.returncode == 0, r.stderr
    for name, inode in stamped.items():
        assert (out / "runs" / name / "summary.json").stat().st_ino == inode, f"{name} was run again"
    _same_files(d, out)


@pytest.mark.engine
def test_a_rerun_replaces_an_interrupted_output(
    quick_outputs: dict[str, tuple[Path, subprocess.CompletedProcess[str]]], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    d, _ = quick_outputs["06.V2"]
    out = tmp_path / "interrupted"
    _interrupted_while_writing_figures(out, monkeypatch)
    p = run_cli("reproduce", "06.V2", "--quick", "--out", out)
    assert p.returncode == 0, p.stderr
    _same_files(d, out)


@pytest.mark.engine
def test_progress_json_counts_every_run(tmp_path: Path) -> None:
    out = tmp_path / "v6"
    p = run_cli("reproduce", "06.V6", "--quick", "--workers", "2", "--progress", "json", "--out", out)
    assert p.returncode == 0, p.stderr
    lines = [json.loads(line) for line in p.stderr.splitlines() if line.startswith("{")]
    assert {line["kind"] for line in lines} == {"reproduce"}
    runs = len(json.loads((out / "checks.json").read_text(encoding="utf-8"))["runs"])
    # The engine plans every case before the first run starts (reproduce/engine.py, step 1).
    assert lines[0]["done"] == 0 and lines[0]["total"] == runs, "a line when the experiment starts, counting the planned runs"
    assert lines[-1]["done"] == lines[-1]["total"] == runs and lines[-1]["remaining"] == 0 and lines[-1]["eta_s"] == 0
    dones = [line["done"] for line in lines]
    assert dones == sorted(dones) and len(set(dones)) == runs + 1, "one line per finished run"
    assert all(line["done"] + line["failed"] + line["lost"] + line["remaining"] == line["total"] for line in lines)


def test_the_terminal_line_names_the_experiment() -> None:
    from lfnlab.sweep.progress import Tally, TerminalProgress

    tally = Tally(total=4, kind="reproduce", clock=lambda: 0.0)
    tally.done_now = 1
    assert TerminalProgress(io.StringIO(), "04.E4.1").line(tally).startswith("reproduce 04.E4.1: 1/4 done, 0 failed, 3 remaining")


def test_resume_refuses_a_foreign_directory(tmp_path: Path) -> None:
    precious = tmp_path / "precious"
    precious.mkdir()
    (precious / "thesis.tex").write_text("keep")
    p = run_cli("reproduce", "06.V6", "--quick", "--resume", "--out", precious)
    assert p.returncode == 2
    assert "--out" in p.stderr.splitlines()[0]
    assert [f.name for f in precious.iterdir()] == ["thesis.tex"]


def test_unknown_id_exits_2_and_lists_the_catalogue(tmp_path: Path) -> None:
    p = run_cli("reproduce", "06.V9", "--out", tmp_path / "x")
    assert p.returncode == 2
    first = p.stderr.splitlines()[0]
    assert first.startswith("error: <arguments>: ID: unknown experiment '06.V9'"), p.stderr
    for experiment_id in IDS:
        assert experiment_id in first
    assert not (tmp_path / "x").exists()
    assert "Traceback" not in p.stderr


@pytest.mark.parametrize(
    ("args", "argument"),
    [
        ([], "ID"),
        (["06.V1", "--workers", "0"], "--workers"),
        (["06.V1", "--workers", "many"], "--workers"),
        (["--list", "06.V1"], "--list"),
        (["06.V1", "--bogus"], "unrecognized arguments: --bogus"),
    ],
)
def test_bad_arguments_exit_2(args: list[str], argument: str) -> None:
    p = run_cli("reproduce", *args)
    assert p.returncode == 2, (args, p.stdout, p.stderr)
    assert p.stderr.startswith("error: <arguments>: ") and argument in p.stderr.splitlines()[0], p.stderr


def test_foreign_output_directory_is_left_alone(tmp_path: Path) -> None:
    precious = tmp_path / "precious"
    precious.mkdir()
    (precious / "thesis.tex").write_text("keep")
    p = run_cli("reproduce", "06.V6", "--quick", "--out", precious)
    assert p.returncode == 2
    assert "--out" in p.stderr
    assert [f.name for f in precious.iterdir()] == ["thesis.tex"]


def test_a_failed_check_exits_1_and_names_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from lfnlab.reproduce import command
    from lfnlab.reproduce.outcome import Check, Outcome
    from lfnlab.reproduce.engine import Experiment
    from lfnlab.reproduce.ch06_tcp_validation.v6_determinism import QUICK

    def analyse(params: object, kept: object) -> Outcome:
        return Outcome(checks=[Check.within("always low", 0.5, 1.0, 2.0), Check.equal("fine", 1, 1)])

    fake = Experiment("06.VX", "a failing check", "fails on purpose", "nowhere", "Nothing.", QUICK, QUICK, lambda p: [], analyse)
    monkeypatch.setattr(command, "find", lambda experiment_id: fake)
    assert command.main(["06.VX", "--quick", "--out", str(tmp_path / "o")]) == 1
    err = capsys.readouterr().err
    assert re.search(r"check failed: always low: measured 0\.5", err), err
    checks = json.loads((tmp_path / "o" / "checks.json").read_text(encoding="utf-8"))
    assert checks["passed"] is False
    assert [c["passed"] for c in checks["checks"]] == [False, True]


def test_the_wall_ledger_books_running_time_and_sets_a_stop_apart() -> None:
    """The catalogue's time (reproduce.wall_ledger): beats every 10 s add their gaps; a
    gap over 60 s (the process was stopped with SIGSTOP for 490 s) books one beat as running
    and the rest as stopped; a ledger continues from an earlier invocation's entry."""
    from lfnlab.reproduce.wall_ledger import Spent, WallLedger

    clock = WallLedger(Spent(100.0, 5.0), now_s=1000.0, beat_s=10.0, stopped_gap_s=60.0)
    for now in (1010.0, 1020.0, 1520.0, 1530.0, 1535.5):
        spent = clock.beat(now)
    assert (spent.ran_s, spent.stopped_s) == (100.0 + 10 + 10 + 10 + 10 + 5.5, 5.0 + 490.0)
    # A gap of exactly the threshold is still running time; a clock that went back books nothing.
    clock = WallLedger(Spent(), now_s=0.0, beat_s=10.0, stopped_gap_s=60.0)
    assert clock.beat(60.0).ran_s == 60.0 and clock.beat(50.0).ran_s == 60.0
    with pytest.raises(ValueError):
        WallLedger(Spent(), now_s=0.0, beat_s=10.0, stopped_gap_s=10.0)


def test_all_runs_the_catalogue_records_it_and_resumes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """``--all`` (issue 39, What to build 3): every experiment into DIR/ID, the catalogue's
    table with verdicts and wall times; a second invocation needs --resume and skips what passed."""
    import csv

    from lfnlab.reproduce import command
    from lfnlab.reproduce.registry import find

    two = [find("06.V7"), find("06.V1")]
    monkeypatch.setattr(command, "catalogue", lambda: two)
    out = tmp_path / "cat"
    assert command.main(["--all", "--quick", "--workers", "2", "--out", str(out), "--progress", "none"]) == 0
    rows = list(csv.DictReader(open(out / command.CATALOGUE_CSV, encoding="utf-8")))
    assert [r["id"] for r in rows] == ["06.V7", "06.V1"]
    assert all(r["status"] == "pass" and r["form"] == "quick" and float(r["wall_s"]) > 0 for r in rows)
    assert all(int(r["checks_passed"]) == int(r["checks"]) > 0 and int(r["runs"]) > 0 for r in rows)
    assert (out / "06.V7" / "report.md").is_file() and (out / "06.V1" / "checks.json").is_file()
    md = (out / command.CATALOGUE_MD).read_text(encoding="utf-8")
    assert "2 of 2 experiments pass every check" in md and "[06.V1](06.V1/report.md)" in md
    capsys.readouterr()
    # A catalogue is never replaced without --resume.
    assert command.main(["--all", "--quick", "--out", str(out)]) == 2
    assert "--resume" in capsys.readouterr().err
    # --resume skips what passed and reruns the rest (here: a row marked failed).
    rows[1]["status"] = "FAIL"
    command.write_catalogue(out, {r["id"]: r for r in rows})
    assert command.main(["--all", "--quick", "--resume", "--out", str(out), "--progress", "none"]) == 0
    printed = capsys.readouterr().out
    assert "06.V7: done before" in printed and "06.V1 (quick form)" in printed
    again = {r["id"]: r for r in csv.DictReader(open(out / command.CATALOGUE_CSV, encoding="utf-8"))}
    assert again["06.V1"]["status"] == "pass" and float(again["06.V1"]["wall_s"]) > float(rows[1]["wall_s"])
    # The ledger keeps every experiment's booked time; the table shows it.
    ledger = json.loads((out / "catalogue-wall.json").read_text(encoding="utf-8"))
    assert set(ledger) == {"06.V7", "06.V1"}
    assert all(float(again[i]["wall_s"]) == pytest.approx(ledger[i]["ran_s"], abs=0.1) for i in ledger)
    assert all(float(again[i]["stopped_s"]) == 0.0 for i in ledger)
    # A row from before the ledger existed: its time is where the ledger continues.
    (out / "catalogue-wall.json").unlink()
    again["06.V1"].update(status="FAIL", wall_s="1000.0", stopped_s="7.0")
    command.write_catalogue(out, again)
    assert command.main(["--all", "--quick", "--resume", "--out", str(out), "--progress", "none"]) == 0
    seeded = json.loads((out / "catalogue-wall.json").read_text(encoding="utf-8"))
    assert set(seeded) == {"06.V1"} and seeded["06.V1"]["ran_s"] > 1000.0 and seeded["06.V1"]["stopped_s"] == 7.0
    # An ID with --all, or a foreign directory, is refused.
    assert command.main(["--all", "06.V1", "--out", str(tmp_path / "x")]) == 2
    foreign = tmp_path / "foreign"
    foreign.mkdir()
    (foreign / "thesis.tex").write_text("keep")
    assert command.main(["--all", "--quick", "--resume", "--out", str(foreign)]) == 2
    assert [f.name for f in foreign.iterdir()] == ["thesis.tex"]
