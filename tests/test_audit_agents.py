"""Each blind agent of the shortcut audit against a plain Python reference:
hand-built banks, then hypothesis banks of random option texts."""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from audit_banks import bank
from steer.audit import build_frame
from steer.audit._frame import CANNOT_TELL
from steer.audit._outcome import row_outcome
from steer.audit.agents import HEURISTICS
from steer.audit.agents._words import ITEM_SPLIT, LABEL, SEGMENT_SPLIT

AGENTS = {a.name: a for a in HEURISTICS}
NAN = math.nan


# --- plain references: one question at a time ------------------------------------


def masked(text: str) -> str:
    return re.sub(r"[0-9]+(?:[.,][0-9]+)*", "0", text.lower()).strip()


def numbers(text: str) -> list[float]:
    text = re.sub(r",([0-9]{3})", r"\1", text)
    out = []
    for token in re.split(r"[^0-9.\-]+", text):
        token = token.strip(".")
        if re.fullmatch(r"-?[0-9]+(?:\.[0-9]+)?", token):
            out.append(float(token))
    return out


def number_tokens(text: str) -> list[str]:
    """The numbers of `text` as written, thousands separators dropped."""
    text = re.sub(r",([0-9]{3})", r"\1", text)
    tokens = (t.strip(".") for t in re.split(r"[^0-9.\-]+", text))
    return [t for t in tokens if re.fullmatch(r"-?[0-9]+(?:\.[0-9]+)?", t)]


def digit_places(token: str) -> dict[int, str]:
    """Each digit of a number keyed by its power of ten: '12.5' -> {1: '1', 0: '2', -1: '5'}."""
    whole, _, frac = token.lstrip("-").partition(".")
    places = {len(whole) - 1 - i: d for i, d in enumerate(whole)}
    places.update({-1 - i: d for i, d in enumerate(frac)})
    return places


def ref_number_menu(name: str, opts: list[str]) -> list[float]:
    """digit-centroid / middle-value: only where every option holds one number."""
    tokens = [number_tokens(o) for o in opts]
    if len(opts) < 3 or any(len(t) != 1 for t in tokens):
        return [NAN] * len(opts)
    if name == "middle-value":
        # Exact decimals: ties between options are real ties, not rounding.
        values = [Fraction(t[0]) for t in tokens]
        return [-float(sum(abs(v - w) for w in values)) for v in values]
    places = [digit_places(t[0]) for t in tokens]
    return [
        sum(
            1
            for j, other in enumerate(places)
            if j != i
            for p, d in mine.items()
            if other.get(p) == d
        )
        for i, mine in enumerate(places)
    ]


def words(text: str) -> set[str]:
    return {w for w in re.split(r"[^a-z0-9']+", masked(text)) if w}


def items(text: str, mask: bool = True) -> set[str]:
    out = set()
    for seg in re.split(SEGMENT_SPLIT, masked(text) if mask else text):
        m = re.match(LABEL, seg)
        assert m
        label = m.group("label") or ""
        for item in re.split(ITEM_SPLIT, m.group("rest")):
            if item.strip():
                out.add(f"{label}|{item.strip()}")
    return out


def offered(flags: list[bool]) -> bool:
    return 0 < sum(flags) < len(flags)


