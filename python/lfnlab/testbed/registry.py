"""What one testbed run created, and its removal whatever ends the run.

Every namespace is recorded *before* ``ip netns add`` (a name that was never created
is simply not found at cleanup) and every process right after it starts. Cleanup
stops exactly those processes (SIGTERM, then SIGKILL after a grace period), deletes
exactly those namespaces and temporary directories, and nothing else: no name
patterns, no ``pkill``. It runs on a normal exit, on an exception, on SIGINT/SIGTERM
(:func:`guarded` installs handlers that ask the run to stop at its next check) and at
interpreter exit (``atexit``). SIGKILL cannot be caught: the relay then stops by
itself after its ``--duration`` safety limit and the processes started through
``setpriv --pdeathsig`` die with the run, but its namespaces stay
(``ip netns list | grep lfnlab-PID-``).
"""

from __future__ import annotations

import atexit
import os
import shutil
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any, Optional

from ..errors import LfnlabError

__all__ = ["Registry", "Interrupted", "guarded", "guarded_threads", "stop_requested", "run_command", "pdeathsig_prefix", "is_root"]

#: Time a process gets between SIGTERM and SIGKILL at cleanup, s.
TERM_GRACE_S = 5.0
#: Longest wait for one ``ip`` command, s.
COMMAND_TIMEOUT_S = 30.0


class Interrupted(LfnlabError):
    """The run was stopped by SIGINT or SIGTERM (its namespaces and processes are removed)."""

    def __init__(self, signum: int) -> None:
        self.signum = signum
        super().__init__(f"stopped by {signal.Signals(signum).name}")


def run_command(args: Sequence[str], timeout_s: float = COMMAND_TIMEOUT_S) -> subprocess.CompletedProcess[str]:
    """Runs a short command, capturing its output (no exception on a non-zero status)."""
    return subprocess.run(list(args), capture_output=True, text=True, timeout=timeout_s, check=False)


class Registry:
    """The namespaces, processes and temporary directories of one run."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._namespaces: list[str] = []
        self._processes: list[tuple[str, subprocess.Popen[Any]]] = []
        self._paths: list[Path] = []
        self._files: list[IO[Any]] = []
        self.stop_signal: Optional[int] = None
        self.closed = False

    def add_namespace(self, name: str) -> None:
        with self._lock:
            self._namespaces.append(name)

    def add_process(self, what: str, process: subprocess.Popen[Any]) -> None:
        with self._lock:
            self._processes.append((what, process))

    def add_path(self, path: Path) -> None:
        with self._lock:
            self._paths.append(path)

    def add_file(self, f: IO[Any]) -> None:
        """An open file (a child's stdout or stderr), closed at cleanup."""
        with self._lock:
            self._files.append(f)

    @property
    def namespaces(self) -> tuple[str, ...]:
        return tuple(self._namespaces)

    def raise_if_stopped(self) -> None:
        """Raises :class:`Interrupted` once SIGINT or SIGTERM arrived (for this run, or
        for every run while :func:`guarded_threads` is active)."""
        signum = self.stop_signal if self.stop_signal is not None else _stop_all
        if signum is not None:
            raise Interrupted(signum)

    def close(self, keep_paths: bool = False) -> list[str]:
        """Stops the processes, deletes the namespaces (and the temporary directories
        unless ``keep_paths``); returns what could not be removed. Idempotent."""
        with self._lock:
            if self.closed:
                return []
            self.closed = True
            processes, namespaces, paths, files = self._processes[::-1], self._namespaces[::-1], self._paths, self._files
        problems = [p for what, proc in processes if (p := _stop(what, proc))]
        for name in namespaces:
            r = run_command(["ip", "netns", "del", name])
            if r.returncode != 0 and Path("/run/netns", name).exists():
                problems.append(f"namespace {name}: {r.stderr.strip()}")
        for f in files:
            f.close()
        if not keep_paths:
            for p in paths:
                shutil.rmtree(p, ignore_errors=True)
        return problems


def _stop(what: str, proc: subprocess.Popen[Any]) -> Optional[str]:
    if proc.poll() is not None:
        return None
    proc.terminate()
    try:
        proc.wait(TERM_GRACE_S)
        return None
    except subprocess.TimeoutExpired:
        proc.kill()
    try:
        proc.wait(TERM_GRACE_S)
        return None
    except subprocess.TimeoutExpired:
        return f"{what} (pid {proc.pid}) did not exit after SIGKILL"


@contextmanager
def guarded(registry: Registry) -> Iterator[Registry]:
    """Cleans up ``registry`` however the block ends. Inside the main thread, SIGINT and
    SIGTERM set ``registry.stop_signal`` (the run raises :class:`Interrupted` at its next
    check) instead of killing the process; cleanup itself ignores them, so a second
    Ctrl-C cannot leave a namespace behind."""
    handled = (signal.SIGINT, signal.SIGTERM)
    main = threading.current_thread() is threading.main_thread()
    previous = {s: signal.getsignal(s) for s in handled} if main else {}

    def on_signal(signum: int, _frame: Any) -> None:
        if registry.stop_signal is None:
            registry.stop_signal = signum

    def at_exit() -> None:
        for problem in registry.close():
            print(f"warning: {problem}", file=sys.stderr)

    for s in previous:
        signal.signal(s, on_signal)
    atexit.register(at_exit)
    try:
        yield registry
    finally:
        for s in previous:
            signal.signal(s, signal.SIG_IGN)
        try:
            at_exit()
        finally:
            atexit.unregister(at_exit)
            for s, handler in previous.items():
                # None: a handler installed outside Python; the default is the closest.
                signal.signal(s, signal.SIG_DFL if handler is None else handler)


#: The signal that asked every run to stop (set by :func:`guarded_threads`).
_stop_all: Optional[int] = None


@contextmanager
def guarded_threads() -> Iterator[None]:
    """For runs in worker threads (where :func:`guarded` cannot install handlers): in the
    main thread, SIGINT and SIGTERM ask every run to stop at its next check; each run
    then cleans up in its own thread. Restores the previous handlers at the end."""
    global _stop_all
    handled = (signal.SIGINT, signal.SIGTERM)
    previous = {s: signal.getsignal(s) for s in handled}

    def on_signal(signum: int, _frame: Any) -> None:
        global _stop_all
        if _stop_all is None:
            _stop_all = signum

    _stop_all = None
    for s in handled:
        signal.signal(s, on_signal)
    try:
        yield
    finally:
        _stop_all = None
        for s, handler in previous.items():
            signal.signal(s, signal.SIG_DFL if handler is None else handler)


def stop_requested() -> Optional[int]:
    """The signal that asked every run to stop, or None."""
    return _stop_all


def pdeathsig_prefix() -> list[str]:
    """``setpriv --pdeathsig KILL`` when util-linux's setpriv is there: a child started
    with it dies with this process, even when this one is killed by SIGKILL."""
    setpriv = shutil.which("setpriv")
    return [setpriv, "--pdeathsig", "KILL"] if setpriv else []


def is_root() -> bool:
    return os.geteuid() == 0
