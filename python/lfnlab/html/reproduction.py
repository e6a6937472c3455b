"""The page of a reproduction output directory (``lfnlab reproduce ID --out DIR``).

Its body is ``report.md`` (title and verdict, what is checked, the parameters, the
checks, the tables, the figures, the runs, the command), converted with its figures
inline. Whatever ``report.md`` leaves out is added from the files themselves: the
checks from ``checks.json`` when it has no Checks section, every CSV table it does not
link to, and every PNG figure it does not show. So every table and figure of the
directory is on the page even if ``report.md`` is missing or was edited.
"""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import Any, Optional

from ..errors import InvalidInputError
from .embed import figure_html, png_size
from .markdown_doc import render_markdown
from .page import Page, esc, table, verdict

__all__ = ["is_reproduction", "render_reproduction", "CHECKS", "REPORT_MD"]

CHECKS = "checks.json"
REPORT_MD = "report.md"


def is_reproduction(d: Path) -> bool:
    return (d / CHECKS).is_file()


def _load_checks(d: Path) -> dict[str, Any]:
    try:
        checks = json.loads((d / CHECKS).read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        raise InvalidInputError(f"{CHECKS} is not readable JSON: {e}", file=str(d)) from None
    if not isinstance(checks, dict):
        raise InvalidInputError(f"{CHECKS} is not a JSON object", file=str(d))
    return checks


def _title(checks: dict[str, Any], d: Path) -> str:
    experiment = str(checks.get("experiment") or d.name)
    title = checks.get("title")
    return f"{experiment}: {title}" if title else experiment


def _png(d: Path, name: str) -> Optional[bytes]:
    """A PNG of the directory by its relative name (only the top level), else None."""
    if "/" in name:
        return None
    p = d / name
    try:
        data = p.read_bytes() if p.is_file() else None
    except OSError:
        return None
    return data if data is not None and png_size(data) is not None else None


def _checks_table(checks: dict[str, Any]) -> str:
    rows = []
    for c in checks.get("checks") or []:
        if not isinstance(c, dict):
            continue
        measured = c.get("measured")
        unit = c.get("unit") or ""
        shown = f"{measured:.6g}" if isinstance(measured, float) else ("" if measured is None else str(measured))
        rows.append([c.get("name", ""), f"{shown} {unit}".strip(), c.get("criterion", ""), "PASS" if c.get("passed") else "FAIL"])

    def mark(v: Any) -> str:
        return "pass" if v == "PASS" else "fail"

    return table(["Check", "Measured", "Criterion", "Result"], rows, classes={3: mark})


def _csv_table(path: Path) -> str:
    """A CSV file as a table, cell text exactly as written."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        return f'<p class="missing">{esc(path.name)} cannot be read: {esc(e)}</p>'
    rows = list(csv.reader(io.StringIO(text)))
    if not rows:
        return f'<p class="note">{esc(path.name)} is empty.</p>'
    return table(rows[0], rows[1:])


def render_reproduction(d: Path, link_prefix: str = "") -> str:
    """The whole page of reproduction directory ``d``."""
    checks = _load_checks(d)
    page = Page(_title(checks, d))
    md_path = d / REPORT_MD
    shown_images: set[str] = set()
    linked: set[str] = set()
    headings: list[str] = []
    if md_path.is_file():
        text = md_path.read_text(encoding="utf-8", errors="replace")
        lines = text.splitlines()
        if lines and lines[0].startswith("# "):
            text = "\n".join(lines[1:])  # the page's own <h1> says it
        body = render_markdown(text, lambda name: _png(d, name), link_prefix)
        page.add(body.html)
        shown_images, linked, headings = body.images, body.links, body.headings
    else:  # report.md's first paragraph would give the verdict
        checks_list = [c for c in checks.get("checks") or [] if isinstance(c, dict)]
        n_pass = sum(bool(c.get("passed")) for c in checks_list)
        passed = bool(checks.get("passed")) and bool(checks_list)
        form = checks.get("form", "unknown")
        page.add(verdict(passed, f"{n_pass} of {len(checks_list)} checks passed ({form} form)"))
        if checks.get("reference"):
            page.para(f"Specification: {checks['reference']}.")
        page.para(f"This directory has no {REPORT_MD}; the page is built from {CHECKS} and the files.", "note")

    if "Checks" not in headings:
        page.section("Checks")
        page.add(_checks_table(checks))

    missing_tables = [p for p in sorted(d.glob("*.csv")) if p.name not in linked]
    if missing_tables:
        page.section("Tables not in report.md" if md_path.is_file() else "Tables")
        for p in missing_tables:
            page.heading(p.stem)
            page.add(_csv_table(p))
            page.add(f'<p class="note">CSV: <a href="{esc(link_prefix + p.name)}">{esc(p.name)}</a></p>')

    missing_figures = [p for p in sorted(d.glob("*.png")) if p.name not in shown_images]
    if missing_figures:
        page.section("Figures not in report.md" if md_path.is_file() else "Figures")
        for p in missing_figures:
            data = _png(d, p.name)
            page.heading(p.stem)
            if data is None:
                page.para(f"{p.name} is not a readable PNG image.", "missing")
            else:
                page.add(figure_html(data, p.stem))
    return page.render(toc=False)