def ref_scores(name: str, q: dict, stem: str) -> list[float]:
    opts: list[str] = q["options"]
    n = len(opts)
    if name == "first":
        return [-i for i in range(n)]
    if name == "last":
        return list(range(n))
    if name == "middle":
        return [-abs(i - (n - 1) / 2) for i in range(n)]
    if name == "longest":
        return [len(o) for o in opts]
    if name == "shortest":
        return [-len(o) for o in opts]
    if name == "most-numbers":
        return [len(numbers(o)) for o in opts]
    if name in ("largest-number", "smallest-number"):
        nums = [numbers(o) for o in opts]
        if not any(nums):
            return [NAN] * n
        if name == "largest-number":
            return [max(x) if x else -math.inf for x in nums]
        return [-min(x) if x else -math.inf for x in nums]
    if name == "digit-outlier":
        return [-x for x in ref_number_menu("digit-centroid", opts)]
    if name in ("digit-centroid", "middle-value"):
        return ref_number_menu(name, opts)
    if name in ("cannot-tell", "never-cannot-tell"):
        flags = [re.search(CANNOT_TELL, masked(o)) is not None for o in opts]
        if not offered(flags):
            return [NAN] * n
        return [float(f) if name == "cannot-tell" else -float(f) for f in flags]
    if name in ("yes", "no"):
        yes = [re.match(r"yes\b", masked(o)) is not None for o in opts]
        no = [re.match(r"no\b", masked(o)) is not None for o in opts]
        if not (offered(yes) and offered(no)):
            return [NAN] * n
        return [float(f) for f in (yes if name == "yes" else no)]
    if name == "in-stem":
        stem_words = words(stem)
        flags = [bool(words(o)) and words(o) <= stem_words for o in opts]
        return [float(f) for f in flags] if offered(flags) else [NAN] * n
    sets = [items(o) for o in opts]
    union = set().union(*sets)
    if name == "superset":
        has = any(s == union and len(s) >= 2 for s in sets)
        return [len(s) for s in sets] if has else [NAN] * n
    if name == "most-shared":
        if max(len(s) for s in sets) < 2:
            return [NAN] * n
        raw = [items(o, mask=False) for o in opts]
        return [sum(len(r & t) for j, t in enumerate(raw) if j != i) for i, r in enumerate(raw)]
    if name == "subset":
        set_like = max(len(s) for s in sets) >= 2
        common = [bool(s) and all(s <= t for t in sets) for s in sets]
        return [-len(s) for s in sets] if set_like and any(common) else [NAN] * n
    raise AssertionError(name)


def expected_correct(scores: list[float], key: int) -> float:
    s = [-math.inf if math.isnan(x) else x for x in scores]
    best = [i for i, x in enumerate(s) if x == max(s)]
    return (key in best) / len(best)


def check_agent(name: str, rows: list[dict]) -> np.ndarray:
    table = bank(rows)
    frame = build_frame(table)
    got = row_outcome(frame, AGENTS[name].score(frame)).p_correct
    want = [
        expected_correct(ref_scores(name, r, r["question_text"]), r["correct_index"]) for r in rows
    ]
    np.testing.assert_allclose(got, want, err_msg=name)
    return got


# --- hand-built banks ---------------------------------------------------------------


def q(options: list[str], key: int, stem: str = "Which one?") -> dict:
    return {"question_text": stem, "options": options, "correct_index": key}


def test_position_agents_on_a_small_bank() -> None:
    rows = [q(["a", "b", "c"], 0), q(["a", "b", "c", "d"], 3), q(["a", "b", "c"], 1)]
    assert list(check_agent("first", rows)) == [1, 0, 0]
    assert list(check_agent("last", rows)) == [0, 1, 0]
    # Four options: the two central ones tie, and the guess splits between them.
    assert list(check_agent("middle", rows)) == [0, 0, 1]


def test_form_agents_on_a_small_bank() -> None:
    rows = [
        q(["$12", "$8", "$15.50"], 2),
        q(["1,200 units", "950 units", "2 or 3 units"], 0),
        q(["apple", "pear", "fig"], 1),
    ]
    assert list(check_agent("longest", rows)) == [1, 0, 0]
    assert list(check_agent("shortest", rows)) == [0, 0, 0]
    assert list(check_agent("largest-number", rows)) == [1, 1, pytest.approx(1 / 3)]
    assert list(check_agent("smallest-number", rows)) == [0, 0, pytest.approx(1 / 3)]
    assert list(check_agent("most-numbers", rows))[1] == 0


