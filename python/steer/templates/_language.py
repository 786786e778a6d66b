"""The language checker: grammar slips in rendered wording.

`check_text` reads one rendered sentence (a question, an option, an
explanation) and flags what template rendering gets wrong when a wording does
not fit every value it is filled with: a verb that does not agree with its
subject ("you wants", "does I", "she want"), a pronoun in the wrong case ("to
I"), the wrong article ("a 8", "an cat"), a count that disagrees with its noun
("1 trays", "2 tray"), a bad possessive ("Works's", "you's") and anything left
unrendered ("{x}", "}}", "None", "nan"). Articles, plurals and verb forms are
decided by `inflect` (see `_inflect`), not by the checker's own rules.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from steer.templates._inflect import (
    CLAUSE_OPENERS,
    COORDINATED_BARE,
    COORDINATED_THIRD,
    POSSESSIVE,
    agree,
    article,
    is_third_singular,
    plural,
    singular,
)
from steer.templates._perspective import MEN, WOMEN


def _words(text: str) -> list[str]:
    return text.split()


CHECKS = (
    "agreement",
    "case",
    "article",
    "plural",
    "possessive",
    "placeholder",
    "capital",
    "antecedent",
)


@dataclass(frozen=True)
class Finding:
    """One slip: which check, the offending words, and the fix."""

    check: str
    text: str
    hint: str


_ADVERB = r"(?:[a-z]+ly|already|also|still|always|never|only|just|now|then|often|usually|rather)"
# "you" after these is an object ("gives you points"), not a subject.
_OBJECT_AFTER = frozenset(
    _words(
        """to for with from of by at than on about against as like between into onto
    give tell show offer pay let help make ask cost owe send lend sell buy get
    charge promise allow bring hand leave"""
    )
)
# After these a bare verb is right: "would she choose", "does Maria want".
_BARE_AFTER = frozenset(
    _words(
        """do does did would will can could should shall may might must to let
    make help and or nor why how"""
    )
)
BASE_VERBS = frozenset(
    _words(
        """have do are were am want prefer choose need like get pay buy sell take
    make know think own win lose earn spend face receive expect believe value
    pick accept reject offer decide say agree plan hold keep give put find feel
    rank rate judge bet play enter order stay switch score come go see use"""
    )
)
_THIRD_PERSON = "|".join(["he", "she", "He", "She", "[Tt]he decision maker", *WOMEN, *MEN])

_SUBJECT_VERB = re.compile(rf"\b(I|you|You|we|We|they|They)\s+(?:{_ADVERB}\s+)?([a-z]+)\b")
# A relative clause about a first- or second-person subject takes its verb
# ("You, who count the votes"; "I, who am"), not the third person a wording
# written for a name gives ("You, who counts", "I, who has").
_RELATIVE_WHO = re.compile(rf"\b(I|you|You|we|We|they|They),\s+who\s+(?:{_ADVERB}\s+)?([a-z]+)\b")
_AUX_SUBJECT = re.compile(r"\b(does|has|is|Does|Has|Is|Was|was)\s+(I|you)\b")
_THIRD_BARE = re.compile(rf"\b({_THIRD_PERSON})\s+(?:{_ADVERB}\s+)?([a-z]+)\b")
_WORDS_BEFORE = re.compile(r"(\w+)\W*$")
_TITLES = frozenset({"Chef", "Dr", "Mr", "Mrs", "Ms", "Professor", "Coach", "Captain"})
_CASE = re.compile(r"\b(\w+)\s+I\b(?!')")
_ENDS_PHRASE = re.compile(r"\s*(?:[,.;:?!)]|$)")
_ARTICLE = re.compile(
    r"(?:(?:^|(?<=[\s(\"“—]))(a|an)|(?:^|(?<=[.!?:]\s)|(?<=\n)|(?<=[\"“(]))(A|An))"
    r"\s+([$€£]?[A-Za-z0-9][\w%.,-]*)"
)
_ONE = re.compile(r"(?<![\d.,$€£-])\b1\s+([a-z]+)\b")
# "2 tray" only where the noun ends the phrase (a compound such as "3 tea
# boxes" or "2 start-up stakes" counts its last word; a verb, "9 arrive and",
# is not a noun).
_COUNT = re.compile(
    r"(?<![\d.,$€£-])\b(\d+(?:,\d{3})*)\s+([a-z]+)"
    r"(?=[.,;:?!)]|\s+(?:of|for|in|at|on|each|per|that|which|who)\b|$)"
)
_POSSESSIVE = re.compile(r"\b([A-Za-z]*s|I|you|You|he|He|she|She|we|We|they|They)'s\b")
_PLACEHOLDER = re.compile(r"\{[^{}\n]*\}|\{\{|\}\}|[{}]|\b(?:None|nan|NaN|inf)\b")

# Words after a number that are not counted nouns ("5 percent", "3 more").
NOT_COUNTED = frozenset(
    _words(
        """percent per cent point points more less fewer other others of and or to
    in out on at by for from with than times time each apiece extra additional
    different distinct identical equal equally possible new old same similar
    remaining available independent consecutive successive separate likely
    cm mm km m kg g lb oz ft mph kmh ml l am pm st nd rd th x is was are were
    has have will would can could may might must shall should do does did
    already ago again too now then total overall instead together later
    earlier before after back away off up down apart alone yet
    min mins sec hr hrs today tomorrow left die red blue green black white yellow
    years year months days hours minutes weeks seconds"""
    )
)
# Counted units that read naturally in the singular after any number.
_SINGULAR_UNITS = frozenset({"percent", "cent", "dozen", "hundred", "thousand", "million"})


def _before(text: str, at: int, skip_titles: bool = False) -> str:
    """The word before position `at` ('' at the start), lower-cased; with
    `skip_titles`, the word before a title ("and Chef Samuel" → "and")."""
    match = _WORDS_BEFORE.search(text, 0, at)
    if match and skip_titles and match.group(1) in _TITLES:
        return _before(text, match.start(1), False)
    return match.group(1).lower() if match else ""


# A second verb joined by "and" to the first must agree with the same subject
# ("I rent a flat and buys", "Maria rents a flat and buy"); see _inflect.
_THIRD_FORMS = COORDINATED_THIRD
_BARE_FORMS = COORDINATED_BARE
_CLAUSE = re.compile(r"[^.;:?!]*")
_RELATIVE = re.compile(CLAUSE_OPENERS)
_AND_VERB = re.compile(r"\band\s+(?:" + _ADVERB + r"\s+)?([a-z]+)\b")


def _coordinated(text: str, at: int, subject: str, third: bool) -> list[Finding]:
    """Slips in the verbs joined by "and" after a subject's verb ending at `at`."""
    clause = _CLAUSE.match(text, at)
    end = clause.end() if clause else len(text)
    out = []
    for m in _AND_VERB.finditer(text, at, end):
        verb = m.group(1)
        between = text[at : m.start()]
        if _RELATIVE.search(between):
            break  # "… a contract that costs $5 and pays $6": the relative clause's verbs
        if _before(text, m.start()) in _BARE_FORMS | {"divide", "cut"}:
            continue  # "divide and choose": a pair of verbs named, not a second verb
        if third and verb in _BARE_FORMS:
            right = {"have": "has", "do": "does"}.get(verb, plural(verb))
            if verb in ("buy", "pay"):
                right = verb + "s"
            out.append(Finding("agreement", m.group(0), f"{subject} … and {right}"))
        elif not third and verb in _THIRD_FORMS:
            right = agree(verb, subject)
            out.append(Finding("agreement", m.group(0), f"{subject} … and {right}"))
    return out


