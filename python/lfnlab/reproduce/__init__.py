"""Catalogued experiments (spec 00 §3) and ``lfnlab reproduce``.

>>> from lfnlab import reproduce
>>> [e.id for e in reproduce.catalogue()]            # 01.E1 … 01.V1, 06.V1 … 06.V8
>>> e = reproduce.find("06.V2")
>>> outcome = e.run(quick=True, workers=2, out=Path("out/06.V2-quick"))
>>> reproduce.write_report(e, outcome, Path("out/06.V2-quick"), quick=True, out_arg="out/06.V2-quick")

Layout: ``engine`` (an experiment as a declaration: parameters, cases, analysis; and the
steps every experiment goes through), ``registry`` (the catalogue), ``runner``
(parallel runs into ``OUT/runs/<label>``), ``report`` (``report.md``,
``checks.json``, CSV and PNG files), ``command`` (the command-line verb),
``measure`` (the measures every chapter shares) and ``outcome`` (checks, tables,
figures, expectations), ``path01`` … ``path06`` (each chapter's topology), and one folder
per chapter, one module per experiment: ``ch01_gap_pacing`` … ``ch06_tcp_validation``,
``real_testbed``.
"""

from __future__ import annotations

from .engine import BenchCase, Case, Experiment
from .outcome import Check, Figure, Outcome, RunRecord, Table
from .registry import catalogue, find, list_lines
from .report import write_report
from .runner import Job, RunContext, run_all

__all__ = [
    "Experiment",
    "Case",
    "BenchCase",
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
