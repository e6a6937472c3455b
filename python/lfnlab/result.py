"""Running scenarios and reading their results (the files of a result directory).

``run`` returns the tables straight from memory (Arrow IPC from the core);
``load_result`` reads a directory written by ``run(..., out=DIR)`` or by
``lfnlab run``. Both give the same :class:`Result`.
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Optional

from . import _native
from .errors import OutputError, SimulationError
from .scenario import Scenario

if TYPE_CHECKING:
    import pandas as pd

    from .explain import Explanation

__all__ = ["Result", "run", "load_result", "TABLES", "RESULT_FILES"]

#: The files of a result directory, in the order they are written (from the core).
RESULT_FILES = tuple(_native.RESULT_FILES)
#: The tables of a run, in the order of the result directory.
TABLES = tuple(f.removesuffix(".parquet") for f in RESULT_FILES if f.endswith(".parquet"))


@dataclass(frozen=True, eq=False)
class Result:
    """The outcome of one run.

    Attributes:
        summary: ``summary.json`` as a dict (scenario, seed, duration_s, wall_seconds,
            events_executed, per-flow goodput_bps, retransmitted_segments, timeouts,
            syn_retransmits, queues, ...).
        flows: per flow and monitor bin: ``monitor, flow, t, bytes, packets``.
        tcp: per TCP connection, the Web100-like trace: ``t, flow, srtt, ..., cwnd, ..., bytes_acked, bytes_read``.
        queues: per queue and bin: ``queue, t, bytes, packets, max_bytes, drops, enqueued``.
        packets: captured frames (``[[monitor]] capture_packets``): ``monitor, t, flow, dir,
            kind, l3_bytes, seq, ack, payload, win, sack_left, sack_right`` (TCP's advertised
            window, bytes, and the first SACK block); empty when no monitor captures.
        hosts: per host and one-second bin, DMA and memory-bandwidth counters (spec 01 §2.6):
            ``host, t, dma_real_bytes, dma_gap_bytes, copy_bytes, frames, gap_frames,
            gap_wire_bytes, mem_app_bytes_per_s``.
        busy: per sending host and window of one base RTT, the burstiness diagnostic of
            spec 03 §2.1: ``host, t, window_s, frames, payload_bytes, x_bps, busy_s, z_bytes``
            (X = payload/RTT, busy Δt = NIC time on data frames, Z = (Y − X)·Δt); empty when
            the TCP trace is off.
        objects: per completed Web object (spec 02 §3.2): ``flow, user, object, files, bytes,
            start_s, end_s, download_s, connections``; empty without ``web`` flows.
        scenario_toml: the scenario exactly as run, when known.
        out_dir: the result directory, if one was written or read.
    """

    summary: dict[str, Any]
    flows: pd.DataFrame = field(repr=False)
    tcp: pd.DataFrame = field(repr=False)
    queues: pd.DataFrame = field(repr=False)
    packets: pd.DataFrame = field(repr=False)
    hosts: pd.DataFrame = field(repr=False)
    busy: pd.DataFrame = field(repr=False)
    objects: pd.DataFrame = field(repr=False)
    scenario_toml: str | None = field(default=None, repr=False)
    out_dir: Path | None = None

    @property
    def name(self) -> str:
        """The scenario name."""
        return str(self.summary.get("scenario", ""))

    def table(self, name: str) -> pd.DataFrame:
        """One of ``flows``, ``tcp``, ``queues``, ``packets``, ``hosts`` by name."""
        if name not in TABLES:
            raise KeyError(f"no table {name!r}; tables: {', '.join(TABLES)}")
        frame: pd.DataFrame = getattr(self, name)
        return frame

    def explain(self) -> Explanation:
        """Why each TCP flow got its goodput: utilisation, BDP, buffer vs BDP, time
        under each sending limit, losses by cause, and the dominant limit in one
        sentence (:mod:`lfnlab.explain`; ``print(r.explain())``)."""
        from .explain import explain

        return explain(self)


def _frame_from_ipc(data: bytes) -> pd.DataFrame:
    import pyarrow as pa

    with pa.ipc.open_stream(pa.py_buffer(data)) as reader:
        return reader.read_all().to_pandas()


def _frame_from_parquet(path: Path) -> pd.DataFrame:
    import pyarrow.parquet as pq

    return pq.read_table(path).to_pandas()


def stopped_early(summary: Mapping[str, Any], origin: str, out_dir: Optional[Path]) -> Optional[SimulationError]:
    """The error for a run a limit stopped before its duration (summary ``partial``), or
    None for a complete run: a partial result is never presented as complete."""
    partial = summary.get("partial")
    if partial is None:
        return None
    where = f"; the partial results are in {out_dir}" if out_dir is not None else ""
    return SimulationError(
        f"{origin}: stopped early at {partial['stopped_at_s']} s simulated: {partial['limit']} reached ({partial['reason']}){where}"
    )


def run(
    scenario: Scenario | str | os.PathLike[str],
    out: str | os.PathLike[str] | None = None,
    *,
    progress: Optional[Callable[[dict[str, float]], object]] = None,
) -> Result:
    """Run a scenario to completion; write its result directory too if ``out`` is given.

    ``scenario`` is a :class:`Scenario` or the path of a scenario file. The GIL is
    released during the run, so other Python threads keep going. Called from the main
    thread, Ctrl-C (Jupyter's "interrupt kernel") stops the run within about 50 ms plus
    1/1000 of it and raises KeyboardInterrupt; nothing is written to ``out`` then (a
    directory that was there is left as it was).

    ``progress``, if given, is called with a dict ``{"sim_s", "total_s", "events",
    "wall_s"}`` (simulated seconds done and in all, events executed, wall seconds so far)
    at most every 250 ms of wall time and once at the end, e.g. to drive a progress bar
    in a notebook. An exception it raises stops the run like Ctrl-C and is raised.

    Raises InvalidInputError, SimulationError or OutputError (an existing ``out`` that
    is not an lfnlab result directory is never replaced).
    """
    if not isinstance(scenario, Scenario):
        scenario = Scenario.from_file(scenario)
    out_dir = None if out is None else Path(out)
    summary_json, tables = _native.run_scenario(
        scenario.to_toml(),
        None if out_dir is None else os.fspath(out_dir),
        scenario.origin,
        threading.current_thread() is threading.main_thread(),  # where Python's signal handlers run
        progress,
    )
    summary = json.loads(summary_json)
    stopped = stopped_early(summary, scenario.origin, out_dir)
    if stopped is not None:
        raise stopped
    return Result(
        summary=summary,
        **{name: _frame_from_ipc(tables[name]) for name in TABLES},
        scenario_toml=scenario.to_toml(),
        out_dir=out_dir,
    )


def load_result(directory: str | os.PathLike[str]) -> Result:
    """Read a result directory (``summary.json``, the Parquet tables, ``scenario.toml``).

    Raises OutputError if it is not a complete lfnlab result directory.
    """
    d = Path(directory)
    missing = [f for f in RESULT_FILES if not (d / f).is_file()]
    if missing:
        raise OutputError(f"{d}: not an lfnlab result directory (missing {', '.join(missing)})")
    return Result(
        summary=json.loads((d / "summary.json").read_text(encoding="utf-8")),
        **{name: _frame_from_parquet(d / f"{name}.parquet") for name in TABLES},
        scenario_toml=(d / "scenario.toml").read_text(encoding="utf-8"),
        out_dir=d,
    )

