"""Voting profiles, housing markets and sealed-bid auctions.

Keys come from steer-core: `plurality`, `borda`, `copeland`,
`condorcet_winner`, `top_trading_cycles`, `sealed_bid_auction`.
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from steer import _native
from steer._draws import integers, sample, sample_of
from steer.generate._format import amount, join_and
from steer.generate._options import hub_fits
from steer.generate._registry import (
    Instance,
    Resample,
    Solution,
    SolverKind,
    StructureKind,
    distractor,
    lazy_texts,
    register_solver,
    register_structure,
)
from steer.generate._structures import _grid
from steer.templates._model import GradeSpec, TemplateSpec

NO_CONDORCET = "There is no Condorcet winner"

# --- voting profiles ------------------------------------------------------------------------


def _names(t: TemplateSpec, key: str, n: int, fallback: str) -> list[str]:
    return t.words.get(key, [])[:n] or [f"{fallback} {chr(65 + i)}" for i in range(n)]


def _option(name: str) -> str:
    """A candidate's name as an option: capitalised like every other option
    ("The castle" beside "A tie between ..."); the stem keeps "the castle"."""
    return name[:1].upper() + name[1:]


@functools.cache
def _rankings(m: int) -> tuple[tuple[int, ...], ...]:
    """Every ranking of m candidates, in itertools.permutations order."""
    return tuple(itertools.permutations(range(m)))


def _sample_profile(
    rng: np.random.Generator, spec: GradeSpec, t: TemplateSpec, text: bool = True
) -> Instance:
    """`size` candidates; `size` + 1 distinct ballot types (capped at all
    rankings), each cast by a number of voters in [low, high]. Without `text`
    the fields are left empty (`_profile_text` fills them): samplers that
    draw many profiles and keep one write out only the one they keep."""
    m = spec.size
    all_rankings = _rankings(m)
    k = min(len(all_rankings), m + 1)
    rankings = [list(r) for r in sample_of(rng, all_rankings, k)]
    n = int((spec.high - spec.low) / spec.step + 1e-9) + 1
    # One call for the k draws: the same numbers, and the same stream after,
    # as k calls of rng.integers(n).
    counts = [int(spec.low + spec.step * c) for c in integers(rng, 0, n, k).tolist()]
    names = _names(t, "candidates", m, "Candidate")
    instance = Instance(
        data={"rankings": rankings, "counts": counts, "names": names},
        fields={},
        choices=[_option(n) for n in names],
    )
    return _profile_text(instance, t) if text else instance


def _profile_text(instance: Instance, t: TemplateSpec) -> Instance:
    """`instance` (a profile) with its text fields filled in."""
    rankings, counts, names = (instance.data[k] for k in ("rankings", "counts", "names"))
    voters = t.words.get("voter_noun", ["voters"])[0]
    lines = [
        f"- {c} {voters}: " + " > ".join(names[i] for i in r)
        for r, c in zip(rankings, counts, strict=True)
    ]
    instance.fields.update(
        profile="\n".join(lines), n_candidates=str(len(names)), n_voters=str(sum(counts))
    )
    return instance


def _check_profile(spec: GradeSpec, t: TemplateSpec) -> str | None:
    if not 3 <= spec.size <= 6:
        return "size (candidates) must be 3-6"
    if spec.low < 1:
        return "voter counts (low) must be at least 1"
    names = t.words.get("candidates")
    if names is not None and len(set(names)) < spec.size:
        return f"words.candidates needs {spec.size} distinct names"
    return None


register_structure(
    StructureKind(
        "preference_profile",
        ("profile", "n_candidates", "n_voters"),
        _sample_profile,
        _check_profile,
        "a voting profile: ranked ballots and how many voters cast each",
    )
)


# The arrays of the last profile read: a sampler, its solver and every
# distractor read the same profile, a dozen times per question. Keyed by the
# identity of the payload's lists (held here, so the ids cannot be reused);
# read-only, so no caller can change them for the next.
_last_arrays: list[Any] = [None, None, None, None]


def _arrays(instance: Instance) -> tuple[np.ndarray, np.ndarray]:
    data_rankings, data_counts = instance.data["rankings"], instance.data["counts"]
    if _last_arrays[0] is data_rankings and _last_arrays[1] is data_counts:
        return _last_arrays[2], _last_arrays[3]
    rankings = np.asarray(data_rankings, dtype=np.int64)
    counts = np.asarray(data_counts, dtype=np.int64)
    rankings.flags.writeable = counts.flags.writeable = False
    _last_arrays[:] = [data_rankings, data_counts, rankings, counts]
    return rankings, counts


def _unique_winner(
    rule: str, scores: np.ndarray, winners: list[int], instance: Instance
) -> Solution:
    if len(winners) != 1:
        raise Resample(f"{rule} tie")
    names = instance.data["names"]
    shown = ", ".join(f"{n} {s:g}" for n, s in zip(names, scores, strict=True))
    return Solution(choice=winners[0], fields={"working": f"{rule} scores: {shown}"})


def _slip_winners(instance: Instance) -> set[int]:
    """Candidates some tagged slip elects (see the distractors below)."""
    rankings, counts = _arrays(instance)
    m = rankings.shape[1]
    # Place tallies from the payload's plain lists: integers, so the same
    # sums as numpy's, and min/max over range(m) pick the first of tied
    # candidates as argmin/argmax do. Sampling loops call this per profile
    # drawn, where numpy's per-call cost on a handful of ballots dominates.
    seconds, lasts, first_types = [0] * m, [0] * m, [0] * m
    for ranking, count in zip(instance.data["rankings"], instance.data["counts"], strict=True):
        seconds[ranking[1]] += count
        lasts[ranking[-1]] += count
        first_types[ranking[0]] += 1
    borda = _native.borda(rankings, counts)[0]
    return {
        _first("plurality", instance),
        _first("borda", instance),
        _first("copeland", instance),
        min(range(m), key=lasts.__getitem__),
        max(range(m), key=seconds.__getitem__),
        max(range(m), key=lasts.__getitem__),
        int(borda.argmin()),
        max(range(m), key=first_types.__getitem__),
    }


def _covered(instance: Instance, key: int) -> bool:
    """Whether every wrong candidate is some tagged slip's answer, so each
    distractor names the error behind it (profiles are drawn until it is: the
    draw changes, not the key)."""
    wrong = set(range(len(instance.data["names"]))) - {key}
    return wrong <= _slip_winners(instance)


def _plurality(instance: Instance) -> Solution:
    scores, winners = _native.plurality(*_arrays(instance))
    return _unique_winner("First-place", scores, winners, instance)


def _borda(instance: Instance) -> Solution:
    scores, winners = _native.borda(*_arrays(instance))
    return _unique_winner("Borda", scores, winners, instance)


def _head_to_head(instance: Instance) -> list[list[int]]:
    """wins[a][b]: how many voters rank candidate a above candidate b."""
    m = len(instance.data["names"])
    wins = [[0] * m for _ in range(m)]
    for ranking, count in zip(instance.data["rankings"], instance.data["counts"], strict=True):
        for i, a in enumerate(ranking):
            for b in ranking[i + 1 :]:
                wins[a][b] += count
    return wins


def _contest(names: list[str], wins: list[list[int]], a: int, b: int) -> str:
    """One head-to-head result from a's side: 'Lopez beats Mbeki 97–74'."""
    if wins[a][b] > wins[b][a]:
        verb = "beats"
    elif wins[a][b] == wins[b][a]:
        verb = "ties with"
    else:
        verb = "loses to"
    return f"{names[a]} {verb} {names[b]} {wins[a][b]}–{wins[b][a]}"