def _agreement(text: str) -> list[Finding]:
    out = []
    for m in _SUBJECT_VERB.finditer(text):
        if m.group(1) != "I" and _before(text, m.start()) in _OBJECT_AFTER:
            continue
        if m.group(2) in _BARE_FORMS:
            out += _coordinated(text, m.end(), m.group(1), third=False)
    for m in _THIRD_BARE.finditer(text):
        if m.group(2) in _THIRD_FORMS:
            out += _coordinated(text, m.end(), m.group(1), third=True)
    for m in _SUBJECT_VERB.finditer(text):
        subject, verb = m.group(1), m.group(2)
        before = _before(text, m.start())
        if before in _OBJECT_AFTER:
            continue
        if subject.lower() == "you" and before.endswith(("s", "ed")):
            continue  # "offers you points": an object
        if subject == "I" and verb == "was":
            continue
        if is_third_singular(verb):
            out.append(
                Finding(
                    "agreement",
                    m.group(0),
                    f"the verb must agree with {subject!r}: {subject} {agree(verb, subject)}",
                )
            )
    for m in _RELATIVE_WHO.finditer(text):
        subject, verb = m.group(1), m.group(2)
        if subject == "I" and verb == "was":
            continue
        if is_third_singular(verb):
            right = agree(verb, subject)
            out.append(
                Finding(
                    "agreement",
                    m.group(0),
                    f"a relative clause about {subject!r} takes its verb: "
                    f"{subject}, who {right} (or reword: {subject} … and …)",
                )
            )
    for m in _AUX_SUBJECT.finditer(text):
        aux, subject = m.group(1), m.group(2)
        if aux.lower() == "was" and subject == "I":
            continue
        out.append(Finding("agreement", m.group(0), f"write {agree(aux, subject)} {subject}"))
    for m in _THIRD_BARE.finditer(text):
        subject, verb = m.group(1), m.group(2)
        if _before(text, m.start(), skip_titles=True) in _BARE_AFTER:
            continue
        if verb in BASE_VERBS:
            right = {"have": "has", "do": "does", "are": "is", "were": "was", "am": "is"}.get(
                verb, plural(verb) if not verb.endswith("y") else verb[:-1] + "ies"
            )
            if verb in ("buy", "pay", "play", "stay", "say"):
                right = verb + "s"
            out.append(Finding("agreement", f"{subject} {verb}", f"{subject} takes {right!r}"))
    return out


