"""Figures: the shared canvas, palette and deterministic saving (`_figure`)."""

from steer.view._figure import (
    FONT,
    LINESTYLES,
    MARKERS,
    PALETTE,
    REFERENCE_COLOUR,
    message_figure,
    new_figure,
    save_figure,
)

__all__ = [
    "FONT",
    "LINESTYLES",
    "MARKERS",
    "PALETTE",
    "REFERENCE_COLOUR",
    "message_figure",
    "new_figure",
    "save_figure",
]
