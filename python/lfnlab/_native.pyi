"""Stubs of the private native module (crates/lfnlab-py/src/lib.rs).

Use the public API in :mod:`lfnlab` instead. Errors are raised as the classes of
:mod:`lfnlab.errors`.
"""

import os
from collections.abc import Callable

__version__: str
#: The files of a result directory, in the order they are written.
RESULT_FILES: list[str]
#: Ethernet framing (spec 04 §2.2): preamble/SFD and the minimum gap around a frame on the
#: wire (W = L2 + 20), MAC header and FCS around an IP packet (L2 = L3 + 18), the shortest frame.
PREAMBLE_AND_GAP_BYTES: int
MAC_OVERHEAD_BYTES: int
MIN_FRAME_BYTES: int

def load_scenario_file(path: str | os.PathLike[str], sets: list[str] = ...) -> str:
    """Load a scenario file, apply ``KEY=VALUE`` overrides, return the resolved TOML.

    Raises InvalidInputError.
    """

def load_scenario_dict(json: str, origin: str = "<dict>", sets: list[str] = ...) -> str:
    """Load a scenario given as JSON text, apply overrides, return the resolved TOML.

    Raises InvalidInputError.
    """

def run_scenario(
    resolved_toml: str,
    out_dir: str | os.PathLike[str] | None = None,
    origin: str = "<scenario>",
    interruptible: bool = False,
    progress: Callable[[dict[str, float]], object] | None = None,
) -> tuple[str, dict[str, bytes]]:
    """Run a resolved scenario with the GIL released.

    With ``interruptible`` (call it so from the main thread) Python's signal handlers run
    every 50 ms of the run; the exception of one (KeyboardInterrupt on Ctrl-C) stops the
    run and is raised, and no result directory is written.
    ``progress`` is called with ``{"sim_s", "total_s", "events", "wall_s"}`` at most every
    250 ms of wall time and once at the end; an exception it raises stops the run the
    same way.

    Returns the summary as JSON text and every table of ``RESULT_FILES`` (``flows``,
    ``tcp``, ``queues``, ``packets``, ``hosts``) as Arrow IPC stream bytes. Writes the result directory when ``out_dir`` is given.
    Raises InvalidInputError, SimulationError or OutputError.
    """

def cli_main(argv: list[str]) -> int:
    """Run the ``lfnlab`` command line (``argv[0]`` is the program name); return its exit status."""

def emu_main(argv: list[str]) -> int:
    """Run the relay ``lfnlab-emu`` (``argv[0]`` is the program name) with the GIL released;
    return its exit status (0 success, 2 invalid arguments, 1 other failure).

    The relay installs its own SIGINT/SIGTERM handlers (they stop it gracefully): call it
    only in a process that does nothing else, as ``lfnlab emu`` does.
    """

def switch_check(check: str, ports: int, slots: int, load: float = 1.0, seed: int = 1) -> list[tuple[str, int]]:
    """Run a spec 05 §3 E5.0 literature check (``hol_saturated``, ``pim_saturated``,
    ``islip_saturated``, ``islip_bernoulli``, ``oq_bernoulli``) on the switch mechanisms with
    the GIL released. Returns (name, count) pairs: ``offered``, ``delivered``, ``dropped``,
    ``left_queued`` and ``capacity`` (ports × measured slots).

    Raises InvalidInputError.
    """

def run_bench(resolved_toml: str, origin: str = "<scenario>") -> tuple[str, bytes]:
    """Run a spec 05 generator bench scenario with the direct bench loop, the GIL released.
    Returns the bench summary as JSON text and the ``flows`` table as Arrow IPC stream bytes.
    Raises InvalidInputError, or SimulationError for a scenario of another shape.
    """
