"""English inflection for rendered wording: a/an, plurals, verb agreement.

The `inflect` library decides; each answer is cached per word, because a bank
renders the same few hundred words hundreds of thousands of times.
"""

from __future__ import annotations

import functools
import re
from typing import Any


def _unchecked(target: Any = None, **_options: Any) -> Any:
    return target if target is not None else (lambda f: f)


@functools.cache
def _engine() -> Any:
    """inflect's engine, imported on first use. inflect decorates its methods
    with typeguard's `@typechecked`, which re-parses and recompiles them at
    import (3-4 s, on every run of the command line) and type-checks every
    call; the decorator is switched off while inflect is imported, as `python
    -O` would. Arguments reaching it here are plain non-empty words."""
    import typeguard

    real = typeguard.typechecked
    typeguard.typechecked = _unchecked
    try:
        import inflect
    finally:
        typeguard.typechecked = real
    return inflect.engine()


def warm() -> None:
    """Load inflect's engine now (about 50 ms with typeguard), e.g. in a process
    that forks workers, so they do not each load it on their first wording."""
    _engine()


_NUMBER = re.compile(r"[-−]?[$€£]?(\d[\d,]*(?:\.\d+)?)")

# Words that end in "s" but are not plural nouns: inflect would happily turn
# "is" into "i" and "this" into "thi".
NOT_PLURAL = frozenset(
    str.split(
        """is was has does this its his hers ours yours theirs us as thus plus less
    unless whereas across always perhaps besides towards afterwards sometimes
    news series species means yes gas bus lens bonus campus status process
    analysis basis thesis crisis axis chaos"""
    )
)
# The pronouns a verb must agree with, and what their possessive is.
PLURAL_SUBJECTS = frozenset({"I", "you", "You", "we", "We", "they", "They"})
# Verbs joined by "and" to a subject's first verb ("I rent a flat and buy
# food"): the third-person forms read as verbs there, chosen because they are
# rarely nouns ("I have seeds and plants" is no second verb), and their bare
# forms. Rendering makes such a verb agree; the language checker flags it.
COORDINATED_THIRD = frozenset(
    """has does wants prefers chooses needs buys pays sells earns spends owns
    rents works compares decides expects believes receives knows thinks takes
    makes gets keeps gives hires invests saves borrows lends produces consumes
    manages grows likes uses picks accepts rejects asks tests""".split()  # noqa: SIM905
)
COORDINATED_BARE = frozenset(
    """have do want prefer choose need buy pay sell earn spend own rent work
    compare decide expect believe receive know think take make get keep give
    hire invest save borrow lend produce consume manage grow like use pick ask test""".split()  # noqa: SIM905
)
# Words that open a clause of its own: a verb after "and" beyond them has
# another subject ("a contract that costs $5 and pays $6").
CLAUSE_OPENERS = r"\b(?:that|which|who|whose|whom|where|when|if|because|while)\b"
POSSESSIVE = {"I": "my", "you": "your", "You": "Your", "we": "our", "We": "Our"}
POSSESSIVE.update({"they": "their", "They": "Their", "he": "his", "He": "His"})
POSSESSIVE.update({"she": "her", "She": "Her"})


@functools.lru_cache(maxsize=16384)
def _spoken(word: str) -> str:
    """A token as read aloud, for choosing its article: numbers in words
    ('8' → 'eight', '$1,800' → 'one thousand…', '11%' → 'eleven')."""
    match = _NUMBER.match(word)
    if match and word[0] in "-−":
        return "minus"
    if match:
        return str(_engine().number_to_words(match.group(1).replace(",", "")))
    return word


@functools.lru_cache(maxsize=16384)
def article(word: str) -> str:
    """'a' or 'an' before `word` (a word, or a number as read aloud)."""
    spoken = _spoken(word.strip("\"'(“‘"))
    if not spoken:
        return "a"
    return str(_engine().a(spoken)).split(" ", 1)[0]


@functools.lru_cache(maxsize=16384)
def singular(noun: str) -> str | None:
    """The singular of a plural noun, or None when `noun` is not one."""
    if noun.lower() in NOT_PLURAL or not noun.isalpha():
        return None
    engine = _engine()
    out = engine.singular_noun(noun)
    if not isinstance(out, str) or out == noun:
        return None
    # inflect strips an 's' from singular nouns too ("atlas" -> "atla"); a word
    # whose own plural leads back to it is singular ("atlases" -> "atlas").
    if out == noun[:-1] and engine.singular_noun(engine.plural_noun(noun)) == noun:
        return None
    return out


@functools.lru_cache(maxsize=16384)
def plural(noun: str) -> str:
    return str(_engine().plural_noun(noun))


@functools.lru_cache(maxsize=16384)
def agree(verb: str, subject: str) -> str:
    """`verb`, written for a third-person singular subject ('wants', 'does',
    'is'), as it agrees with `subject`; words that are not such verbs come
    back unchanged."""
    if subject not in PLURAL_SUBJECTS or not verb.isalpha():
        return verb
    lower = verb.lower()
    if subject == "I" and lower in ("is", "was"):
        out = "am" if lower == "is" else "was"
    elif not lower.endswith("s") or lower in NOT_PLURAL - {"is", "was", "has", "does"}:
        return verb
    else:
        out = str(_engine().plural_verb(lower))
    return out[:1].upper() + out[1:] if verb[:1].isupper() else out


@functools.lru_cache(maxsize=16384)
def is_third_singular(verb: str) -> bool:
    """Whether `verb` looks like a third-person singular present ('wants')."""
    return agree(verb, "you") != verb


def possessive(name: str) -> str:
    """'Maria's', 'Byte Works'' (a name ending in s takes a bare apostrophe),
    'your' for a pronoun."""
    if name in POSSESSIVE:
        return POSSESSIVE[name]
    return f"{name}'" if name.endswith("s") else f"{name}'s"


@functools.lru_cache(maxsize=16384)
def singular_phrase(phrase: str) -> str:
    """A counted noun phrase in the singular: 'chocolate bars' → 'chocolate
    bar', 'scoops of ice cream' → 'scoop of ice cream'."""
    head, sep, tail = phrase.partition(" of ")
    words = head.split(" ")
    noun = singular(words[-1])
    if noun is None:
        return phrase
    return " ".join([*words[:-1], noun]) + sep + tail
