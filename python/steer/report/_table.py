"""Plain-text tables for the terminal (no dependencies, stable for snapshots)."""

from __future__ import annotations

from collections.abc import Sequence

from steer._json import plain_zero


def render_table(
    header: Sequence[str], rows: Sequence[Sequence[str]], align: str | None = None
) -> str:
    """Columns padded to their widest cell; `align` has one 'l' or 'r' per column."""
    align = align or "l" + "r" * (len(header) - 1)
    widths = [max(len(str(c)) for c in col) for col in zip(header, *rows, strict=True)]

    def line(cells: Sequence[str]) -> str:
        padded = [
            str(c).ljust(w) if a == "l" else str(c).rjust(w)
            for c, w, a in zip(cells, widths, align, strict=True)
        ]
        return "  ".join(padded).rstrip()

    rule = "  ".join("-" * w for w in widths)
    return "\n".join([line(header), rule, *(line(r) for r in rows)])


def fmt(x: float | None, digits: int = 3) -> str:
    if x is None or x != x:  # None or NaN
        return "—"
    return plain_zero(f"{x:.{digits}f}")  # never "-0.000"