def _condorcet(instance: Instance) -> Solution:
    winner = _native.condorcet_winner(*_arrays(instance))
    names = instance.data["names"]
    instance.choices = [*map(_option, names), NO_CONDORCET]
    wins = _head_to_head(instance)
    m = len(names)
    if winner is None:
        # the tallies show why: each candidate's first contest it does not win
        stops = [
            _contest(
                names, wins, a, next(b for b in range(m) if b != a and wins[a][b] <= wins[b][a])
            )
            for a in range(m)
        ]
        working = f"Head to head, {join_and(stops)}, so no option beats every other"
        return Solution(choice=len(names), fields={"working": working})
    beaten = [f"{names[b]} {wins[winner][b]}–{wins[b][winner]}" for b in range(m) if b != winner]
    working = (
        f"Head to head, {names[winner]} beats {join_and(beaten)}, "
        f"so {names[winner]} beats every other option"
    )
    return Solution(choice=winner, fields={"working": working})


def _tie_text(names: list[str], winners: list[int]) -> str:
    if len(winners) == 1:
        return _option(names[winners[0]])
    return "A tie between " + join_and([names[i] for i in sorted(winners)])


def _copeland(instance: Instance) -> Solution:
    scores, winners = _native.copeland(*_arrays(instance))
    names = instance.data["names"]
    m = len(names)

    def pool() -> Sequence[str]:
        sets = [c for k in (1, 2) for c in itertools.combinations(range(m), k)]
        return lazy_texts(sets, lambda c: _tie_text(names, list(c)))

    key = _tie_text(names, list(winners))
    shown = ", ".join(f"{n} {s:g}" for n, s in zip(names, scores, strict=True))
    return Solution(
        text=key,
        pool=pool,
        fields={"working": f"Copeland scores: {shown}"},
    )


def _contests(instance: Instance) -> str:
    """Every pair's head-to-head result, each from its winner's side."""
    names, wins = instance.data["names"], _head_to_head(instance)
    pairs = itertools.combinations(range(len(names)), 2)
    return "Head to head, " + join_and(
        [_contest(names, wins, *((b, a) if wins[b][a] > wins[a][b] else (a, b))) for a, b in pairs]
    )


