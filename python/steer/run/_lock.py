"""One writer per run directory.

`steer run` holds an exclusive `flock` on `run.lock` in the run directory for
as long as it runs, and writes its pid there after taking it. The kernel
drops the lock when the process ends however it ends (kill -9 included), so
there is never a stale lock to clean up; a second `steer run` on the same
directory fails at once, naming the holder, instead of paying for every
question a second time.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
from collections.abc import Iterator
from pathlib import Path

from steer.errors import InputError

LOCK_FILE = "run.lock"


@contextlib.contextmanager
def run_lock(directory: Path) -> Iterator[None]:
    """Hold the run directory's lock for the body of the `with`."""
    path = directory / LOCK_FILE
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(fd, 32, 0).decode("ascii", errors="replace").strip()
            who = f"pid {holder}" if holder.isdigit() else "another process"
            raise InputError(
                f"{directory}: in use by another steer run ({who}); wait for it to finish "
                "or use another --out directory"
            ) from None
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        yield
    finally:
        os.close(fd)  # closing the descriptor releases the lock
