"""Why a generated question was turned down."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field


class Rejected(Exception):  # noqa: N818 - a verdict, not a crash
    """`reason` is a short category (counted in the summary), `detail` the specifics."""

    def __init__(self, reason: str, detail: str = "") -> None:
        super().__init__(f"{reason}: {detail}" if detail else reason)
        self.reason = reason
        self.detail = detail


@dataclass
class Rejections:
    """Replies turned down, counted by reason with one example of each."""

    rejected: Counter[str] = field(default_factory=Counter, kw_only=True)
    details: dict[str, str] = field(default_factory=dict, kw_only=True)

    def reject(self, exc: Rejected) -> None:
        self.rejected[exc.reason] += 1
        self.details.setdefault(exc.reason, exc.detail)

    def rejection_lines(self) -> list[str]:
        """One line per reason, most frequent first."""
        out = []
        for reason, n in sorted(self.rejected.items(), key=lambda kv: (-kv[1], kv[0])):
            detail = self.details.get(reason, "")
            out.append(f"  rejected {n} × {reason}" + (f" (e.g. {detail})" if detail else ""))
        return out
