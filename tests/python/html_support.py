"""Helpers of the HTML report tests: small fake directories (no engine) and a DOM reader."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path
from typing import Optional

import numpy as np
import pandas as pd

#: The axes of the fake sweep: a queue limit (a size quantity) and a congestion control (text).
SWEEP_AXES = {"link[1].queue.limit": ["64KiB", "128KiB", "1MiB"], "flow[0].cc": ["newreno", "cubic"]}
SWEEP_SEEDS = (1, 2)

PLAN_TOML = """\
[sweep]
name = "buffer-vs-cc"
scenario = "examples/dumbbell.toml"
repetitions = 2

[[axis]]
key = "link[1].queue.limit"
values = ["64KiB", "128KiB", "1MiB"]

[[axis]]
key = "flow[0].cc"
values = ["newreno", "cubic"]
"""


def make_sweep_store(d: Path, *, fail_one: bool = True, axis_value: Optional[str] = None) -> Path:
    """A sweep store as `lfnlab sweep` writes it (plan.toml, index.parquet, runs/), with
    made-up metrics: 3 × 2 points × 2 seeds; the last run failed when ``fail_one``.
    ``axis_value`` replaces the cc value "cubic" (to test escaping)."""
    d.mkdir(parents=True, exist_ok=True)
    plan = PLAN_TOML
    cc_values = list(SWEEP_AXES["flow[0].cc"])
    if axis_value is not None:
        cc_values[1] = axis_value
        plan = plan.replace('"cubic"', json.dumps(axis_value))
    (d / "plan.toml").write_text(plan, encoding="utf-8")
    rows = []
    limits = SWEEP_AXES["link[1].queue.limit"]
    for i, (limit, cc, seed) in enumerate((l, c, s) for l in limits for c in cc_values for s in SWEEP_SEEDS):
        kib = {"64KiB": 64, "128KiB": 128, "1MiB": 1024}[limit]
        goodput = 4e8 * (1 - np.exp(-kib / 200)) * (1.05 if cc != "newreno" else 1.0) + seed * 1e6
        rows.append(
            {
                "run_id": f"r{i:04d}",
                "status": "done",
                "error": None,
                "seed": seed,
                "wall_seconds": 0.5 + 0.01 * i,
                "link[1].queue.limit": limit,
                "flow[0].cc": cc,
                "goodput_bps": goodput,
                "bytes_delivered": int(goodput * 10 / 8),
                "retransmitted_segments": int(3000 / kib) + seed,
                "timeouts": 1 if kib == 64 else 0,
                "flow.bulk.goodput_bps": goodput,
            }
        )
    if fail_one:
        last = rows[-1]
        last.update(status="failed", error="simulation error: <limit> & co", goodput_bps=float("nan"))
    frame = pd.DataFrame(rows)
    frame.to_parquet(d / "index.parquet", index=False)
    for r in rows:
        (d / "runs" / r["run_id"]).mkdir(parents=True, exist_ok=True)
    return d


def tiny_png(rgb: tuple[int, int, int], size: tuple[int, int] = (40, 30)) -> bytes:
    """A valid PNG of one colour (Pillow comes with matplotlib)."""
    import io

    from PIL import Image

    buf = io.BytesIO()
    Image.new("RGB", size, rgb).save(buf, format="PNG")
    return buf.getvalue()


def make_reproduction(d: Path, *, title: str = "a fake experiment", extra_md: str = "", omit: bool = False) -> Path:
    """A reproduction directory as `lfnlab reproduce` writes it, without running anything:
    checks.json, report.md, two CSV tables and two figures. With ``omit``, report.md
    leaves out one table, one figure and the Checks section."""
    d.mkdir(parents=True, exist_ok=True)
    checks = {
        "experiment": "99.X1",
        "title": title,
        "reference": "spec 99 §1",
        "form": "quick",
        "passed": False,
        "checks": [
            {"name": "ratio <a>", "measured": 1.0, "unit": "", "lower": 0.9, "upper": 1.1, "criterion": "≥ 0.9", "passed": True},
            {"name": "drops & losses", "measured": 7, "unit": "", "lower": None, "upper": 0, "criterion": "= 0", "passed": False},
        ],
        "runs": ["runs/a"],
        "files": ["checks.json", "report.md", "t1.csv", "t2.csv", "f1.png", "f2.png"],
    }
    (d / "checks.json").write_text(json.dumps(checks, indent=2), encoding="utf-8")
    (d / "t1.csv").write_text("x,y\n1,2.5\n", encoding="utf-8")
    (d / "t2.csv").write_text('name,"a,b"\nq,3\n<b>bold</b>,4\n', encoding="utf-8")
    (d / "f1.png").write_bytes(tiny_png((200, 40, 40)))
    (d / "f2.png").write_bytes(tiny_png((40, 40, 200)))
    md = [
        f"# 99.X1: {title}",
        "",
        "**FAIL**: 1 of 2 checks passed. Form: **quick**.",
        "",
        "## Parameters",
        "",
        "| Parameter | quick (this run) | full |",
        "|---|---|---|",
        "| rate | 1 Gbit/s | 10 Gbit/s |",
        "",
    ]
    if not omit:
        md += [
            "## Checks",
            "",
            "| Check | Measured | Criterion | Result |",
            "|---|---|---|---|",
            "| ratio <a> | 1 | ≥ 0.9 | PASS |",
            "| drops & losses | 7 | = 0 | FAIL |",
            "",
        ]
    md += ["## Tables", "", "### t1", "", "| x | y |", "|---|---|", "| 1 | 2.5 |", "", "CSV: [t1.csv](t1.csv)", ""]
    if not omit:
        md += ["### t2", "", "| name | a,b |", "|---|---|", "| q | 3 |", "| <b>bold</b> | 4 |", "", "CSV: [t2.csv](t2.csv)", ""]
    md += ["## Figures", "", "### f1", "", "![f1](f1.png)", ""]
    if not omit:
        md += ["### f2", "", "![f2](f2.png)", ""]
    md += [extra_md, ""]
    (d / "report.md").write_text("\n".join(md), encoding="utf-8")
    return d


@dataclass
class Dom:
    """What the report tests look at in a page: title, tables, images, marked cells."""

    title: str = ""
    #: Per table: its rows, each a list of cell texts (header row first).
    tables: list[list[list[str]]] = field(default_factory=list)
    #: Per <img>: its attributes.
    images: list[dict[str, str]] = field(default_factory=list)
    #: (class, text) of every element with class pass or fail.
    marked: list[tuple[str, str]] = field(default_factory=list)
    #: Every (tag, attribute, value) whose value is a URL the page could load.
    urls: list[tuple[str, str, str]] = field(default_factory=list)
    #: Text of every <pre>.
    pres: list[str] = field(default_factory=list)
    #: Text of every <h1> … <h3>.
    headings: list[str] = field(default_factory=list)
    scripts: int = 0
    body_attrs: dict[str, str] = field(default_factory=dict)


class _Reader(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.dom = Dom()
        self._in_title = False
        self._row: Optional[list[str]] = None
        self._cell: Optional[list[str]] = None
        self._mark: list[Optional[tuple[str, list[str]]]] = []
        self._pre: Optional[list[str]] = None
        self._heading: Optional[list[str]] = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, Optional[str]]]) -> None:
        a = {k: v or "" for k, v in attrs}
        if tag == "title":
            self._in_title = True
        elif tag == "table":
            self.dom.tables.append([])
        elif tag == "tr":
            self._row = []
        elif tag in ("td", "th"):
            self._cell = []
        elif tag == "img":
            self.dom.images.append(a)
        elif tag == "script":
            self.dom.scripts += 1
        elif tag == "body":
            self.dom.body_attrs = a
        elif tag == "pre":
            self._pre = []
        elif tag in ("h1", "h2", "h3"):
            self._heading = []
        for attr in ("src", "srcset", "poster", "data") + (("href",) if tag == "link" else ()):
            if attr in a:
                self.dom.urls.append((tag, attr, a[attr]))
        if "style" in a and "url(" in a["style"]:
            self.dom.urls.append((tag, "style", a["style"]))
        if tag not in ("img", "br", "meta", "link", "input", "hr"):
            classes = a.get("class", "").split()
            mark = next((c for c in classes if c in ("pass", "fail")), None)
            self._mark.append((mark, []) if mark else None)

    def handle_endtag(self, tag: str) -> None:
        if tag == "title":
            self._in_title = False
        elif tag in ("td", "th") and self._cell is not None and self._row is not None:
            self._row.append("".join(self._cell).strip())
            self._cell = None
        elif tag == "tr" and self._row is not None and self.dom.tables:
            self.dom.tables[-1].append(self._row)
            self._row = None
        elif tag == "pre" and self._pre is not None:
            self.dom.pres.append("".join(self._pre))
            self._pre = None
        elif tag in ("h1", "h2", "h3") and self._heading is not None:
            self.dom.headings.append("".join(self._heading).strip())
            self._heading = None
        if tag not in ("img", "br", "meta", "link", "input", "hr") and self._mark:
            m = self._mark.pop()
            if m is not None:
                self.dom.marked.append((m[0], "".join(m[1]).strip()))

    def handle_data(self, data: str) -> None:
        if self._in_title:
            self.dom.title += data
        if self._cell is not None:
            self._cell.append(data)
        if self._pre is not None:
            self._pre.append(data)
        if self._heading is not None:
            self._heading.append(data)
        for m in self._mark:
            if m is not None:
                m[1].append(data)


def read_dom(text: str) -> Dom:
    r = _Reader()
    r.feed(text)
    r.close()
    return r.dom