def _case(text: str) -> list[Finding]:
    return [
        Finding("case", m.group(0), f"an object takes 'me': {m.group(1)} me")
        for m in _CASE.finditer(text)
        if m.group(1).lower() in _OBJECT_AFTER - {"than", "as", "like"}
        # "like I do" is usage; "a grower like I." is not.
        or (m.group(1).lower() == "like" and _ENDS_PHRASE.match(text, m.end()))
    ]


def _article(text: str) -> list[Finding]:
    out = []
    for m in _ARTICLE.finditer(text):
        art, word = m.group(1) or m.group(2), m.group(3).rstrip(".,;:%-")
        if not word or (len(word) == 1 and word.isalpha() and word.isupper()):
            continue  # a letter label: "option A", "a B"
        want = article(word)
        if want != art.lower():
            fixed = want.capitalize() if art[0] == "A" else want
            out.append(Finding("article", f"{art} {word}", f"write {fixed!r}: {fixed} {word}"))
    return out


def _plural(text: str) -> list[Finding]:
    out = []
    for m in _ONE.finditer(text):
        noun = singular(m.group(1))
        if noun is not None and m.group(1) not in NOT_COUNTED:
            out.append(Finding("plural", m.group(0), f"one takes the singular: 1 {noun}"))
    for m in _COUNT.finditer(text):
        count, noun = m.group(1), m.group(2)
        if count in ("1", "01") or noun in NOT_COUNTED or noun in _SINGULAR_UNITS:
            continue
        if len(noun) < 3 or singular(noun) is not None or noun.endswith(("s", "ly", "ing", "ed")):
            continue
        many = plural(noun)
        if many != noun:
            out.append(Finding("plural", m.group(0), f"a count takes the plural: {count} {many}"))
    return out


