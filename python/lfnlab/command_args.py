"""What the Python verbs of the console script share (``reproduce``, ``sweep``,
``report``): exit statuses (spec 00 §2.3), an argument parser that raises instead of
exiting, and the parsing of ``--workers`` and ``--scheduler``."""

from __future__ import annotations

import argparse
import re
from typing import NoReturn, Optional

__all__ = ["EXIT_OK", "EXIT_FAILURE", "EXIT_INVALID_INPUT", "UsageError", "Parser", "positive_int", "positive_workers", "scheduler_address"]

EXIT_OK = 0
EXIT_FAILURE = 1
EXIT_INVALID_INPUT = 2


class UsageError(Exception):
    """Invalid arguments: ``argument`` names the one at fault (empty: the command line)."""

    def __init__(self, argument: str, message: str) -> None:
        super().__init__(message)
        self.argument = argument
        self.message = message


class Parser(argparse.ArgumentParser):
    """An ``ArgumentParser`` whose usage errors raise :class:`UsageError`, so that the
    verb reports them like every other invalid input (exit status 2)."""

    def error(self, message: str) -> NoReturn:
        raise UsageError("", message)


def positive_int(option: str, text: str) -> int:
    """The value of ``option``: a positive whole number, else a UsageError naming it."""
    try:
        n = int(text)
    except ValueError:
        raise UsageError(option, f"expected a positive whole number, got {text!r}") from None
    if n < 1:
        raise UsageError(option, f"expected a positive whole number, got {n}")
    return n


def positive_workers(text: Optional[str]) -> Optional[int]:
    """``--workers``: a positive whole number, or None when not given."""
    return None if text is None else positive_int("--workers", text)


#: Transports of Dask's comm layer a scheduler on another process can listen on (``distributed.comm``).
DASK_SCHEMES = ("tcp", "tls", "ucx", "ws", "wss")
_ADDRESS = re.compile(r"(?:(?P<scheme>[a-z]+)://)?(?P<host>\[[0-9A-Fa-f:.]+\]|[^\s:/\[\]]+):(?P<port>\d{1,5})/?")


def scheduler_address(option: str, text: Optional[str]) -> Optional[str]:
    """``--scheduler``: a Dask scheduler address ``[SCHEME://]HOST:PORT`` (``tcp://`` when the
    scheme is left out, as Dask reads it), unchanged; None when the option is absent. A
    malformed address is a usage error (exit 2) before anything connects; an address that
    no scheduler answers is found when the run connects (exit 1)."""
    if text is None:
        return None
    m = _ADDRESS.fullmatch(text)
    if m is None or (m["scheme"] is not None and m["scheme"] not in DASK_SCHEMES) or not 1 <= int(m["port"]) <= 65535:
        raise UsageError(option, f"expected a Dask scheduler address such as tcp://HOST:PORT, got {text!r}")
    return text
