"""The ``lfnlab`` console script.

``lfnlab plot``, ``lfnlab explain``, ``lfnlab reproduce``, ``lfnlab report`` and ``lfnlab sweep`` are
handled here (they need matplotlib, pandas or dask; see :mod:`lfnlab.plot`,
:mod:`lfnlab.reproduce`, :mod:`lfnlab.html` and :mod:`lfnlab.sweep`), and so are
``lfnlab testbed`` and ``lfnlab emu`` (:mod:`lfnlab.testbed`), ``lfnlab compare`` (:mod:`lfnlab.compare`); every other verb
(run, validate, bench, schema) is the Rust command line, run in-process through
``lfnlab._native.cli_main``.
"""

from __future__ import annotations

import argparse
import signal
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import NoReturn, Optional

EXIT_OK = 0
EXIT_FAILURE = 1
EXIT_INVALID_INPUT = 2


def _plot(argv: Sequence[str]) -> int:
    from .plot import KINDS

    parser = argparse.ArgumentParser(
        prog="lfnlab plot",
        description="Draw a figure of a result directory written by `lfnlab run`: goodput and cwnd "
        "(goodput_cwnd, the default), goodput, cwnd, bottleneck queue and RTT stacked (overview), one panel "
        "(goodput, cwnd, queue, rtt), or the time-sequence graph of one flow from its captured packets (tseq).",
    )
    parser.add_argument("result_dir", metavar="RESULT_DIR", type=Path)
    parser.add_argument("--kind", choices=KINDS, default="goodput_cwnd", help="the figure (default: goodput_cwnd)")
    parser.add_argument(
        "--out", metavar="FILE", type=Path, default=None, help="figure file (default: RESULT_DIR/KIND.png)"
    )
    parser.add_argument("--flow", metavar="NAME", default=None, help="tseq: the flow (default: the first captured)")
    parser.add_argument("--from", dest="t0", metavar="T0", type=float, default=None, help="tseq: window start, s")
    parser.add_argument("--to", dest="t1", metavar="T1", type=float, default=None, help="tseq: window end, s")
    args = parser.parse_args(argv)  # exits with status 2 on a usage error

    from . import plot
    from .errors import LfnlabError
    from .result import load_result

    try:
        result = load_result(args.result_dir)
    except LfnlabError as e:
        print(f"error: {e}", file=sys.stderr)
        return EXIT_INVALID_INPUT
    out = args.out if args.out is not None else args.result_dir / f"{args.kind}.png"
    window = None
    if args.t0 is not None or args.t1 is not None:
        window = (args.t0 if args.t0 is not None else 0.0, args.t1 if args.t1 is not None else float("inf"))
    try:
        if args.kind == "goodput_cwnd":
            written = plot.goodput_cwnd(result, out)
        elif args.kind == "overview":
            plot.overview(result, out)
            written = out
        elif args.kind == "tseq":
            plot.tseq(result, args.flow, window, path=out)
            written = out
        else:
            getattr(plot, args.kind)(result, path=out)
            written = out
    except ValueError as e:  # tseq without captured packets, an unknown flow
        print(f"error: {args.result_dir}: {e}", file=sys.stderr)
        return EXIT_INVALID_INPUT
    except OSError as e:
        print(f"error: {out}: {e}", file=sys.stderr)
        return EXIT_FAILURE
    print(f"figure in {written}")
    return EXIT_OK


