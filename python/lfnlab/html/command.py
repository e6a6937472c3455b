"""The ``lfnlab report`` verb: ``lfnlab report DIR [--out FILE] [--metric M ...]``.

Exit status 0 when the page is written, 2 for invalid arguments or a DIR that is not a
result, reproduction or sweep directory (the message names DIR), 1 when the page
cannot be written.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from ..command_args import EXIT_FAILURE, EXIT_INVALID_INPUT, EXIT_OK, Parser, UsageError

__all__ = ["main"]


USAGE = "usage: lfnlab report DIR [--out FILE] [--metric M ...]"


def _parser() -> argparse.ArgumentParser:
    p = Parser(
        prog="lfnlab report",
        description="Write one self-contained HTML page (report.html) for a result directory "
        "(lfnlab run), a reproduction output (lfnlab reproduce) or a sweep store (lfnlab sweep): "
        "figures inline, no script, nothing loaded from elsewhere.",
        epilog="Exit status: 0 written, 1 the page could not be written, 2 invalid arguments or DIR.",
    )
    p.add_argument("dir", metavar="DIR", type=Path, help="the directory to report on")
    p.add_argument("--out", metavar="FILE", type=Path, default=None, help="the page (default: DIR/report.html)")
    p.add_argument(
        "--metric",
        metavar="M",
        action="append",
        default=None,
        help="sweeps: an index column to plot against each axis; repeat for several "
        "(default: goodput_bps and retransmitted_segments)",
    )
    return p


def main(argv: Sequence[str]) -> int:
    """Run ``lfnlab report ARGS`` (``argv`` without the program and verb); return the exit status."""
    try:
        args = _parser().parse_args(list(argv))
    except UsageError as e:
        print(f"error: <arguments>: {e}", file=sys.stderr)
        print(USAGE, file=sys.stderr)
        return EXIT_INVALID_INPUT

    from ..errors import InvalidInputError, OutputError
    from . import write_report

    try:
        written = write_report(args.dir, args.out, args.metric)
    except InvalidInputError as e:
        print(f"error: {e}", file=sys.stderr)
        return EXIT_INVALID_INPUT
    except OutputError as e:
        print(f"error: {e}", file=sys.stderr)
        return EXIT_FAILURE
    print(f"report in {written}")
    return EXIT_OK
