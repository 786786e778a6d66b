"""Type stubs for the Rust extension `steer._native` (checked by mypy.stubtest)."""

import numpy as np
import numpy.typing as npt

__all__ = [
    "InputError",
    "InternalError",
    "SolverError",
    "SteerError",
    "__version__",
    "_panic_for_tests",
    "accuracy_by_group",
    "argmax_expected_value",
    "best_response",
    "best_response_batch",
    "expected_value",
    "expected_values",
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

def accuracy_by_group(
    group: npt.NDArray[np.uint32],
    n_groups: int,
    chosen: npt.NDArray[np.int64],
    correct: npt.NDArray[np.int64],
    n_options: npt.NDArray[np.int64],
) -> dict[str, npt.NDArray[np.uint64] | npt.NDArray[np.float64]]:
    """Per-group sums: n_rows, n_no_answer, n_correct, sum_norm, sum_norm_strict."""

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
