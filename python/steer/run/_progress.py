"""A one-line progress bar on stderr: done/total, rate, ETA, tokens, cost,
and what the run is waiting for, if anything ("429 from server, retrying in
30 s"), so a slow or silent server is never a silent hang."""

from __future__ import annotations

import sys
import time
from typing import TextIO


def _duration(seconds: float) -> str:
    seconds = int(max(0, seconds))
    h, rest = divmod(seconds, 3600)
    m, s = divmod(rest, 60)
    return f"{h}:{m:02d}:{s:02d}" if h else f"{m}:{s:02d}"


def _count(n: int) -> str:
    return f"{n / 1e6:.1f}M" if n >= 1e6 else f"{n / 1e3:.1f}k" if n >= 1e4 else str(n)


class Progress:
    """Redraws at most `hz` times a second (a carriage-return line on a
    terminal, a plain line every few seconds otherwise)."""

    def __init__(self, total: int, done: int = 0, stream: TextIO | None = None, hz: float = 5.0):
        self.total, self.start_done = total, done
        self.stream = stream or sys.stderr
        self.tty = bool(getattr(self.stream, "isatty", lambda: False)())
        self.interval = 1.0 / hz if self.tty else 5.0
        self.t0 = self._last = time.monotonic()
        self.waiting: str | None = None
        self._waiting_until = 0.0

    def note(self, text: str, *, show_s: float = 3.0) -> bool:
        """Show what the run waits for (for `show_s` seconds, or until the
        next note). True when it is news worth redrawing for at once."""
        news = text != self.waiting
        self.waiting, self._waiting_until = text, time.monotonic() + show_s
        if news:
            self._last = 0.0  # the next update draws, whatever the rate limit
        return news

    def line(self, done: int, tokens_in: int, tokens_out: int, cost: float | None) -> str:
        elapsed = max(1e-9, time.monotonic() - self.t0)
        rate = (done - self.start_done) / elapsed
        eta = (self.total - done) / rate if rate > 0 else float("nan")
        width = 24
        filled = int(width * done / self.total) if self.total else width
        bar = "#" * filled + "-" * (width - filled)
        money = "" if cost is None else f" ${cost:.4f}"
        eta_text = _duration(eta) if eta == eta else "?"
        wait = ""
        if self.waiting is not None and time.monotonic() < self._waiting_until:
            wait = f" | {self.waiting}"
        return (
            f"[{bar}] {done}/{self.total} {rate:.1f}/s ETA {eta_text} "
            f"tok {_count(tokens_in)} in {_count(tokens_out)} out{money}{wait}"
        )

    def update(
        self, done: int, tokens_in: int, tokens_out: int, cost: float | None, *, final: bool = False
    ) -> None:
        now = time.monotonic()
        if not final and now - self._last < self.interval:
            return
        self._last = now
        text = self.line(done, tokens_in, tokens_out, cost)
        end = "\n" if final or not self.tty else ""
        # On a terminal: redraw in place and clear what a longer line left.
        self.stream.write(f"\r{text}\x1b[K{end}" if self.tty else text + end)
        self.stream.flush()