def test_number_menu_agents_find_the_key_among_its_slips() -> None:
    rows = [
        # Every slip differs from the key in one place, from each other in two.
        q(["385", "345", "341", "845"], 1),
        # Aligned at the decimal point: 3.5 shares its tenths digit with 12.5 only.
        q(["12.5 kg", "3.5 kg", "4 kg"], 2),
        q(["$1,234.50", "$1,284.50", "$9,234.50"], 0),
        # Two options, an option without a number, or with two: no preference.
        q(["$10", "$12"], 0),
        q(["$10", "none", "$12"], 0),
        q(["$10", "$11 or $12", "$12"], 0),
    ]
    assert list(check_agent("digit-centroid", rows)) == [1, 0, 1, 0.5, *[pytest.approx(1 / 3)] * 2]
    assert list(check_agent("middle-value", rows)) == [0.5, 1, 0, 0.5, *[pytest.approx(1 / 3)] * 2]
    assert list(check_agent("digit-outlier", rows)) == [0, 1, 0, 0.5, *[pytest.approx(1 / 3)] * 2]


def test_phrase_agents_only_prefer_where_the_phrase_is_offered() -> None:
    rows = [
        q(["Some A are B", "No A are B", "Nothing follows: it cannot be determined"], 2),
        q(["Yes: it is", "No: it is not"], 1),
        q(["red", "blue"], 0),
    ]
    assert list(check_agent("cannot-tell", rows)) == [1, 0.5, 0.5]
    assert list(check_agent("never-cannot-tell", rows)) == [0, 0.5, 0.5]
    assert list(check_agent("yes", rows)) == [pytest.approx(1 / 3), 0, 0.5]
    assert list(check_agent("no", rows)) == [pytest.approx(1 / 3), 1, 0.5]


def test_set_agents_read_strategy_sets() -> None:
    irds = [
        "Fabrikam: Keep price; Contoso: Keep price",
        "Fabrikam: Raise price, Keep price; Contoso: Keep price",
        "Fabrikam: Raise price, Keep price; Contoso: Raise price, Keep price",
    ]
    best_replies = ["(Raise, Keep)", "(Keep, Raise)", "(Raise, Keep) and (Keep, Raise)"]
    rows = [q(irds, 0), q(best_replies, 2), q(["one", "two"], 0)]
    assert list(check_agent("superset", rows)) == [0, 1, 0.5]
    assert list(check_agent("subset", rows)) == [1, pytest.approx(1 / 3), 0.5]


def test_most_shared_finds_a_key_built_from_slips() -> None:
    """Slips of a whole assignment keep most of the key's pairs: the key is the
    option the others repeat most (the 4.4.a menus before they were balanced)."""
    key = "Ana: house 2; Ben: house 1; Cleo: house 3"
    slips = [
        "Ana: house 1; Ben: house 2; Cleo: house 3",
        "Ana: house 2; Ben: house 3; Cleo: house 1",
        "Ana: house 3; Ben: house 1; Cleo: house 2",
    ]
    rows = [q([key, *slips], 0), q([*slips, key], 3), q(["one", "two"], 0)]
    assert list(check_agent("most-shared", rows)) == [1, 1, 0.5]


def test_in_stem_ignores_numbers() -> None:
    rows = [
        q(["The basket", "The cupboard", "The box"], 0, "Ann puts the car in the basket 3 times."),
        q(["42 apples", "17 pears"], 1, "I have 5 pears."),
    ]
    assert list(check_agent("in-stem", rows)) == [1, 1]


# --- hypothesis: random banks against the references ---------------------------------

PIECES = st.one_of(
    st.sampled_from(
        ["alpha", "beta", "Yes", "No", "cannot be determined", "Nothing follows", "the box"]
    ),
    st.integers(-50, 9_999_999).map(lambda x: f"{x:,}" if x > 999 else str(x)),
    st.integers(0, 99_999).map(lambda x: f"${x / 100:,.2f}"),
    st.integers(0, 100).map(lambda x: f"{x}%"),
    st.lists(st.sampled_from("abcd"), min_size=1, max_size=3).map(", ".join),
    st.sampled_from(["p: a, b; q: c", "p: a; q: c", "(a, b) and (b, a)", "(a, b)"]),
)
OPTION = st.lists(PIECES, min_size=1, max_size=3).map(" ".join)


