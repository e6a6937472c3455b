"""The ``lfnlab reproduce`` verb (spec 00 §2.3): arguments, output directory, exit status.

``lfnlab reproduce ID [--out DIR] [--quick] [--workers N] [--scheduler ADDR | --dask local] [--resume] [--progress MODE]``,
``lfnlab reproduce --all [--out DIR] …`` (every experiment, each into ``DIR/ID``, with the
catalogue's table ``DIR/catalogue.csv`` and ``DIR/catalogue.md``) and ``lfnlab reproduce --list``.
Exit status 0 when every check passes, 1 when the experiment ran but a check
failed (or a run failed), 2 for invalid arguments.
"""

from __future__ import annotations

import argparse
import csv
import json
import shutil
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Optional

from ..command_args import EXIT_FAILURE, EXIT_INVALID_INPUT, EXIT_OK, Parser, UsageError, positive_workers, scheduler_address
from ..sweep.progress import MODES, make_progress
from .bench_journal import JOURNAL
from .registry import Experiment, catalogue, find, list_lines
from .report import CHECKS, write_incomplete_manifest, write_report
from .runner import RUNS_DIR, STAMP, default_workers
from .wall_ledger import LEDGER, Heartbeat, Spent, read_ledger, write_ledger

__all__ = ["main", "UsageError"]



def _parser() -> argparse.ArgumentParser:
    p = Parser(
        prog="lfnlab reproduce",
        description="Run one catalogued experiment and write its tables (CSV), figures (PNG), "
        "report.md, checks.json and raw run results.",
        epilog="Exit status: 0 all checks pass, 1 a check or run failed, 2 invalid arguments.",
    )
    p.add_argument("id", metavar="ID", nargs="?", help="experiment ID, e.g. 06.V1 (see --list)")
    p.add_argument(
        "--out", metavar="DIR", type=Path, default=None, help="output directory (default: out/ID, or out/ID-quick)"
    )
    p.add_argument("--quick", action="store_true", help="the reduced form used by the test suite (seconds)")
    p.add_argument(
        "--workers",
        metavar="N",
        default=None,
        help="scenarios run in parallel (default: the number of CPUs); with --dask local, the LocalCluster's workers",
    )
    where = p.add_mutually_exclusive_group()
    where.add_argument(
        "--scheduler", metavar="ADDR", default=None, help="run the scenarios on the Dask scheduler at ADDR (tcp://host:port)"
    )
    where.add_argument("--dask", metavar="local", choices=["local"], default=None, help="run the scenarios on a local Dask cluster")
    p.add_argument(
        "--resume",
        action="store_true",
        help="keep DIR's finished runs and reuse each one whose scenario and engine are unchanged "
        "(an interrupted or extended sweep runs only what is missing)",
    )
    p.add_argument(
        "--progress",
        choices=MODES,
        default="auto",
        help="runs done, asked for so far, ETA: a line on a terminal (auto), JSON lines on stderr (json), or none",
    )
    p.add_argument("--list", action="store_true", help="list the catalogue, one line per experiment")
    p.add_argument(
        "--all",
        action="store_true",
        help="run every experiment of the catalogue, each into DIR/ID (default DIR: out/catalogue, or "
        "out/catalogue-quick), and write DIR/catalogue.csv and DIR/catalogue.md: verdict, checks and wall time "
        "per experiment; with --resume an interrupted catalogue continues where it stopped",
    )
    return p


def _known() -> str:
    return ", ".join(e.id for e in catalogue())


def _workers(text: Optional[str]) -> int:
    n = positive_workers(text)
    return default_workers() if n is None else n


def _experiment(experiment_id: Optional[str]) -> Experiment:
    if experiment_id is None:
        raise UsageError("ID", f"missing experiment ID; known: {_known()} (or --list)")
    e = find(experiment_id)
    if e is None:
        raise UsageError("ID", f"unknown experiment {experiment_id!r}; known: {_known()}")
    return e


