"""What every steer figure shares: the palette, the canvas, deterministic saving.

Figures are built without pyplot (no global figure registry, so threads and
long-running processes never leak figures) on an Agg canvas. `save_figure`
writes PNG, SVG or PDF by the path's suffix, byte-identical for the same
figure (fixed SVG hash salt, no dates in SVG or PDF metadata).
"""

from __future__ import annotations

import io
import re
import textwrap
from pathlib import Path
from typing import Any

import matplotlib as mpl
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from steer._atomic import atomic_path

#: Okabe & Ito (2008), distinguishable under the common colour-vision deficiencies.
#: Their yellow (#F0E442) is left out: too faint for thin lines on white.
PALETTE = ("#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#000000")
#: Line styles cycle after the colours so that 28 series stay distinct; dashed
#: ("--") is reserved for reference curves (humans, equilibria).
LINESTYLES: tuple[Any, ...] = ("-", "-.", ":", (0, (6, 1.5, 1, 1.5, 1, 1.5)))
MARKERS = (None, "o", "s", "^", "D", "v", "P", "X")
REFERENCE_COLOUR = "#6f6f6f"
FONT = 8

SAVE_METADATA: dict[str, dict[str, Any]] = {
    "png": {},
    "svg": {"Date": None},
    "pdf": {"CreationDate": None, "ModDate": None},
}
SVG_HASHSALT = "steer-fit"


def new_figure(width: float, height: float) -> Figure:
    fig = Figure(figsize=(width, height), dpi=100, layout="constrained")
    FigureCanvasAgg(fig)  # so fig.canvas.draw() renders with Agg
    return fig


def message_figure(message: str) -> Figure:
    """A figure that only says why there is nothing to plot."""
    fig = new_figure(6.0, 1.6)
    fig.text(0.5, 0.5, textwrap.fill(message, 70), ha="center", va="center", fontsize=10)
    return fig


def save_figure(fig: Figure, path: str | Path) -> Path:
    """Write `fig` as PNG, SVG or PDF (by the suffix of `path`), atomically and
    deterministically: the same figure gives the same bytes."""
    target = Path(path)
    fmt = target.suffix.lower().lstrip(".")
    if fmt not in SAVE_METADATA:
        raise ValueError(f"{target}: a figure is saved as .png, .svg or .pdf, not {fmt!r}")
    with mpl.rc_context({"svg.hashsalt": SVG_HASHSALT}), atomic_path(target) as tmp:
        fig.savefig(tmp, format=fmt, metadata=SAVE_METADATA[fmt])
    return target


def figure_svg(fig: Figure, *, id_prefix: str = "") -> str:
    """`fig` as an SVG element to inline in HTML (no XML prolog or doctype),
    deterministic like `save_figure`'s files. `id_prefix` goes before every id
    the SVG defines and its references to them (not links to the page)."""
    buffer = io.StringIO()
    with mpl.rc_context({"svg.hashsalt": SVG_HASHSALT}):
        fig.savefig(buffer, format="svg", metadata=SAVE_METADATA["svg"])
    text = buffer.getvalue()
    text = re.sub(r"^.*?(?=<svg)", "", text, count=1, flags=re.S)
    if id_prefix:
        # Figures of one page share ids (clip paths, glyphs), and a reference
        # resolves to the page's first: one inside a hidden (display: none)
        # figure is ignored, so a figure that may be hidden gets its own.
        own = set(re.findall(r'\sid="([^"]+)"', text))
        text = re.sub(r'(\sid="|url\(#|xlink:href="#)([^")]+)',
                      lambda m: m[1] + (id_prefix if m[2] in own else "") + m[2],
                      text)  # fmt: skip
    # Links within the page (#anchors) stay in the page, not a new tab.
    return re.sub(r'(<a xlink:href="#[^"]*") target="_blank"', r"\1", text)
