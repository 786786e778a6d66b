"""steer: measure how economically rational an LLM agent is, and grade it.

The pipeline, one subpackage per stage:
taxonomy → templates → generate → backends → run → score → report.

The public names below load on first use (PEP 562), so `import steer`, and
with it every command line start, does not pay for pyarrow, pandas and the
scorer (about 0.3 s) before it knows what it will run.
"""

from __future__ import annotations

import importlib
import sys
import types
from importlib.metadata import PackageNotFoundError, version
from typing import TYPE_CHECKING, Any

from steer.errors import InputError, SteerError

if TYPE_CHECKING:
    from steer.bank import bank_info, import_steer_bench, read_bank, write_bank
    from steer.score import score
    from steer.taxonomy import load_taxonomy

try:
    __version__ = version("steer")
except PackageNotFoundError:  # pragma: no cover - running from a bare checkout
    __version__ = "0.0.0"

# name → the module that defines it.
_LAZY = {
    "bank_info": "steer.bank",
    "import_steer_bench": "steer.bank",
    "read_bank": "steer.bank",
    "write_bank": "steer.bank",
    "load_taxonomy": "steer.taxonomy",
    "score": "steer.score",
}

__all__ = [
    "InputError",
    "SteerError",
    "__version__",
    "bank_info",
    "import_steer_bench",
    "load_taxonomy",
    "read_bank",
    "score",
    "write_bank",
]


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'steer' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_LAZY})


class _Package(types.ModuleType):
    """`steer.score` is both the scoring function and a subpackage. Importing
    a subpackage sets it as an attribute of its parent, which would replace
    the function with the module whenever `steer.score` is first imported
    as a module (`from steer.score import merge_cells`); the function wins,
    as it did when this package imported it eagerly."""

    def __setattr__(self, name: str, value: object) -> None:
        if name == "score" and isinstance(value, types.ModuleType):
            value = value.score
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Package