def _sample_condorcet(rng: np.random.Generator, spec: GradeSpec, t: TemplateSpec) -> Instance:
    """A profile whose Condorcet winner exists, or not, as drawn: 'no winner'
    is the key 1/(candidates + 1) of the time, like each candidate."""
    want_none = rng.random() < 1 / (spec.size + 1)
    for _ in range(100):
        instance = _sample_profile(rng, spec, t, text=False)
        rankings, counts = _arrays(instance)
        winner = _native.condorcet_winner(rankings, counts)
        if (winner is None) != want_none or not _covered(
            instance, -1 if winner is None else winner
        ):
            continue
        firsts = np.bincount(rankings[:, 0], weights=counts, minlength=spec.size)
        if winner is not None and 2 * firsts.max() > counts.sum():
            continue  # 'no winner' would be no slip's answer (a first-place majority)
        return _profile_text(instance, t)
    raise Resample("no profile with the drawn Condorcet outcome")


def _majority_first(instance: Instance, candidate: int) -> bool:
    """Whether `candidate` is first on more than half the ballots: then every
    rule elects it, and counting first places alone finds the key."""
    rankings, counts = _arrays(instance)
    return bool(2 * counts[rankings[:, 0] == candidate].sum() > counts.sum())


def _tells_plurality_apart(instance: Instance, winner: int) -> bool:
    """Whether the plurality winner lacks a majority of first places and some
    other rule (Borda, Copeland) elects someone else: otherwise the 'obvious
    favourite' is every rule's winner and the question tests no rule."""
    rankings, counts = _arrays(instance)
    firsts = np.bincount(rankings[:, 0], weights=counts, minlength=rankings.shape[1])
    if 2 * firsts[winner] > counts.sum():
        return False
    return winner != _first("borda", instance) or winner != _first("copeland", instance)


def _winner_profile(
    rule: str,
) -> Callable[[np.random.Generator, GradeSpec, TemplateSpec], Instance]:
    """A sampler of profiles with a unique `rule` winner in which every other
    candidate is some tagged slip's answer."""

    def sample(rng: np.random.Generator, spec: GradeSpec, t: TemplateSpec) -> Instance:
        fn = {"plurality": _native.plurality, "borda": _native.borda}[rule]
        for _ in range(100):
            instance = _sample_profile(rng, spec, t, text=False)
            winners = fn(*_arrays(instance))[1]
            if len(winners) != 1 or not _covered(instance, int(winners[0])):
                continue
            if rule == "plurality" and not _tells_plurality_apart(instance, int(winners[0])):
                continue
            if rule == "borda" and _majority_first(instance, int(winners[0])):
                continue
            return _profile_text(instance, t)
        raise Resample(f"no profile with a unique {rule} winner and tagged slips")

    return sample


for _rule in ("plurality", "borda"):
    register_structure(
        StructureKind(
            f"{_rule}_profile",
            ("profile", "n_candidates", "n_voters"),
            _winner_profile(_rule),
            _check_profile,
            f"a voting profile with a unique {_rule} winner; every other candidate "
            "is the winner under some tagged slip",
        )
    )


register_structure(
    StructureKind(
        "condorcet_profile",
        ("profile", "n_candidates", "n_voters"),
        _sample_condorcet,
        _check_profile,
        "a voting profile with or without a Condorcet winner, as drawn",
    )
)


_PROFILES = ("preference_profile", "condorcet_profile", "plurality_profile", "borda_profile")
for _name, _fn, _kind, _doc in (
    ("plurality", _plurality, "choice", "the unique plurality winner (steer-core)"),
    ("borda", _borda, "choice", "the unique Borda winner, m − 1 − place points (steer-core)"),
    ("condorcet", _condorcet, "choice", "the Condorcet winner or none (steer-core)"),
    ("copeland", _copeland, "text", "Copeland winners, ties reported (steer-core)"),
):
    register_solver(
        SolverKind(_name, _PROFILES, _kind, _fn, doc=_doc)  # type: ignore[arg-type]
    )


def _first(rule: str, instance: Instance) -> int:
    fn = {"plurality": _native.plurality, "borda": _native.borda, "copeland": _native.copeland}[
        rule
    ]
    return int(fn(*_arrays(instance))[1][0])


@distractor("plurality_winner", "choice")
def _plurality_winner(instance: Instance, _s: Solution) -> int:
    """Counts only first places."""
    return _first("plurality", instance)


@distractor("borda_winner", "choice")
def _borda_winner(instance: Instance, _s: Solution) -> int:
    """Applies the Borda count instead of the rule asked."""
    return _first("borda", instance)


@distractor("copeland_winner", "choice")
def _copeland_winner(instance: Instance, _s: Solution) -> int:
    """Counts head-to-head wins instead of the rule asked."""
    return _first("copeland", instance)


