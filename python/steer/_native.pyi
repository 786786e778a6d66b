"""Type stubs for the Rust extension `steer._native` (checked by mypy.stubtest)."""

from typing import Any

import numpy as np
import numpy.typing as npt

__all__ = [
    "InputError",
    "InternalError",
    "SolverError",
    "SteerError",
    "__version__",
    "_panic_for_tests",
    "argmax_expected_value",
    "best_response",
    "best_response_batch",
    "bootstrap_ci",
    "ece_equal_mass",
    "encode_groups",
    "expected_value",
    "expected_values",
    "score_cells",
]

__version__: str

class SteerError(Exception): ...
class InputError(SteerError): ...
class SolverError(SteerError): ...
class InternalError(SteerError): ...

def best_response(payoffs: npt.NDArray[np.float64], player: int, against: int) -> list[int]:
    """Best responses of `player` (0 row, 1 column) to the opponent's action
    `against`, in a game given as a (rows, cols, 2) payoff array."""

def best_response_batch(
    payoffs: npt.NDArray[np.float64], player: int, against: npt.NDArray[np.int64]
) -> npt.NDArray[np.bool_]:
    """Mask (n, actions) of best responses for n games of shape (rows, cols, 2)."""

# --- the scoring engine -------------------------------------------------------------
# `columns` holds 1-D arrays: group (uint32), n_groups, n_options / chosen / correct
# (int32; chosen −1 = no answer, correct −1 = no key); optionally probs_offsets (int32,
# rows + 1), probs_values (float64), probs_valid (bool); and for multi-part or
# consistency-graded questions unit (uint32), n_units, part (int32), unit_rule (int32
# per unit, −1 = answer-graded) and rules (list of rule strings).

def encode_groups(
    columns: list[npt.NDArray[np.int32]], cardinalities: list[int]
) -> tuple[npt.NDArray[np.uint32], npt.NDArray[np.int64]]:
    """Dense group codes per row and the first row of each code, from
    dictionary-index columns (−1 = null)."""

def score_cells(columns: dict[str, Any], bins: int = 10) -> dict[str, npt.NDArray[Any]]:
    """Additive per-group cells: counts, sums and (groups, bins) ECE bin arrays."""

def ece_equal_mass(columns: dict[str, Any], bins: int = 10) -> npt.NDArray[np.float64]:
    """Expected calibration error with equal-mass bins, per group."""

def bootstrap_ci(
    columns: dict[str, Any],
    metrics: list[str],
    resamples: int = 1000,
    seed: int = 0,
    level: float = 0.95,
    bins: int = 10,
    keep_replicates: bool = False,
) -> dict[str, npt.NDArray[np.float64]]:
    """Percentile-bootstrap bounds "lo"/"hi" of shape (metrics, groups) and, on
    request, "replicates" of shape (metrics, groups, resamples)."""

def expected_value(values: npt.NDArray[np.float64], probs: npt.NDArray[np.float64]) -> float:
    """Σ p·x of one lottery; probabilities must lie in [0, 1] and sum to 1."""

def expected_values(
    values: npt.NDArray[np.float64],
    probs: npt.NDArray[np.float64],
    offsets: npt.NDArray[np.int64],
) -> npt.NDArray[np.float64]:
    """Expected values of lotteries stored back to back; lottery i spans
    offsets[i]:offsets[i+1]."""

def argmax_expected_value(
    values: npt.NDArray[np.float64],
    probs: npt.NDArray[np.float64],
    offsets: npt.NDArray[np.int64],
) -> list[int]:
    """Indices of the lotteries with the highest expected value (ties included)."""

def _panic_for_tests() -> None:
    """Panic inside Rust; must surface as InternalError (tests only)."""
