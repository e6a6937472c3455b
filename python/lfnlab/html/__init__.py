"""Self-contained HTML reports: ``report.html`` of a result, reproduction or sweep directory.

>>> from lfnlab.html import write_report
>>> write_report("out/06.V1")                         # → out/06.V1/report.html
>>> write_report("out/sweep", metrics=["goodput_bps", "timeouts"])

The page has its style inline, its figures as ``data:`` URIs and no script; its
Content-Security-Policy forbids loading anything else, so it reads the same offline,
mailed or archived. The same directory gives the same bytes (nothing depends on the
clock, and everything listed is sorted). See docs/report.md.

Which page is drawn depends on what the directory holds (first match):

==============================  =====================================  ===============
holds                           written by                             module
==============================  =====================================  ===============
``checks.json``                 ``lfnlab reproduce ID --out DIR``      :mod:`.reproduction`
``plan.toml``, ``index.parquet`` ``lfnlab sweep PLAN``                 :mod:`.sweep`
``summary.json``                ``lfnlab run SCENARIO --out DIR``      :mod:`.run`
==============================  =====================================  ===============
"""

from __future__ import annotations

import os
import posixpath
from pathlib import Path
from typing import Optional, Union

from ..errors import InvalidInputError, OutputError

__all__ = ["write_report", "render_report", "kind_of", "REPORT_HTML"]

REPORT_HTML = "report.html"

PathLike = Union[str, "os.PathLike[str]"]


def kind_of(directory: PathLike) -> str:
    """``"reproduction"``, ``"sweep"`` or ``"run"``; InvalidInputError (naming the
    directory) when it is missing or none of them."""
    from .reproduction import is_reproduction
    from .run import is_run
    from .sweep import is_sweep

    d = Path(directory)
    if not d.is_dir():
        what = "is not a directory" if d.exists() else "does not exist"
        raise InvalidInputError(f"{what}; expected a result, reproduction or sweep directory", file=str(d))
    if is_reproduction(d):
        return "reproduction"
    if is_sweep(d):
        return "sweep"
    if is_run(d):
        return "run"
    raise InvalidInputError(
        "not a result directory (no summary.json), a reproduction output (no checks.json) "
        "or a sweep store (no plan.toml and index.parquet)",
        file=str(d),
    )


def _link_prefix(d: Path, out: Path) -> str:
    """What to put before a link relative to ``d`` so it works from ``out``'s folder."""
    rel = os.path.relpath(d.resolve(), out.resolve().parent)
    return "" if rel == "." else posixpath.join(*Path(rel).parts) + "/"


def render_report(directory: PathLike, metrics: Optional[list[str]] = None, *, link_prefix: str = "") -> str:
    """The HTML text of ``directory``'s report. ``metrics`` (sweeps only) are the index
    columns to plot; default ``goodput_bps`` and ``retransmitted_segments``."""
    d = Path(directory)
    kind = kind_of(d)
    if metrics and kind != "sweep":
        raise InvalidInputError(
            f"applies to a sweep store only; {d} is a {kind} directory", file="<arguments>", key_path="--metric"
        )
    if kind == "reproduction":
        from .reproduction import render_reproduction

        return render_reproduction(d, link_prefix)
    if kind == "sweep":
        from .sweep import render_sweep

        return render_sweep(d, metrics)
    from .run import render_run

    return render_run(d)


def write_report(directory: PathLike, out: Optional[PathLike] = None, metrics: Optional[list[str]] = None) -> Path:
    """Write ``directory``'s report (default ``DIRECTORY/report.html``); return its path.

    Raises InvalidInputError for a directory that is not a result, reproduction or
    sweep directory (or a ``metrics`` entry that is not in a sweep's index), OutputError
    when the file cannot be written."""
    d = Path(directory)
    target = Path(out) if out is not None else d / REPORT_HTML
    text = render_report(d, metrics, link_prefix=_link_prefix(d, target))
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        # Bytes, not text mode: the same page on every platform (no CRLF translation).
        target.write_bytes(text.encode("utf-8"))
    except OSError as e:
        raise OutputError(f"{target}: cannot write the report: {e.strerror or e}") from None
    return target