def prepare_out(out: Path, resume: bool = False) -> None:
    """Make ``out`` ready: create it, or clear a previous ``lfnlab reproduce`` output in it
    (only the files and run directories its ``checks.json`` lists, and, for an output that
    was interrupted, its stamped runs). Anything else that is not empty is refused, as
    ``lfnlab run`` refuses to replace a foreign directory.

    With ``resume`` nothing is cleared: ``out`` may also be an interrupted output (its
    ``checks.json`` marked incomplete, or only a ``runs`` directory), whose stamped runs
    the runner reuses."""
    if out.exists() and not out.is_dir():
        raise UsageError("--out", f"{out} exists and is not a directory")
    if resume:
        if out.is_dir() and not (out / CHECKS).is_file() and any(p.name != RUNS_DIR for p in out.iterdir()):
            raise UsageError(
                "--out", f"{out} is not empty and not the output of `lfnlab reproduce`; refusing to resume in it"
            )
        out.mkdir(parents=True, exist_ok=True)
        return
    if out.is_dir() and any(out.iterdir()):
        manifest = out / CHECKS
        try:
            previous = json.loads(manifest.read_text(encoding="utf-8"))
            files = [str(f) for f in previous["files"]]
            runs = [str(r) for r in previous["runs"]]
        except (OSError, ValueError, KeyError, TypeError):
            raise UsageError(
                "--out", f"{out} is not empty and not the output of `lfnlab reproduce`; refusing to replace it"
            ) from None
        for name in files:
            p = out / name
            if p.parent == out and p.is_file():  # names only, never a path outside OUT
                p.unlink()
        if previous.get("incomplete"):
            # Interrupted before its report listed its runs: every stamped run is this command's.
            runs += [f"{RUNS_DIR}/{p.name}" for p in sorted((out / RUNS_DIR).glob("*")) if (p / STAMP).is_file()]
        for run in runs:
            p = out / run
            if p.parent == out / RUNS_DIR and p.is_dir():
                shutil.rmtree(p)
        (out / RUNS_DIR / JOURNAL).unlink(missing_ok=True)  # the bench runs' kept values: this command's file
        runs_dir = out / RUNS_DIR
        if runs_dir.is_dir() and not any(runs_dir.iterdir()):
            runs_dir.rmdir()
    out.mkdir(parents=True, exist_ok=True)


def main(argv: Sequence[str]) -> int:
    """Run ``lfnlab reproduce ARGS`` (``argv`` without the program and verb); return the exit status."""
    try:
        args = _parser().parse_args(list(argv))
        if args.list:
            if args.id is not None:
                raise UsageError("--list", "takes no experiment ID")
            for line in list_lines():
                print(line)
            return EXIT_OK
        if args.all and args.id is not None:
            raise UsageError("--all", "takes no experiment ID")
        experiment = None if args.all else _experiment(args.id)
        scheduler_address("--scheduler", args.scheduler)
        if args.workers is not None and args.scheduler is not None:
            raise UsageError("--workers", "the Dask cluster at --scheduler decides its workers; drop --workers")
        workers = _workers(args.workers)
        name = "catalogue" if experiment is None else experiment.id
        default_out = Path("out") / (name + ("-quick" if args.quick else ""))
        out: Path = args.out if args.out is not None else default_out
        if experiment is None:
            prepare_catalogue_out(out, resume=args.resume)
        else:
            prepare_out(out, resume=args.resume)
    except UsageError as e:
        where = f"{e.argument}: " if e.argument else ""
        print(f"error: <arguments>: {where}{e.message}", file=sys.stderr)
        print(
            "usage: lfnlab reproduce ID [--out DIR] [--quick] [--workers N] [--scheduler ADDR | --dask local] [--resume] [--progress MODE] | lfnlab reproduce --all [...] | lfnlab reproduce --list",
            file=sys.stderr,
        )
        return EXIT_INVALID_INPUT

    backend = None
    if args.scheduler is not None or args.dask is not None:
        from ..sweep.execute import make_backend

        backend = make_backend(workers, args.scheduler, args.dask == "local")
    if experiment is None:
        return _run_all(args, workers, out, backend)
    return _run_one(experiment, args, workers, out, backend)


