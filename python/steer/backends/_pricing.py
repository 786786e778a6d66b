"""Prices per million tokens, for cost accounting and --max-cost.

The built-in table is a convenience snapshot of public list prices (USD per
1M tokens, input / output) and goes stale; a user file (TOML or JSON) maps
model names to `{input = ..., output = ...}` and overrides or extends it.
The Batch API is billed at half price.
"""

from __future__ import annotations

import json
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
    """The built-in table updated with the user's file, if any."""
    table = dict(BUILTIN)
    if path is None:
        return table
    text = path.read_text(encoding="utf-8")
    try:
        if path.suffix == ".toml":
            import tomllib

            raw = tomllib.loads(text)
        else:
            raw = json.loads(text)
    except ValueError as exc:
        raise FileFormatError(f"cannot parse the pricing file ({exc})", source=str(path)) from None
    if not isinstance(raw, dict):
        raise FileFormatError("expected a table of models", source=str(path))
    for model, entry in raw.items():
        if not isinstance(entry, dict) or set(entry) != {"input", "output"}:
            raise FileFormatError(
                "each model needs exactly 'input' and 'output' (USD per 1M tokens)",
                source=str(path),
                field=model,
            )
        try:
            table[model] = Price(float(entry["input"]), float(entry["output"]))
        except (TypeError, ValueError):
            raise FileFormatError("prices must be numbers", source=str(path), field=model) from None
    return table


def price_for(table: dict[str, Price], model: str) -> Price | None:
    """Exact name first, then the longest known prefix (dated snapshots such
    as gpt-4o-2024-08-06 price like gpt-4o)."""
    if model in table:
        return table[model]
    best = max((name for name in table if model.startswith(name + "-")), key=len, default=None)
    return table[best] if best else None