@distractor("fewest_last_places", "choice")
def _fewest_last_places(instance: Instance, _s: Solution) -> int:
    """Elects whoever is ranked last least often (anti-plurality)."""
    rankings, counts = _arrays(instance)
    last = np.zeros(rankings.shape[1])
    np.add.at(last, rankings[:, -1], counts)
    return int(np.argmin(last))


@distractor("most_ballot_types", "choice")
def _most_ballot_types(instance: Instance, _s: Solution) -> int:
    """Counts ballot lines ranking a candidate first, ignoring how many voters cast each."""
    rankings, _ = _arrays(instance)
    return int(np.argmax(np.bincount(rankings[:, 0], minlength=rankings.shape[1])))


@distractor("most_second_places", "choice")
def _most_second_places(instance: Instance, _s: Solution) -> int:
    """Counts second places instead of first places."""
    rankings, counts = _arrays(instance)
    second = np.zeros(rankings.shape[1])
    np.add.at(second, rankings[:, 1], counts)
    return int(np.argmax(second))


@distractor("most_last_places", "choice")
def _most_last_places(instance: Instance, _s: Solution) -> int:
    """Reads the ballots upside down: the candidate ranked last most often."""
    rankings, counts = _arrays(instance)
    last = np.zeros(rankings.shape[1])
    np.add.at(last, rankings[:, -1], counts)
    return int(np.argmax(last))


@distractor("borda_loser", "choice")
def _borda_loser(instance: Instance, _s: Solution) -> int:
    """Ranks by points but picks the lowest total (points counted from the bottom)."""
    scores, _ = _native.borda(*_arrays(instance))
    return int(np.argmin(scores))


@distractor("required_first_place_majority", "choice")
def _required_first_place_majority(instance: Instance, _s: Solution) -> int | None:
    """Looks for a majority of first places instead of head-to-head majorities:
    'no winner' when nobody has one (Condorcet questions only)."""
    if not instance.choices or instance.choices[-1] != NO_CONDORCET:
        return None
    rankings, counts = _arrays(instance)
    firsts = np.zeros(rankings.shape[1])
    np.add.at(firsts, rankings[:, 0], counts)
    best = int(np.argmax(firsts))
    return best if 2 * firsts[best] > counts.sum() else len(firsts)


@distractor("tie_broken", "text")
def _tie_broken(instance: Instance, s: Solution) -> str | None:
    """Reports a single winner where the Copeland scores tie."""
    _, winners = _native.copeland(*_arrays(instance))
    return _option(instance.data["names"][winners[-1]]) if len(winners) > 1 else None


@distractor("borda_winner_named", "text")
def _borda_winner_named(instance: Instance, _s: Solution) -> str:
    """Applies the Borda count instead of Copeland."""
    return _option(instance.data["names"][_first("borda", instance)])


@distractor("plurality_winner_named", "text")
def _plurality_winner_named(instance: Instance, _s: Solution) -> str:
    """Counts only first places instead of head-to-head contests."""
    return _option(instance.data["names"][_first("plurality", instance)])


# --- Copeland with ties as options -------------------------------------------------------------
# Options are two single winners and two tied pairs, arranged so that each
# single lies in exactly one pair and the pairs split the four candidates:
# {x}, {y}, {x, z}, {y, w}. No option is the union of others, none is told
# apart by its form, and the profile is drawn so that the Copeland top is a
# tie half of the time, so a single and a pair are each the key half the time.


def _copeland_top(rankings: np.ndarray, counts: np.ndarray) -> list[int]:
    return sorted(int(w) for w in _native.copeland(rankings, counts)[1])


def _sample_copeland(rng: np.random.Generator, spec: GradeSpec, t: TemplateSpec) -> Instance:
    tie = rng.random() < 0.5
    for _ in range(60):
        instance = _sample_profile(rng, spec, t, text=False)
        rankings, counts = _arrays(instance)
        top = _copeland_top(rankings, counts)
        if len(top) == (2 if tie else 1) and not _majority_first(instance, top[0]):
            _profile_text(instance, t)
            break
    else:
        raise Resample("no profile with the drawn Copeland outcome")
    scores = _native.copeland(rankings, counts)[0]
    if not tie:  # the winner's pair is the top two, so the other pair is the bottom two
        by_score = [int(c) for c in np.argsort(-scores, kind="stable")]
        top = by_score[:2]
    x, z = top[0], top[1]  # the tied pair, or the winner and the runner-up
    if tie and rng.random() < 0.5:
        x, z = z, x
    others = [c for c in range(4) if c not in (x, z)]
    named = [c for c in _lone_winners(instance) if c in others]
    if not named:  # every option should be some slip's answer
        raise Resample("no tagged slip elects a candidate outside the top two")
    y = named[0]
    w = next(c for c in others if c != y)
    sets = [[x], [y], sorted([x, z]), sorted([y, w])]
    order = [int(i) for i in rng.permutation(4)]
    sets = [sets[i] for i in order]
    names = instance.data["names"]
    instance.data["options"] = sets
    instance.choices = [_tie_text(names, s) for s in sets]
    return instance


