"""The page of a sweep store (``lfnlab sweep PLAN.toml``): the plan, the run index, and
for each chosen metric one figure per axis.

The store holds ``plan.toml`` (its ``[[axis]]`` tables name the axes by key path, with
their ``values``), ``index.parquet`` (``run_id``, ``status``, ``error``, ``seed``,
``wall_seconds``, one column per axis, then numeric metrics such as ``goodput_bps`` and
per-flow ``flow.<name>.goodput_bps``) and ``runs/<run_id>/``.

A figure plots a metric against one axis, over the runs whose status is ``done``: one
line per combination of the other axes' values (pooled into one line when there are more
than :data:`MAX_SERIES` combinations), each point the mean over the runs at that point
(repetitions, seeds), its bar their minimum and maximum. An axis whose values are all
numbers or quantities of one kind (``"128KiB"``, ``"10ms"``, ``"1Gbps"``, spec 00 §2.1)
is drawn to scale (on a log scale when its values form a geometric grid); any other axis is
categorical, in the plan's order.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Optional

from ..errors import InvalidInputError
from .embed import figure_html, figure_png
from .page import Page, esc, pre, table

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["is_sweep", "render_sweep", "default_metrics", "DEFAULT_METRICS"]

PLAN = "plan.toml"
INDEX = "index.parquet"
#: Metrics plotted when none is chosen, those of them the index has.
DEFAULT_METRICS = ("goodput_bps", "retransmitted_segments")
#: Columns of the index that are neither axes nor metrics.
BOOKKEEPING = ("run_id", "status", "error", "repetition", "seed", "wall_seconds")
#: Most lines in one figure; beyond it the other axes are pooled.
MAX_SERIES = 8
#: Most rows of the run index shown; the full index is index.parquet.
MAX_INDEX_ROWS = 2000
#: Most tick labels written out on an axis.
MAX_TICK_LABELS = 16


def is_sweep(d: Path) -> bool:
    return (d / PLAN).is_file() and (d / INDEX).is_file()


# Quantities (spec 00 §2.1): unit → (kind, factor to the kind's base unit).
_UNITS: dict[str, tuple[str, float]] = {
    "": ("number", 1.0),
    "bps": ("bit/s", 1.0), "kbps": ("bit/s", 1e3), "Mbps": ("bit/s", 1e6), "Gbps": ("bit/s", 1e9),
    "Tbps": ("bit/s", 1e12), "B/s": ("bit/s", 8.0), "kB/s": ("bit/s", 8e3), "KB/s": ("bit/s", 8e3),
    "MB/s": ("bit/s", 8e6), "GB/s": ("bit/s", 8e9),
    "B": ("B", 1.0), "kB": ("B", 1e3), "KB": ("B", 1e3), "MB": ("B", 1e6), "GB": ("B", 1e9), "TB": ("B", 1e12),
    "KiB": ("B", 2.0**10), "MiB": ("B", 2.0**20), "GiB": ("B", 2.0**30), "TiB": ("B", 2.0**40),
    "ns": ("s", 1e-9), "us": ("s", 1e-6), "ms": ("s", 1e-3), "s": ("s", 1.0),
}  # fmt: skip
_QUANTITY = re.compile(r"^\s*([-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)\s*([A-Za-z/]*)\s*$")


def _magnitude(value: Any) -> Optional[tuple[str, float]]:
    """(kind, value in the kind's base unit) of a number or quantity string, else None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return ("number", float(value)) if math.isfinite(float(value)) else None
    m = _QUANTITY.match(str(value))
    if m is None or m.group(2) not in _UNITS:
        return None
    kind, factor = _UNITS[m.group(2)]
    return kind, float(m.group(1)) * factor


@dataclass
class Axis:
    """One axis of the sweep: its key path and its values in order (as text, as in the index)."""

    key: str
    values: list[str]
    #: Position of each value on the x axis.
    x: dict[str, float]
    #: "bit/s", "B", "s", "number", or "" when categorical.
    kind: str
    log: bool


def _text(value: Any) -> str:
    if hasattr(value, "item") and not isinstance(value, str):
        value = value.item()
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _axis(key: str, plan_values: list[Any], present: list[Any]) -> Axis:
    order: list[str] = []
    for v in [*plan_values, *present]:
        t = _text(v)
        if t not in order:
            order.append(t)
    seen = {_text(v) for v in present}
    values = [t for t in order if t in seen]
    sample = {t: v for v in [*plan_values, *present] for t in [_text(v)]}
    mags = [_magnitude(sample[t]) for t in values]
    kinds = {m[0] for m in mags if m is not None}
    if values and all(m is not None for m in mags) and len(kinds) == 1:
        x = {t: m[1] for t, m in zip(values, mags) if m is not None}
        values, x, log = _to_scale(values, x)
        return Axis(key, values, x, kinds.pop(), log)
    return Axis(key, values, {t: float(i) for i, t in enumerate(values)}, "", False)


def _to_scale(values: list[str], x: dict[str, float]) -> tuple[list[str], dict[str, float], bool]:
    """Values in ascending order, their positions, and whether a log scale suits them:
    all positive, a span of 8× or more, and gaps of very unequal size (a geometric grid
    such as 64KiB, 128KiB, 1MiB rather than 10, 20, 30 ms)."""
    values = sorted(values, key=lambda t: x[t])  # ties keep the plan's order
    xs = [x[t] for t in values]
    gaps = [b - a for a, b in zip(xs, xs[1:]) if b > a]
    log = (
        len(xs) > 2
        and xs[0] > 0
        and xs[-1] / xs[0] >= 8
        and bool(gaps)
        and max(gaps) / min(gaps) >= 3
    )
    return values, x, log


def _load_plan(d: Path) -> tuple[str, dict[str, Any]]:
    try:
        import tomllib  # type: ignore[import-not-found,unused-ignore]
    except ImportError:  # Python < 3.11
        import tomli as tomllib  # type: ignore[import-not-found,no-redef,unused-ignore]

    text = (d / PLAN).read_text(encoding="utf-8", errors="replace")
    try:
        plan = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise InvalidInputError(f"{PLAN} is not valid TOML: {e}", file=str(d)) from None
    return text, plan


def _load_index(d: Path) -> pd.DataFrame:
    import pyarrow.parquet as pq

    try:
        frame = pq.read_table(d / INDEX).to_pandas()
    except Exception as e:  # pyarrow raises several types for a damaged file
        raise InvalidInputError(f"{INDEX} cannot be read: {e}", file=str(d)) from None
    if "run_id" in frame.columns:
        frame = frame.sort_values("run_id", kind="stable").reset_index(drop=True)
    return frame


def _plan_axes(plan: dict[str, Any], frame: pd.DataFrame) -> list[tuple[str, list[Any]]]:
    """(key, values in the plan) of each axis: from ``[[axis]]``, else the index columns
    between ``wall_seconds`` and the first numeric metric."""
    axes = plan.get("axis")
    if isinstance(axes, list) and axes:
        out = []
        for a in axes:
            if isinstance(a, dict) and isinstance(a.get("key"), str) and a["key"] in frame.columns:
                values = a.get("values")
                out.append((a["key"], list(values) if isinstance(values, list) else []))
        return out
    columns = list(frame.columns)
    start = columns.index("wall_seconds") + 1 if "wall_seconds" in columns else 0
    out = []
    for c in columns[start:]:
        if c in DEFAULT_METRICS or c.startswith("flow.") or c in BOOKKEEPING:
            break
        out.append((c, []))
    return out


def _plan_name(plan: dict[str, Any]) -> Optional[str]:
    """``[sweep] name`` (or a top-level ``name``), else the scenario's file stem."""
    sweep = plan.get("sweep") if isinstance(plan.get("sweep"), dict) else {}
    for where in (sweep, plan):
        if isinstance(where.get("name"), str) and where["name"]:
            return str(where["name"])
    for where in (sweep, plan):
        if isinstance(where.get("scenario"), str) and where["scenario"]:
            return Path(where["scenario"]).stem
    return None


def _plan_values_text(plan: dict[str, Any], key: str) -> str:
    """An axis's values as the plan gives them: a list, or a ``range`` table."""
    for a in plan.get("axis") or []:
        if not isinstance(a, dict) or a.get("key") != key:
            continue
        if isinstance(a.get("values"), list):
            return ", ".join(_text(v) for v in a["values"])
        r = a.get("range")
        if isinstance(r, dict):
            unit = str(r.get("unit", ""))
            return f"{_text(r.get('start'))} to {_text(r.get('stop'))}{unit} in steps of {_text(r.get('step'))}{unit}"
    return ""


def _numeric_columns(frame: pd.DataFrame, exclude: set[str]) -> list[str]:
    import pandas as pd

    return [
        c
        for c in frame.columns
        if c not in exclude and pd.api.types.is_numeric_dtype(frame[c]) and not pd.api.types.is_bool_dtype(frame[c])
    ]


def default_metrics(frame: pd.DataFrame) -> list[str]:
    return [m for m in DEFAULT_METRICS if m in frame.columns]


def _chosen_metrics(metrics: Optional[list[str]], frame: pd.DataFrame, available: list[str], d: Path) -> list[str]:
    if not metrics:
        return [m for m in default_metrics(frame) if m in available]
    for m in metrics:
        if m not in available:
            raise InvalidInputError(
                f"{m!r} is not a numeric metric of {d / INDEX}; metrics: {', '.join(available) or 'none'}",
                file="<arguments>",
                key_path="--metric",
            )
    return list(dict.fromkeys(metrics))


#: One point of a line: (x, mean, min, max).
Point = tuple[float, float, float, float]


def _series(frame: pd.DataFrame, axis: Axis, others: list[Axis], metric: str) -> list[tuple[str, list[Point]]]:
    """(label, points) per line, in the other axes' order."""
    import pandas as pd

    data = pd.DataFrame({"x": frame[axis.key].map(_text), "y": pd.to_numeric(frame[metric], errors="coerce")})
    for o in others:
        data[o.key] = frame[o.key].map(_text)
    data = data[data["y"].notna() & data["x"].isin(list(axis.x))]

    def points(rows: pd.DataFrame) -> list[Point]:
        stats = rows.groupby("x", sort=False)["y"].agg(["mean", "min", "max"])
        return [
            (axis.x[t], float(stats.at[t, "mean"]), float(stats.at[t, "min"]), float(stats.at[t, "max"]))
            for t in axis.values
            if t in stats.index
        ]

    if not others:
        return [(metric, points(data))]
    combos: list[tuple[str, ...]] = [()]
    for o in others:
        combos = [(*c, v) for c in combos for v in o.values]
    present = set(map(tuple, data[[o.key for o in others]].itertuples(index=False, name=None)))
    combos = [c for c in combos if c in present]
    if len(combos) > MAX_SERIES:
        keys = ", ".join(o.key for o in others)
        return [(f"all runs (pooled over {keys})", points(data))]
    out = []
    for combo in combos:
        mask = pd.Series(True, index=data.index)
        for o, v in zip(others, combo):
            mask &= data[o.key] == v
        out.append((", ".join(f"{o.key} = {v}" for o, v in zip(others, combo)), points(data[mask])))
    return out


def _plot(frame: pd.DataFrame, axis: Axis, others: list[Axis], metric: str) -> Optional[bytes]:
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    series = [(label, pts) for label, pts in _series(frame, axis, others, metric) if pts]
    if not series:
        return None
    fig = Figure(figsize=(8.0, 4.5), layout="constrained")
    FigureCanvasAgg(fig)
    ax = fig.subplots()
    # Rates in Mbit/s (issue 40: a human reads Mbit/s, not 1e8 offsets).
    scale, ylabel = (1e-6, f"{metric.removesuffix('_bps')} (Mbit/s)") if metric.endswith("_bps") else (1.0, metric)
    # A categorical axis (newreno, cubic) gets points only: a line between categories means nothing.
    style = {"linestyle": "none"} if axis.kind == "" else {"linewidth": 1.2}
    lowest = math.inf
    for label, pts in series:
        xs, mean, low, high = (list(v) for v in zip(*pts))
        mean, low, high = ([y * scale for y in v] for v in (mean, low, high))
        lowest = min(lowest, *low)
        yerr = [[max(0.0, m - lo) for m, lo in zip(mean, low)], [max(0.0, hi - m) for m, hi in zip(mean, high)]]
        ax.errorbar(xs, mean, yerr=yerr, marker="o", markersize=4, capsize=3, label=label, **style)
    ax.ticklabel_format(axis="y", style="plain", useOffset=False)
    if lowest >= 0:
        ax.set_ylim(bottom=0)
    if axis.log:
        ax.set_xscale("log")
        ax.minorticks_off()
    if len(axis.values) <= MAX_TICK_LABELS:
        ax.set_xticks([axis.x[t] for t in axis.values], labels=axis.values)
    unit = f" ({axis.kind})" if axis.kind not in ("", "number") else ""
    ax.set_xlabel(axis.key + unit)
    ax.set_ylabel(ylabel)
    ax.set_title(f"{metric} against {axis.key}", fontsize="medium")
    ax.grid(True, alpha=0.3)
    if len(series) > 1 or others:
        ax.legend(loc="best", fontsize="small")
    return figure_png(fig)


def _index_rows(frame: pd.DataFrame) -> list[list[Any]]:
    """Rows of the index; a missing text (the ``error`` of a done run) is an empty cell, not NaN."""
    import pandas as pd

    numeric = [pd.api.types.is_numeric_dtype(frame[c]) for c in frame.columns]
    return [
        [v if num or not (pd.api.types.is_scalar(v) and pd.isna(v)) else "" for v, num in zip(row, numeric)]
        for row in frame.itertuples(index=False, name=None)
    ]


def _status_class(value: Any) -> str:
    return {"done": "pass", "failed": "fail"}.get(str(value), "")


def render_sweep(d: Path, metrics: Optional[list[str]] = None) -> str:
    """The whole page of sweep store ``d``; ``metrics`` to plot (default :data:`DEFAULT_METRICS`)."""
    plan_text, plan = _load_plan(d)
    frame = _load_index(d)
    axes_plan = _plan_axes(plan, frame)
    axis_keys = {k for k, _ in axes_plan}
    available = _numeric_columns(frame, set(BOOKKEEPING) | axis_keys)
    chosen = _chosen_metrics(metrics, frame, available, d)
    done = frame[frame["status"] == "done"] if "status" in frame.columns else frame
    seen = done if len(done) else frame  # with no done run, the axes still list their values
    axes = [_axis(k, values, list(seen[k].unique())) for k, values in axes_plan]

    name = _plan_name(plan) or d.resolve().name
    page = Page(f"{name}: lfnlab sweep")
    n_failed = int((frame["status"] == "failed").sum()) if "status" in frame.columns else 0
    page.para(
        f"{len(frame)} runs: {len(frame) - n_failed} done, {n_failed} failed; "
        f"{len(axes)} ax{'is' if len(axes) == 1 else 'es'}; metrics plotted: {', '.join(chosen) or 'none'}."
    )

    page.section("Plan")
    page.add(
        table(
            ["Axis", "Values in the plan", "Values among done runs"],
            [[a.key, _plan_values_text(plan, a.key), ", ".join(a.values)] for a in axes],
        )
    )
    page.add(pre(plan_text))

    page.section("Figures")
    if not axes or not chosen:
        page.para("Nothing to plot: the sweep has no axis or no chosen metric in its index.", "note")
    for metric in chosen:
        for axis in axes:
            others = [o for o in axes if o is not axis]
            png = _plot(done, axis, others, metric)
            page.heading(f"{metric} against {axis.key}")
            if png is None:
                page.para(f"No done run has a value of {metric}.", "note")
                continue
            caption = (
                f"{metric} against {axis.key}: mean over the runs at each point, bars from their minimum to maximum"
                + (f"; one line per value of {', '.join(o.key for o in others)}" if others else "")
                + "."
            )
            page.add(figure_html(png, f"{metric} against {axis.key}", caption))

    page.section("Run index")
    shown = frame.head(MAX_INDEX_ROWS)
    status_col = list(frame.columns).index("status") if "status" in frame.columns else -1
    page.add(
        table(
            list(frame.columns),
            _index_rows(shown),
            classes={status_col: _status_class} if status_col >= 0 else None,
        )
    )
    note = f"Each run's result directory is runs/RUN_ID/ in {d.name}."
    if len(frame) > MAX_INDEX_ROWS:
        note += f" The first {MAX_INDEX_ROWS} of {len(frame)} runs are shown; {INDEX} holds them all."
    page.add(f'<p class="note">{esc(note)}</p>')
    return page.render()