@st.composite
def questions(draw: st.DrawFn) -> dict:
    options = draw(st.lists(OPTION, min_size=2, max_size=5))
    stem = draw(st.lists(PIECES, min_size=1, max_size=6).map(" ".join))
    return q(options, draw(st.integers(0, len(options) - 1)), stem)


@settings(max_examples=40, deadline=None)
@given(rows=st.lists(questions(), min_size=1, max_size=12))
def test_every_heuristic_matches_its_reference(rows: list[dict]) -> None:
    for name in AGENTS:
        if name != "key-text":
            check_agent(name, rows)


NUMBER = st.one_of(
    st.integers(-999, 99_999).map(lambda x: f"{x:,}"),
    st.integers(0, 99_999).map(lambda x: f"${x / 100:,.2f}"),
    st.integers(0, 999).map(lambda x: f"{x / 10} kg"),
)


@st.composite
def number_menus(draw: st.DrawFn) -> dict:
    options = draw(st.lists(NUMBER, min_size=2, max_size=5, unique=True))
    return q(options, draw(st.integers(0, len(options) - 1)))


@settings(max_examples=60, deadline=None)
@given(rows=st.lists(number_menus(), min_size=1, max_size=12))
def test_number_menu_agents_match_their_reference(rows: list[dict]) -> None:
    for name in ("digit-centroid", "digit-outlier", "middle-value"):
        check_agent(name, rows)


def ref_key_text(rows: list[dict], half: np.ndarray) -> list[float]:
    """Per question: expected correctness of the key-text prior."""
    out = []
    for i, r in enumerate(rows):
        keys: dict[str, int] = {}
        seen: dict[str, int] = {}
        for j, other in enumerate(rows):
            if half[j] == half[i] or other["element"] != r["element"]:
                continue
            for k, o in enumerate(other["options"]):
                seen[masked(o)] = seen.get(masked(o), 0) + 1
                keys[masked(o)] = keys.get(masked(o), 0) + (k == other["correct_index"])
        scores = [keys.get(masked(o), 0) / (seen.get(masked(o), 0) + 1) for o in r["options"]]
        out.append(expected_correct(scores, r["correct_index"]))
    return out


@settings(max_examples=30, deadline=None)
@given(
    rows=st.lists(
        st.tuples(
            st.sampled_from(["steer.1.1.a", "steer.1.4.a"]),
            st.lists(st.sampled_from(["x", "y", "z 1", "z 2", "w"]), min_size=2, max_size=4),
            st.integers(0, 3),
            st.integers(0, 5),
        ),
        min_size=1,
        max_size=20,
    ),
    seed=st.integers(0, 2**32),
)
def test_key_text_prior_is_cross_fitted_like_the_reference(rows: list, seed: int) -> None:
    qs = [
        {"element": e, "question_text": f"stem {t}", "options": o, "correct_index": k % len(o)}
        for e, o, k, t in rows
    ]
    frame = build_frame(bank(qs), seed)
    got = row_outcome(frame, AGENTS["key-text"].score(frame)).p_correct
    np.testing.assert_allclose(got, ref_key_text(qs, frame.q_half))


def test_agents_cover_the_issue_list() -> None:
    names: set[str] = set(AGENTS)
    assert {
        "first",
        "last",
        "middle",
        "longest",
        "shortest",
        "most-numbers",
        "largest-number",
        "smallest-number",
        "cannot-tell",
        "never-cannot-tell",
        "yes",
        "no",
        "key-text",
        "in-stem",
        "superset",
        "most-shared",
        "digit-centroid",
        "digit-outlier",
        "middle-value",
    } <= names
    fn: Callable[..., object]
    for agent in HEURISTICS:
        fn = agent.score
        assert fn.__doc__ or agent.doc
