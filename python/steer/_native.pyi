"""Type stubs for the Rust extension `steer._native` (checked by mypy.stubtest)."""

from typing import Any

import numpy as np
import numpy.typing as npt

__all__ = [
    "InputError",
    "InternalError",
    "SolverError",
    "SteerError",
    "__git_revision__",
    "__version__",
    "_panic_for_tests",
    "argmax_expected_value",
    "backward_induction",
    "bayes_nash_best_responses",
    "bayes_posterior",
    "bayes_rule",
    "best_response",
    "best_response_batch",
    "binomial_draws",
    "bootstrap_ci",
    "bootstrap_min",
    "borda",
    "centre_rank",
    "condorcet_winner",
    "copeland",
    "dependency_robustness",
    "digit_slips",
    "dominance_batch",
    "dominant_strategy",
    "dominators",
    "ece_equal_mass",
    "encode_groups",
    "error_counts",
    "expected_value",
    "expected_values",
    "extract_answers",
    "fit_discounting",
    "fit_fehr_schmidt",
    "fit_prospect_theory",
    "grim_trigger",
    "integer",
    "integers",
    "is_enforceable",
    "is_feasible",
    "iterated_dominance",
    "iterated_dominance_batch",
    "key_hash",
    "majority_matrix",
    "nash_equilibria",
    "nash_equilibria_batch",
    "nash_regret",
    "numeric_options",
    "paired_bootstrap",
    "pareto_dominance",
    "pareto_optimal",
    "plain_json",
    "plurality",
    "pure_bayes_nash",
    "pure_minmax",
    "pure_nash",
    "pure_nash_batch",
    "rank_expected_values",
    "revealed_garp",
    "revealed_houtman_maks",
    "revealed_money_pump",
    "sample",
    "scan_json",
    "score_cells",
    "score_keyed",
    "sealed_bid_auction",
    "sequential_assess",
    "social_axioms",
    "top_trading_cycles",
]

__version__: str
__git_revision__: str

class SteerError(Exception): ...
class InputError(SteerError): ...
class SolverError(SteerError): ...
class InternalError(SteerError): ...

def scan_json(data: bytes, max_depth: int) -> tuple[str, int, int] | None:
    """The first problem in JSON / JSON Lines bytes as (kind, line, column), kind
    "depth" (nested deeper than `max_depth`) or "utf8"; None when there is none."""

def extract_answers(
    replies: list[str], forms: str | list[str]
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.bool_]]:
    """The numeric answers of free-text replies in their answer forms ("number",
    "money" or "percent"; one for all or one per reply): values, NaN where a
    reply has no answer, and whether each carried a percent mark."""

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

def error_counts(
    columns: dict[str, Any], error: npt.NDArray[np.int32], n_types: int
) -> npt.NDArray[np.uint64]:
    """Wrong answers per (group, error type) (error code −1: none), a
    (groups, n_types) array: keyed, answered (−2 included) and wrong rows."""

def score_cells(columns: dict[str, Any], bins: int = 10) -> dict[str, npt.NDArray[Any]]:
    """Additive per-group cells: counts, sums and (groups, bins) ECE bin arrays."""

def score_keyed(
    columns: dict[str, Any],
    keys: list[npt.NDArray[np.int32]],
    cardinalities: list[int],
    bins: int = 10,
) -> tuple[dict[str, npt.NDArray[Any]], npt.NDArray[np.int64]]:
    """Cells grouped directly by key columns (single-part rows, small key space),
    and the mixed-radix keys (radix cardinality + 1, null = 0) that occur."""

