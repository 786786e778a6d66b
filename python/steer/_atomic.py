"""Write files so that readers never see half of one.

Everything steer writes goes to a temporary file in the target's directory and
is renamed over the target only when complete; an error or a kill leaves the
old file (or nothing) in place.

Only regular files are replaced. `-` means standard output, and a target that
exists but is not a regular file (a FIFO, `/dev/null`, a terminal) is written
through when the content is complete, never renamed over: replacing
`/dev/null` with a regular file would break the whole machine.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import stat
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import IO


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


STDOUT = "-"


def _is_special(target: Path) -> bool:
    """True for `-` and for existing targets that are not regular files."""
    if str(target) == STDOUT:
        return True
    try:
        return not stat.S_ISREG(target.stat().st_mode)
    except (FileNotFoundError, NotADirectoryError):
        return False


@contextlib.contextmanager
def _write_through(target: Path) -> Iterator[Path]:
    # Built in a private temporary file (writers such as Parquet need a path
    # they can seek in), then copied to the stream in one go on success.
    fd, tmp = tempfile.mkstemp(prefix="steer-out.", suffix=".tmp")
    os.close(fd)
    tmp_path = Path(tmp)
    try:
        yield tmp_path
        with tmp_path.open("rb") as src:
            if str(target) == STDOUT:
                sys.stdout.flush()
                shutil.copyfileobj(src, sys.stdout.buffer)
                sys.stdout.buffer.flush()
            else:
                with target.open("wb") as dst:  # no O_CREAT race: it exists, not a file
                    shutil.copyfileobj(src, dst)
    finally:
        tmp_path.unlink(missing_ok=True)


@contextlib.contextmanager
def atomic_path(target: str | os.PathLike[str]) -> Iterator[Path]:
    """Yield a temporary path beside `target`; rename it over `target` on
    success. For `-` (standard output) or a target that is not a regular file
    the content is written through to it instead."""
    target = Path(target)
    if _is_special(target):
        with _write_through(target) as tmp:
            yield tmp
        return
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    os.close(fd)
    tmp_path = Path(tmp_name)
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
