"""The ``lfnlab reproduce`` verb (spec 00 §2.3): arguments, output directory, exit status.

``lfnlab reproduce ID [--out DIR] [--quick] [--workers N] [--scheduler ADDR | --dask local] [--resume] [--progress MODE]``
and ``lfnlab reproduce --list``.
Exit status 0 when every check passes, 1 when the experiment ran but a check
failed (or a run failed), 2 for invalid arguments.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Optional

from ..command_args import EXIT_FAILURE, EXIT_INVALID_INPUT, EXIT_OK, Parser, UsageError, positive_workers, scheduler_address
from ..sweep.progress import MODES, make_progress
from .registry import Experiment, catalogue, find, list_lines
from .report import CHECKS, write_incomplete_manifest, write_report
from .runner import RUNS_DIR, STAMP, default_workers

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
        experiment = _experiment(args.id)
        scheduler_address("--scheduler", args.scheduler)
        if args.workers is not None and args.scheduler is not None:
            raise UsageError("--workers", "the Dask cluster at --scheduler decides its workers; drop --workers")
        workers = _workers(args.workers)
        default_out = Path("out") / (experiment.id + ("-quick" if args.quick else ""))
        out: Path = args.out if args.out is not None else default_out
        prepare_out(out, resume=args.resume)
    except UsageError as e:
        where = f"{e.argument}: " if e.argument else ""
        print(f"error: <arguments>: {where}{e.message}", file=sys.stderr)
        print(
            "usage: lfnlab reproduce ID [--out DIR] [--quick] [--workers N] [--scheduler ADDR | --dask local] [--resume] [--progress MODE] | lfnlab reproduce --list",
            file=sys.stderr,
        )
        return EXIT_INVALID_INPUT

    from ..errors import LfnlabError

    form = "quick" if args.quick else "full"
    backend = None
    if args.scheduler is not None or args.dask is not None:
        from ..sweep.execute import make_backend

        backend = make_backend(workers, args.scheduler, args.dask == "local")
    where = f"{workers} worker(s)" if backend is None else f"runs on {backend.describe()}"
    print(f"{experiment.id} ({form} form): {experiment.title}; {where}; output in {out}", flush=True)
    if not (args.resume and (out / CHECKS).is_file()):
        # From here on OUT is this command's output, even if it is interrupted (report.py).
        write_incomplete_manifest(out, experiment, quick=args.quick, runs=[], files=[])
    try:
        progress = make_progress(args.progress, stream=sys.stderr, name=experiment.id)
        outcome = experiment.run(args.quick, workers, out, resume=args.resume, progress=progress, backend=backend)
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
