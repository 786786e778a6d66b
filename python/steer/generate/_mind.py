"""Theory of mind: first- and second-order false belief (1.5.a, 1.5.b).

`belief_story` writes a short story as a list of events: an object is put in
one of several places while two people, the `watcher` (index 0) and the
`mover` (index 1), are present; then the watcher may leave, come back or, at
grade 4, secretly look in through a window, while the mover shifts the object
from place to place. The answers are computed by replaying the events:

- an agent's belief about the place is updated by every move the agent sees
  (openly present or secretly watching);
- what agent x thinks agent y believes is updated by a move x sees while y is
  openly present (x cannot know about y's secret look); x's view of x's own
  belief is x's belief.

First order (size 3) asks where the watcher will look: the watcher's belief.
The watcher always misses at least one move; the belief is false (where the
object started, or where the watcher last saw it mid-story) or, in true-belief
controls, true (the watcher came back and saw the last move), each of the
three about equally often, so "where it started" or "where it is now" is no
blind rule (a smaller share of true beliefs would let "anywhere but where it
is now" beat chance). Second order (size 4) asks where the mover thinks the watcher
will look, drawn to differ from both the true place and the watcher's own
belief, and to be where the object started or a later place equally often.
Every place is named in the story. The places are the options, stored as
sure amounts (the key worth 1) so that `best_stored_option` proves the key
from the payload.
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Sequence

import numpy as np

from steer._draws import sample_of
from steer.generate import _solvers  # noqa: F401  (best_stored_option is registered there)
from steer.generate._registry import (
    Instance,
    Resample,
    Solution,
    StructureKind,
    distractor,
    register_structure,
)
from steer.templates._model import GradeSpec, TemplateSpec
from steer.templates._vars import pick

WATCHER, MOVER = 0, 1


def replay(events: list[dict[str, int]], n_places: int) -> dict[str, object]:
    """The true place, each agent's belief and each agent's view of the other's belief.

    An event is {"place": p, "watcher": s}: the mover puts the object at p while
    the watcher is present (s = 1), away (s = 0) or secretly watching (s = 2).
    The mover is always present.
    """
    place = -1
    belief = [-1, -1]
    thinks = [[-1, -1], [-1, -1]]  # thinks[x][y]: where x thinks y believes it is
    for e in events:
        p, status = int(e["place"]), int(e["watcher"])
        if not 0 <= p < n_places:
            raise ValueError("place out of range")
        place = p
        sees = [status in (1, 2), True]
        openly = [status == 1, True]
        for x in (WATCHER, MOVER):
            if sees[x]:
                belief[x] = p
                for y in (WATCHER, MOVER):
                    if openly[y] or x == y:
                        thinks[x][y] = p
    return {"place": place, "belief": belief, "thinks": thinks}


@functools.cache
def _stories(n_places: int, second: bool) -> dict[str, list[tuple[tuple[int, int], ...]]]:
    """Every story of 2 or 3 moves that tests the asked belief, as (place,
    watcher) events, grouped by where the key lies: "start" (where the object
    was first put), "now" (where it ends: a true belief) or "between". There
    are a few hundred stories in all, so they are listed once; drawing one at
    random beats drawing random stories until one fits."""
    statuses = range(3 if second else 2)  # away, present, (second order) secretly watching
    steps = list(itertools.product(range(1, n_places), statuses))
    out: dict[str, list[tuple[tuple[int, int], ...]]] = {}
    for moves in (2, 3):
        for start in range(n_places):
            for path in itertools.product(steps, repeat=moves):
                events = [(start, 1)]
                for offset, status in path:
                    events.append(((events[-1][0] + offset) % n_places, status))
                try:
                    key, state = _asked(_events(events), n_places, second)
                except Resample:
                    continue
                where = "now" if key == state["place"] else "start" if key == start else "between"
                out.setdefault(where, []).append(tuple(events))
    return out


def _events(pairs: Sequence[tuple[int, int]]) -> list[dict[str, int]]:
    return [{"place": p, "watcher": w} for p, w in pairs]


def _asked(
    events: list[dict[str, int]], n_places: int, second: bool
) -> tuple[int, dict[str, object]]:
    """The key and the replayed state, or `Resample` if the story does not test the belief."""
    state = replay(events, n_places)
    place, belief, thinks = state["place"], state["belief"], state["thinks"]
    assert isinstance(belief, list) and isinstance(thinks, list)
    if second:
        key = thinks[MOVER][WATCHER]
        if len({key, place, belief[WATCHER]}) < 3:
            raise Resample("the mover's view, the truth and the watcher's belief must differ")
    else:
        key = belief[WATCHER]
        if all(int(e["watcher"]) == 1 for e in events):
            raise Resample("the watcher saw every move: nothing to track")
    return key, state


def narrate(
    events: list[dict[str, int]],
    names: list[str],
    places: list[str],
    thing: str,
    listed: Sequence[int] = (),
) -> str:
    """The story; `listed` names the places, in that order, before it starts
    (so every option is named in the story, not only the ones it visits)."""
    watcher, mover = names
    out = []
    if listed:
        named = [places[i] for i in listed]
        out.append(f"In the room are {', '.join(named[:-1])} and {named[-1]}.")
    out.append(f"{watcher} and {mover} put the {thing} in {places[events[0]['place']]}.")
    status = 1
    for e in events[1:]:
        new = e["watcher"]
        if new != status:
            if new == 0:
                out.append(
                    f"{watcher} leaves the room."
                    if status == 1
                    else f"{watcher} steps away from the window."
                )
            elif new == 1:
                out.append(f"{watcher} comes back into the room.")
            else:
                lead = f"{watcher} leaves the room but," if status == 1 else f"{watcher},"
                out.append(
                    f"{lead} from outside, secretly watches through the window; "
                    f"{mover} does not notice."
                )
            status = new
        out.append(f"{mover} moves the {thing} to {places[e['place']]}.")
    if status != 1:
        out.append(f"Later, {watcher} comes back into the room.")
    return " ".join(out)


OBJECT = {"she": "her", "he": "him"}
POSSESSIVE = {"she": "her", "he": "his"}
COUNT = {1: "move", 2: "two moves", 3: "three moves"}


def belief_note(
    events: list[dict[str, int]], names: list[str], pronoun: str, places: list[str], thing: str
) -> str:
    """One sentence on where the watcher's belief comes from: the last move the
    watcher saw and the moves missed after it, or (a true belief) that the
    watcher saw the last move. Explanations quote it, so that they say what
    happened in this story rather than a rule that fits every story."""
    watcher, mover = names
    seen = max(i for i, e in enumerate(events) if int(e["watcher"]) != 0)
    place = places[int(events[seen]["place"])]
    missed = len(events) - 1 - seen
    if not missed:
        return (
            f"{watcher} saw {mover} make the last move, to {place}, so "
            f"{POSSESSIVE[pronoun]} belief is true: a control story, where the belief "
            f"to attribute is where the {thing} really is."
        )
    last = (
        f"the {thing} being put in {place} at the start"
        if seen == 0
        else f"{mover} move the {thing} to {place}"
    )
    if events[-1]["place"] == events[seen]["place"]:  # moved away and back, unseen
        after = "which took it away and back again"
    else:
        after = f"which cannot change {POSSESSIVE[pronoun]} mind"
    return f"{watcher} last saw {last} and missed the {COUNT[missed]} after that, {after}."


def _person(entry: str) -> tuple[str, str]:
    """A `person` word "Maya | she": the name and its pronoun."""
    name, _, pronoun = (part.strip() for part in entry.partition("|"))
    return name, pronoun


def _sample(rng: np.random.Generator, spec: GradeSpec, t: TemplateSpec) -> Instance:
    second = spec.size >= 4
    pool = list(dict.fromkeys(t.words.get("place", [])))
    n_places = 3
    places = sample_of(rng, pool, n_places)
    people = list(dict.fromkeys(t.words.get("person", [])))
    names, pronouns = zip(*(_person(p) for p in sample_of(rng, people, 2)), strict=True)
    names = list(names)
    things = t.words.get("thing", ["object"])
    thing = things[int(rng.integers(len(things)))]
    stories = _stories(n_places, second)
    kinds = sorted(stories)  # where the key lies: each kind equally often
    kind = stories[kinds[pick(rng, len(kinds))]]
    events = _events(kind[pick(rng, len(kind))])
    key, state = _asked(events, n_places, second)
    place, belief = state["place"], state["belief"]
    assert isinstance(belief, list)
    # Places the watcher saw the object in before its belief settled, latest
    # first: the latest is the stale belief, any other an older one.
    seen = [int(e["place"]) for e in events if int(e["watcher"]) != 0]
    earlier = list(dict.fromkeys(p for p in reversed(seen) if p != key))
    tags = []
    for p in range(n_places):
        if p == key:
            tags.append("key")
        elif p == place:
            tags.append("reality_bias")
        elif second and p == belief[WATCHER]:
            tags.append("first_order_only")
        elif not second and p in earlier:
            tags.append("stale_belief" if p == earlier[0] else "older_belief")
        elif any(int(e["place"]) == p for e in events):
            tags.append("unseen_place")  # the object was there, out of the watcher's sight
        else:
            tags.append("empty_place")  # the object was never there
    data = {
        "events": events,
        "places": places,
        "asked": "mover_thinks_watcher" if second else "watcher",
        "errors": ["" if e == "key" else e for e in tags],
        "lotteries": [{"values": [1.0 if e == "key" else 0.0], "probs": [1.0]} for e in tags],
    }
    if key == place and int(events[-1]["watcher"]) == 1:
        # A true-belief control: the watcher saw the last move in the open (a
        # third of the stories, by design: without them "never where the
        # object is" would be a shortcut); the bank's `tags` column says so.
        data["question_tags"] = ["true_belief_control"]
    fields = {
        "story": narrate(events, names, places, thing, [int(i) for i in rng.permutation(n_places)]),
        "belief_note": belief_note(events, names, pronouns[WATCHER], places, thing),
        "watcher": names[WATCHER],
        "Watcher": names[WATCHER],  # names are capitalized already: for sentence starts
        "mover": names[MOVER],
        # Pronouns, so a sentence names a person once ("where will she look").
        "watcher_subject": pronouns[WATCHER],
        "watcher_object": OBJECT[pronouns[WATCHER]],
        "watcher_possessive": POSSESSIVE[pronouns[WATCHER]],
        "mover_subject": pronouns[MOVER],
        "thing": thing,
        "n_choices": str(n_places),
    }
    choices = [p[:1].upper() + p[1:] for p in places]
    return Instance(data=data, fields=fields, choices=choices)


def _check(spec: GradeSpec, t: TemplateSpec) -> str | None:
    if not 3 <= spec.size <= 4:
        return "a belief story has size 3 (first order) or 4 (second order)"
    if len(set(t.words.get("place", []))) < 3:
        return "words.place needs at least 3 distinct places"
    if len(set(t.words.get("person", []))) < 2:
        return "words.person needs at least 2 distinct names"
    if any(_person(p)[1] not in OBJECT for p in t.words.get("person", [])):
        return "words.person entries are 'name | she' or 'name | he'"
    return None


register_structure(
    StructureKind(
        "belief_story",
        (
            "story",
            "belief_note",
            "watcher",
            "Watcher",
            "mover",
            "watcher_subject",
            "watcher_object",
            "watcher_possessive",
            "mover_subject",
            "thing",
            "n_choices",
        ),
        _sample,
        _check,
        "an object moved while someone was away; where that person (or the mover, "
        "about that person) thinks it is",
    )
)

# The options are stored as sure amounts, so best_stored_option (which lists
# belief_story in _solvers) proves the key from the payload.


def _lookup(name: str) -> None:
    def make(instance: Instance, _solution: Solution) -> int | None:
        errors = instance.data.get("errors", [])
        return errors.index(name) if name in errors else None

    make.__doc__ = f"The place stored with error {name!r}: the tempting wrong belief it names."
    distractor(name, "choice")(make)


for _name in (
    "reality_bias",
    "first_order_only",
    "stale_belief",
    "older_belief",
    "unseen_place",
    "empty_place",
):
    _lookup(_name)
