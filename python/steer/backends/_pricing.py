"""Prices per million tokens, for cost accounting and --max-cost.

The built-in table is a convenience snapshot of public list prices (USD per
1M tokens, input / output) and goes stale; a user file (TOML or JSON) maps
model names to `{input = ..., output = ...}` and overrides or extends it.
The Batch API is billed at half price.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path

from steer.errors import FileFormatError

BATCH_DISCOUNT = 0.5


@dataclass(frozen=True)
class Price:
    input_per_mtok: float
    output_per_mtok: float

    def cost(self, tokens_in: int, tokens_out: int, *, batch: bool = False) -> float:
        usd = (tokens_in * self.input_per_mtok + tokens_out * self.output_per_mtok) / 1e6
        return usd * BATCH_DISCOUNT if batch else usd


BUILTIN: dict[str, Price] = {
    "gpt-4o": Price(2.50, 10.00),
    "gpt-4o-mini": Price(0.15, 0.60),
    "gpt-4.1": Price(2.00, 8.00),
    "gpt-4.1-mini": Price(0.40, 1.60),
    "gpt-4.1-nano": Price(0.10, 0.40),
    "gpt-4-turbo": Price(10.00, 30.00),
    "gpt-4": Price(30.00, 60.00),
    "gpt-3.5-turbo": Price(0.50, 1.50),
    "o1": Price(15.00, 60.00),
    "o3-mini": Price(1.10, 4.40),
}


def load_pricing(path: Path | None) -> dict[str, Price]:
    """The built-in table updated with the user's file, if any. Every price
    must be a finite number ≥ 0; errors name the file, line and field."""
    table = dict(BUILTIN)
    if path is None:
        return table
    data = path.read_bytes()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise FileFormatError("is not valid UTF-8 text", source=str(path)) from None
    try:
        if path.suffix == ".toml":
            import tomllib

            raw = tomllib.loads(text)
        else:
            # NaN and Infinity are not JSON; Python's parser would accept them.
            raw = json.loads(text, parse_constant=_reject_constant)
    except (ValueError, RecursionError) as exc:
        raise FileFormatError(f"cannot parse the pricing file ({exc})", source=str(path)) from None
    if not isinstance(raw, dict):
        raise FileFormatError("expected a table of models", source=str(path))
    for model, entry in raw.items():
        where = _line_of(text, model)
        if not isinstance(entry, dict) or set(entry) != {"input", "output"}:
            raise FileFormatError(
                "each model needs exactly 'input' and 'output' (USD per 1M tokens)",
                source=str(path),
                where=where,
                field=model,
            )
        prices = []
        for side in ("input", "output"):
            value = entry[side]
            if isinstance(value, bool) or not isinstance(value, int | float):
                raise FileFormatError(
                    f"price must be a number, got {value!r}",
                    source=str(path),
                    where=where,
                    field=f"{model}.{side}",
                )
            if not math.isfinite(value) or value < 0:
                raise FileFormatError(
                    f"price must be a finite number ≥ 0 (USD per 1M tokens), got {value!r}",
                    source=str(path),
                    where=where,
                    field=f"{model}.{side}",
                )
            prices.append(float(value))
        table[model] = Price(prices[0], prices[1])
    return table


def _reject_constant(name: str) -> float:
    raise ValueError(f"{name} is not a number JSON allows")


def _line_of(text: str, key: str) -> str | None:
    """`line N` of the first line naming `key` (pricing files are a few lines)."""
    for number, line in enumerate(text.splitlines(), 1):
        if key in line:
            return f"line {number}"
    return None


def price_for(table: dict[str, Price], model: str) -> Price | None:
    """Exact name first, then the longest known prefix (dated snapshots such
    as gpt-4o-2024-08-06 price like gpt-4o)."""
    if model in table:
        return table[model]
    best = max((name for name in table if model.startswith(name + "-")), key=len, default=None)
    return table[best] if best else None
