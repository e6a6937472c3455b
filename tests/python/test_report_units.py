"""Rates and values as a human reads them (issue 40): report tables in Mbit/s, a value
that only rounds to a whole number keeps the digits that say so, sweep metrics carry
utilisation and drops by cause, the sweep index sorts axis values in the plan's order,
and a sweep figure of a rate starts at 0 in Mbit/s with no line between categories."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow as pa
import pytest

from lfnlab.html import sweep as html_sweep
from lfnlab.reproduce.outcome import Check
from lfnlab.reproduce.report import frame_markdown
from lfnlab.sweep.frame import index_frame
from lfnlab.sweep.metrics import flatten


def test_a_value_that_only_rounds_to_one_shows_its_digits() -> None:
    assert Check.within("ratio", 0.99999991, 0.98, 1.001).measured_text() == "0.9999999"
    assert Check.within("ratio", 1.0, 0.98, 1.001).measured_text() == "1"
    assert Check.within("ratio", 0.999092, 0.98, 1.001).measured_text() == "0.999092"
    assert Check.within("rate", float("inf"), 0.0, None).measured_text() == "inf"


def test_report_tables_show_rates_in_mbit_per_s() -> None:
    md = frame_markdown(pd.DataFrame({"cc": ["newreno"], "goodput_bps": [941482000.0], "wire_bound_bps": [9.41482e8]}), 6)
    header, _, row = md.splitlines()
    assert header == "| cc | goodput (Mbit/s) | wire_bound (Mbit/s) |"
    assert row == "| newreno | 941.482 | 941.482 |"


def test_sweep_metrics_have_utilisation_rcvbuf_drops_and_drops_by_cause() -> None:
    summary = {
        "duration_s": 5.0,
        "flows": [{"name": "bulk", "goodput_bps": 50e6, "rcvbuf_drops": 3, "path": {"wire_bound_bps": 100e6}}],
        "queues": [{"name": "wan->rcv", "dropped": 7, "drops_by_cause": {"tail": 5, "red": 2}}],
    }
    m = flatten(summary)
    assert m["rcvbuf_drops"] == 3 and m["flow.bulk.rcvbuf_drops"] == 3
    assert m["flow.bulk.utilisation"] == 0.5
    assert m["queue.wan->rcv.dropped.tail"] == 5 and m["queue.wan->rcv.dropped.red"] == 2


def test_the_index_sorts_axis_values_in_the_plans_order(tmp_path: Path) -> None:
    # Rows in grid order (the plan lists 32KiB, 128KiB, 512KiB); as text they sort otherwise.
    limits = ["32KiB", "32KiB", "128KiB", "128KiB", "512KiB", "512KiB"]
    table = pa.table(
        {
            "run_id": [f"r{i}" for i in range(6)],
            "status": ["done"] * 6,
            "error": [None] * 6,
            "repetition": [0] * 6,
            "seed": [1] * 6,
            "link[1].queue.limit": limits,
            "flow[0].cc": ["newreno", "cubic"] * 3,
            "wall_seconds": [0.1] * 6,
            "goodput_bps": [1.0, 2.0, 3.0, 4.0, 5.0, 6.0],
        }
    )
    index = index_frame(table, tmp_path, {})
    assert list(index.sort_values("link[1].queue.limit")["link[1].queue.limit"].unique()) == ["32KiB", "128KiB", "512KiB"]
    pivot = index.pivot_table(index="link[1].queue.limit", columns="flow[0].cc", values="goodput_bps", observed=True)
    assert list(pivot.index) == ["32KiB", "128KiB", "512KiB"] and list(pivot.columns) == ["newreno", "cubic"]
    assert (index["link[1].queue.limit"] == "128KiB").sum() == 2


def test_a_sweep_figure_of_a_rate_is_in_mbit_per_s_from_zero_without_lines_between_categories(monkeypatch: pytest.MonkeyPatch) -> None:
    frame = pd.DataFrame({"flow[0].cc": ["newreno", "cubic"], "goodput_bps": [1.0e8, 1.2e8]})
    axis = html_sweep._axis("flow[0].cc", ["newreno", "cubic"], ["newreno", "cubic"])
    drawn: dict[str, Any] = {}
    real = html_sweep.figure_png

    def keep(fig: Any) -> bytes:
        drawn["fig"] = fig
        return real(fig)

    monkeypatch.setattr(html_sweep, "figure_png", keep)
    assert html_sweep._plot(frame, axis, [], "goodput_bps") is not None
    (ax,) = drawn["fig"].axes
    assert ax.get_ylabel() == "goodput (Mbit/s)" and ax.get_ylim()[0] == 0
    (line,) = [x for x in ax.get_lines() if x.get_marker() == "o"]  # the error bars' caps are lines too
    assert line.get_linestyle() == "None" and list(line.get_ydata()) == [100.0, 120.0]
