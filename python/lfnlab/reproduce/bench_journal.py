"""The bench journal: what ``lfnlab reproduce --resume`` reuses of an experiment's bench-loop runs.

A bench run (:class:`~lfnlab.reproduce.engine.BenchCase`, docs/switches.md "Bench runs")
writes no result directory, so the stamp that makes an event-loop run resumable
(:mod:`lfnlab.reproduce.runner`) has nowhere to go: 05.E5.2's 70 227 bench runs (about
3 h on 2 cores) would all run again after any interruption. Each finished bench run
therefore appends one record to ``OUT/runs/bench.journal``: its label, its key and what the
experiment kept of it (the small value ``keep(label, result)`` returned). A resumed
experiment reuses a record only when its key matches in full:

- ``scenario_sha256`` and ``engine_sha256``: the stamp of an event-loop run (same engine
  build, same scenario TOML), so the bench result would be byte for byte the same;
- ``analysis_sha256``: the SHA-256 of the Python sources of the packages that define the
  kept value's ``keep`` functions (the experiment's chapter folder), because the journal
  holds what ``keep`` made of the result, not the result itself (a 12 s bench run's 1 ms
  flows table is about half a megabyte; the kept statistics are a few numbers). Any edit
  to those sources makes every record stale.

Format: records one after another, each ``MAGIC (4 B) | payload length (8 B, big-endian) |
SHA-256 of the payload (32 B) | payload``, the payload a pickle of ``(label, key, kept)``. A
process killed while it appends leaves a torn tail: reading stops at the first record that
is short or whose digest does not match, and the journal is cut there before the next
append. The journal is only read by ``--resume`` in an output this command wrote
(:func:`lfnlab.reproduce.command.prepare_out` refuses any other directory), which is why
pickle, which can carry a kept DataFrame, is acceptable here.
"""

from __future__ import annotations

import hashlib
import pickle
import sys
import threading
from collections.abc import Iterable
from pathlib import Path
from typing import Any, BinaryIO, Optional

__all__ = ["BenchJournal", "JOURNAL", "sources_sha256"]

#: The journal's name inside ``OUT/runs``.
JOURNAL = "bench.journal"
_MAGIC = b"LFBJ"
_HEADER_BYTES = len(_MAGIC) + 8 + 32
#: A record larger than this is not one we wrote (a corrupt length field).
_PAYLOAD_BYTES_MAX = 1 << 30


def sources_sha256(modules: Iterable[str]) -> str:
    """SHA-256 over the ``*.py`` files of the package folder of each named module, in path
    order: the identity of the analysis code that made a journal's kept values."""
    folders = sorted({Path(str(sys.modules[m].__file__)).parent for m in modules})
    digest = hashlib.sha256()
    for folder in folders:
        for f in sorted(folder.glob("*.py")):
            digest.update(f.name.encode("utf-8") + b"\0")
            digest.update(f.read_bytes())
            digest.update(b"\0")
    return digest.hexdigest()


def _read(path: Path) -> tuple[dict[str, tuple[dict[str, str], Any]], int]:
    """The records of the journal at ``path`` (label → (key, kept); a later record of a label
    replaces an earlier one) and the byte offset where its last whole record ends."""
    records: dict[str, tuple[dict[str, str], Any]] = {}
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return records, 0
    at = 0
    while at + _HEADER_BYTES <= len(data) and data[at : at + len(_MAGIC)] == _MAGIC:
        length = int.from_bytes(data[at + 4 : at + 12], "big")
        digest = data[at + 12 : at + _HEADER_BYTES]
        start, end = at + _HEADER_BYTES, at + _HEADER_BYTES + length
        if length > _PAYLOAD_BYTES_MAX or end > len(data) or hashlib.sha256(data[start:end]).digest() != digest:
            break
        try:
            label, key, kept = pickle.loads(data[start:end])
        except Exception:  # a record we cannot read: treat the rest as torn
            break
        records[str(label)] = (dict(key), kept)
        at = end
    return records, at


class BenchJournal:
    """The journal of one experiment's bench runs (see the module notes). With ``resume`` the
    existing records are loaded and a torn tail is cut; without it the journal starts empty.
    :meth:`append` may be called from several threads."""

    def __init__(self, runs_dir: Path, resume: bool) -> None:
        runs_dir.mkdir(parents=True, exist_ok=True)
        self.path = runs_dir / JOURNAL
        self._records: dict[str, tuple[dict[str, str], Any]] = {}
        end = 0
        if resume:
            self._records, end = _read(self.path)
        self._file: Optional[BinaryIO] = None
        self._end = end
        self._lock = threading.Lock()

    def stored(self, label: str, key: dict[str, str]) -> tuple[bool, Any]:
        """``(True, kept)`` if the journal holds ``label`` under exactly ``key``, else ``(False, None)``."""
        record = self._records.get(label)
        if record is None or record[0] != key:
            return False, None
        return True, record[1]

    def append(self, label: str, key: dict[str, str], kept: Any) -> None:
        """Write one record and flush it, so that a process killed after this call keeps it."""
        payload = pickle.dumps((label, key, kept), protocol=pickle.HIGHEST_PROTOCOL)
        record = _MAGIC + len(payload).to_bytes(8, "big") + hashlib.sha256(payload).digest() + payload
        with self._lock:
            if self._file is None:
                f = open(self.path, "r+b" if self._end else "wb")  # noqa: SIM115 (closed in close())
                f.truncate(self._end)  # cut a torn tail (or an old journal when not resuming)
                f.seek(self._end)
                self._file = f
            self._file.write(record)
            self._file.flush()

    def close(self) -> None:
        with self._lock:
            if self._file is not None:
                self._file.close()
                self._file = None
