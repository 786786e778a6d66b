"""The fits report: one offline HTML page, and the figures as files.

The page holds the title, the notes, the four figures of `steer.fit._plots`
as inline SVG (drawn by matplotlib) and the parameters table. Nothing is
fetched at view time: the SVG prolog (with its DTD address), metadata and
namespace declarations are dropped, which HTML's parser does not need.
"""

from __future__ import annotations

import io
import math
import re
from collections.abc import Iterable, Sequence
from html import escape
from pathlib import Path
from typing import Any

import matplotlib as mpl
import pyarrow as pa
from matplotlib.figure import Figure

from steer._atomic import atomic_text
from steer.fit._plots import FIGURES
from steer.view._figure import SVG_HASHSALT, save_figure

FORMATS = ("png", "svg", "pdf")

CSS = """
body { font: 14px/1.45 system-ui, sans-serif; margin: 0 auto; max-width: 1400px;
       padding: 1em 2em; color: #222; }
h1 { font-size: 1.6em; margin-bottom: .2em; }
h2 { border-bottom: 1px solid #ddd; margin-top: 1.6em; }
.notes li { font-family: ui-monospace, monospace; font-size: 12px; }
figure { margin: 1em 0; overflow-x: auto; }
figure svg { max-width: 100%; height: auto; }
table { border-collapse: collapse; margin: .5em 0; font-size: 13px; }
td, th { padding: 2px 8px; text-align: right; white-space: nowrap; }
td.text, th.text { text-align: left; }
tr:nth-child(even) { background: #f6f6f6; }
.unidentified { color: #8a5a00; }
.scroll { overflow-x: auto; }
"""

TITLES = {
    "value-function": "Value function",
    "weighting": "Probability weighting",
    "discounting": "Discounting",
    "estimates": "Parameter estimates",
}

_REF = re.compile(r'(\bid="|href="#|url\(#)')


def _inline_svg(fig: Figure, prefix: str, label: str) -> str:
    """`fig` as an `<svg>` element to inline in HTML: no prolog, metadata or
    namespace addresses, every id prefixed so that several figures on one page
    never resolve each other's references (glyph ids repeat across figures
    with different shapes)."""
    buffer = io.BytesIO()
    with mpl.rc_context({"svg.hashsalt": SVG_HASHSALT}):
        fig.savefig(
            buffer,
            format="svg",
            metadata={"Date": None, "Creator": None, "Format": None, "Type": None},
        )
    text = buffer.getvalue().decode("utf-8")
    text = text[text.index("<svg") :]
    text = re.sub(r'\s+xmlns(?::\w+)?="[^"]*"', "", text)
    # Every id and every reference is the figure's own, so prefix them all.
    text = _REF.sub(lambda m: f"{m.group(1)}{prefix}-", text)
    return text.replace("<svg ", f'<svg role="img" aria-label="{escape(label)}" class="figure" ', 1)


def _num(x: Any, digits: int = 4) -> str:
    if x is None or not isinstance(x, int | float) or not math.isfinite(x):
        return "—"
    return f"{x:.{digits}g}"


def _interval(lo: Any, hi: Any) -> str:
    if _num(lo) == "—" or _num(hi) == "—":
        return "—"
    return f"[{_num(lo)}, {_num(hi)}]"


COLUMNS = (
    ("model", "text"),
    ("condition", "text"),
    ("experiment", "text"),
    ("family", "text"),
    ("parameter", "text"),
    ("estimate", "num"),
    ("95% interval", "num"),
    ("n", "num"),
    ("identified", "text"),
    ("R²", "num"),
)


