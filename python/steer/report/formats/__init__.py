"""Renderings of a graded report card, one module per output format."""

from __future__ import annotations

from steer.report.formats._github import render_github
from steer.report.formats._json import render_json, result_dict
from steer.report.formats._junit import render_junit
from steer.report.formats._markdown import render_markdown
from steer.report.formats._sarif import render_sarif, sarif_dict
from steer.report.formats._text import render_text

FORMATS = ("text", "json", "markdown", "html", "github", "junit", "sarif")

__all__ = [
    "FORMATS",
    "render_github",
    "render_json",
    "render_junit",
    "render_markdown",
    "render_sarif",
    "render_text",
    "result_dict",
    "sarif_dict",
]