def _lone_winners(instance: Instance) -> list[int]:
    """Winners by the slips tagged below, in the order tags are given."""
    rankings, _ = _arrays(instance)
    m = rankings.shape[1]
    # Integer tallies from the payload's lists (see _slip_winners).
    last, second = [0] * m, [0] * m
    for ranking, count in zip(instance.data["rankings"], instance.data["counts"], strict=True):
        last[ranking[-1]] += count
        second[ranking[1]] += count
    return [
        _first("plurality", instance),
        _first("borda", instance),
        min(range(m), key=last.__getitem__),
        max(range(m), key=second.__getitem__),
    ]


def _check_copeland(spec: GradeSpec, t: TemplateSpec) -> str | None:
    if spec.size != 4:
        return "size (candidates) must be 4: the options are two singles and two pairs"
    return _check_profile(spec, t)


register_structure(
    StructureKind(
        "copeland_profile",
        ("profile", "n_candidates", "n_voters"),
        _sample_copeland,
        _check_copeland,
        "a voting profile of four candidates and four Copeland outcomes (two singles, two ties)",
    )
)


def _copeland_menu(instance: Instance) -> Solution:
    rankings, counts = _arrays(instance)
    scores, _ = _native.copeland(rankings, counts)
    top = _copeland_top(rankings, counts)
    options = [sorted(o) for o in instance.data["options"]]
    if top not in options:
        raise Resample("the Copeland outcome is not among the options")
    names = instance.data["names"]
    instance.choices = [_tie_text(names, o) for o in options]
    shown = ", ".join(f"{n} {s:g}" for n, s in zip(names, scores, strict=True))
    working = f"{_contests(instance)}. Copeland scores: {shown}"
    return Solution(choice=options.index(top), fields={"working": working})


register_solver(
    SolverKind(
        "copeland_menu",
        ("copeland_profile",),
        "choice",
        _copeland_menu,
        doc="which of four outcomes (a single winner or a tie) Copeland gives (steer-core)",
    )
)


def _option_equal(instance: Instance, wanted: list[int]) -> int | None:
    options = [sorted(o) for o in instance.data.get("options", [])]
    wanted = sorted(wanted)
    return options.index(wanted) if wanted in options else None


@distractor("copeland_tie_broken", "choice")
def _copeland_tie_broken(instance: Instance, _s: Solution) -> int | None:
    """Reports one of two candidates tied on Copeland score as the sole winner."""
    top = _copeland_top(*_arrays(instance))
    if len(top) != 2:
        return None
    first = _option_equal(instance, [top[0]])
    return first if first is not None else _option_equal(instance, [top[1]])


@distractor("plurality_winner_alone", "choice")
def _plurality_winner_alone(instance: Instance, _s: Solution) -> int | None:
    """Counts only first places instead of head-to-head contests."""
    return _option_equal(instance, [_first("plurality", instance)])


@distractor("borda_winner_alone", "choice")
def _borda_winner_alone(instance: Instance, _s: Solution) -> int | None:
    """Applies the Borda count instead of head-to-head contests."""
    return _option_equal(instance, [_first("borda", instance)])


@distractor("fewest_last_places_alone", "choice")
def _fewest_last_places_alone(instance: Instance, _s: Solution) -> int | None:
    """Elects whoever is ranked last least often instead of counting contests."""
    return _option_equal(instance, [_lone_winners(instance)[2]])


@distractor("most_second_places_alone", "choice")
def _most_second_places_alone(instance: Instance, _s: Solution) -> int | None:
    """Counts second places instead of head-to-head contests."""
    return _option_equal(instance, [_lone_winners(instance)[3]])


@distractor("top_two_tied", "choice")
def _top_two_tied(instance: Instance, _s: Solution) -> int | None:
    """Reports the Copeland winner and runner-up as tied (misses a half point)."""
    scores = _native.copeland(*_arrays(instance))[0]
    best = [int(c) for c in np.argsort(-scores, kind="stable")[:2]]
    return _option_equal(instance, best)


def _pairwise_top(instance: Instance, tie_points: float) -> list[int]:
    """Copeland winners when a head-to-head tie earns `tie_points` instead of 1/2."""
    ballots, counts = instance.data["rankings"], instance.data["counts"]
    m = len(ballots[0])
    # Plain lists: the voter counts are integers, and each score gets the
    # same additions in the same order as an array would.
    places = [{c: i for i, c in enumerate(ranking)} for ranking in ballots]
    voters = sum(counts)
    score = [0.0] * m
    for a, b in itertools.combinations(range(m), 2):  # six pairs at most: not a row loop
        a_over_b = sum(n for place, n in zip(places, counts, strict=True) if place[a] < place[b])
        b_over_a = voters - a_over_b
        if a_over_b == b_over_a:
            score[a] += tie_points
            score[b] += tie_points
        else:
            score[a if a_over_b > b_over_a else b] += 1
    top = max(score)
    return [c for c in range(m) if score[c] == top]


