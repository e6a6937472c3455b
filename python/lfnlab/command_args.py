"""What the Python verbs of the console script share (``reproduce``, ``sweep``,
``report``): exit statuses (spec 00 §2.3), an argument parser that raises instead of
exiting, and the parsing of ``--workers``."""

from __future__ import annotations

import argparse
from typing import NoReturn, Optional

__all__ = ["EXIT_OK", "EXIT_FAILURE", "EXIT_INVALID_INPUT", "UsageError", "Parser", "positive_int", "positive_workers"]

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
