"""Questionnaire instruments as data: items, an answer scale, reverse-keyed
items, subscales and a scoring rule, in a TOML file.

The format (one file per instrument; the shipped ones are in `instruments/`):

``name``, ``version`` (1), ``source``, ``license``
    What the instrument is, where its items come from and under which terms
    they may be redistributed (steer ships only items it may).
``published``
    Optional: the instrument's name in a published table of per-item model
    answers (the "scale name" column of Rationality Check's
    ``survey_result.csv``), for `steer survey --compare`.
``instructions``
    The text shown before every item.
``[scale]``
    ``min``, ``max`` (whole numbers) and ``labels``: one label per point,
    lowest first (``max - min + 1`` of them).
``[scoring]``
    ``rule = "mean"`` or ``"sum"`` over a subscale's items, after reverse
    keying (a reverse-keyed answer x counts as ``min + max - x``).
``[[item]]``
    ``id`` (unique, the published item id where there is one), ``text``,
    ``reverse`` (default false), ``subscale`` (default "total").

Nothing in the file is evaluated as code; every problem is one
`FileFormatError` naming the file and the field.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from steer._suggest import did_you_mean
from steer._toml import parse_toml, read_toml_text
from steer.errors import FileFormatError, InputError, UnknownNameError

INSTRUMENTS_DIR = Path(__file__).with_name("instruments")
_NAME = re.compile(r"^[a-z0-9][a-z0-9-]{0,63}$")
MAX_ITEMS = 1000
MAX_POINTS = 101


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Scale(_Strict):
    min: int
    max: int
    labels: tuple[str, ...]

    @model_validator(mode="after")
    def _points(self) -> Scale:
        points = self.max - self.min + 1
        if points < 2 or points > MAX_POINTS:
            raise ValueError(
                f"a scale has 2 to {MAX_POINTS} points (min {self.min}, max {self.max})"
            )
        if len(self.labels) != points:
            raise ValueError(
                f"needs {points} labels (one per point from {self.min} to {self.max}), "
                f"has {len(self.labels)}"
            )
        if any(not label.strip() for label in self.labels):
            raise ValueError("labels are non-empty text")
        return self


class Scoring(_Strict):
    rule: Literal["mean", "sum"] = "mean"


class Item(_Strict):
    id: str = Field(min_length=1, max_length=64)
    text: str = Field(min_length=1)
    reverse: bool = False
    subscale: str = Field(default="total", min_length=1, max_length=64)


class Instrument(_Strict):
    name: str
    version: Literal[1]
    source: str = Field(min_length=1)
    license: str = Field(min_length=1)
    published: str | None = None
    instructions: str = Field(min_length=1)
    scale: Scale
    scoring: Scoring = Scoring()
    item: tuple[Item, ...] = Field(min_length=1, max_length=MAX_ITEMS)

    @model_validator(mode="after")
    def _unique(self) -> Instrument:
        if not _NAME.match(self.name):
            raise ValueError("name: lower-case letters, digits and '-' (at most 64)")
        seen: set[str] = set()
        for i, item in enumerate(self.item):
            if item.id in seen:
                raise ValueError(f"item[{i}].id: {item.id!r} repeats")
            seen.add(item.id)
        return self

    @property
    def subscales(self) -> list[str]:
        return list(dict.fromkeys(i.subscale for i in self.item))


def shipped_instruments() -> dict[str, Path]:
    return {p.stem: p for p in sorted(INSTRUMENTS_DIR.glob("*.toml"))}


def load_instrument(name_or_path: str | Path) -> Instrument:
    """A shipped instrument by name, or the instrument file at a path."""
    text = str(name_or_path)
    if isinstance(name_or_path, Path) or text.endswith(".toml") or "/" in text:
        path = Path(name_or_path)
        if not path.is_file():
            raise InputError(f"{path}: no such instrument file")
    else:
        shipped = shipped_instruments()
        if text not in shipped:
            raise UnknownNameError("instrument", text, did_you_mean(text, shipped))
        path = shipped[text]
    source = str(path)
    data = parse_toml(read_toml_text(path, source), source)
    return _validate(data, source)


def _validate(data: Mapping[str, Any], source: str) -> Instrument:
    # Item ids may be written as numbers (the published tables number them).
    items = data.get("item")
    if isinstance(items, list):
        data = {**data, "item": [
            {**i, "id": str(i["id"])} if isinstance(i, dict) and isinstance(i.get("id"), int)
            else i for i in items
        ]}  # fmt: skip
    try:
        return Instrument.model_validate(dict(data))
    except ValidationError as exc:
        err = exc.errors()[0]
        loc = [str(p) for p in err["loc"]]
        message = err["msg"].removeprefix("Value error, ")
        if err["type"] == "extra_forbidden":
            message = f"unknown key {loc[-1]!r}"
        elif err["type"] == "missing":
            message = "is required"
        field = ".".join(loc) or None
        if not loc and ":" in message:  # a model-level check names its field first
            head, _, rest = message.partition(": ")
            field, message = head, rest
        raise FileFormatError(message, source=source, field=field) from None