@distractor("ties_scored_zero", "choice")
def _ties_scored_zero(instance: Instance, _s: Solution) -> int | None:
    """Scores only head-to-head wins, a tie earning nothing."""
    return _option_equal(instance, _pairwise_top(instance, 0.0))


@distractor("ties_scored_one", "choice")
def _ties_scored_one(instance: Instance, _s: Solution) -> int | None:
    """Scores a head-to-head tie as a full win for both."""
    return _option_equal(instance, _pairwise_top(instance, 1.0))


@distractor("bottom_two", "choice")
def _bottom_two(instance: Instance, _s: Solution) -> int | None:
    """Counts head-to-head losses as wins: the two lowest Copeland scores."""
    scores = _native.copeland(*_arrays(instance))[0]
    worst = [int(c) for c in np.argsort(scores, kind="stable")[:2]]
    return _option_equal(instance, worst)


# --- housing market (top trading cycles) -------------------------------------------------------


def _sample_market(rng: np.random.Generator, spec: GradeSpec, t: TemplateSpec) -> Instance:
    """A market where somebody trades and every wrong option can come from a
    tagged slip (markets are drawn until so: the draw changes, not the key)."""
    n = spec.options or 4
    # The key's rank by assignments shared with the other options, drawn
    # first: markets are drawn until a menu of slips puts it there.
    target = int(rng.integers(n))
    for _ in range(200):
        instance = _draw_market(rng, spec, t)
        prefs = np.asarray(instance.data["preferences"], dtype=np.int64)
        houses, _ = _native.top_trading_cycles(prefs, np.arange(spec.size, dtype=np.int64))
        if all(h == i for i, h in enumerate(houses)):
            continue
        # Assignments as (agent, good) parts; texts are made once one is kept.
        key = tuple(int(h) for h in houses)
        named = {tuple(f(instance)) for f in _TTC_SLIPS}
        named.discard(key)
        parts = [set(enumerate(a)) for a in (key, *sorted(named))]
        if len(named) >= n - 1 and hub_fits(parts, n, target, first=True):
            instance.data["hub_target"] = target
            instance.fields.update(_market_fields(instance))
            return instance
    raise Resample("no market whose wrong options all come from tagged slips")


def _draw_market(rng: np.random.Generator, spec: GradeSpec, t: TemplateSpec) -> Instance:
    n = spec.size
    prefs = [list(map(int, rng.permutation(n))) for _ in range(n)]
    agents = t.words.get("agents", [])[:n] or [chr(65 + i) for i in range(n)]
    goods = t.words.get("good_noun", ["house"])[0]
    return Instance(
        # parts_sep: options are chosen so the key is no hub of shared assignments
        data={"preferences": prefs, "agents": agents, "good": goods, "parts_sep": "; "},
        fields={},
    )


def _market_fields(instance: Instance) -> dict[str, str]:
    prefs, agents, goods = (instance.data[k] for k in ("preferences", "agents", "good"))
    lines = [
        f"- {agents[i]} owns {goods} {i + 1} and ranks "
        + " > ".join(f"{goods} {h + 1}" for h in prefs[i])
        for i in range(len(prefs))
    ]
    return {"market": "\n".join(lines), "n_agents": str(len(prefs))}


register_structure(
    StructureKind(
        "housing_market",
        ("market", "n_agents"),
        _sample_market,
        lambda spec, t: None if 3 <= spec.size <= 5 else "size (agents) must be 3-5",
        "agents each owning one good and ranking all goods",
    )
)


def _assignment_text(instance: Instance, houses: list[int]) -> str:
    """'Ana: house 2; Ben: house 1; ...': every assignment reads alike once its
    numbers are hidden (words such as 'keeps' would tell a blind reader how
    many trade, and the key's count differs from the distractors')."""
    agents, good = instance.data["agents"], instance.data["good"]
    return "; ".join(f"{agents[i]}: {good} {h + 1}" for i, h in enumerate(houses))


def _ttc(instance: Instance) -> Solution:
    prefs = np.asarray(instance.data["preferences"], dtype=np.int64)
    n = len(prefs)
    houses, rounds = _native.top_trading_cycles(prefs, np.arange(n, dtype=np.int64))
    if all(h == i for i, h in enumerate(houses)):
        raise Resample("nobody trades")

    def pool() -> Sequence[str]:
        assignments = list(itertools.permutations(range(n)))
        return lazy_texts(assignments, lambda p: _assignment_text(instance, list(p)))

    key = _assignment_text(instance, list(houses))
    return Solution(
        text=key,
        pool=pool,
        fields={
            "working": _ttc_working(instance, [int(h) for h in houses], [int(r) for r in rounds])
        },
    )


