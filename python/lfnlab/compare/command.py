"""The ``lfnlab compare`` verb.

``lfnlab compare SCENARIO.toml [--out DIR] [--repetitions N] [--workers N]
[--tolerance PCT] [--set KEY=VALUE ...] [--quiet]`` runs the scenario in the simulator
and on the testbed and writes the side-by-side report (docs/compare.md). Exit status: 0
the comparison is written (also when metrics lie outside the band: that is a finding,
not a failure), 2 invalid input (a scenario outside the testbed's subset, an argument,
an output directory that is not a comparison, no root or no network namespaces), 1 any
other failure (SIGINT/SIGTERM: the testbed's namespaces and processes are removed).
"""

from __future__ import annotations

import argparse
import math
import sys
from collections.abc import Sequence
from pathlib import Path

from ..command_args import EXIT_FAILURE, EXIT_INVALID_INPUT, EXIT_OK, Parser, UsageError, positive_int
from ..errors import InvalidInputError, LfnlabError, OutputError

__all__ = ["main", "tolerance"]


def _parser() -> argparse.ArgumentParser:
    p = Parser(
        prog="lfnlab compare",
        description="Run a scenario in the simulator (linux-modern) and on the testbed (real Linux TCP through "
        "lfnlab emu), N repetitions each, and write a side-by-side report.",
        epilog="Exit status: 0 written (see report.md for metrics outside the band), 1 a failure or a stop, "
        "2 invalid input or no testbed here (not root, no network namespaces).",
    )
    p.add_argument("scenario", metavar="SCENARIO.toml", type=Path)
    p.add_argument("--out", metavar="DIR", type=Path, default=None, help="output directory (default: out/<sim.name>-compare)")
    p.add_argument("--repetitions", metavar="N", default="3", help="runs on each side (default 3)")
    p.add_argument("--workers", metavar="N", default="1", help="testbed runs at a time, each in its own namespaces (default 1)")
    p.add_argument("--tolerance", metavar="PCT", default="15", help="the band, in percent of the kernel's median (default 15)")
    p.add_argument("--set", metavar="KEY=VALUE", action="append", default=[], dest="sets", help="override one scenario key")
    p.add_argument("--quiet", action="store_true", help="print nothing but errors")
    return p


def tolerance(text: str) -> float:
    """``--tolerance``: a positive percentage (``15`` or ``15%``) as a fraction."""
    try:
        v = float(text.strip().removesuffix("%"))
    except ValueError:
        raise UsageError("--tolerance", f"expected a percentage such as 15, got {text!r}") from None
    if not (v > 0 and math.isfinite(v)):
        raise UsageError("--tolerance", f"expected a positive percentage, got {text!r}")
    return v / 100.0


def _run(args: argparse.Namespace) -> int:
    from ..scenario import Scenario
    from ..testbed.lab import TestbedUnavailableError
    from ..testbed.registry import Interrupted
    from ..testbed.subset import check
    from .compare import compare
    from .report import percent

    def say(line: str) -> None:
        if not args.quiet:
            print(line, flush=True)

    repetitions = positive_int("--repetitions", args.repetitions)
    workers = positive_int("--workers", args.workers)
    band = tolerance(args.tolerance)
    try:
        scenario = Scenario.from_file(args.scenario, set=args.sets)
        out = args.out if args.out is not None else Path("out") / f"{check(scenario).name}-compare"
        command = " ".join(["lfnlab", "compare", *sys.argv[2:]]) if sys.argv[1:2] == ["compare"] else None
        c = compare(scenario, out, repetitions, workers, band, command=command, say=say)
    except (InvalidInputError, TestbedUnavailableError, OutputError) as e:
        print(f"error: {e}", file=sys.stderr)
        return EXIT_INVALID_INPUT
    except Interrupted as e:
        print(f"error: {e}; the testbed's namespaces and processes are removed", file=sys.stderr)
        return EXIT_FAILURE
    except LfnlabError as e:
        print(f"error: {e}", file=sys.stderr)
        return EXIT_FAILURE
    for r in c.summary.itertuples(index=False):
        scale, unit = (1e-6, "Mbit/s") if r.unit == "bit/s" else (1.0, r.unit)
        flag = "  OUTSIDE the band" if r.outside_band else ""
        say(
            f"  {r.metric}: simulator {r.simulator_median * scale:.4g}, kernel {r.kernel_median * scale:.4g} {unit} "
            f"({percent(r.difference)}){flag}"
        )
    say(f"report in {c.out / 'report.md'}")
    return EXIT_OK


def main(argv: Sequence[str]) -> int:
    try:
        return _run(_parser().parse_args(list(argv)))
    except UsageError as e:
        where = f"{e.argument}: " if e.argument else ""
        print(f"error: <arguments>: {where}{e.message}", file=sys.stderr)
        return EXIT_INVALID_INPUT
