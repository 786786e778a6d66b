"""Placeholder substitution for template wording.

Templates are data: `{name}` is replaced by a sampled value and nothing else
happens — no attribute access, indexing, format specs or expressions (which
`str.format` would allow). `{{` and `}}` stand for literal braces.

The words around a placeholder follow its value (`_inflect` decides): "a {x}"
becomes "an 8" or "an apple"; a verb written for a third person after a
subject placeholder agrees with it ("{Agent} wants" → "You want"), and so does
an auxiliary before one ("does {agent}" → "do I"); "{n} trays" with n = 1
becomes "1 tray"; "{firm}'s" after a name ending in s becomes "Works'", and
after a pronoun its possessive ("your").
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping

from steer.templates._inflect import (
    CLAUSE_OPENERS,
    COORDINATED_THIRD,
    PLURAL_SUBJECTS,
    POSSESSIVE,
    agree,
    article,
    singular,
    singular_phrase,
)

_TOKEN = re.compile(r"\{\{|\}\}|\{([A-Za-z_][A-Za-z0-9_]*)\}|\{[^{}]*\}|[{}]")


class PlaceholderError(ValueError):
    """A malformed or unknown placeholder; `.name` is the offending token."""

    def __init__(self, message: str, name: str) -> None:
        super().__init__(message)
        self.name = name


def placeholders(text: str) -> list[str]:
    """The placeholder names used in `text`, in order of appearance."""
    names = []
    for match in _TOKEN.finditer(text):
        token = match.group(0)
        if token in ("{{", "}}"):
            continue
        if match.group(1) is None:
            raise PlaceholderError(
                f"malformed placeholder {token!r}: use {{name}} with a plain name "
                "(write {{ or }} for a literal brace)",
                token,
            )
        names.append(match.group(1))
    return names


@functools.lru_cache(maxsize=8192)
def _compiled(text: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """`text` split once into literal runs around its placeholder names
    (`len(literals) == len(names) + 1`): wordings are rendered many times."""
    literals: list[str] = []
    names: list[str] = []
    run: list[str] = []
    pos = 0
    for match in _TOKEN.finditer(text):
        run.append(text[pos : match.start()])
        pos = match.end()
        token = match.group(0)
        if token in ("{{", "}}"):
            run.append(token[0])
            continue
        if match.group(1) is None:
            raise PlaceholderError(f"malformed placeholder {token!r}", token)
        literals.append("".join(run))
        names.append(match.group(1))
        run = []
    run.append(text[pos:])
    literals.append("".join(run))
    return tuple(literals), tuple(names)


# Placeholders that stand for the subject of a sentence (perspective words).
SUBJECTS = frozenset({"agent", "Agent", "subject", "Subject"})
_ARTICLE_BEFORE = re.compile(r"(?:^|(?<=[\s(\"“—-]))(a|an|A|An) $")
_AUX_BEFORE = re.compile(r"(?:^|(?<=\W))(does|has|is|was|Does|Has|Is|Was) $")
_ENDS_IN_ONE = re.compile(r"(?:^|[^\d.,])1$")
_WORD_AFTER = re.compile(r"^(\s+)([A-Za-z]+)")
_ADVERB_AFTER = re.compile(
    r"^(\s+(?:[a-z]+ly|already|also|still|always|never|only|just|now|then|often|usually"
    r"|rather|indeed)\s+)([A-Za-z]+)"
)


@functools.lru_cache(maxsize=8192)
def _agree_after(literal: str, subject: str) -> str:
    """`literal` (text after a subject placeholder) with its verb agreeing."""
    match = _ADVERB_AFTER.match(literal) or _WORD_AFTER.match(literal)
    if not match:
        return literal
    verb = agree(match.group(2), subject)
    return literal if verb == match.group(2) else match.group(1) + verb + literal[match.end() :]


@functools.lru_cache(maxsize=8192)
def _singular_after(literal: str) -> str:
    """`literal` (text after the number 1) with its first noun made singular."""
    match = _WORD_AFTER.match(literal)
    if not match or match.group(2)[:1].isupper():
        return literal
    noun = singular(match.group(2))
    return literal if noun is None else match.group(1) + noun + literal[match.end() :]


# Endings of a literal that _fix_before may change (an article, an auxiliary).
_FIXABLE_ENDS = ("a ", "n ", "A ", "s ")


def _fix_before(before: str, name: str, value: str, possessed: bool = False) -> str:
    """The literal before a placeholder, with an article or auxiliary there
    matched to the value. A `possessed` placeholder ("does {agent}'s pump")
    is not the auxiliary's subject: its auxiliary is left as written."""
    if before.endswith(("a ", "n ", "A ")):
        match = _ARTICLE_BEFORE.search(before)
        if match and value:
            art = article(value.split(" ", 1)[0])
            if match.group(1)[0] == "A":
                art = art.capitalize()
            return before[: match.start(1)] + art + " "
    if name in SUBJECTS and value in PLURAL_SUBJECTS and before.endswith("s ") and not possessed:
        match = _AUX_BEFORE.search(before)
        if match:
            return before[: match.start(1)] + agree(match.group(1), value) + " "
    return before