def _ttc_working(instance: Instance, houses: list[int], rounds: list[int]) -> str:
    """Each round's cycles by name ("In round 1, Lou and Noor swap (Lou gets
    shift 4, Noor shift 2)"): a bare list of round numbers leaves the reader
    to guess whose they are. Agent i owns good i, so a cycle follows houses."""
    agents, good = instance.data["agents"], instance.data["good"]
    sentences = []
    for r in sorted(set(rounds)):
        cycles, seen = [], set()
        for start in (a for a, ra in enumerate(rounds) if ra == r and a not in seen):
            cycle, i = [], start
            while i not in seen:
                seen.add(i)
                cycle.append(i)
                i = houses[i]
            cycles.append(cycle)
        parts = []
        for cycle in cycles:
            if len(cycle) == 1:
                parts.append(f"{agents[cycle[0]]} keeps {good} {cycle[0] + 1}")
                continue
            gets = [f"{agents[cycle[0]]} gets {good} {houses[cycle[0]] + 1}"]
            gets += [f"{agents[i]} {good} {houses[i] + 1}" for i in cycle[1:]]
            names = join_and([agents[i] for i in cycle])
            verb = "swap" if len(cycle) == 2 else "trade in a cycle"
            parts.append(f"{names} {verb} ({', '.join(gets)})")
        # cycles hold commas of their own, so three or more are set off by semicolons
        glue = ", and " if len(parts) == 2 else "; and "
        listed = glue.join(["; ".join(parts[:-1]), parts[-1]]) if len(parts) > 1 else parts[0]
        sentences.append(f"In round {r + 1}, {listed}.")
    rule = (
        f"Each round, everyone still in points at the owner of their favourite remaining {good}; "
        "each cycle of pointers trades along it and leaves."
    )
    return " ".join([rule, *sentences]).rstrip(".")


register_solver(
    SolverKind("top_trading_cycles", ("housing_market",), "text", _ttc, doc="steer-core TTC")
)


def _no_trade(instance: Instance) -> list[int]:
    """Assumes everyone keeps their own good."""
    return list(range(len(instance.data["agents"])))


def _serial(instance: Instance, order: list[int]) -> list[int]:
    prefs = instance.data["preferences"]
    houses = [-1] * len(prefs)
    for i in order:
        houses[i] = next(h for h in prefs[i] if h not in houses)
    return houses


def _serial_dictatorship(instance: Instance) -> list[int]:
    """Lets agents pick in listed order, ignoring ownership."""
    return _serial(instance, list(range(len(instance.data["agents"]))))


def _reverse_serial_dictatorship(instance: Instance) -> list[int]:
    """Lets agents pick from the last listed to the first, ignoring ownership."""
    n = len(instance.data["agents"])
    return _serial(instance, list(range(n - 1, -1, -1)))


def _first_round(prefs: list[list[int]]) -> dict[int, int]:
    """The first round's cycles: agent -> the good it points at (its top)."""
    n = len(prefs)
    points = [prefs[i][0] for i in range(n)]  # agent i points at the owner of its top good
    traded = {}
    for start in range(n):
        seen, i = [], start
        while i not in seen:
            seen.append(i)
            i = points[i]
        if i == start:  # start lies on a cycle
            traded[start] = points[start]
    return traded


def _first_round_only(instance: Instance) -> list[int]:
    """Trades the cycles of the first round only; everyone else keeps their own good."""
    traded = _first_round(instance.data["preferences"])
    n = len(instance.data["preferences"])
    return [traded.get(i, i) for i in range(n)]


def _serial_after_first_round(instance: Instance) -> list[int]:
    """Trades the first round's cycles, then lets the rest pick in listed order
    from what is left, ignoring who owns it."""
    prefs = instance.data["preferences"]
    traded = _first_round(prefs)
    houses = [traded.get(i, -1) for i in range(len(prefs))]
    for i, pref in enumerate(prefs):
        if houses[i] < 0:
            houses[i] = next(h for h in pref if h not in houses)
    return houses


def _cycles_reversed(instance: Instance) -> list[int]:
    """Trades each cycle the wrong way round: every member gets the good of the
    agent pointing at it, not the good it points at (the key's inverse)."""
    prefs = np.asarray(instance.data["preferences"], dtype=np.int64)
    n = len(prefs)
    houses, _ = _native.top_trading_cycles(prefs, np.arange(n, dtype=np.int64))
    inverse = [0] * n
    for i, h in enumerate(houses):
        inverse[int(h)] = i
    return inverse


