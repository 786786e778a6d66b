"""Content-blind priors: the key text an element favours, the option that
repeats the question, the option that is the union of the others.

Why: templates that draw their key from a short list, copy it from the stem,
or build distractors as nested subsets of it, can be answered without the
element's skill. Example: in 3.1.e the surviving strategies are a subset of
every distractor's set and a payoff-blind set rule scored 0.83
against chance 0.25; in 3.1.f the "both one-sided best replies" option wins.
The key-text prior is learned on one half of the bank and scores the other
half (cross-fitted), never the half it counted.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from steer.audit._frame import OptionFrame
from steer.audit.agents._base import Agent, Scores, only_where, per_row_max
from steer.audit.agents._words import set_items, shared_items, stem_overlap


def key_text_prior(frame: OptionFrame) -> Scores:
    """Share of times an option's text (numbers masked) was the key among its
    appearances in the other half of the same element, (keys) / (seen + 1)."""
    n_opt = len(frame.o_row)
    answer = frame.rows_of(frame.q_answer)
    half = frame.rows_of(frame.q_half)
    el = frame.rows_of(frame.q_element)
    out = np.full(n_opt, np.nan)
    opts = pa.table(
        {
            "el": pa.array(el, pa.int64()),
            "v": frame.o_masked,
            "key": pa.array(frame.o_is_key.astype(np.int64)),
            "i": pa.array(np.arange(n_opt, dtype=np.int64)),
        }
    )
    for h in (0, 1):
        train = opts.filter(pa.array(answer & (half != h)))
        counts = train.group_by(["el", "v"]).aggregate([("key", "sum"), ("key", "count")])
        test = opts.filter(pa.array(answer & (half == h))).select(["el", "v", "i"])
        joined = test.join(counts, keys=["el", "v"], join_type="left outer")
        keys = pc.fill_null(joined["key_sum"], 0).to_numpy().astype(np.float64)
        seen = pc.fill_null(joined["key_count"], 0).to_numpy().astype(np.float64)
        out[joined["i"].to_numpy()] = keys / (seen + 1.0)
    return out


def in_stem(frame: OptionFrame) -> Scores:
    """1 for options every word of which occurs in the stem (numbers masked)."""
    n_words, share = stem_overlap(frame)
    flag = (n_words > 0) & (share >= 1.0)
    count = np.bincount(frame.o_row, weights=flag, minlength=frame.n_rows)
    applies = (count > 0) & (count < frame.q_n)
    return only_where(frame, flag.astype(np.float64), applies)


def most_shared(frame: OptionFrame) -> Scores:
    """The option whose items the other options repeat most, on questions
    whose options are lists of two or more items (assignments, profiles)."""
    n_items, _, _ = set_items(frame)
    set_like = np.zeros(frame.n_rows, dtype=bool)
    np.logical_or.at(set_like, frame.o_row, n_items >= 2)
    return only_where(frame, shared_items(frame), set_like)


def superset(frame: OptionFrame) -> Scores:
    """The option holding the most items, on questions where some option is
    set-like (two or more items) and one option holds every item listed."""
    n_items, union, _ = set_items(frame)
    is_union = (n_items == union) & (n_items >= 2)
    has_union = np.zeros(frame.n_rows, dtype=bool)
    np.logical_or.at(has_union, frame.o_row, is_union)
    return only_where(frame, n_items, has_union)


def subset(frame: OptionFrame) -> Scores:
    """The option holding the fewest items, on questions where some option is
    set-like and one option's items all appear in every other option (the
    distractors are nested supersets of it)."""
    n_items, _union, least = set_items(frame)
    common = (least == frame.rows_of(frame.q_n)) & (n_items >= 1)
    set_like = per_row_max(frame, n_items) >= 2
    has_common = np.zeros(frame.n_rows, dtype=bool)
    np.logical_or.at(has_common, frame.o_row, common & set_like)
    return only_where(frame, -n_items, has_common)


AGENTS = (
    Agent(
        "key-text",
        "prior",
        "the option text most often the key in the other half",
        key_text_prior,
        learned=True,
    ),
    Agent("in-stem", "prior", "the option whose words all appear in the question", in_stem),
    Agent("superset", "prior", "the option that is the union of the others", superset),
    Agent("most-shared", "prior", "the option whose items the others repeat most", most_shared),
    Agent("subset", "prior", "the option contained in every other option", subset),
)