def _run_one(experiment: Experiment, args: argparse.Namespace, workers: int, out: Path, backend: object) -> int:
    """One experiment into ``out``; the exit status."""
    from ..errors import LfnlabError

    form = "quick" if args.quick else "full"
    where = f"{workers} worker(s)" if backend is None else f"runs on {backend.describe()}"  # type: ignore[attr-defined]
    print(f"{experiment.id} ({form} form): {experiment.title}; {where}; output in {out}", flush=True)
    if not (args.resume and (out / CHECKS).is_file()):
        # From here on OUT is this command's output, even if it is interrupted (report.py).
        write_incomplete_manifest(out, experiment, quick=args.quick, runs=[], files=[])
    try:
        progress = make_progress(args.progress, stream=sys.stderr, name=experiment.id)
        outcome = experiment.run(args.quick, workers, out, resume=args.resume, progress=progress, backend=backend)  # type: ignore[arg-type]
    except LfnlabError as e:
        from ..testbed.lab import TestbedUnavailableError

        print(f"error: {experiment.id}: {e}", file=sys.stderr)
        return EXIT_INVALID_INPUT if isinstance(e, TestbedUnavailableError) else EXIT_FAILURE
    report = write_report(experiment, outcome, out, quick=args.quick, out_arg=str(out))
    for c in outcome.checks:
        print(f"  {'PASS' if c.passed else 'FAIL'}  {c.name}: {c.measured_text()} ({c.criterion})")
    print(f"report in {report}")
    failed = outcome.failed()
    if failed or not outcome.checks:
        for c in failed:
            print(
                f"error: {experiment.id}: check failed: {c.name}: measured {c.measured_text()}, expected {c.criterion}",
                file=sys.stderr,
            )
        if not outcome.checks:
            print(f"error: {experiment.id}: no checks were computed", file=sys.stderr)
        return EXIT_FAILURE
    return EXIT_OK


#: The catalogue's table, in ``DIR`` of ``--all``.
CATALOGUE_CSV = "catalogue.csv"
CATALOGUE_MD = "catalogue.md"
CATALOGUE_COLUMNS = ["id", "title", "form", "status", "checks_passed", "checks", "wall_s", "stopped_s", "runs_wall_s", "runs", "exit"]
#: What an experiment's exit status means in the catalogue's table.
_STATUS = {EXIT_OK: "pass", EXIT_FAILURE: "FAIL", EXIT_INVALID_INPUT: "unavailable"}


def prepare_catalogue_out(out: Path, resume: bool) -> None:
    """``DIR`` of ``--all``: new or empty; a previous catalogue (it holds ``catalogue.csv``)
    only with ``--resume``, which continues it."""
    if out.exists() and not out.is_dir():
        raise UsageError("--out", f"{out} exists and is not a directory")
    if out.is_dir() and any(out.iterdir()):
        if not (out / CATALOGUE_CSV).is_file():
            raise UsageError("--out", f"{out} is not empty and not the output of `lfnlab reproduce --all`; refusing to use it")
        if not resume:
            raise UsageError("--out", f"{out} holds a catalogue; add --resume to continue it, or choose another directory")
    out.mkdir(parents=True, exist_ok=True)


def read_catalogue(out: Path) -> dict[str, dict[str, str]]:
    """The rows of ``DIR/catalogue.csv`` by experiment ID (empty when there is none)."""
    try:
        with open(out / CATALOGUE_CSV, encoding="utf-8", newline="") as f:
            return {row["id"]: row for row in csv.DictReader(f)}
    except OSError:
        return {}