def _top_choice_owner_swap(instance: Instance) -> list[int]:
    """Swaps each agent's good with the owner of its favourite, in listed order,
    without checking for cycles (each swap undoes part of the last)."""
    prefs = instance.data["preferences"]
    holding = list(range(len(prefs)))  # holding[i]: good agent i holds
    for i, pref in enumerate(prefs):
        j = holding.index(pref[0])
        holding[i], holding[j] = holding[j], holding[i]
    return holding


_TTC_SLIPS = (
    _no_trade,
    _cycles_reversed,
    _first_round_only,
    _serial_after_first_round,
    _top_choice_owner_swap,
    _serial_dictatorship,
    _reverse_serial_dictatorship,
)


def _slip_distractor(name: str, houses: Callable[[Instance], list[int]]) -> None:
    """Registers a slip as a text distractor: the assignment it leads to."""

    def make(instance: Instance, _s: Solution) -> str:
        return _assignment_text(instance, houses(instance))

    make.__doc__ = houses.__doc__
    distractor(name, "text")(make)


_slip_distractor("no_trade", _no_trade)
_slip_distractor("cycles_reversed", _cycles_reversed)
_slip_distractor("first_round_only", _first_round_only)
_slip_distractor("serial_after_first_round", _serial_after_first_round)
_slip_distractor("top_choice_owner_swap", _top_choice_owner_swap)
_slip_distractor("serial_dictatorship", _serial_dictatorship)
_slip_distractor("reverse_serial_dictatorship", _reverse_serial_dictatorship)


# --- sealed-bid auctions -----------------------------------------------------------------------


def _sample_auction(rng: np.random.Generator, spec: GradeSpec, t: TemplateSpec) -> Instance:
    n = spec.size
    grid = _grid(spec)
    bids = [float(grid[i]) for i in sample(rng, len(grid), n)]
    names = t.words.get("bidders", [])[:n] or [f"Bidder {i + 1}" for i in range(n)]
    rules = t.words.get("auction_rule", ["first", "second"])
    rule = rules[int(rng.integers(len(rules)))]
    lines = [
        f"- {name} bids {amount(b, t.unit, t.decimals)}"
        for name, b in zip(names, bids, strict=True)
    ]
    return Instance(
        data={"bids": bids, "rule": rule, "names": names, "unit": t.unit},
        fields={
            "bids": "\n".join(lines),
            "rule": f"{rule}-price",
            "n_bidders": str(n),
        },
    )


def _check_auction(spec: GradeSpec, t: TemplateSpec) -> str | None:
    if not 2 <= spec.size <= 8:
        return "size (bidders) must be 2-8"
    if any(r not in ("first", "second") for r in t.words.get("auction_rule", [])):
        return "words.auction_rule may hold only 'first' and 'second'"
    return None


register_structure(
    StructureKind(
        "sealed_bids",
        ("bids", "rule", "n_bidders"),
        _sample_auction,
        _check_auction,
        "distinct sealed bids and a first- or second-price rule",
    )
)


def _outcome_text(instance: Instance, winner: int, price: float) -> str:
    name = instance.data["names"][winner]
    return f"{name} wins and pays {amount(price, instance.data['unit'], 2)}"


def _auction(instance: Instance) -> Solution:
    bids = np.asarray(instance.data["bids"], dtype=np.float64)
    winner, price = _native.sealed_bid_auction(bids, instance.data["rule"])
    assert winner is not None

    def pool() -> Sequence[str]:
        outcomes = [(i, b) for i in range(len(bids)) for b in bids]
        return lazy_texts(outcomes, lambda o: _outcome_text(instance, o[0], o[1]))

    key = _outcome_text(instance, winner, price)
    return Solution(
        text=key,
        pool=pool,
        fields={"working": f"In a {instance.data['rule']}-price auction, {key}"},
    )


register_solver(
    SolverKind("sealed_bid_auction", ("sealed_bids",), "text", _auction, doc="steer-core auctions")
)


@distractor("wrong_price_rule", "text")
def _wrong_price_rule(instance: Instance, _s: Solution) -> str:
    """Charges the winner under the other pricing rule."""
    bids = np.asarray(instance.data["bids"], dtype=np.float64)
    other = "second" if instance.data["rule"] == "first" else "first"
    winner, price = _native.sealed_bid_auction(bids, other)
    assert winner is not None
    return _outcome_text(instance, winner, price)


@distractor("second_highest_wins", "text")
def _second_highest_wins(instance: Instance, _s: Solution) -> str:
    """Gives the good to the runner-up at its own bid."""
    bids = np.asarray(instance.data["bids"])
    runner = int(np.argsort(bids)[-2])
    return _outcome_text(instance, runner, float(bids[runner]))


@distractor("lowest_bid_price", "text")
def _lowest_bid_price(instance: Instance, _s: Solution) -> str:
    """Right winner, but charged the lowest bid."""
    bids = np.asarray(instance.data["bids"])
    return _outcome_text(instance, int(np.argmax(bids)), float(bids.min()))
