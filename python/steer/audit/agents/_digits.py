"""Number-menu agents: the option whose written digits the others share most
(the digit centroid) or least (the digit outlier), and the option whose value
is the median of the menu.

Why: distractors made as slips of the key (one digit written wrong, two
digits swapped, a count off by one) sit around the key, so the key is the
option that agrees digit for digit with most of the others, or the one in
the middle of the values. Example: `["345", "385", "341", "845"]` with key
`345`: every other option differs from it in one place, and from each other
in two, so the key shares 6 digit places with the others and each slip 4.

Both agents judge only questions where every option holds exactly one number
(read like the form agents read numbers: thousands separators dropped, the
sign ignored) and at least three options are offered.

- `digit-centroid`: the digits are aligned at the decimal point; an option
  scores, summed over its digit places, the number of other options with the
  same digit in that place (a place one option lacks matches nothing).
- `digit-outlier`: the option with the lowest such score (a menu built to
  keep the key off the centre must not push it to the edge instead).
- `middle-value`: an option scores minus the sum of its distances to the other
  options' values; the least total distance is the median option (with an
  even count the two middle ones tie), which is also the option nearest the
  median of the others.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
import pyarrow as pa
import pyarrow.compute as pc

from steer.audit._frame import NUMBER_TOKEN, OptionFrame
from steer.audit.agents._base import Agent, Scores

PAD = "x"  # a place an option lacks: never equal to a digit


def _single_number_rows(frame: OptionFrame) -> npt.NDArray[np.bool_]:
    """Per option: does its row hold exactly one number in every option, with
    at least three options?"""
    ones = np.bincount(frame.o_row, weights=frame.o_nnum == 1, minlength=frame.n_rows)
    rows: npt.NDArray[np.bool_] = (ones == frame.q_n) & (frame.q_n >= 3)
    return rows[frame.o_row]


def _tokens(text: pa.Array) -> pa.Array:
    """The single number token of each option (no sign), as written."""
    plain = pc.replace_substring_regex(text, r",([0-9]{3})", r"\1")
    tokens = pc.split_pattern_regex(plain, r"[^0-9.\-]+")
    parent = pc.list_parent_indices(tokens).to_numpy()
    flat = pc.utf8_trim(pc.list_flatten(tokens), ".")
    ok = pc.match_substring_regex(flat, NUMBER_TOKEN).to_numpy(zero_copy_only=False)
    token = pc.filter(flat, ok)
    # One token per option (the caller keeps only such options), in order.
    assert np.array_equal(parent[ok], np.arange(len(text)))
    return pc.utf8_ltrim(token, "-")


def _fixed_width(strings: pa.Array, width: int) -> npt.NDArray[np.uint8]:
    """Strings all `width` bytes long, as an (n, width) byte matrix."""
    arr = pc.cast(strings, pa.string())
    offsets = np.frombuffer(arr.buffers()[1], dtype=np.int32)[
        arr.offset : arr.offset + len(arr) + 1
    ]
    data = np.frombuffer(arr.buffers()[2], dtype=np.uint8) if len(arr) else np.zeros(0, np.uint8)
    return data[offsets[0] : offsets[-1]].reshape(len(arr), width)


def digit_centroid(frame: OptionFrame) -> Scores:
    out = np.full(len(frame.o_row), np.nan)
    take = np.flatnonzero(_single_number_rows(frame))
    if not len(take):
        return out
    token = _tokens(pc.take(frame.o_text, pa.array(take)))
    whole = pc.replace_substring_regex(token, r"\..*$", "")
    frac = pc.replace_substring_regex(token, r"^[0-9]*\.?", "")
    width_w = int(pc.max(pc.utf8_length(whole)).as_py())
    width_f = int(pc.max(pc.utf8_length(frac)).as_py())
    padded = pc.binary_join_element_wise(
        pc.utf8_lpad(whole, width_w, PAD), pc.utf8_rpad(frac, width_f, PAD), ""
    )
    width = width_w + width_f
    chars = _fixed_width(padded, width)
    digit = chars.astype(np.int64) - ord("0")
    valid = (digit >= 0) & (digit <= 9)
    row = frame.o_row[take][:, None]
    place = np.arange(width, dtype=np.int64)[None, :]
    code = ((row * width + place) * 10 + np.where(valid, digit, 0))[valid]
    _, inverse, counts = np.unique(code, return_inverse=True, return_counts=True)
    shared = np.zeros(chars.shape, dtype=np.float64)
    shared[valid] = counts[inverse] - 1
    out[take] = shared.sum(axis=1)
    return out


def digit_outlier(frame: OptionFrame) -> Scores:
    return -digit_centroid(frame)


def middle_value(frame: OptionFrame) -> Scores:
    out = np.full(len(frame.o_row), np.nan)
    take = np.flatnonzero(_single_number_rows(frame))
    if not len(take):
        return out
    value = frame.o_max[take]
    row = frame.o_row[take]
    n_max = int(frame.q_n.max())
    table = np.full((frame.n_rows, n_max), np.nan)
    table[row, frame.o_pos[take]] = value
    total = np.nansum(np.abs(value[:, None] - table[row]), axis=1)
    out[take] = -_snap(total)
    return out


def _snap(x: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    """`x` rounded to 12 significant digits: sums that are equal in decimals
    (0.01 + 16.99 + 0.01 and 17 + 0 + 0.01) tie instead of differing in the
    last bit, so a tie shares the agent's pick the same way on any machine."""
    magnitude = np.floor(np.log10(np.maximum(np.abs(x), 1e-300)))
    scale = 10.0 ** (magnitude - 11)
    return np.round(x / scale) * scale


AGENTS = (
    Agent(
        "digit-centroid",
        "number",
        "the option sharing the most digits, place by place, with the others",
        digit_centroid,
    ),
    Agent(
        "digit-outlier",
        "number",
        "the option sharing the fewest digits, place by place, with the others",
        digit_outlier,
    ),
    Agent(
        "middle-value",
        "number",
        "the option whose number is the median of the menu",
        middle_value,
    ),
)
