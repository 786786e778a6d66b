"""The cells of an HTML table fragment, row by row (for tests of `--format html`)."""

from __future__ import annotations

from html.parser import HTMLParser


class HtmlCells(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.rows: list[list[str]] = []
        self.tags: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        if tag == "tr":
            self.rows.append([])

    def handle_endtag(self, tag: str) -> None:
        self.tags.pop()

    def handle_data(self, data: str) -> None:
        if self.tags and self.tags[-1] in ("td", "th"):
            self.rows[-1].append(data)