# A possessive determiner with no noun after it ("Three schools (your, …)"):
# standing alone it takes the pronoun form ("yours").
_BARE_DETERMINER = re.compile(r"\b(my|your|their|our)(?=\s*[,;:.)?!]|\s+(?:and|or)\b)")
_STANDALONE = {"my": "mine", "your": "yours", "their": "theirs", "our": "ours"}


def _possessive(text: str) -> list[Finding]:
    out = [
        Finding("possessive", m.group(0), f"a possessive alone takes {_STANDALONE[m.group(1)]!r}")
        for m in _BARE_DETERMINER.finditer(text)
    ]
    for m in _POSSESSIVE.finditer(text):
        word = m.group(1)
        fix = POSSESSIVE.get(word, word + "'")
        out.append(Finding("possessive", m.group(0), f"write {fix!r}"))
    return out


def _placeholder(text: str) -> list[Finding]:
    return [
        Finding("placeholder", m.group(0), "a value or brace was left unrendered")
        for m in _PLACEHOLDER.finditer(text)
    ]


# A sentence that opens with a lower-case word a placeholder put there ("my
# school handbook says", "the decision maker has"); variable names such as
# "p" or "q" in a formula are not in the list.
_LOWER_WORD = r"(my|your|their|his|her|the|you|she|he|they|it|what|which|how)\b"
_LOWER_START = re.compile(rf"(?<=[.!?]\s){_LOWER_WORD}")
# Options and explanations may open with a lower-case fragment ("the apple");
# a question is a sentence from its first word.
_LOWER_FIRST = re.compile(rf"^{_LOWER_WORD}")


def _capital(text: str, pattern: re.Pattern[str] = _LOWER_START) -> list[Finding]:
    return [
        Finding("capital", m.group(0), f"a sentence starts with a capital: {m.group(0).title()}")
        for m in pattern.finditer(text)
    ]


def check_question_start(text: str) -> list[Finding]:
    """A question's text must open with a capital ("my school handbook"
    is a slip where it opens the question)."""
    return _capital(text, _LOWER_FIRST)


def check_text(text: str) -> list[Finding]:
    """Every slip in one rendered text, in check order."""
    return [
        *_agreement(text),
        *_case(text),
        *_article(text),
        *_plural(text),
        *_possessive(text),
        *_placeholder(text),
        *_capital(text),
    ]


# The agent's pronouns in a named perspective (the values `_perspective` fills
# {subject}, {object} and {possessive} with) and the names it may draw.
_PRONOUNS = {
    "woman": re.compile(r"\b(?:[Ss]he|[Hh]ers?|[Hh]erself)\b"),
    "man": re.compile(r"\b(?:[Hh]e|[Hh]is|[Hh]im|[Hh]imself)\b"),
}
_NAMES = {
    "woman": re.compile(rf"\b(?:{'|'.join(WOMEN)})\b"),
    "man": re.compile(rf"\b(?:{'|'.join(MEN)})\b"),
}


def check_antecedent(text: str, perspective: str) -> list[Finding]:
    """In a question told about a named woman or man (`perspective` "woman" or
    "man"; `text` all its parts in order), the agent must be named, and named
    before the first he/she/his/her that could refer to them: "His savings:
    $4,774 …" before "Omar" leaves the reader asking whose. Other
    perspectives give no finding."""
    if perspective not in _PRONOUNS:
        return []
    name = _NAMES[perspective].search(text)
    if name is None:
        return [
            Finding(
                "antecedent",
                "",
                f"a {perspective}'s question must name its agent: use {{Agent}}/{{agent}}",
            )
        ]
    pronoun = _PRONOUNS[perspective].search(text, 0, name.start())
    if pronoun is None:
        return []
    # The pronoun with its next word, so the slip can be found in the text.
    slip = re.match(r"\w+\W*\w*", text[pronoun.start() :])
    return [
        Finding(
            "antecedent",
            slip.group(0) if slip else pronoun.group(0),
            f"{pronoun.group(0)!r} comes before the agent is named ({name.group(0)!r}): "
            "name the agent first ({Agent}, {agent}'s)",
        )
    ]
