"""JSON output that every parser accepts and that never shows `-0`.

`json.dumps` writes NaN and ±inf as the non-standard `NaN` / `Infinity`
(or, with `allow_nan=False`, raises). steer's JSON outputs write them as
null, and negative zero (from rounding a tiny negative difference) as 0.
"""

from __future__ import annotations

import json
import math
from typing import Any


def json_safe(value: Any) -> Any:
    """`value` with every non-finite float replaced by None and -0.0 by 0.0,
    through nested dicts, lists and tuples."""
    if isinstance(value, float):
        if not math.isfinite(value):
            return None
        return value + 0.0  # -0.0 + 0.0 is 0.0
    if isinstance(value, dict):
        return {k: json_safe(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [json_safe(v) for v in value]
    return value


def dumps(value: Any, **options: Any) -> str:
    """`json.dumps` of `json_safe(value)`; never writes NaN or Infinity."""
    return json.dumps(json_safe(value), allow_nan=False, **options)


def plain_zero(text: str) -> str:
    """A formatted number without the sign of a rounded-away negative:
    '-0.000' → '0.000', '-0' → '0'; anything else unchanged."""
    if text.startswith("-") and "0" in text and not text.strip("-0."):
        return text[1:]
    return text
