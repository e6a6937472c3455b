"""``report.md`` to HTML with the ``markdown`` library (tables, fenced code).

Raw HTML in the Markdown is not passed through: it is shown as text, escaped (the
library's ``html_block`` and inline ``html`` handlers are removed). Images are inlined
as ``data:`` URIs when they name a PNG of the directory; any other image becomes a
visible "missing figure" note, so the page never refers to a file or host outside
itself. Links keep working relative to the result directory; a link whose scheme is
not http, https or mailto loses its target. PASS and FAIL cells are marked.
"""

from __future__ import annotations

import posixpath
import re
import xml.etree.ElementTree as ET
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Optional
from urllib.parse import unquote, urlsplit

from .embed import data_uri, png_size

__all__ = ["MarkdownHtml", "render_markdown"]

_SAFE_SCHEMES = ("http", "https", "mailto")


@dataclass
class MarkdownHtml:
    """The HTML of a Markdown text and what it refers to.

    Attributes:
        html: the fragment (escaped, images inline).
        images: local image names that were inlined, e.g. ``goodput_cwnd.png``.
        links: local link targets, e.g. ``goodput.csv``, ``runs/cubic/summary.json``.
        headings: the text of every heading, in order.
    """

    html: str
    images: set[str] = field(default_factory=set)
    links: set[str] = field(default_factory=set)
    headings: list[str] = field(default_factory=list)


def _local_name(url: str) -> Optional[str]:
    """A relative path inside the directory (``a/b.png``), or None for anything else."""
    parts = urlsplit(url)
    if parts.scheme or parts.netloc or not parts.path:
        return None
    path = posixpath.normpath(unquote(parts.path))
    if path.startswith(("/", "../")) or path == "..":
        return None
    return path


def _text(el: ET.Element) -> str:
    return "".join(el.itertext()).strip()


def render_markdown(
    text: str, load_png: Callable[[str], Optional[bytes]], link_prefix: str = ""
) -> MarkdownHtml:
    """Convert ``text``; ``load_png(name)`` returns a local PNG's bytes or None.

    ``link_prefix`` (``""`` or ending in ``/``) is put before local link targets when the
    page is written outside the directory the Markdown's links are relative to."""
    import markdown
    from markdown.extensions import Extension
    from markdown.treeprocessors import Treeprocessor

    result = MarkdownHtml(html="")

    class _Rewrite(Treeprocessor):
        def run(self, root: ET.Element) -> None:
            for el in root.iter():
                if el.tag == "img":
                    self._image(el)
                elif el.tag == "a":
                    self._link(el)
                elif el.tag in ("td", "strong") and len(el) == 0 and (el.text or "").strip() in ("PASS", "FAIL"):
                    el.set("class", (el.text or "").strip().lower())
                elif el.tag in ("h1", "h2", "h3", "h4", "h5", "h6"):
                    result.headings.append(_text(el))

        @staticmethod
        def _image(el: ET.Element) -> None:
            alt = el.get("alt", "")
            name = _local_name(el.get("src", ""))
            data = load_png(name) if name is not None else None
            size = png_size(data) if data is not None else None
            if data is None or size is None or name is None:
                # Never a reference to something outside the page: a note instead.
                missing = el.get("src", "")
                el.attrib.clear()
                el.tag = "span"
                el.set("class", "missing")
                el.text = f"[figure {alt or missing} is not in this directory]"
                return
            result.images.add(name)
            el.attrib.clear()
            el.set("alt", alt or name)
            el.set("width", str(size[0]))
            el.set("height", str(size[1]))
            el.set("src", data_uri(data))

        @staticmethod
        def _link(el: ET.Element) -> None:
            href = el.get("href", "")
            name = _local_name(href)
            if name is not None:
                result.links.add(name)
                el.set("href", link_prefix + href)
                return
            scheme = urlsplit(href).scheme.lower()
            if href.startswith("#") or scheme in _SAFE_SCHEMES:
                return
            del el.attrib["href"]

    class _Ext(Extension):
        def extendMarkdown(self, md: markdown.Markdown) -> None:  # noqa: N802 (library's name)
            md.preprocessors.deregister("html_block")
            md.inlinePatterns.deregister("html")
            md.treeprocessors.register(_Rewrite(md), "lfnlab_rewrite", 0)

    md = markdown.Markdown(extensions=["tables", "fenced_code", _Ext()], output_format="html")
    html = md.convert(text)
    # Tables scroll sideways on their own rather than widening the page.
    html = re.sub(r"<table>", '<div class="scroll"><table>', html)
    html = html.replace("</table>", "</table></div>")
    result.html = html
    return result
