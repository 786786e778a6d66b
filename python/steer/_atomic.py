"""Write files so that readers never see half of one.

Everything steer writes goes to a temporary file in the target's directory and
is renamed over the target only when complete; an error or a kill leaves the
old file (or nothing) in place.

Only regular files are replaced; a symbolic link is followed, so its target
is replaced (atomically, beside the target) and the link is kept. `-` means
standard output, and a target that exists but is not a regular file (a FIFO,
`/dev/null`, a terminal) is written through when the content is complete,
never renamed over: replacing `/dev/null` with a regular file would break the
whole machine.
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


def _through_links(target: Path) -> Path:
    """The file a symbolic link names (following chains of links, even to a
    target that does not exist yet), so that the link stays a link and its
    target is what gets replaced: written beside the target, renamed over
    it. A link loop is left to fail as a write to the link would."""
    if str(target) == STDOUT or not target.is_symlink():
        return target
    try:
        return Path(os.path.realpath(target, strict=False))
    except (OSError, RuntimeError):
        return target


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
    target = _through_links(Path(target))
    if _is_special(target):
        with _write_through(target) as tmp:
            yield tmp
        return
    target.parent.mkdir(parents=True, exist_ok=True)
    try:
        fd, tmp_name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    except OSError as exc:
        raise _naming(exc, target) from None
    os.close(fd)
    tmp_path = Path(tmp_name)
    try:
        yield tmp_path
        with tmp_path.open("rb") as fh:
            os.fsync(fh.fileno())
        # mkstemp creates 0600; give the file the mode a plain open() would.
        tmp_path.chmod(0o666 & ~_umask())
        tmp_path.replace(target)
    except OSError as exc:
        raise _naming(exc, target, tmp_path) from None
    finally:
        tmp_path.unlink(missing_ok=True)


def _naming(exc: OSError, target: Path, tmp: Path | None = None) -> OSError:
    """`exc` about the user's `target`: messages never show the temporary file
    written beside it (`.bank.parquet.x1y2.tmp`). With `tmp` None (mkstemp
    failed) the file it names is the temporary one it tried to create."""
    temp = str(tmp) if tmp is not None else str(exc.filename)
    if tmp is not None and exc.filename != temp and temp not in str(exc):
        return exc  # about another file (an input read inside the block)
    text = (exc.strerror or str(exc)).replace(temp, str(target))
    # OSError(errno, ...) becomes the matching subclass (PermissionError, …).
    return OSError(exc.errno or 0, text, str(target))


@contextlib.contextmanager
def atomic_text(target: str | os.PathLike[str]) -> Iterator[IO[str]]:
    """Open a text stream whose content replaces `target` only on success."""
    with atomic_path(target) as tmp, tmp.open("w", encoding="utf-8") as fh:
        yield fh
