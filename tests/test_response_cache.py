"""The response cache file: what a new reader sees after other writers
appended, replaced or cut the file, when this process has read it before
(the incremental re-read a game's rounds rely on); and Completion's JSON
form keeps every field."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

from steer.adapt import Completion
from steer.run._cache import ResponseCache


def completion(text: str) -> Completion:
    return Completion(text, ["A"], [{"A": -0.1}], 3, 1, 0.001, 0.2, False, '{"raw":1}')


def test_to_json_holds_every_field_but_cached() -> None:
    names = {f.name for f in dataclasses.fields(Completion)} - {"cached"}
    data = completion("x").to_json()
    assert set(data) == names
    back = Completion.from_json(json.loads(json.dumps(data)))
    assert back == dataclasses.replace(completion("x"), cached=True)


def test_a_new_reader_sees_what_was_appended_since_the_last_read(tmp_path: Path) -> None:
    path = tmp_path / "cache.jsonl"
    first = ResponseCache(path)
    first.put("a", completion("A"))
    first.close()
    second = ResponseCache(path)  # reads "a"
    assert second.get("a") == dataclasses.replace(completion("A"), cached=True)
    second.put("b", completion("B"))
    second.close()
    # Another process appends a line, and a partial one a kill left behind.
    with path.open("ab") as fh:
        fh.write(json.dumps({"k": "c", "v": completion("C").to_json()}).encode() + b"\n")
        fh.write(b'{"k": "d", "v": {"te')
    third = ResponseCache(path)
    assert {k for k in ("a", "b", "c", "d") if k in third} == {"a", "b", "c"}
    assert not path.read_bytes().endswith(b'{"te')  # the cut line is trimmed
    third.close()


def test_a_replaced_or_shortened_file_is_read_from_the_start(tmp_path: Path) -> None:
    path = tmp_path / "cache.jsonl"
    one = ResponseCache(path)
    one.put("a", completion("A"))
    one.put("b", completion("B"))
    one.close()
    assert "b" in ResponseCache(path)
    # Replaced by another file (a new inode) holding only "z".
    other = tmp_path / "other.jsonl"
    other.write_text(json.dumps({"k": "z", "v": completion("Z").to_json()}) + "\n")
    other.replace(path)
    fresh = ResponseCache(path)
    assert "z" in fresh and "a" not in fresh
    fresh.close()
    # Cut shorter in place (same inode): nothing stale survives.
    with path.open("r+b") as fh:
        fh.truncate(0)
    assert len(ResponseCache(path)) == 0
