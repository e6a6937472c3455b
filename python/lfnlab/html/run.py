"""The page of one run's result directory (``lfnlab run SCENARIO --out DIR``, spec 00 §2.4).

The run at a glance (``summary.json``'s scalars), one table per flow and per queue,
every other non-empty per-element list of the summary (hosts, NICs, switches, …), the
goodput and cwnd figure of :func:`lfnlab.plot.goodput_cwnd`, any other PNG in the
directory, and the scenario exactly as run (``scenario.toml``).
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

from ..errors import InvalidInputError, OutputError
from .embed import figure_html, read_png
from .page import Page, pre, table

__all__ = ["is_run", "render_run"]

#: The figure `lfnlab plot` writes; the page draws it afresh from the tables.
PLOT_PNG = "goodput_cwnd.png"

#: Per-flow and per-queue columns first, in this order (spec 00 §2.4); any others follow.
FLOW_COLUMNS = ("name", "kind", "goodput_bps", "bytes_delivered", "retransmitted_segments", "timeouts")
QUEUE_COLUMNS = ("name", "enqueued", "dropped", "drops_by_cause", "max_bytes")


def is_run(d: Path) -> bool:
    return (d / "summary.json").is_file()


def _compact(value: Any) -> Any:
    """Nested values of a summary as one line of JSON; scalars unchanged."""
    if isinstance(value, (dict, list)):
        return json.dumps(value, sort_keys=True, ensure_ascii=False) if value else ""
    return value


def _records_table(records: list[Any], first: tuple[str, ...] = ()) -> str:
    rows = [r for r in records if isinstance(r, dict)]
    seen: list[str] = [c for c in first if any(c in r for r in rows)]
    for r in rows:
        seen += [k for k in r if k not in seen]
    # Columns that are empty everywhere (null, {}, []) say nothing about this run.
    columns = [c for c in seen if any(_compact(r.get(c)) not in (None, "") for r in rows)]
    return table(columns, [[_compact(r.get(c)) for c in columns] for r in rows])


def _goodput_cwnd_png(d: Path) -> bytes:
    from ..plot import goodput_cwnd
    from ..result import load_result

    try:
        result = load_result(d)
    except OutputError as e:  # summary.json without the tables: not a result directory
        raise InvalidInputError(str(e)) from None
    with tempfile.TemporaryDirectory(prefix="lfnlab-report-") as tmp:
        return read_png(goodput_cwnd(result, Path(tmp) / PLOT_PNG))


def render_run(d: Path) -> str:
    """The whole page of result directory ``d``."""
    try:
        summary = json.loads((d / "summary.json").read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        raise InvalidInputError(f"summary.json is not readable JSON: {e}", file=str(d)) from None
    if not isinstance(summary, dict):
        raise InvalidInputError("summary.json is not a JSON object", file=str(d))
    name = str(summary.get("scenario") or d.name)
    page = Page(f"{name}: lfnlab run")

    page.section("Run")
    scalars = [(k, v) for k, v in summary.items() if not isinstance(v, (dict, list))]
    holds = (summary.get("conservation") or {}).get("holds") if isinstance(summary.get("conservation"), dict) else None
    if holds is not None:
        scalars.append(("conservation holds", holds))
    page.add(table(["Quantity", "Value"], scalars))

    page.section("Flows")
    flows = summary.get("flows") or []
    page.add(_records_table(flows, FLOW_COLUMNS) if flows else '<p class="note">No flows.</p>')
    page.section("Queues")
    queues = summary.get("queues") or []
    page.add(_records_table(queues, QUEUE_COLUMNS) if queues else '<p class="note">No queues.</p>')

    page.section("Figures")
    page.add(
        figure_html(
            _goodput_cwnd_png(d),
            f"{name}: goodput and cwnd over time",
            "Goodput of every flow (Mbit/s) and congestion window (segments) over time.",
        )
    )
    for p in sorted(d.glob("*.png")):
        if p.name != PLOT_PNG:
            page.heading(p.stem)
            page.add(figure_html(read_png(p), p.stem))

    others = [(k, v) for k, v in summary.items() if k not in ("flows", "queues") and isinstance(v, list) and v]
    if others or isinstance(summary.get("conservation"), dict):
        page.section("Other counters")
        for key, records in others:
            page.heading(key)
            page.add(_records_table(records))
        if isinstance(summary.get("conservation"), dict):
            page.heading("conservation")
            page.add(table(["Counter", "Value"], [(k, _compact(v)) for k, v in summary["conservation"].items()]))

    page.section("Scenario")
    toml_path = d / "scenario.toml"
    if toml_path.is_file():
        page.add(pre(toml_path.read_text(encoding="utf-8", errors="replace")))
    else:
        page.para("This directory has no scenario.toml.", "missing")
    return page.render()
