"""Catalogued experiments (spec 00 §3) and ``lfnlab reproduce``.

>>> from lfnlab import reproduce
>>> [e.id for e in reproduce.catalogue()]            # 01.E1 … 01.V1, 06.V1 … 06.V8
>>> e = reproduce.find("06.V2")
>>> outcome = e.run(quick=True, workers=2, out=Path("out/06.V2-quick"))
>>> reproduce.write_report(e, outcome, Path("out/06.V2-quick"), quick=True, out_arg="out/06.V2-quick")

Layout: ``registry`` (the Experiment description and the catalogue), ``runner``
(parallel runs into ``OUT/runs/<label>``), ``report`` (``report.md``,
``checks.json``, CSV and PNG files), ``command`` (the command-line verb),
``path06`` and ``measure`` (the spec 06 §7 path and values read from results),
``path01`` (the spec 01 §2.8 emulated WAN path and §2.7 host model),
``v01`` (one module per experiment 01.E1–01.E4, 01.V1), ``v06`` (06.V1–06.V8).
"""

from __future__ import annotations

from .outcome import Check, Figure, Outcome, RunRecord, Table
from .registry import Experiment, catalogue, find, list_lines
from .report import write_report
from .runner import Job, RunContext, run_all

__all__ = [
    "Experiment",
    "Outcome",
    "Check",
    "Table",
    "Figure",
    "RunRecord",
    "Job",
    "RunContext",
    "run_all",
    "catalogue",
    "find",
    "list_lines",
    "write_report",
]
