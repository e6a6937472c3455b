"""The catalogue's wall-time ledger: how long ``lfnlab reproduce --all`` spent on each
experiment, across every invocation, including those that were killed.

A full catalogue takes longer than one sitting (issue 39, What to build 3: "record the
catalogue's total wall time"), and an invocation killed with SIGKILL cannot record anything
when it dies. So the time is booked while it passes: a heartbeat every ``beat_s`` adds the
time since the last beat to the running experiment's entry in ``DIR/catalogue-wall.json``
(written whole, then renamed into place). A killed invocation loses at most one beat.

A process stopped by SIGSTOP (to lend the cores to another job) and continued later sees one
long gap between two beats. CHOICE: a gap longer than ``stopped_gap_s`` counts one beat as
running and the rest as stopped (``stopped_s``), so the wall time is the time the catalogue
ran, and the time it stood still is reported beside it. A beat cannot be late by that much
while the process runs: the runs are native and release the GIL.

:class:`WallLedger` is sans-IO (it takes ``now_s``); :class:`Heartbeat` drives it from a
thread with the monotonic clock and writes the file.
"""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

__all__ = ["LEDGER", "WallLedger", "Heartbeat", "read_ledger"]

#: The ledger's name in ``DIR`` of ``--all``.
LEDGER = "catalogue-wall.json"


@dataclass
class Spent:
    """Time booked to one experiment: ``ran_s`` while the process ran, ``stopped_s`` while it was stopped."""

    ran_s: float = 0.0
    stopped_s: float = 0.0


def read_ledger(out: Path) -> dict[str, Spent]:
    """The ledger in ``out`` (empty when there is none or it cannot be read)."""
    try:
        raw = json.loads((out / LEDGER).read_text(encoding="utf-8"))
        return {str(k): Spent(float(v["ran_s"]), float(v["stopped_s"])) for k, v in raw.items()}
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return {}


def write_ledger(out: Path, ledger: dict[str, Spent]) -> None:
    tmp = out / (LEDGER + ".tmp")
    body = {k: {"ran_s": round(v.ran_s, 1), "stopped_s": round(v.stopped_s, 1)} for k, v in sorted(ledger.items())}
    tmp.write_text(json.dumps(body, indent=1) + "\n", encoding="utf-8")
    tmp.replace(out / LEDGER)


class WallLedger:
    """Books the time of one experiment from successive beats (see the module notes)."""

    def __init__(self, spent: Spent, now_s: float, beat_s: float, stopped_gap_s: float) -> None:
        if not 0 < beat_s < stopped_gap_s:
            raise ValueError(f"need 0 < beat_s < stopped_gap_s, got {beat_s}, {stopped_gap_s}")
        self.spent = Spent(spent.ran_s, spent.stopped_s)
        self.beat_s = beat_s
        self.stopped_gap_s = stopped_gap_s
        self._last_s = now_s

    def beat(self, now_s: float) -> Spent:
        gap_s = max(0.0, now_s - self._last_s)
        self._last_s = now_s
        if gap_s > self.stopped_gap_s:
            self.spent.ran_s += self.beat_s
            self.spent.stopped_s += gap_s - self.beat_s
        else:
            self.spent.ran_s += gap_s
        return self.spent


class Heartbeat:
    """While an experiment runs, beat its :class:`WallLedger` every ``beat_s`` and write the
    ledger file; :meth:`stop` beats once more and returns the experiment's total."""

    def __init__(self, out: Path, experiment_id: str, beat_s: float = 10.0, stopped_gap_s: float = 60.0) -> None:
        self.out = out
        self.id = experiment_id
        self._ledger = read_ledger(out)
        self._clock = WallLedger(self._ledger.get(experiment_id, Spent()), time.monotonic(), beat_s, stopped_gap_s)
        self._lock = threading.Lock()
        self._done = threading.Event()
        self._thread: Optional[threading.Thread] = None

    def _book(self) -> Spent:
        with self._lock:
            spent = self._clock.beat(time.monotonic())
            self._ledger[self.id] = Spent(spent.ran_s, spent.stopped_s)
            write_ledger(self.out, self._ledger)
            return Spent(spent.ran_s, spent.stopped_s)

    def start(self) -> "Heartbeat":
        def loop() -> None:
            while not self._done.wait(self._clock.beat_s):
                self._book()

        self._thread = threading.Thread(target=loop, name=f"wall-{self.id}", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> Spent:
        self._done.set()
        if self._thread is not None:
            self._thread.join()
        return self._book()
