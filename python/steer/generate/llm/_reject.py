"""Why a generated question was turned down."""

from __future__ import annotations


class Rejected(Exception):  # noqa: N818 - a verdict, not a crash
    """`reason` is a short category (counted in the summary), `detail` the specifics."""

    def __init__(self, reason: str, detail: str = "") -> None:
        super().__init__(f"{reason}: {detail}" if detail else reason)
        self.reason = reason
        self.detail = detail
