"""Generator bench runs (docs/switches.md "Bench runs"): a spec 05 bench scenario — CBR
generators on their own links into one switch whose outputs end at hosts — run by the
direct bench loop of the core instead of the event loop. The ``flows`` table is the one
:func:`lfnlab.run` gives for the same scenario (the core's tests compare them byte for byte);
nothing else is produced, and no result directory is written.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from . import _native
from .result import _frame_from_ipc
from .scenario import Scenario

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["BenchResult", "run_bench", "bench_result"]


@dataclass(frozen=True, eq=False)
class BenchResult:
    """The outcome of one bench run.

    Attributes:
        summary: scenario, seed, duration_s, wall_seconds; per flow the frames ``sent``,
            ``delivered`` (and their ``bytes_delivered``) and ``dropped`` by the switch; the
            switch's summary entry; ``conservation`` (emitted = delivered + dropped + in the
            switch + elsewhere, with ``holds``).
        flows: per flow and monitor bin: ``monitor, flow, t, bytes, packets``, as in :class:`lfnlab.Result`.
    """

    summary: dict[str, Any]
    flows: pd.DataFrame = field(repr=False)


def run_bench(scenario: Scenario) -> BenchResult:
    """Run a generator bench scenario with the bench loop (GIL released).

    Raises InvalidInputError, or SimulationError naming why a scenario is not a bench.
    """
    summary_json, flows = _native.run_bench(scenario.to_toml(), scenario.origin)
    return bench_result(summary_json, flows)


def bench_result(summary_json: str | bytes, flows_ipc: bytes) -> BenchResult:
    """A BenchResult from the bench loop's two parts: the summary JSON and the flows as an
    Arrow IPC stream (as a sweep worker sends them back, ``sweep.task.BENCH_FILES``)."""
    return BenchResult(summary=json.loads(summary_json), flows=_frame_from_ipc(flows_ipc))
