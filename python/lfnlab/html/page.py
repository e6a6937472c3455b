"""The page skeleton: escaping, tables, preformatted text, sections and the inline CSS.

Everything a report holds is written by these helpers, so escaping happens in one
place: every piece of text from a result directory goes through :func:`esc`. The page
needs no script and loads nothing: the CSS is inline and figures are ``data:`` URIs
(:mod:`.embed`).
"""

from __future__ import annotations

import html
import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Optional

__all__ = ["esc", "cell_text", "table", "pre", "verdict", "Page", "CSS", "CSP"]

#: The page may load nothing but its own inline style and ``data:`` images: a browser
#: refuses anything else, even if some text slipped through as markup.
CSP = "default-src 'none'; img-src data:; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'"

#: The whole style sheet. System fonts only (no web fonts); readable printed too.
CSS = """
:root { color-scheme: light; }
body { font-family: system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", sans-serif;
  margin: 0 auto; max-width: 72rem; padding: 1rem 1.5rem 3rem; line-height: 1.45; color: #1b1f24; background: #fff; }
h1 { font-size: 1.6rem; border-bottom: 2px solid #d0d7de; padding-bottom: .3rem; }
h2 { font-size: 1.3rem; margin-top: 2rem; border-bottom: 1px solid #d0d7de; padding-bottom: .2rem; }
h3 { font-size: 1.1rem; margin-top: 1.5rem; }
code, pre { font-family: ui-monospace, "DejaVu Sans Mono", Menlo, Consolas, monospace; font-size: .9em; }
pre { background: #f6f8fa; border: 1px solid #d0d7de; padding: .6rem .8rem; overflow-x: auto; }
.scroll { overflow-x: auto; margin: .6rem 0; }
table { border-collapse: collapse; font-size: .9rem; }
th, td { border: 1px solid #d0d7de; padding: .25rem .55rem; vertical-align: top; text-align: left; }
th { background: #f6f8fa; }
tbody tr:nth-child(even) { background: #fbfcfd; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
.pass { background: #dafbe1; color: #0f5323; font-weight: 600; }
.fail { background: #ffebe9; color: #82071e; font-weight: 600; }
p.verdict { display: inline-block; padding: .3rem .8rem; border-radius: .3rem; }
figure { margin: 1rem 0; }
figure img, p img { max-width: 100%; height: auto; border: 1px solid #d0d7de; }
figcaption { font-size: .9rem; color: #57606a; margin-top: .3rem; }
.missing { color: #82071e; font-style: italic; }
nav ul { columns: 2; font-size: .9rem; }
.note { color: #57606a; font-size: .9rem; }
""".strip()


def esc(text: Any) -> str:
    """``text`` as HTML text or attribute value (``&``, ``<``, ``>``, quotes escaped)."""
    return html.escape(str(text), quote=True)


def cell_text(value: Any, digits: int = 6) -> str:
    """A table cell's text: numbers to ``digits`` significant digits, whole numbers exact,
    ``None`` empty, booleans ``true``/``false``, NaN ``n/a``."""
    if hasattr(value, "item") and not isinstance(value, (str, bytes)):
        value = value.item()  # numpy scalar → Python
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return "n/a"
        if value.is_integer() and abs(value) < 1e15:
            return str(int(value))  # a count or an exact rate: every digit
        return f"{value:.{digits}g}"
    return str(value)


_NUMBER = re.compile(r"^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$")


def _is_number(text: str) -> bool:
    return bool(_NUMBER.match(text.strip()))


def table(
    header: Sequence[Any],
    rows: Iterable[Sequence[Any]],
    *,
    classes: Optional[dict[int, Any]] = None,
    digits: int = 6,
) -> str:
    """A ``<table>`` with a header row. Cells are escaped; numeric cells are right-aligned.

    ``classes`` maps a column index to a function ``cell value -> CSS class or ""``
    (for example the PASS/FAIL column)."""
    classes = classes or {}
    out = ['<div class="scroll"><table>', "<thead><tr>"]
    out += [f"<th>{esc(cell_text(h))}</th>" for h in header]
    out.append("</tr></thead><tbody>")
    for row in rows:
        out.append("<tr>")
        for i, value in enumerate(row):
            text = cell_text(value, digits)
            css = [classes[i](value)] if i in classes else []
            if _is_number(text):
                css.append("num")
            attr = f' class="{esc(" ".join(c for c in css if c))}"' if any(css) else ""
            out.append(f"<td{attr}>{esc(text)}</td>")
        out.append("</tr>")
    out.append("</tbody></table></div>")
    return "".join(out)


def pre(text: str) -> str:
    """Preformatted text (a scenario, a plan) in a code block."""
    return f"<pre><code>{esc(text)}</code></pre>"


def verdict(passed: bool, text: str) -> str:
    """A PASS/FAIL banner: the word and the colour say the same thing."""
    word = "PASS" if passed else "FAIL"
    return f'<p class="verdict {"pass" if passed else "fail"}">{word}: {esc(text)}</p>'


def _slug(text: str, taken: set[str]) -> str:
    base = re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-") or "section"
    slug, n = base, 2
    while slug in taken:
        slug, n = f"{base}-{n}", n + 1
    taken.add(slug)
    return slug


@dataclass
class Page:
    """A report page: a title, an optional lead paragraph, and sections in order.

    ``section`` starts an ``<h2>`` section (listed in the page's table of contents);
    ``add`` appends HTML that the caller has already escaped."""

    title: str
    _body: list[str] = field(default_factory=list)
    _toc: list[tuple[str, str]] = field(default_factory=list)
    _ids: set[str] = field(default_factory=set)

    def section(self, heading: str) -> None:
        anchor = _slug(heading, self._ids)
        self._toc.append((anchor, heading))
        self._body.append(f'<h2 id="{anchor}">{esc(heading)}</h2>')

    def heading(self, text: str) -> None:
        """A sub-heading (``<h3>``) inside the current section."""
        self._body.append(f'<h3 id="{_slug(text, self._ids)}">{esc(text)}</h3>')

    def para(self, text: str, css: str = "") -> None:
        attr = f' class="{esc(css)}"' if css else ""
        self._body.append(f"<p{attr}>{esc(text)}</p>")

    def add(self, fragment: str) -> None:
        self._body.append(fragment)

    def render(self, *, toc: bool = True) -> str:
        """The whole document. No script, no external resource, no timestamp."""
        nav = ""
        if toc and len(self._toc) > 1:
            items = "".join(f'<li><a href="#{a}">{esc(h)}</a></li>' for a, h in self._toc)
            nav = f'<nav aria-label="Contents"><ul>{items}</ul></nav>'
        return "\n".join(
            [
                "<!DOCTYPE html>",
                '<html lang="en">',
                "<head>",
                '<meta charset="utf-8">',
                f'<meta http-equiv="Content-Security-Policy" content="{CSP}">',
                '<meta name="viewport" content="width=device-width, initial-scale=1">',
                f"<title>{esc(self.title)}</title>",
                f"<style>\n{CSS}\n</style>",
                "</head>",
                "<body>",
                f"<h1>{esc(self.title)}</h1>",
                nav,
                *self._body,
                "</body>",
                "</html>",
                "",
            ]
        )
