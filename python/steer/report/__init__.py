"""Report cards and their renderings."""

from steer.report._card import DEFAULT_SCALE, CardRow, ReportCard, build_card, letter
from steer.report._table import fmt, render_table

__all__ = ["DEFAULT_SCALE", "CardRow", "ReportCard", "build_card", "fmt", "letter", "render_table"]
