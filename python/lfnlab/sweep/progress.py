"""Progress of a sweep: runs done, failed and remaining, with an ETA.

Three reporters behind one interface:

- :class:`TerminalProgress`: one status line on a terminal, rewritten in place with
  ``\\r`` and the ANSI erase-line code (``ESC [2K``), redrawn at most 10 times a second
  and ended with a newline;
- :class:`JsonProgress`: one JSON object per line (``--progress json``)::

      {"kind": "sweep", "done": 3, "failed": 1, "remaining": 8, "total": 12,
       "reused": 2, "lost": 0, "elapsed_s": 4.2, "eta_s": 11.2}

  a line when the sweep starts, one per finished run, and a final one. ``done``
  includes runs reused from an earlier sweep (``reused``); ``done + failed + lost +
  remaining = total``. ``eta_s`` is null until a run of this sweep has finished.
  (The single-run progress of ``lfnlab run`` uses ``"kind": "run"``; ``lfnlab reproduce``
  uses ``"kind": "reproduce"``, whose ``total`` counts the runs its experiment has asked
  for so far: an experiment may plan more runs once a batch is done.)
- :class:`NoProgress`: nothing (not a terminal, ``--quiet``, ``--progress none``).
"""

from __future__ import annotations

import json
import shutil
import sys
import time
from dataclasses import dataclass, field
from typing import Callable, Optional, TextIO

__all__ = ["Tally", "Progress", "NoProgress", "JsonProgress", "CallbackProgress", "TerminalProgress", "make_progress", "MODES"]

#: ``--progress`` values.
MODES = ("auto", "json", "none")
_ERASE_LINE = "\r\x1b[2K"


@dataclass
class Tally:
    """Counts of one sweep invocation."""

    total: int
    #: Runs already done by an earlier sweep, not run again.
    reused: int = 0
    #: Runs done by this sweep.
    done_now: int = 0
    failed: int = 0
    #: Runs whose worker was lost (not recorded; a later sweep runs them).
    lost: int = 0
    clock: Callable[[], float] = field(default=time.monotonic, repr=False)
    started: float = field(default=0.0, repr=False)
    #: ``"kind"`` of the JSON lines: ``sweep`` or ``reproduce``.
    kind: str = "sweep"

    def __post_init__(self) -> None:
        self.started = self.clock()

    @property
    def done(self) -> int:
        return self.reused + self.done_now

    @property
    def executed(self) -> int:
        """Runs this sweep finished (done or failed)."""
        return self.done_now + self.failed

    @property
    def remaining(self) -> int:
        return self.total - self.done - self.failed - self.lost

    def elapsed_s(self) -> float:
        return self.clock() - self.started

    def eta_s(self) -> Optional[float]:
        """Remaining runs at this sweep's pace so far; None before its first finished run."""
        if self.remaining == 0:
            return 0.0
        if self.executed == 0:
            return None
        return self.elapsed_s() / self.executed * self.remaining

    def as_json(self) -> dict[str, object]:
        eta = self.eta_s()
        return {
            "kind": self.kind,
            "done": self.done,
            "failed": self.failed,
            "remaining": self.remaining,
            "total": self.total,
            "reused": self.reused,
            "lost": self.lost,
            "elapsed_s": round(self.elapsed_s(), 3),
            "eta_s": None if eta is None else round(eta, 3),
        }


class Progress:
    """Reporter interface: ``start`` once, ``update`` after each run, ``finish`` once."""

    def start(self, tally: Tally) -> None:
        pass

    def update(self, tally: Tally) -> None:
        pass

    def finish(self, tally: Tally) -> None:
        pass


class NoProgress(Progress):
    """No output."""


class JsonProgress(Progress):
    """One JSON object per line on ``stream``."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream

    def _emit(self, tally: Tally) -> None:
        self.stream.write(json.dumps(tally.as_json(), separators=(", ", ": ")) + "\n")
        self.stream.flush()

    start = _emit
    update = _emit
    finish = _emit


class CallbackProgress(Progress):
    """Calls ``f`` with the tally as a dict (the JSON line's fields) at the start, after
    each run and at the end: the Python API's ``progress=callable`` (issue 40)."""

    def __init__(self, f: Callable[[dict[str, object]], object]) -> None:
        self.f = f

    def _call(self, tally: Tally) -> None:
        self.f(tally.as_json())

    start = _call
    update = _call
    finish = _call


def _clock(seconds: Optional[float]) -> str:
    if seconds is None:
        return "--:--"
    s = int(round(seconds))
    h, rest = divmod(s, 3600)
    m, s = divmod(rest, 60)
    return f"{h}:{m:02d}:{s:02d}" if h else f"{m}:{s:02d}"


class TerminalProgress(Progress):
    """One line rewritten in place on a terminal."""

    #: Seconds between redraws (a final state is always drawn).
    interval_s = 0.1

    def __init__(self, stream: TextIO, name: str = "") -> None:
        self.stream = stream
        self.name = name
        self._last = float("-inf")

    def line(self, tally: Tally) -> str:
        head = f"{tally.kind} {self.name}: " if self.name else f"{tally.kind}: "
        text = (
            f"{head}{tally.done}/{tally.total} done, {tally.failed} failed, {tally.remaining} remaining"
            + (f", {tally.lost} lost" if tally.lost else "")
            + f"  {_clock(tally.elapsed_s())} elapsed, ETA {_clock(tally.eta_s())}"
        )
        width = shutil.get_terminal_size((80, 24)).columns - 1
        return text if len(text) <= width else text[: max(width - 1, 0)] + "…"

    def _draw(self, tally: Tally) -> None:
        self.stream.write(_ERASE_LINE + self.line(tally))
        self.stream.flush()
        self._last = time.monotonic()

    def start(self, tally: Tally) -> None:
        self._draw(tally)

    def update(self, tally: Tally) -> None:
        if time.monotonic() - self._last >= self.interval_s:
            self._draw(tally)

    def finish(self, tally: Tally) -> None:
        self._draw(tally)
        self.stream.write("\n")
        self.stream.flush()


def make_progress(mode: str = "auto", quiet: bool = False, stream: Optional[TextIO] = None, name: str = "") -> Progress:
    """The reporter for ``--progress MODE``: ``json`` always writes JSON lines (even with
    ``quiet``, since it was asked for); ``auto`` draws the terminal line only when
    ``stream`` (default stderr) is a terminal and not ``quiet``; ``none`` is silent."""
    if mode not in MODES:
        raise ValueError(f"progress must be one of {', '.join(MODES)}, got {mode!r}")
    out = sys.stderr if stream is None else stream
    if mode == "json":
        return JsonProgress(out)
    if mode == "auto" and not quiet and _isatty(out):
        return TerminalProgress(out, name)
    return NoProgress()


def _isatty(stream: TextIO) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):  # closed or not a file
        return False
