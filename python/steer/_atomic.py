"""Write files so that readers never see half of one.

Everything steer writes goes to a temporary file in the target's directory and
is renamed over the target only when complete; an error or a kill leaves the
old file (or nothing) in place.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import IO


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


@contextlib.contextmanager
def atomic_path(target: str | os.PathLike[str]) -> Iterator[Path]:
    """Yield a temporary path beside `target`; rename it over `target` on success."""
    target = Path(target)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    os.close(fd)
    tmp_path = Path(tmp)
    try:
        yield tmp_path
        with tmp_path.open("rb") as fh:
            os.fsync(fh.fileno())
        # mkstemp creates 0600; give the file the mode a plain open() would.
        tmp_path.chmod(0o666 & ~_umask())
        tmp_path.replace(target)
    finally:
        tmp_path.unlink(missing_ok=True)


@contextlib.contextmanager
def atomic_text(target: str | os.PathLike[str]) -> Iterator[IO[str]]:
    """Open a text stream whose content replaces `target` only on success."""
    with atomic_path(target) as tmp, tmp.open("w", encoding="utf-8") as fh:
        yield fh
