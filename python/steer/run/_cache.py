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
from pathlib import Path

from steer.adapt import Completion

CACHE_FILE = "cache.jsonl"


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
        raw = self.path.read_bytes()
        cut = raw.rfind(b"\n") + 1
        for number, line in enumerate(raw[:cut].splitlines(), 1):
            try:
                entry = json.loads(line)
                self._entries[entry["k"]] = entry["v"]
            except (ValueError, KeyError, TypeError):
                self.problems.append(f"{self.path}:{number}: unreadable cache line skipped")
        if cut < len(raw):
            with self.path.open("r+b") as fh:
                fh.truncate(cut)

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
        if self._dirty:
            os.fsync(self._fd)
            self._dirty = False

    def close(self) -> None:
        if self._fd >= 0:
            self.sync()
            os.close(self._fd)
            self._fd = -1