def _table(rows: Iterable[dict[str, Any]]) -> str:
    head = "".join(f'<th class="{kind}" scope="col">{escape(name)}</th>' for name, kind in COLUMNS)
    body = []
    for r in rows:
        identified = bool(r.get("identified"))
        status = "yes" if identified else f"no: {r.get('reason') or 'not identified'}"
        cells = [
            (r.get("model"), "text"),
            (r.get("condition"), "text"),
            (r.get("experiment"), "text"),
            (r.get("family"), "text"),
            (r.get("parameter"), "text"),
            (_num(r.get("estimate")), "num"),
            (_interval(r.get("ci_lo"), r.get("ci_hi")), "num"),
            ("—" if r.get("n") is None else str(r["n"]), "num"),
            (status, "text" if identified else "text unidentified"),
            (_num(r.get("r2"), 3), "num"),
        ]
        body.append(
            "<tr>"
            + "".join(f'<td class="{kind}">{escape(str(v or "—"))}</td>' for v, kind in cells)
            + "</tr>"
        )
    return (
        '<div class="scroll"><table id="parameters"><thead><tr>'
        + head
        + "</tr></thead><tbody>"
        + "".join(body)
        + "</tbody></table></div>"
    )


def fit_sections_html(fits: pa.Table, *, level: int = 2) -> str:
    """The figures (inline SVG) and the parameters table as HTML sections, to
    place in a page (`steer report --fits` adds them to the run report)."""
    h = f"h{level}"
    parts = []
    for name, make in FIGURES.items():
        fig = make(fits)
        parts.append(
            f'<section id="fit-{name}"><{h}>{escape(TITLES[name])}</{h}><figure>'
            f"{_inline_svg(fig, name, TITLES[name])}</figure></section>"
        )
    rows = fits.to_pylist() if isinstance(fits, pa.Table) else []
    parts.append(f'<section id="fit-table"><{h}>Parameters</{h}>{_table(rows)}</section>')
    return "\n".join(parts)


def fits_table(path: str | Path) -> pa.Table:
    """A fits file (JSON or Parquet, checked by `steer.rubric.read_fits`) as a
    table with the columns of `steer fit`'s output (missing ones null)."""
    from steer.fit._runs import FIT_SCHEMA
    from steer.rubric import read_fits

    fits = read_fits(Path(path))
    rows = [{k: getattr(f, k, None) for k in FIT_SCHEMA.names} for f in fits.records]
    for r in rows:
        r["condition"] = r["condition"] or "baseline"
        r["experiment"] = r["experiment"] or ""
        r["family"] = r["family"] or ""
        r["n"] = r["n"] or 0
    return pa.Table.from_pylist(rows, schema=FIT_SCHEMA)


def fit_report_html(
    fits: pa.Table, path: str | Path, *, title: str, notes: Sequence[str] | None = None
) -> Path:
    """Write one self-contained HTML page of `fits` (FIT_SCHEMA) to `path`:
    the title, the notes (e.g. rubric diagnostics), the four figures inline
    as SVG and the parameters table. Returns the path written."""
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{escape(title)}</title><style>{CSS}</style></head><body>",
        f"<h1>{escape(title)}</h1>",
    ]
    if notes:
        items = "".join(f"<li>{escape(str(note))}</li>" for note in notes)
        parts.append(f'<section id="notes"><h2>Notes</h2><ul class="notes">{items}</ul></section>')
    parts.append(fit_sections_html(fits))
    parts.append("</body></html>\n")
    target = Path(path)
    with atomic_text(target) as fh:
        fh.write("\n".join(parts))
    return target


def write_figures(
    fits: pa.Table, directory: str | Path, formats: Sequence[str] = ("png", "svg")
) -> list[Path]:
    """Save each figure of `fits` as `value-function.*`, `weighting.*`,
    `discounting.*` and `estimates.*` in `directory`, once per format (png,
    svg, pdf). Returns the paths written."""
    unknown = [f for f in formats if f not in FORMATS]
    if unknown:
        raise ValueError(f"figure formats are png, svg and pdf, not {', '.join(unknown)}")
    out_dir = Path(directory)
    written = []
    for name, make in FIGURES.items():
        fig = make(fits)
        written += [save_figure(fig, out_dir / f"{name}.{fmt}") for fmt in dict.fromkeys(formats)]
    return written