def write_catalogue(out: Path, rows: dict[str, dict[str, str]]) -> None:
    """``catalogue.csv`` and ``catalogue.md``, each written whole and then renamed into place."""
    order = [e.id for e in catalogue()]
    ordered = [rows[i] for i in order if i in rows]
    tmp = out / (CATALOGUE_CSV + ".tmp")
    with open(tmp, "w", encoding="utf-8", newline="") as f:
        w = csv.DictWriter(f, fieldnames=CATALOGUE_COLUMNS, lineterminator="\n")
        w.writeheader()
        for r in ordered:
            w.writerow({k: r.get(k, "") for k in CATALOGUE_COLUMNS})
    tmp.replace(out / CATALOGUE_CSV)
    total = sum(float(r["wall_s"]) for r in ordered if r.get("wall_s"))
    stopped = sum(float(r["stopped_s"]) for r in ordered if r.get("stopped_s"))
    runs_total = sum(float(r["runs_wall_s"]) for r in ordered if r.get("runs_wall_s"))
    done = [r for r in ordered if r.get("status") == "pass"]
    lines = [
        "# The catalogue",
        "",
        f"{len(done)} of {len(order)} experiments pass every check; {len(ordered)} have run. Wall time, summed over "
        f"the experiments: {total / 3600:.2f} h ({total:.0f} s), booked while they ran in every invocation, "
        f"interrupted ones included ({LEDGER}); the process also stood stopped (SIGSTOP) for {stopped:.0f} s, "
        f"not counted. The runs' own wall times add up to {runs_total / 3600:.2f} h ({runs_total:.0f} s): that sum "
        "counts parallel runs one after the other; bench-loop grids (05.E5.2) keep no run directories and are not in it.",
        "",
        "| ID | title | form | status | checks | wall time (s) | stopped (s) | runs | runs' wall time (s) |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for r in ordered:
        lines.append(f"| [{r['id']}]({r['id']}/report.md) | {r['title']} | {r['form']} | {r['status']} | "
                     f"{r['checks_passed']}/{r['checks']} | {float(r['wall_s']):.0f} | {float(r.get('stopped_s') or 0):.0f} | "
                     f"{r.get('runs', '')} | "
                     f"{float(r.get('runs_wall_s') or 0):.0f} |")
    missing = [i for i in order if i not in rows]
    if missing:
        lines += ["", "Not run yet: " + ", ".join(missing) + "."]
        ledger = read_ledger(out)
        started = [f"{i} ({ledger[i].ran_s:.0f} s so far)" for i in missing if i in ledger]
        if started:
            lines += ["", "Started, not finished: " + ", ".join(started) + "."]
    tmp = out / (CATALOGUE_MD + ".tmp")
    tmp.write_text("\n".join(lines) + "\n", encoding="utf-8")
    tmp.replace(out / CATALOGUE_MD)


def _checks_of(out: Path) -> tuple[int, int]:
    try:
        manifest = json.loads((out / CHECKS).read_text(encoding="utf-8"))
        checks = manifest["checks"]
        return sum(1 for c in checks if c.get("passed")), len(checks)
    except (OSError, ValueError, KeyError, TypeError):
        return 0, 0


def _runs_wall(out: Path) -> tuple[int, float]:
    """How many run directories ``out/runs`` holds and the sum of their ``wall_seconds``."""
    n, wall = 0, 0.0
    for summary in sorted((out / RUNS_DIR).glob("*/summary.json")):
        try:
            wall += float(json.loads(summary.read_text(encoding="utf-8")).get("wall_seconds", 0.0))
            n += 1
        except (OSError, ValueError, TypeError):
            continue
    return n, wall


def _run_all(args: argparse.Namespace, workers: int, out: Path, backend: object) -> int:
    """Every experiment of the catalogue into ``out/ID``; the worst exit status (1 if any
    experiment failed, 0 if all passed; an unavailable testbed counts as a failure)."""
    rows = read_catalogue(out) if args.resume else {}
    form = "quick" if args.quick else "full"
    worst = EXIT_OK
    write_catalogue(out, rows)
    for e in catalogue():
        previous = rows.get(e.id)
        if previous is not None and previous.get("status") == "pass" and previous.get("form") == form:
            print(f"{e.id}: done before ({previous['checks_passed']}/{previous['checks']} checks, {float(previous['wall_s']):.0f} s)", flush=True)
            continue
        sub = out / e.id
        try:
            prepare_out(sub, resume=args.resume)
        except UsageError as err:
            print(f"error: <arguments>: --out: {err.message}", file=sys.stderr)
            return EXIT_INVALID_INPUT
        ledger = read_ledger(out)
        if e.id not in ledger and previous is not None and previous.get("wall_s"):
            # A row from before the ledger: its time is where the ledger continues.
            write_ledger(out, {**ledger, e.id: Spent(float(previous["wall_s"]), float(previous.get("stopped_s") or 0))})
        beat = Heartbeat(out, e.id).start()
        try:
            code = _run_one(e, args, workers, sub, backend)
        finally:
            spent = beat.stop()
        passed, total = _checks_of(sub)
        n_runs, runs_wall = _runs_wall(sub)
        rows[e.id] = {"id": e.id, "title": e.title, "form": form, "status": _STATUS.get(code, "FAIL"), "checks_passed": str(passed),
                      "checks": str(total), "wall_s": f"{spent.ran_s:.1f}",
                      "stopped_s": f"{spent.stopped_s:.1f}", "runs_wall_s": f"{runs_wall:.1f}", "runs": str(n_runs),
                      "exit": str(code)}
        write_catalogue(out, rows)
        if code != EXIT_OK:
            worst = EXIT_FAILURE
    print(f"catalogue in {out / CATALOGUE_MD}")
    return worst
