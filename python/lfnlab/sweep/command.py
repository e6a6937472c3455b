"""The ``lfnlab sweep`` verb (spec 00 §2.3): arguments, messages, exit status.

``lfnlab sweep PLAN.toml [--out DIR] [--workers N] [--scheduler ADDR | --dask local]
[--quiet] [--progress {auto,json,none}]``

Exit status: 0 every run of the plan is done; 1 a run failed or was lost (the index is
still complete for what ran), the sweep was interrupted, Dask is missing or its
scheduler unreachable, or the output cannot be written; 2 an invalid plan or argument
(``error: FILE: KEY.PATH: message``), before anything runs.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from ..command_args import EXIT_FAILURE, EXIT_INVALID_INPUT, EXIT_OK, Parser, UsageError, positive_workers, scheduler_address
from ..errors import InvalidInputError, LfnlabError
from .progress import MODES

__all__ = ["main"]

#: Failed runs listed one by one on stderr; the rest are counted.
MAX_LISTED_FAILURES = 10
USAGE = (
    "usage: lfnlab sweep PLAN.toml [--out DIR] [--workers N] [--scheduler ADDR | --dask local] "
    "[--quiet] [--progress {auto,json,none}]"
)


def _parser() -> argparse.ArgumentParser:
    p = Parser(
        prog="lfnlab sweep",
        description="Run a parameter grid: a base scenario and axes of --set key paths, on local worker "
        "processes or a Dask cluster. Re-running a plan resumes it (docs/sweep.md).",
        epilog="Exit status: 0 every run done, 1 a run failed or was lost (or Dask/output trouble), "
        "2 invalid plan or arguments.",
    )
    p.add_argument("plan", metavar="PLAN.toml", type=Path, help="the sweep plan")
    p.add_argument("--out", metavar="DIR", type=Path, default=None, help="output directory (default: out/<plan name>)")
    p.add_argument(
        "--workers",
        metavar="N",
        default=None,
        help="local worker processes (default: the number of CPUs); with --dask local, the LocalCluster's workers",
    )
    where = p.add_mutually_exclusive_group()
    where.add_argument(
        "--scheduler", metavar="ADDR", default=None, help="run on the Dask scheduler at ADDR (tcp://host:port)"
    )
    where.add_argument("--dask", metavar="local", choices=["local"], default=None, help="run on a local Dask cluster")
    p.add_argument("--quiet", action="store_true", help="print nothing but errors (and --progress json if asked for)")
    p.add_argument(
        "--progress",
        choices=MODES,
        default="auto",
        help="auto: a status line when stderr is a terminal; json: one JSON object per line on stderr; none",
    )
    return p


_workers = positive_workers


def _error(message: str) -> None:
    print(f"error: {message}", file=sys.stderr, flush=True)


def main(argv: Sequence[str]) -> int:
    """Run ``lfnlab sweep ARGS`` (``argv`` without the program and verb); return the exit status."""
    try:
        return _main(argv)
    except KeyboardInterrupt:  # before any run started (the runs have their own message)
        _error("interrupted")
        return EXIT_FAILURE


def _main(argv: Sequence[str]) -> int:
    try:
        args = _parser().parse_args(list(argv))
        workers = _workers(args.workers)
        scheduler_address("--scheduler", args.scheduler)
        if workers is not None and args.scheduler is not None:
            raise UsageError("--workers", "the Dask cluster at --scheduler decides its workers; drop --workers")
    except UsageError as e:
        where = f"{e.argument}: " if e.argument else ""
        _error(f"<arguments>: {where}{e.message}")
        print(USAGE, file=sys.stderr)
        return EXIT_INVALID_INPUT

    from .driver import run_sweep
    from .execute import SweepBackendError, make_backend
    from .plan import load_plan
    from .progress import make_progress

    def say(line: str) -> None:
        if not args.quiet:
            print(line, flush=True)

    try:
        plan = load_plan(args.plan)
    except InvalidInputError as e:
        _error(str(e))
        return EXIT_INVALID_INPUT
    out: Path = args.out if args.out is not None else Path("out") / plan.name
    backend = make_backend(workers, args.scheduler, args.dask == "local")
    progress = make_progress(args.progress, args.quiet, sys.stderr, plan.name)
    try:
        report = run_sweep(plan, out, backend, progress, announce=say)
    except InvalidInputError as e:  # --out is not a sweep directory
        _error(str(e))
        return EXIT_INVALID_INPUT
    except SweepBackendError as e:
        _error(str(e))
        return EXIT_FAILURE
    except LfnlabError as e:  # OutputError: cannot write, or another sweep holds --out
        _error(str(e))
        return EXIT_FAILURE
    except KeyboardInterrupt:
        _error(f"{plan.file}: interrupted; finished runs are kept in {out}; run the same command again to resume")
        return EXIT_FAILURE

    t = report.tally
    for point, message in report.failures[:MAX_LISTED_FAILURES]:
        params = ", ".join(f"{k}={v}" for k, v in point.params)
        _error(f"run {point.run_id} ({params}{', ' if params else ''}seed {point.seed}): {message}")
    if len(report.failures) > MAX_LISTED_FAILURES:
        _error(f"... and {len(report.failures) - MAX_LISTED_FAILURES} more failed runs (see {out / 'index.csv'})")
    for point, reason in report.lost[:MAX_LISTED_FAILURES]:
        _error(f"run {point.run_id}: not recorded: {reason}")
    if report.stale:
        dirs = f"{len(report.stale)} run director{'y' if len(report.stale) == 1 else 'ies'}"
        say(f"note: {dirs} in {out / 'runs'} belong to no point of this plan (kept, not indexed)")
    lost = f", {t.lost} lost" if t.lost else ""
    say(
        f"{t.done}/{t.total} runs done ({t.done_now} now, {t.reused} reused), {t.failed} failed{lost}; "
        f"index in {out / 'index.parquet'}"
    )
    if t.failed or t.lost:
        what = " and ".join(x for x in (f"{t.failed} failed" if t.failed else "", f"{t.lost} lost" if t.lost else "") if x)
        _error(f"{plan.file}: {what} of {t.total} runs; run the same command again to redo them")
        return EXIT_FAILURE
    return EXIT_OK
