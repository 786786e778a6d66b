"""Phrase agents: always or never "cannot be determined" / "nothing follows",
always Yes, always No.

Why: a bank whose escape option is never (or always) the key, or whose Yes/No
items lean one way, rewards a fixed reply. Example: "Nothing follows" was the
key in 10 of 18 syllogisms of 1.4; a trailing "cannot be determined" was never
correct in 2.1.b. An agent only has a preference on questions that offer the
phrase; elsewhere it guesses (chance).
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
import pyarrow.compute as pc

from steer.audit._frame import CANNOT_TELL, OptionFrame
from steer.audit.agents._base import Agent, Scores, only_where


def _flag(frame: OptionFrame, pattern: str) -> npt.NDArray[np.bool_]:
    hit = pc.match_substring_regex(frame.o_masked, pattern).to_numpy(zero_copy_only=False)
    return np.asarray(hit, dtype=bool)


def _offered(frame: OptionFrame, flag: npt.NDArray[np.bool_]) -> npt.NDArray[np.bool_]:
    """Rows where some option, but not every option, has the flag."""
    count = np.bincount(frame.o_row, weights=flag, minlength=frame.n_rows)
    return (count > 0) & (count < frame.q_n)


def cannot_tell_flags(frame: OptionFrame) -> npt.NDArray[np.bool_]:
    return _flag(frame, CANNOT_TELL)


def always_cannot_tell(frame: OptionFrame) -> Scores:
    flag = cannot_tell_flags(frame)
    return only_where(frame, flag.astype(np.float64), _offered(frame, flag))


def never_cannot_tell(frame: OptionFrame) -> Scores:
    flag = cannot_tell_flags(frame)
    return only_where(frame, -flag.astype(np.float64), _offered(frame, flag))


def yes_flags(frame: OptionFrame) -> npt.NDArray[np.bool_]:
    return _flag(frame, r"^yes\b")


def no_flags(frame: OptionFrame) -> npt.NDArray[np.bool_]:
    return _flag(frame, r"^no\b")


def yes_no_rows(frame: OptionFrame) -> npt.NDArray[np.bool_]:
    """Rows offering both a Yes option and a No option."""
    return _offered(frame, yes_flags(frame)) & _offered(frame, no_flags(frame))


def always_yes(frame: OptionFrame) -> Scores:
    return only_where(frame, yes_flags(frame).astype(np.float64), yes_no_rows(frame))


def always_no(frame: OptionFrame) -> Scores:
    return only_where(frame, no_flags(frame).astype(np.float64), yes_no_rows(frame))


AGENTS = (
    Agent(
        "cannot-tell",
        "phrase",
        'always "cannot be determined" / "nothing follows"',
        always_cannot_tell,
    ),
    Agent(
        "never-cannot-tell",
        "phrase",
        'never "cannot be determined" / "nothing follows"',
        never_cannot_tell,
    ),
    Agent("yes", "phrase", "always Yes", always_yes),
    Agent("no", "phrase", "always No", always_no),
)
