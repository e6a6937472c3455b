"""lfnlab: a packet-level laboratory for TCP over long fat networks.

>>> import lfnlab
>>> s = lfnlab.Scenario.from_file("examples/dumbbell.toml", set={"sim.duration": "2s"})
>>> r = lfnlab.run(s, out="out/dumbbell-2s")
>>> r.summary["flows"][0]["goodput_bps"], r.tcp[["t", "cwnd"]].tail()
>>> lfnlab.plot.goodput_cwnd(r, "goodput_cwnd.png")

The simulator is the Rust core behind the private module ``lfnlab._native``;
this package is its typed API. Errors: :mod:`lfnlab.errors`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from . import errors
from ._native import __version__
from .errors import InvalidInputError, LfnlabError, OutputError, SimulationError
from .result import Result, load_result, run
from .scenario import Scenario
from .sweep import sweep

if TYPE_CHECKING:
    from . import plot as plot

__all__ = [
    "Scenario",
    "Result",
    "run",
    "load_result",
    "sweep",
    "plot",
    "errors",
    "LfnlabError",
    "InvalidInputError",
    "SimulationError",
    "OutputError",
    "__version__",
]


def __getattr__(name: str) -> Any:
    # matplotlib loads only when a figure is wanted.
    if name == "plot":
        import importlib

        return importlib.import_module(".plot", __name__)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
