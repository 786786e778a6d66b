"""The response cache: model replies keyed by the sha256 of everything that
determines them (backend, model, revision, endpoint, full messages,
generation parameters — see `steer.backends.cache_key`).

One append-only JSON-lines file. Each reply is written with a single
`write` as soon as it arrives, so a kill -9 keeps every reply already
received (the kernel has it); `sync` fsyncs it with each journal batch. A
cut-off last line is ignored and trimmed. Keys hash the request; the API key
is never part of a request body, so it never reaches this file.
"""

from __future__ import annotations

import json
import os
import threading
from collections import OrderedDict
from pathlib import Path

from steer.adapt import Completion

CACHE_FILE = "cache.jsonl"

# What this process has already read of recent cache files: (device, inode) →
# (bytes read, entries, lines read). A game opens its shared cache once per
# round; without this each round re-parsed every earlier round's replies.
# A file replaced or cut shorter is read again from the start.
_SEEN: OrderedDict[tuple[int, int], tuple[int, dict[str, dict[str, object]], int, bytes]] = (
    OrderedDict()
)
_HEAD = 256  # the file's first bytes, kept to tell a reused inode from the file read
_SEEN_MAX = 4
_SEEN_LOCK = threading.Lock()


class ResponseCache:
    def __init__(self, path: Path) -> None:
        self.path = path
        self._entries: dict[str, dict[str, object]] = {}
        self.problems: list[str] = []
        path.parent.mkdir(parents=True, exist_ok=True)
        if path.exists():
            self._load()
        self._fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        self._dirty = False

    def _load(self) -> None:
        st = self.path.stat()
        ident = (st.st_dev, st.st_ino)
        with _SEEN_LOCK:
            start, known, lines, head = _SEEN.get(ident, (0, {}, 0, b""))
        with self.path.open("rb") as fh:
            if start > st.st_size or fh.read(len(head)) != head:
                start, known, lines = 0, {}, 0  # replaced or cut: read it all
            fh.seek(start)
            raw = fh.read()
            fh.seek(0)
            head = fh.read(_HEAD)
        self._entries = dict(known)
        cut = raw.rfind(b"\n") + 1
        for number, line in enumerate(raw[:cut].splitlines(), lines + 1):
            try:
                entry = json.loads(line)
                self._entries[entry["k"]] = entry["v"]
            except (ValueError, KeyError, TypeError):
                self.problems.append(f"{self.path}:{number}: unreadable cache line skipped")
        if cut < len(raw):
            with self.path.open("r+b") as fh:
                fh.truncate(start + cut)
        with _SEEN_LOCK:
            _SEEN[ident] = (start + cut, self._entries, lines + raw[:cut].count(b"\n"), head)
            _SEEN.move_to_end(ident)
            while len(_SEEN) > _SEEN_MAX:
                _SEEN.popitem(last=False)

    def __len__(self) -> int:
        return len(self._entries)

    def __contains__(self, key: str) -> bool:
        return key in self._entries

    def get(self, key: str) -> Completion | None:
        value = self._entries.get(key)
        return None if value is None else Completion.from_json(dict(value))

    def put(self, key: str, completion: Completion) -> None:
        if key in self._entries:
            return
        value = completion.to_json()
        line = json.dumps({"k": key, "v": value}, separators=(",", ":"), ensure_ascii=False)
        os.write(self._fd, (line + "\n").encode())
        self._entries[key] = value
        self._dirty = True

    def sync(self) -> None:
        # Cleared before the fsync: a put from the event loop while a writer
        # thread syncs marks the cache dirty again for the next sync.
        if self._dirty:
            self._dirty = False
            os.fsync(self._fd)

    def close(self) -> None:
        if self._fd >= 0:
            self.sync()
            os.close(self._fd)
            self._fd = -1
