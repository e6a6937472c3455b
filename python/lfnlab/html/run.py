"""The page of one run's result directory (``lfnlab run SCENARIO --out DIR``, spec 00 §2.4).

The run at a glance (``summary.json``'s scalars), one table per flow and per queue
(rates in Mbit/s), the explanation of each TCP flow (:mod:`lfnlab.explain`), every
other non-empty per-element list of the summary (hosts, NICs, switches, …), the
overview figure of :func:`lfnlab.plot.overview` (goodput, cwnd, bottleneck queue, RTT),
the time-sequence graph when packets were captured, any other PNG in the directory,
and the scenario exactly as run (``scenario.toml``).
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

#: The figures `lfnlab plot` writes by default; the page draws its own afresh from the tables.
PLOT_PNGS = ("goodput_cwnd.png", "overview.png", "tseq.png")

#: Per-flow and per-queue columns first, in this order (spec 00 §2.4); any others follow.
FLOW_COLUMNS = ("name", "kind", "goodput (Mbit/s)", "bytes_delivered", "retransmitted_segments", "timeouts")
#: Per-flow summary entries the explanation section shows instead of the flows table.
EXPLAINED = ("goodput_bps", "limited_s", "path", "slow_start_exit_s", "slow_start_exit_cwnd", "min_rtt_s")
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


def _load(d: Path) -> Any:
    from ..result import load_result

    try:
        return load_result(d)
    except OutputError as e:  # summary.json without the tables: not a result directory
        raise InvalidInputError(str(e)) from None


def _png(draw: Any) -> bytes:
    """The PNG that ``draw(path)`` writes."""
    with tempfile.TemporaryDirectory(prefix="lfnlab-report-") as tmp:
        out = Path(tmp) / "figure.png"
        draw(out)
        return read_png(out)


def _flow_row(f: Any) -> Any:
    """A flow's summary entry for the table: goodput in Mbit/s, the explained entries left out."""
    if not isinstance(f, dict):
        return f
    row = {k: v for k, v in f.items() if k not in EXPLAINED}
    if isinstance(f.get("goodput_bps"), (int, float)):
        row = {"goodput (Mbit/s)": round(f["goodput_bps"] / 1e6, 2), **row}
    return row


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
    page.add(_records_table([_flow_row(f) for f in flows], FLOW_COLUMNS) if flows else '<p class="note">No flows.</p>')
    result = _load(d)
    from ..explain import explain

    explanation = explain(result) if result.scenario_toml is not None else None
    if explanation is not None and explanation.flows:
        page.section("Why this goodput")
        page.add(pre(explanation.text()))
    page.section("Queues")
    queues = summary.get("queues") or []
    page.add(_records_table(queues, QUEUE_COLUMNS) if queues else '<p class="note">No queues.</p>')

    from .. import plot

    page.section("Figures")
    page.add(
        figure_html(
            _png(lambda out: plot.overview(result, out)),
            f"{name}: goodput, cwnd, bottleneck queue and RTT over time",
            "Goodput of every flow (Mbit/s) against the bottleneck's rate and wire bound; cwnd (segments) against "
            "the BDP and BDP + buffer, with retransmissions (ticks) and RTOs (crosses); the bottleneck queue (KiB) "
            "against its limit, with drops; srtt and min RTT (ms) against the base RTT.",
        )
    )
    if len(result.packets):
        page.add(
            figure_html(
                _png(lambda out: plot.tseq(result, path=out)),
                f"{name}: time-sequence graph",
                "Data segments (retransmissions in red), the cumulative ACK, the receive window's right edge and the "
                "SACK blocks of the first captured flow, over the captured frames.",
            )
        )
    for p in sorted(d.glob("*.png")):
        if p.name not in PLOT_PNGS:
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