def dependency_robustness(
    score: npt.NDArray[np.float64],
    element: npt.NDArray[np.uint32],
    context: npt.NDArray[np.uint32],
    offsets: list[int],
    prerequisites: npt.NDArray[np.uint32],
) -> npt.NDArray[np.float64]:
    """Σ over an element's transitive prerequisites scoring below it (same
    context) of the difference; NaN where the element's own score is NaN."""

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
    group_keys: list[str] | None = None,
) -> dict[str, npt.NDArray[np.float64]]:
    """Percentile-bootstrap bounds "lo"/"hi" of shape (metrics, groups) and, on
    request, "replicates" of shape (metrics, groups, resamples). `group_keys`
    (one canonical key string per group) seed each group's stream."""

def bootstrap_min(
    columns: dict[str, Any],
    metric: str,
    parent: npt.NDArray[np.uint32],
    n_parents: int,
    resamples: int = 1000,
    seed: int = 0,
    level: float = 0.95,
    group_keys: list[str] | None = None,
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """Bootstrap bounds (lo, hi) per parent of the minimum of a count metric
    over its groups (`parent[g]`, 2**32 − 1 for none), each group drawn from
    the stream `bootstrap_ci` gives it."""

def paired_bootstrap(
    a: npt.NDArray[np.float64],
    b: npt.NDArray[np.float64],
    resamples: int = 1000,
    seed: int = 0,
    key: str = "",
) -> npt.NDArray[np.float64]:
    """(resamples, 2): means of `a` and of `b` over the same resampled questions
    on each replicate (exact multinomial draws; stream seeded by seed and key)."""

def binomial_draws(n: int, p: float, size: int, seed: int = 0) -> npt.NDArray[np.uint64]:
    """`size` Binomial(n, p) draws from the resampling kernel's sampler."""

def key_hash(key: str) -> int:
    """Stable 64-bit hash of a group key (seeds its resampling stream)."""

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

def rank_expected_values(
    values: list[float], probs: list[float], offsets: list[int]
) -> tuple[list[int], list[float]]:
    """`(argmax_expected_value, expected_values)` of lotteries stored back to back,
    from plain lists, in one call."""

# --- normal-form games: dominance, IRDS, pure and mixed Nash equilibria ---------------------

def dominators(
    payoffs: npt.NDArray[np.float64], player: int, strict: bool = True
) -> list[int | None]:
    """For each strategy of `player` (0 row, 1 column) in a (rows, cols, 2) game, the
    lowest-numbered pure strategy that strictly (or weakly) dominates it, or None."""

def dominant_strategy(
    payoffs: npt.NDArray[np.float64], player: int, strict: bool = True
) -> int | None:
    """The strategy of `player` that strictly (weakly) dominates every other, or None."""

def dominance_batch(
    payoffs: npt.NDArray[np.float64], player: int, strict: bool = True
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """For n games (n, rows, cols, 2): dominators (n, actions) and dominant strategy (n,),
    with -1 for none."""

def iterated_dominance(
    payoffs: npt.NDArray[np.float64],
) -> tuple[list[int], list[int], list[tuple[int, int, int, int]]]:
    """Iterated removal of strictly dominated (by pure) strategies: surviving rows,
    surviving columns, and the eliminations as (round, player, strategy, dominated_by)."""

def iterated_dominance_batch(
    payoffs: npt.NDArray[np.float64],
) -> tuple[npt.NDArray[np.bool_], npt.NDArray[np.bool_], npt.NDArray[np.int64]]:
    """For n games: surviving rows (n, rows), surviving columns (n, cols), rounds (n,)."""

def pure_nash(payoffs: npt.NDArray[np.float64]) -> list[tuple[int, int]]:
    """Pure Nash equilibria (row, col) of a (rows, cols, 2) game, in row-major order."""

def pure_nash_batch(payoffs: npt.NDArray[np.float64]) -> npt.NDArray[np.bool_]:
    """Mask (n, rows, cols) of the pure Nash equilibria of n games (n, rows, cols, 2)."""

def nash_equilibria(
    payoffs: npt.NDArray[np.float64],
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """All extreme Nash equilibria of a (rows, cols, 2) game by support enumeration:
    row strategies (k, rows) and column strategies (k, cols)."""

def nash_equilibria_batch(
    payoffs: npt.NDArray[np.float64],
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """Equilibria of n games: offsets (n + 1,), row strategies (total, rows), column
    strategies (total, cols); game i owns entries offsets[i]:offsets[i + 1]."""

def nash_regret(
    payoffs: npt.NDArray[np.float64],
    row: npt.NDArray[np.float64],
    col: npt.NDArray[np.float64],
) -> tuple[float, float]:
    """Each player's largest gain from deviating from the mixed profile (row, col)."""

# --- extensive-form, repeated and Bayesian games ------------------------------------------

def backward_induction(
    parent: npt.NDArray[np.int64],
    player: npt.NDArray[np.int64],
    payoffs: npt.NDArray[np.float64],
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.int64], npt.NDArray[np.bool_], list[int]]:
    """Backward induction on a perfect-information tree: parent (n,) with -1 at the root
    (node 0), player (n,) with -1 at terminals, payoffs (n, players). Returns values
    (n, players), chosen child (n,) (-1 at terminals), tied (n,), equilibrium path."""

def sequential_assess(
    parent: npt.NDArray[np.int64],
    player: npt.NDArray[np.int64],
    infoset: npt.NDArray[np.int64],
    prob: npt.NDArray[np.float64],
    payoffs: npt.NDArray[np.float64],
    profiles: npt.NDArray[np.int64] | None = None,
) -> dict[str, npt.NDArray[Any]]:
    """Judge pure strategy profiles of a game with imperfect information: parent (n,)
    with -1 at the root; player (n,) with -1 at terminals and -2 at chance nodes;
    infoset (n,) numbering each decision node's information set (-1 elsewhere);
    prob (n,) the chance probability of the move into each node; payoffs (n, players).
    `profiles` (k, sets) names an action per information set (None: every pure
    profile). Returns arrays keyed profiles, sequential, nash, failing (-1: none),
    margin, on_path, free (k, sets), belief (k, n), outcome (k, players)."""

def is_feasible(payoffs: npt.NDArray[np.float64], point: tuple[float, float]) -> bool:
    """Whether `point` lies in the convex hull of the stage payoffs (rows, cols, 2)."""

def is_enforceable(payoffs: npt.NDArray[np.float64], point: tuple[float, float]) -> bool:
    """Whether `point` is feasible and at least each player's pure minmax value."""

def pure_minmax(payoffs: npt.NDArray[np.float64]) -> tuple[float, float, int, int]:
    """(row minmax, column minmax, column action punishing row, row action punishing
    column), punishers limited to pure actions."""

def grim_trigger(
    payoffs: npt.NDArray[np.float64],
    target: tuple[int, int],
    punishment: tuple[int, int],
) -> tuple[float | None, bool]:
    """Critical discount factor at which grim trigger (reverting to `punishment`) sustains
    `target`, None if none below 1; and whether the punishment is a stage Nash equilibrium."""

def bayes_nash_best_responses(
    prior: npt.NDArray[np.float64],
    payoffs: npt.NDArray[np.float64],
    player: int,
    strategy: list[int],
) -> tuple[npt.NDArray[np.float64], list[list[int]]]:
    """Best responses of each type of `player` to the opponent's type-contingent pure
    `strategy`; prior (row_types, col_types), payoffs (row_types, col_types, rows, cols, 2).
    Returns expected payoffs (own types, own actions) and best actions per type."""

def pure_bayes_nash(
    prior: npt.NDArray[np.float64], payoffs: npt.NDArray[np.float64]
) -> list[tuple[list[int], list[int]]]:
    """All pure Bayes–Nash equilibria as (row action per type, column action per type)."""

# --- social choice and mechanisms ---------------------------------------------------------

def plurality(
    rankings: npt.NDArray[np.int64], counts: npt.NDArray[np.int64]
) -> tuple[npt.NDArray[np.uint64], list[int]]:
    """First-place counts (m,) and all winners; rankings (k, m) best first, counts (k,)."""

def borda(
    rankings: npt.NDArray[np.int64], counts: npt.NDArray[np.int64]
) -> tuple[npt.NDArray[np.uint64], list[int]]:
    """Borda scores (m - 1 - place points) and all winners."""

def copeland(
    rankings: npt.NDArray[np.int64], counts: npt.NDArray[np.int64]
) -> tuple[npt.NDArray[np.float64], list[int]]:
    """Copeland scores (1 per pairwise win, 1/2 per tie) and all winners."""

def majority_matrix(
    rankings: npt.NDArray[np.int64], counts: npt.NDArray[np.int64]
) -> npt.NDArray[np.uint64]:
    """(m, m): number of voters ranking the row candidate above the column candidate."""

def condorcet_winner(rankings: npt.NDArray[np.int64], counts: npt.NDArray[np.int64]) -> int | None:
    """The candidate beating every other by a strict majority, or None."""

def pareto_dominance(
    rankings: npt.NDArray[np.int64], counts: npt.NDArray[np.int64]
) -> npt.NDArray[np.bool_]:
    """(m, m): every voter ranks the row candidate above the column candidate."""

def pareto_optimal(utilities: npt.NDArray[np.float64]) -> npt.NDArray[np.bool_]:
    """For utilities (outcomes, agents): whether no other outcome Pareto-dominates each."""

def social_axioms(
    kind: str,
    params: list[int],
    voters: int,
    alternatives: int,
    axioms: list[str] | None = None,
) -> dict[str, dict[str, Any]]:
    """Brute-force check of one social welfare function over all (m!)^n profiles
    (m 2-4, n 1-5, at most 50,000 profiles), for every axiom or only `axioms`.

    kind: scoring (points per place), weighted_majority (weight per voter),
    dictatorship / reversed_dictatorship ([voter]), imposed (ranking, best first),
    unanimity or copeland ([]). Keys pareto, monotonicity, transitivity,
    nondictatorship map to {"satisfied": bool, "counterexample": None | {"profile",
    "voter", "alternatives", "raised", "relation", "raised_relation"}}."""

def top_trading_cycles(
    preferences: npt.NDArray[np.int64], endowment: npt.NDArray[np.int64]
) -> tuple[list[int], list[int]]:
    """Top trading cycles: preferences (n, n) rank houses per agent, endowment (n,) is each
    agent's house. Returns each agent's house and the round its cycle cleared."""

def sealed_bid_auction(
    bids: npt.NDArray[np.float64], rule: str, reserve: float | None = None
) -> tuple[int | None, float]:
    """Winner (None if no bid reaches the reserve) and price of a 'first' or 'second'
    price sealed-bid auction; ties go to the lowest-numbered bidder."""

# --- Bayes' rule --------------------------------------------------------------------------

def bayes_rule(prior: float, likelihood: float, evidence: float) -> float:
    """P(H | E) = P(E | H) P(H) / P(E)."""

def bayes_posterior(
    priors: npt.NDArray[np.float64], likelihoods: npt.NDArray[np.float64]
) -> npt.NDArray[np.float64]:
    """Posterior over exhaustive hypotheses from priors and likelihoods P(E | h)."""

def _panic_for_tests() -> None:
    """Panic inside Rust; must surface as InternalError (tests only)."""

def integer(rng: np.random.Generator, low: int, high: int) -> int:
    """int(rng.integers(low, high)), drawn from rng's bit generator."""

def integers(rng: np.random.Generator, low: int, high: int, size: int) -> npt.NDArray[np.int64]:
    """rng.integers(low, high, size=size), drawn from rng's bit generator."""

def sample(rng: np.random.Generator, population: int, size: int) -> list[int]:
    """rng.choice(population, size, replace=False) as a list, from rng's bit generator."""

def plain_json(value: object) -> str | None:
    """json.dumps(value, separators=(",", ":")) for a tree of plain JSON values
    (which json.loads gives back equal); None for anything else."""

def numeric_options(
    value: float,
    decimals: int,
    relative_gap: float,
    nonnegative: bool,
    probability: bool,
    unit: str,
    n: int,
    named: list[tuple[float, str]],
    seed: int,
    low: float = ...,
    high: float = ...,
) -> tuple[list[str], list[str], int] | str:
    """A numeric question's menu (texts, tags, key index), every option within
    [low, high] (unbounded by default), or why to draw again."""

def digit_slips(
    key: float, decimals: int, gap: float, nearest: bool, seed: int
) -> list[tuple[float, str]]:
    """Slips of the key's written digits, tagged, in a seeded order."""

def centre_rank(values: list[float], decimals: int) -> tuple[int, int]:
    """The first value's (lowest, highest) rank by digits shared with the others."""

# Revealed preference (steer-core `revealed`): prices and quantities (rows, goods),
# subject i at rows offsets[i]:offsets[i + 1].
def revealed_garp(
    prices: npt.NDArray[np.float64],
    quantities: npt.NDArray[np.float64],
    offsets: npt.NDArray[np.int64],
    ccei: bool = True,
) -> tuple[npt.NDArray[np.bool_], npt.NDArray[np.int64], npt.NDArray[np.float64] | None]: ...
def revealed_houtman_maks(
    prices: npt.NDArray[np.float64],
    quantities: npt.NDArray[np.float64],
    offsets: npt.NDArray[np.int64],
    node_budget: int = ...,
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64], npt.NDArray[np.bool_]]: ...
def revealed_money_pump(
    prices: npt.NDArray[np.float64],
    quantities: npt.NDArray[np.float64],
    offsets: npt.NDArray[np.int64],
    step_budget: int = ...,
) -> tuple[
    npt.NDArray[np.float64], npt.NDArray[np.float64], npt.NDArray[np.int64], npt.NDArray[np.bool_]
]: ...

# Utility-parameter fits (steer-core `fit`): flat observation arrays with an
# int64 group id each; a dict of result columns, one entry per (group,
# parameter), NaN = no value (see steer.fit._table).
def fit_prospect_theory(
    group: npt.NDArray[np.int64],
    kind: npt.NDArray[np.int64],
    x1: npt.NDArray[np.float64],
    p1: npt.NDArray[np.float64],
    x2: npt.NDArray[np.float64],
    p2: npt.NDArray[np.float64],
    lo: npt.NDArray[np.float64],
    hi: npt.NDArray[np.float64],
    method: str = "mle",
    bootstrap: int = 1000,
    level: float = 0.95,
    seed: int = 0,
) -> dict[str, Any]: ...
def fit_discounting(
    group: npt.NDArray[np.int64],
    delay: npt.NDArray[np.float64],
    amount: npt.NDArray[np.float64],
    lo: npt.NDArray[np.float64],
    hi: npt.NDArray[np.float64],
    families: list[str],
    bootstrap: int = 1000,
    level: float = 0.95,
    seed: int = 0,
) -> dict[str, Any]: ...
def fit_fehr_schmidt(
    responder_group: npt.NDArray[np.int64],
    pool: npt.NDArray[np.float64],
    offer: npt.NDArray[np.float64],
    accepted: npt.NDArray[np.bool_],
    allocation_group: npt.NDArray[np.int64],
    own_a: npt.NDArray[np.float64],
    other_a: npt.NDArray[np.float64],
    own_b: npt.NDArray[np.float64],
    other_b: npt.NDArray[np.float64],
    chose_a: npt.NDArray[np.bool_],
    proposer_group: npt.NDArray[np.int64],
    proposer_pool: npt.NDArray[np.float64],
    proposer_offer: npt.NDArray[np.float64],
    bootstrap: int = 1000,
    level: float = 0.95,
    seed: int = 0,
) -> dict[str, Any]: ...