# A verb placeholder right after a subject ("{Agent} {has}") is its verb.
_VERB_PLACEHOLDERS = frozenset({"has", "is", "does", "was"})
_CLAUSE_END = re.compile(rf"[.;:?!]|{CLAUSE_OPENERS}")
_AND_THIRD = re.compile(
    r"\band(\s+(?:[a-z]+ly|also|then|often|usually|always|never|only|still)?\s*)([a-z]+)\b"
)


@functools.lru_cache(maxsize=8192)
def _agree_coordinated(literal: str, subject: str) -> tuple[str, bool]:
    """`literal` with each verb joined by "and" to the subject's agreeing
    ("You rent a flat and buys" → "… and buy"), up to the end of the clause;
    and whether the clause goes on past `literal`."""
    end = _CLAUSE_END.search(literal)
    head = literal if end is None else literal[: end.start()]

    def fix(m: re.Match[str]) -> str:
        verb = m.group(2)
        return f"and{m.group(1)}{agree(verb, subject)}" if verb in COORDINATED_THIRD else m.group(0)

    if "and" in head:
        head = _AND_THIRD.sub(fix, head)
    return (head if end is None else head + literal[end.start() :]), end is None


# What _plan records of a literal after a placeholder: which of render's
# rules can change it.
_POSSESSIVE, _SUBJECT, _AFTER_ONE, _VERB_NEXT = 1, 2, 4, 8


@functools.lru_cache(maxsize=8192)
def _plan(text: str) -> tuple[str, tuple[tuple[str, str, bool, int], ...]]:
    """`text` as its first literal and one step per placeholder: (name, the
    literal after it, whether the literal before it ends as an article or an
    auxiliary that `_fix_before` may change, and which of render's rules can
    touch the literal after it). Read from the template's text alone, once,
    so that rendering skips the checks that cannot apply."""
    literals, names = _compiled(text)
    steps = []
    for k, (name, literal) in enumerate(zip(names, literals[1:], strict=True)):
        rules = 0
        if literal:
            if literal.startswith("'s"):
                rules |= _POSSESSIVE
            elif name in SUBJECTS:
                rules |= _SUBJECT
            # After the number 1: a word that may be a noun to make singular
            # (as _singular_after reads it; whether it is one is left to the
            # render that needs it), or a lone space before the next value
            # (made singular in turn).
            word = _WORD_AFTER.match(literal)
            if (word and not word.group(2)[:1].isupper()) or literal == " ":
                rules |= _AFTER_ONE
            if not literal.strip() and k + 1 < len(names) and names[k + 1] in _VERB_PLACEHOLDERS:
                rules |= _VERB_NEXT
        steps.append((name, literal, literals[k].endswith(_FIXABLE_ENDS), rules))
    return literals[0], tuple(steps)


def render(text: str, values: Mapping[str, object]) -> str:
    """Replace each `{name}` in `text` by `str(values[name])`, the words next to
    it agreeing with the value (see the module's docstring)."""
    head, steps = _plan(text)
    out = [head]
    one = False  # the value before was the number 1, then a space
    clause: str | None = None  # a first- or second-person subject whose clause runs on
    changed = False  # the literal before this placeholder is not the template's
    for name, literal, fixable, rules in steps:
        try:
            value = str(values[name])
        except KeyError:
            raise PlaceholderError(f"unknown variable {{{name}}}", name) from None
        # Only an article ("a ", "an ") or an auxiliary ("does ") can need a fix.
        if out[-1].endswith(_FIXABLE_ENDS) if changed else fixable:
            out[-1] = _fix_before(out[-1], name, value, literal.startswith("'s"))
        if value == "I" and out[-1].endswith(" like ") and not literal.startswith("'s"):
            value = "me"  # "a grower like me": the object case
        if one:
            value = singular_phrase(value)
        one = False
        if rules:
            original = literal
            if rules & _POSSESSIVE:
                if value:
                    if value in POSSESSIVE:
                        value, literal = POSSESSIVE[value], literal[2:]
                        if name[:1].isupper():  # "{Agent}'s" starts a sentence: "My"
                            value = value[:1].upper() + value[1:]
                    elif value.endswith("s"):
                        literal = "'" + literal[2:]
            elif rules & _SUBJECT and value in PLURAL_SUBJECTS:
                agreed = _agree_after(literal, value)
                # The subject has a verb of its own (not "offers {agent} a deal"):
                # verbs joined to it by "and" agree too, to the clause's end.
                has_verb = agreed != literal or bool(rules & _VERB_NEXT)
                literal, clause = agreed, (value if has_verb else None)
            elif rules & _AFTER_ONE and value.endswith("1") and _ENDS_IN_ONE.search(value):
                literal = _singular_after(literal)
                one = literal == " "
            changed = literal is not original
        else:
            changed = False
        if clause is not None and literal:
            agreed, open_ = _agree_coordinated(literal, clause)
            changed = changed or agreed != literal
            literal = agreed
            if not open_:
                clause = None
        out.append(value)
        out.append(literal)
    return "".join(out)
