"""The ``lfnlab testbed`` verb.

``lfnlab testbed run SCENARIO.toml [--out DIR] [--set KEY=VALUE ...] [--repetition N] [--quiet]``
runs a scenario of the supported subset on real Linux TCP (docs/testbed.md). Exit
status: 0 the run completed (also when it is marked invalid: host overloaded), 2 invalid
input (a scenario outside the subset, an argument, an existing non-result directory,
no root or no network namespaces), 1 any other failure (the relay or iperf3 failed, or
SIGINT/SIGTERM stopped the run).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from ..command_args import EXIT_FAILURE, EXIT_INVALID_INPUT, EXIT_OK, Parser, UsageError, positive_int
from ..errors import InvalidInputError, LfnlabError

__all__ = ["main"]


def _parser() -> argparse.ArgumentParser:
    p = Parser(
        prog="lfnlab testbed",
        description="Run a scenario on real Linux TCP: network namespaces, the lfnlab emu relay, iperf3.",
        epilog="Exit status: 0 done (see summary.json testbed.valid), 1 the run failed or was stopped, "
        "2 invalid input or no testbed here (not root, no network namespaces).",
    )
    sub = p.add_subparsers(dest="action", metavar="ACTION", parser_class=Parser)
    run = sub.add_parser("run", help="run one scenario and write its result directory")
    run.add_argument("scenario", metavar="SCENARIO.toml", type=Path)
    run.add_argument("--out", metavar="DIR", type=Path, default=None, help="result directory (default: out/<sim.name>-testbed)")
    run.add_argument("--set", metavar="KEY=VALUE", action="append", default=[], dest="sets", help="override one scenario key")
    run.add_argument("--repetition", metavar="N", default="1", help="repetition number, recorded in summary.json (default 1)")
    run.add_argument("--quiet", action="store_true", help="print nothing but errors")
    return p


def _run(args: argparse.Namespace) -> int:
    from ..scenario import Scenario
    from . import results
    from .lab import TestbedUnavailableError
    from .registry import Interrupted
    from .run import default_out, run_testbed
    from .subset import check

    def say(line: str) -> None:
        if not args.quiet:
            print(line, flush=True)

    repetition = positive_int("--repetition", args.repetition)
    try:
        scenario = Scenario.from_file(args.scenario, set=args.sets)
        out = args.out if args.out is not None else default_out(check(scenario), repetition)
        reason = results.check_out_dir(out)
        if reason is not None:
            raise UsageError("--out", reason)
        r = run_testbed(scenario, out, repetition=repetition, say=say)
    except (InvalidInputError, TestbedUnavailableError) as e:
        print(f"error: {e}", file=sys.stderr)
        return EXIT_INVALID_INPUT
    except Interrupted as e:
        print(f"error: {e}; the run's namespaces and processes are removed, no result written", file=sys.stderr)
        return EXIT_FAILURE
    except LfnlabError as e:
        print(f"error: {e}", file=sys.stderr)
        return EXIT_FAILURE
    tb = r.summary["testbed"]
    say(f"{r.name}: {r.summary['duration_s']:g} s of real TCP in {r.summary['wall_seconds']:.1f} s, {tb['reason'] or 'valid'}")
    for f in r.summary["flows"]:
        say(
            f"  {f['name']}: goodput {f['goodput_bps'] / 1e6:.2f} Mbit/s, "
            f"{f['retransmitted_segments']} retransmits, {f['timeouts']} timeouts"
        )
    say(f"  bottleneck drops {tb['bottleneck_drops_in_window']} in the window, relay lateness p99 {tb['lateness_p99_us']} µs")
    say(f"results in {out}")
    return EXIT_OK


def main(argv: Sequence[str]) -> int:
    try:
        args = _parser().parse_args(list(argv))
        if args.action is None:
            raise UsageError("", "expected an action: run")
        return _run(args)
    except UsageError as e:
        where = f"{e.argument}: " if e.argument else ""
        print(f"error: {where}{e.message}", file=sys.stderr)
        return EXIT_INVALID_INPUT
