"""Figures inside the page: PNG bytes as ``data:`` URIs, and matplotlib figures to PNG bytes.

A figure is checked to be a PNG (signature and IHDR chunk) before it is embedded, and
its pixel size goes into the ``<img>`` so the page lays out before it decodes.
"""

from __future__ import annotations

import base64
import io
import struct
from pathlib import Path
from typing import TYPE_CHECKING, Optional

from ..errors import OutputError
from .page import esc

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = ["png_size", "data_uri", "img_tag", "figure_html", "figure_png", "read_png", "DPI"]

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
#: Resolution of the figures drawn for a report (the reproduction figures use the same).
DPI = 110


def png_size(data: bytes) -> Optional[tuple[int, int]]:
    """(width, height) in pixels from the IHDR chunk, or None if ``data`` is not a PNG."""
    # PNG spec §5.2 signature, §11.2.2 IHDR: length, "IHDR", width, height (big-endian).
    if len(data) < 24 or not data.startswith(PNG_SIGNATURE) or data[12:16] != b"IHDR":
        return None
    width, height = struct.unpack(">II", data[16:24])
    return (width, height) if width > 0 and height > 0 else None


def read_png(path: Path) -> bytes:
    """The bytes of a PNG file; OutputError if it cannot be read or is not a PNG."""
    try:
        data = path.read_bytes()
    except OSError as e:
        raise OutputError(f"{path}: cannot read the figure: {e.strerror or e}") from None
    if png_size(data) is None:
        raise OutputError(f"{path}: not a PNG image")
    return data


def data_uri(data: bytes) -> str:
    return "data:image/png;base64," + base64.b64encode(data).decode("ascii")


def img_tag(data: bytes, alt: str) -> str:
    size = png_size(data)
    dims = f' width="{size[0]}" height="{size[1]}"' if size else ""
    return f'<img alt="{esc(alt)}"{dims} src="{data_uri(data)}">'


def figure_html(data: bytes, alt: str, caption: str = "") -> str:
    """A ``<figure>`` with the image inline and an optional caption."""
    cap = f"<figcaption>{esc(caption)}</figcaption>" if caption else ""
    return f"<figure>{img_tag(data, alt)}{cap}</figure>"


def figure_png(fig: Figure) -> bytes:
    """``fig`` as PNG bytes, without the Software text chunk: the same data, the same bytes."""
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=DPI, metadata={"Software": None})
    return buf.getvalue()
