"""Writes an experiment's output directory: ``report.md``, ``checks.json``, one CSV
per table, one PNG per figure, and ``report.html`` (all of it on one page). Nothing in
them depends on the wall clock, so the same experiment gives the same files (the raw
runs' ``wall_seconds`` aside)."""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .figures import save_png
from .outcome import Outcome, _fmt
from .paper import TOLERANCE

if TYPE_CHECKING:
    import pandas as pd

    from .registry import Experiment

__all__ = ["write_report", "write_incomplete_manifest", "REPORT", "REPORT_HTML", "CHECKS"]

REPORT = "report.md"
#: report.md as one HTML page with its figures inline (lfnlab.html).
REPORT_HTML = "report.html"
CHECKS = "checks.json"
#: The "Against the paper" table's CSV.
PAPER_CSV = "against-the-paper.csv"


def _cell(value: Any, digits: int) -> str:
    text = _fmt(value, digits) if isinstance(value, (bool, int, float)) else str(value)
    return text.replace("|", "\\|").replace("\n", " ")


def markdown_table(header: Sequence[str], rows: Sequence[Sequence[Any]], digits: int = 6) -> str:
    lines = ["| " + " | ".join(_cell(h, digits) for h in header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(_cell(v, digits) for v in row) + " |" for row in rows]
    return "\n".join(lines)


def frame_markdown(frame: pd.DataFrame, digits: int) -> str:
    """A table for the report: a ``*_bps`` column shows in Mbit/s (issue 40: a human
    reads rates in Mbit/s; the CSV keeps bit/s)."""
    rates = [i for i, c in enumerate(frame.columns) if str(c).endswith("_bps")]
    header = [f"{str(c).removesuffix('_bps')} (Mbit/s)" if i in rates else str(c) for i, c in enumerate(frame.columns)]
    rows = [
        [_mbit(_native(v)) if i in rates else _native(v) for i, v in enumerate(row)]
        for row in frame.itertuples(index=False, name=None)
    ]
    return markdown_table(header, rows, digits)


def _mbit(v: Any) -> Any:
    return v / 1e6 if isinstance(v, (int, float)) and not isinstance(v, bool) else v


def _native(v: Any) -> Any:
    """numpy scalars to Python ones (so ints print as ints)."""
    return v.item() if hasattr(v, "item") else v


def _run_rows(outcome: Outcome) -> list[list[Any]]:
    rows = []
    for r in outcome.runs:
        s = r.summary
        flows = s.get("flows", [])
        goodput = sum(f.get("goodput_bps", 0.0) for f in flows)
        retrans = sum(f.get("retransmitted_segments", 0) for f in flows)
        timeouts = sum(f.get("timeouts", 0) for f in flows)
        # A testbed run (real.M1) has no event count, hash or ledger: null in its summary.
        holds = (s.get("conservation") or {}).get("holds")
        rows.append(
            [
                f"[{r.label}]({r.directory}/summary.json)",
                s.get("duration_s", math.nan),
                s.get("events_executed") or 0,
                goodput / 1e6,
                retrans,
                timeouts,
                f"`{s.get('event_hash') or ''}`",
                holds,
            ]
        )
    return rows


def command_line(experiment_id: str, quick: bool, out_arg: str) -> str:
    """The command that reproduces this output directory."""
    return f"lfnlab reproduce {experiment_id}" + (" --quick" if quick else "") + f" --out {out_arg}"


def write_incomplete_manifest(experiment_out: Path, experiment: Experiment, *, quick: bool, runs: list[str], files: list[str]) -> None:
    """``checks.json`` of an output still being made: the experiment, its form, and the runs
    and files it may already hold (``"incomplete": true``, no checks). ``lfnlab reproduce``
    writes it when it starts and again before the report's files; the finished report
    replaces it."""
    manifest = {
        "experiment": experiment.id,
        "title": experiment.title,
        "reference": experiment.reference,
        "form": "quick" if quick else "full",
        "incomplete": True,
        "checks": [],
        "runs": sorted(runs),
        "files": sorted(files + [CHECKS]),
    }
    (experiment_out / CHECKS).write_text(json.dumps(manifest, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


def write_report(experiment: Experiment, outcome: Outcome, out: Path, *, quick: bool, out_arg: str) -> Path:
    """Write every file of the output directory; return the path of ``report.md``.

    Before the first file, ``checks.json`` lists every file about to be written (marked
    ``"incomplete": true``), so that an output interrupted while its tables are written is
    still recognised as this command's: ``--resume`` finishes it, a rerun clears it."""
    out.mkdir(parents=True, exist_ok=True)
    planned = [f"{t.name}.csv" for t in outcome.tables] + [f"{f.name}.png" for f in outcome.figures]
    if outcome.paper is not None:
        planned.append(PAPER_CSV)
    write_incomplete_manifest(out, experiment, quick=quick, runs=[r.directory for r in outcome.runs], files=planned + [REPORT, REPORT_HTML])
    files: list[str] = []
    for table in outcome.tables:
        table.frame.to_csv(out / f"{table.name}.csv", index=False, lineterminator="\n")
        files.append(f"{table.name}.csv")
    for figure in outcome.figures:
        save_png(figure.figure, out / f"{figure.name}.png")
        files.append(f"{figure.name}.png")
    if outcome.paper is not None:
        outcome.paper.to_csv(out / PAPER_CSV, index=False, lineterminator="\n")
        files.append(PAPER_CSV)

    form = "quick" if quick else "full"
    n_pass = sum(c.passed for c in outcome.checks)
    verdict = "PASS" if outcome.passed else "FAIL"
    md: list[str] = [
        f"# {experiment.id}: {experiment.title}",
        "",
        f"**{verdict}**: {n_pass} of {len(outcome.checks)} checks passed. Form: **{form}**. "
        f"Specification: {experiment.reference}.",
        "",
        experiment.summary[:1].upper() + experiment.summary[1:] + ".",
        "",
        "## What this checks",
        "",
        experiment.checks,
        "",
        "## Parameters",
        "",
        f"This run used the **{form}** form.",
        "",
        markdown_table(
            ["Parameter", "quick" + (" (this run)" if quick else ""), "full" + ("" if quick else " (this run)")],
            experiment.parameter_rows(),
        ),
        "",
        "## Checks",
        "",
        markdown_table(
            ["Check", "Measured", "Criterion", "Result"],
            [[c.name, c.measured_text(), c.criterion, "PASS" if c.passed else "FAIL"] for c in outcome.checks],
        ),
        "",
    ]
    if outcome.paper is not None:
        md += [
            "## Against the paper",
            "",
            "The paper's published values (only those given in the spec or an issue, with their source) beside "
            f"this run's; ratio = ours / the published value (the middle of a range); `agrees` within ±{TOLERANCE:.0%} "
            "of it, else `why` names the mechanism behind the difference."
            + (" This is the quick form: shorter runs, not comparable with the paper." if quick else ""),
            "",
            markdown_table(list(outcome.paper.columns), [list(r) for r in outcome.paper.itertuples(index=False, name=None)], 4),
            "",
            f"CSV: [{PAPER_CSV}]({PAPER_CSV})",
            "",
        ]
    else:
        md += [
            "## Against the paper",
            "",
            "Neither the spec nor an issue gives a published value of the paper for this experiment, so there is nothing "
            "to set beside ours here" + (" (the expectations table reads the paper's sentences)." if any(t.name == "expectations" for t in outcome.tables) else "."),
            "",
        ]
    if outcome.tables:
        md += ["## Tables", ""]
        for table in outcome.tables:
            md += [
                f"### {table.name}",
                "",
                table.caption,
                "",
                frame_markdown(table.frame, table.digits),
                "",
                f"CSV: [{table.name}.csv]({table.name}.csv)",
                "",
            ]
    if outcome.figures:
        md += ["## Figures", ""]
        for figure in outcome.figures:
            md += [f"### {figure.name}", "", figure.caption, "", f"![{figure.name}]({figure.name}.png)", ""]
    if outcome.notes:
        md += ["## Notes", ""] + [f"- {n}" for n in outcome.notes] + [""]
    md += [
        "## Runs",
        "",
        "Raw results (spec 00 §2.4) of every run, one directory each under `runs/`.",
        "",
        markdown_table(
            [
                "Run",
                "Simulated s",
                "Events",
                "Goodput Mbit/s",
                "Retransmitted",
                "Timeouts",
                "Event hash",
                "Conservation holds",
            ],
            _run_rows(outcome),
        ),
        "",
        "## Reproduce",
        "",
        "```sh",
        command_line(experiment.id, quick, out_arg),
        "```",
        "",
    ]
    report = out / REPORT
    report.write_text("\n".join(md), encoding="utf-8")
    files += [REPORT, REPORT_HTML]

    checks = {
        "experiment": experiment.id,
        "title": experiment.title,
        "reference": experiment.reference,
        "form": form,
        "passed": outcome.passed,
        "checks": [c.to_json() for c in outcome.checks],
        "runs": [r.directory for r in outcome.runs],
        "files": sorted(files + [CHECKS]),
    }
    (out / CHECKS).write_text(json.dumps(checks, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    # The same report as one self-contained page (docs/report.md), from the files above.
    from ..html import write_report as write_html

    write_html(out)
    return report
