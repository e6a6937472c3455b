"""The lfnlab exception hierarchy.

Every error raised by lfnlab is an :class:`LfnlabError`. Invalid input (a
scenario, a ``set`` override, an argument) raises :class:`InvalidInputError`,
which is also a :class:`ValueError` and names the file and key path at fault,
as the command line does (``error: FILE: KEY.PATH: message``, exit status 2).
The native module raises these classes; they are defined only here.
"""

from __future__ import annotations

__all__ = ["LfnlabError", "InvalidInputError", "SimulationError", "OutputError"]


class LfnlabError(Exception):
    """Base class of every lfnlab error."""


class InvalidInputError(LfnlabError, ValueError):
    """A scenario, override or argument is invalid.

    Attributes:
        message: what was wrong and what was expected.
        file: the input it came from: a path, ``<dict>``, ``<--set>`` or ``<arguments>``.
        key_path: the key at fault, e.g. ``link[1].queue.limit``; empty for the whole input.
    """

    message: str
    file: str
    key_path: str

    def __init__(self, message: str, file: str = "", key_path: str = "") -> None:
        self.message = message
        self.file = file
        self.key_path = key_path
        super().__init__(message, file, key_path)

    def __str__(self) -> str:
        parts = [p for p in (self.file, self.key_path, self.message) if p]
        return ": ".join(parts)

    def __reduce__(self) -> tuple[type[InvalidInputError], tuple[str, str, str]]:
        # Keeps the attributes through pickling (multiprocessing, concurrent.futures).
        return (type(self), (self.message, self.file, self.key_path))


class SimulationError(LfnlabError, RuntimeError):
    """A run could not complete (resource limit, invariant violation, internal error)."""


class OutputError(LfnlabError, OSError):
    """Results could not be written or read (an existing non-result directory, a full disk)."""
