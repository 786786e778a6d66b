"""steer: measure how economically rational an LLM agent is, and grade it.

The pipeline, one subpackage per stage:
taxonomy → templates → generate → backends → run → score → report.
"""

from importlib.metadata import PackageNotFoundError, version

from steer.bank import bank_info, import_steer_bench, read_bank, write_bank
from steer.errors import InputError, SteerError

# `steer.score(tables, by=[...], metrics=[...])` is the scoring entry point;
# the subpackage stays importable as `from steer.score import merge_cells, …`.
from steer.score import score
from steer.taxonomy import load_taxonomy

try:
    __version__ = version("steer")
except PackageNotFoundError:  # pragma: no cover - running from a bare checkout
    __version__ = "0.0.0"

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