def _explain(argv: Sequence[str]) -> int:
    parser = argparse.ArgumentParser(
        prog="lfnlab explain",
        description="Why each TCP flow of a result got its goodput: utilisation, BDP, buffer vs BDP, "
        "time under each sending limit, losses by cause, and the dominant limit in one sentence.",
    )
    parser.add_argument("result_dir", metavar="RESULT_DIR", type=Path)
    parser.add_argument(
        "--what-if",
        action="store_true",
        help="rerun the scenario with each flow's dominant limit lifted and report the gain",
    )
    args = parser.parse_args(argv)  # exits with status 2 on a usage error

    from .errors import LfnlabError
    from .explain import explain, what_if
    from .result import load_result

    try:
        result = load_result(args.result_dir)
        explanation = explain(result)
    except (LfnlabError, ValueError) as e:
        print(f"error: {args.result_dir}: {e}", file=sys.stderr)
        return EXIT_INVALID_INPUT
    print(explanation.text())
    if args.what_if:
        _default_sigint()  # the reruns happen in Rust
        for e, goodput in what_if(result):
            if goodput is None:
                print(f"what-if {e.flow}: nothing to lift ({e.dominant})")
                continue
            sets = " ".join(f"--set {k}={v}" for k, v in e.lift.items())
            print(
                f"what-if {e.flow}: {sets}: goodput {goodput / 1e6:.2f} Mbit/s "
                f"({goodput / e.goodput_bps:.2f} × {e.goodput_bps / 1e6:.2f}) = "
                f"{100 * goodput / e.wire_bound_bps:.1f} % of the wire bound"
            )
    return EXIT_OK


def _default_sigint() -> None:
    # Runs happen in Rust, which never looks at Python's SIGINT flag: let Ctrl-C
    # end the process as it would end the native binary.
    if hasattr(signal, "SIGINT"):
        signal.signal(signal.SIGINT, signal.SIG_DFL)


def _reproduce(argv: Sequence[str]) -> int:
    from .reproduce.command import main

    _default_sigint()  # runs happen in Rust threads
    return main(argv)


def _report(argv: Sequence[str]) -> int:
    from .html.command import main

    return main(argv)


def _sweep(argv: Sequence[str]) -> int:
    # Not _default_sigint: Ctrl-C must reach the sweep, which stops its workers
    # and writes the index of what finished (lfnlab.sweep.driver).
    from lfnlab.sweep.command import main

    return main(argv)


def _testbed(argv: Sequence[str]) -> int:
    # Not _default_sigint: Ctrl-C must reach the run, which removes its namespaces
    # and processes (lfnlab.testbed.registry).
    from .testbed.command import main

    return main(argv)


def _compare(argv: Sequence[str]) -> int:
    # Not _default_sigint: Ctrl-C must reach the testbed runs (lfnlab.testbed.registry).
    from .compare.command import main

    return main(argv)


def _emu(argv: Sequence[str]) -> int:
    # The relay installs its own SIGINT/SIGTERM handlers (a graceful stop).
    from .testbed.emu_command import main

    return main(argv)


#: Verbs implemented in Python, by name.
_PYTHON_VERBS = {
    "plot": _plot,
    "explain": _explain,
    "reproduce": _reproduce,
    "report": _report,
    "sweep": _sweep,
    "testbed": _testbed,
    "compare": _compare,
    "emu": _emu,
}


def run_cli(argv: Sequence[str]) -> int:
    """Run the command line ``argv`` (``argv[0]`` the program name); return the exit status."""
    argv = list(argv)
    if len(argv) >= 2 and argv[1] in _PYTHON_VERBS:
        try:
            return _PYTHON_VERBS[argv[1]](argv[2:])
        except SystemExit as e:  # argparse: --help (0) or usage error (2)
            return e.code if isinstance(e.code, int) else EXIT_INVALID_INPUT
        except Exception as e:  # no traceback for the user; the message is the report
            print(f"error: internal error (please report): {type(e).__name__}: {e}", file=sys.stderr)
            return EXIT_FAILURE
    from . import _native

    _default_sigint()
    sys.stdout.flush()
    sys.stderr.flush()
    return int(_native.cli_main(argv))


def main(argv: Optional[Sequence[str]] = None) -> NoReturn:
    """Entry point of the ``lfnlab`` console script."""
    args = list(sys.argv if argv is None else argv)
    if args:
        args[0] = "lfnlab"
    sys.exit(run_cli(args))


if __name__ == "__main__":
    main()
