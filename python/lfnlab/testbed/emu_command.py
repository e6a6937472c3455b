"""The ``lfnlab emu`` verb: the relay of crates/lfnlab-emu, run in this process
through ``lfnlab._native.emu_main`` (the wheel ships no separate binary).

``lfnlab emu --help`` lists the relay's options; exit status 0 success, 2 invalid
arguments, 1 any other failure.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

__all__ = ["main"]


def main(argv: Sequence[str]) -> int:
    from .. import _native

    sys.stdout.flush()
    sys.stderr.flush()
    return int(_native.emu_main(["lfnlab emu", *argv]))
