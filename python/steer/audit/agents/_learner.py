"""The strongest blind learner: a logistic regression that scores each option
as key or not from what can be seen without solving the question.

Features: words and word pairs of the option with every number masked, its
position (first, last, relative), the option count, its length and rank of
length, how many numbers it holds and whether it holds the largest or the
smallest, the escape and Yes/No phrases, its set size against the union, and
how much of it the number-masked stem repeats. One model per element, fitted
on one half of the bank and scoring the other (cross-fitted), so every
question gets an answer from a model that never saw it.

Why: hand-written heuristics only find the leaks someone thought of; a
learner over option form finds learned option-text priors as well. Example:
the issue's learner scored 0.95 normalized accuracy on module 2.5 unaided.
Needs scikit-learn (`pip install 'steer[audit]'`).
"""

from __future__ import annotations

import itertools
import re
import warnings

import numpy as np
import numpy.typing as npt

from steer.audit._frame import OptionFrame
from steer.audit.agents._base import Agent, Scores, per_row_max
from steer.audit.agents._phrases import cannot_tell_flags, no_flags, yes_flags
from steer.audit.agents._words import set_items, stem_overlap

F64 = npt.NDArray[np.float64]


def available() -> bool:
    """Whether scikit-learn can be imported (the learner is skipped if not)."""
    try:
        import sklearn  # noqa: F401
    except ImportError:
        return False
    return True


_WORD = re.compile(r"[a-z0']+")


def option_tokens(text: str) -> list[str]:
    """Words and word pairs of a number-masked option, and the whole option
    as one token (a key text that recurs verbatim is the commonest prior)."""
    words = _WORD.findall(text)
    pairs = [f"{a} {b}" for a, b in itertools.pairwise(words)]
    return [*words, *pairs, f"= {text}"]


def dense_features(frame: OptionFrame) -> F64:
    """One row of numeric features per option (see the module docstring)."""
    n = frame.rows_of(frame.q_n).astype(np.float64)
    pos = frame.o_pos.astype(np.float64)
    length = frame.o_len
    has_num = frame.o_nnum > 0
    big = np.where(has_num, frame.o_max, -np.inf)
    small = np.where(has_num, frame.o_min, np.inf)
    n_words, share = stem_overlap(frame)
    n_items, union, least = set_items(frame)
    row_len_max = per_row_max(frame, length)
    row_len_min = -per_row_max(frame, -length)
    cols = [
        pos == 0,
        pos == n - 1,
        pos / np.maximum(n - 1, 1),
        n,
        length / np.maximum(row_len_max, 1),
        length == row_len_max,
        length == row_len_min,
        np.minimum(frame.o_nnum, 10),
        has_num,
        has_num & (big == per_row_max(frame, big)),
        has_num & (small == -per_row_max(frame, -small)),
        cannot_tell_flags(frame),
        yes_flags(frame),
        no_flags(frame),
        n_items / np.maximum(union, 1),
        (n_items == union) & (n_items >= 2),
        least == n,
        share,
        (n_words > 0) & (share >= 1.0),
    ]
    return np.column_stack([np.asarray(c, dtype=np.float64) for c in cols])


def fit_predict(
    texts: npt.NDArray[np.object_],
    dense: F64,
    y: npt.NDArray[np.bool_],
    train: npt.NDArray[np.int64],
    test: npt.NDArray[np.int64],
    seed: int = 0,
) -> F64 | None:
    """Fit on options `train`, return decision values for options `test`
    (None when the training options hold a single class)."""
    import scipy.sparse as sp
    from sklearn.exceptions import ConvergenceWarning
    from sklearn.feature_extraction.text import CountVectorizer
    from sklearn.linear_model import LogisticRegression
    from sklearn.preprocessing import MaxAbsScaler

    if len(test) == 0 or len(np.unique(y[train])) < 2:
        return None
    words: CountVectorizer | None = CountVectorizer(analyzer=option_tokens, binary=True, min_df=2)
    try:
        x_train_words = words.fit_transform(texts[train])  # type: ignore[union-attr]
    except ValueError:  # no token occurs twice in the training options
        words = None
        x_train_words = sp.csr_matrix((len(train), 0))
    x_test_words = words.transform(texts[test]) if words else sp.csr_matrix((len(test), 0))
    scaler = MaxAbsScaler()
    x_train = sp.hstack([x_train_words, scaler.fit_transform(dense[train])]).tocsr()
    x_test = sp.hstack([x_test_words, scaler.transform(dense[test])]).tocsr()
    # liblinear: fast on sparse binary features, deterministic per seed.
    model = LogisticRegression(C=1.0, solver="liblinear", max_iter=500, random_state=seed % 2**32)
    with warnings.catch_warnings():
        # A model that stops short still answers blind; the audit only needs
        # its held-out accuracy, not the optimum.
        warnings.simplefilter("ignore", ConvergenceWarning)
        model.fit(x_train, y[train])
    return np.asarray(model.decision_function(x_test), dtype=np.float64)


def cross_fitted_scores(frame: OptionFrame, seed: int = 0) -> Scores:
    """Decision values for every option of every answer-graded row, each from
    the model of its element fitted on the other half. NaN where a half has
    nothing to learn from (no rows, or only one class)."""
    dense = dense_features(frame)
    texts = np.asarray(frame.o_masked.to_numpy(zero_copy_only=False), dtype=object)
    answer = frame.rows_of(frame.q_answer)
    half = frame.rows_of(frame.q_half)
    element = frame.rows_of(frame.q_element)
    out = np.full(len(frame.o_row), np.nan)
    order = np.argsort(element, kind="stable")
    bounds = np.searchsorted(element[order], np.arange(len(frame.elements) + 1))
    # One model per element and half: a loop over elements, never over rows.
    for e in range(len(frame.elements)):
        idx = order[bounds[e] : bounds[e + 1]]
        idx = idx[answer[idx]]
        for h in (0, 1):
            train, test = idx[half[idx] != h], idx[half[idx] == h]
            scores = fit_predict(texts, dense, frame.o_is_key, train, test, seed)
            if scores is not None:
                out[test] = scores
    return out


AGENT = Agent(
    "learner",
    "learned",
    "logistic regression on option form and masked text, cross-fitted",
    cross_fitted_scores,
    learned=True,
)
