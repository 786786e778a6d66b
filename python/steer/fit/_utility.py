"""Utility-function fits of play runs (prospect theory, discounting, Fehr-Schmidt beta)."""

from __future__ import annotations

from typing import Any

import pyarrow as pa


def utility_rows(
    tables: dict[str, pa.Table], *, b: int, seed: int, method: str
) -> list[dict[str, Any]]:
    return []
