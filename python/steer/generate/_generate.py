"""Generate question banks from templates, every key proven by its solver."""

from __future__ import annotations

import hashlib
import itertools
import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np
import pyarrow as pa

from steer import _native
from steer._draws import integer
from steer._forkserver import warm_up
from steer._limits import MAX_PER_CELL, MAX_SEED, check_count
from steer._resources import grade_tables
from steer.bank import validate_questions
from steer.errors import FileFormatError, InputError
from steer.generate import (  # noqa: F401  (registration)
    _axioms,
    _distractors,
    _games,
    _imperfect,
    _logic,
    _mind,
    _optimization,
    _scenario,
    _sequential,
    _social,
    _solvers,
    _structures,
)
from steer.generate._consistency import (
    consistency_parts,
    consistency_rule_of,
    option_orders,
    verify_parts,
)
from steer.generate._control import check_flipped, control_instance
from steer.generate._options import choice_options, numeric_options, text_options, verify
from steer.generate._parallel import run_cells
from steer.generate._registry import (
    SOLVERS,
    STRUCTURES,
    Instance,
    Resample,
    Solution,
    SolverKind,
)
from steer.taxonomy import load_taxonomy
from steer.templates import Template, load_templates, render
from steer.templates._identity import by_identity
from steer.templates._model import GradeSpec, TemplateSpec
from steer.templates._perspective import perspective_words
from steer.templates._vars import Unmet, pick

MAX_DRAWS = 200
# One encoder for every payload: json.dumps with separators builds a new one
# per call. Payloads are plain trees, so the cycle check is skipped.
_PAYLOAD = json.JSONEncoder(separators=(",", ":"), check_circular=False)


class _Streams:
    """One random stream per question (redraws continue it), so a question does
    not depend on the others of its cell. The state is keyed by a hash of
    (seed, template, grade, index) — blake2b rather than hash(), which Python
    salts per process — and set on one reused generator: building a fresh
    SeedSequence per question costs four times as much."""

    def __init__(self, seed: int, template_id: str) -> None:
        self._prefix = f"{seed & 0xFFFFFFFFFFFFFFFF}\x1f{template_id}\x1f".encode()
        self._bits = np.random.PCG64(0)
        self._rng = np.random.Generator(self._bits)

    def __call__(self, grade: int, index: int) -> np.random.Generator:
        digest = hashlib.blake2b(
            self._prefix + b"%d\x1f%d" % (grade, index), digest_size=32
        ).digest()
        self._bits.state = {
            "bit_generator": "PCG64",
            "state": {
                "state": int.from_bytes(digest[:16], "little"),
                "inc": int.from_bytes(digest[16:], "little") | 1,
            },
            "has_uint32": 0,
            "uinteger": 0,
        }
        return self._rng


@by_identity
def _word_texts(t: TemplateSpec) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """The template's `words` as texts, converted once rather than per question."""
    return tuple((name, tuple(str(c) for c in choices)) for name, choices in t.words.items())


def _render_values(
    template: Template, rng: np.random.Generator, index: int, instance: Instance, solution: Solution
) -> tuple[dict[str, object], str]:
    t = template.spec
    words = {name: choices[pick(rng, len(choices))] for name, choices in _word_texts(t)}
    perspective = t.perspective
    if t.perspectives:
        perspective = t.perspectives[index % len(t.perspectives)]
        words.update(perspective_words(perspective, rng))
        if perspective == "anonymous" and "anonymous_agent" in words:
            # The named role stands for the agent wherever the text refers to
            # it ("The trader is ... Should the trader ..."), never beside
            # "the decision maker".
            words["agent"] = words["subject"] = words["anonymous_agent"]
            words["Agent"] = words["agent"][:1].upper() + words["agent"][1:]
            if "Subject" in words:
                words["Subject"] = words["Agent"]
    return {**words, **instance.text_fields(), **solution.text_fields()}, perspective


# Every order of up to 6 options, so the final permutation of a question is one
# uniform draw and a lookup (a third of the cost of rng.permutation).
_ORDERS = {n: list(itertools.permutations(range(n))) for n in range(1, 7)}


def _final_order(rng: np.random.Generator, n: int) -> list[int]:
    """A uniform permutation of n options: for each displayed position, the
    index the option had before (the payload's order)."""
    table = _ORDERS.get(n)
    if table is None:
        return [int(i) for i in rng.permutation(n)]
    return list(table[min(int(rng.random() * len(table)), len(table) - 1)])


@dataclass
class _Part:
    """One answer-graded part: its text, options, tags, key and payload."""

    text: str
    options: list[str]
    tags: list[str]
    correct: int
    value: float | None
    payload: str
    explanation: str
    instance: Instance | None = None
    solution: Solution | None = None


# Set by tests: re-solve every stored payload, even one that decodes to the
# very data its key was solved from (see _resolved_payload).
ALWAYS_RESOLVE = False


def _resolved_payload(
    template_id: str,
    solver: SolverKind,
    instance: Instance,
    solution: Solution,
    *,
    solved_as_is: bool = True,
) -> str:
    """The payload as stored, after checking that it reproduces the key on its own.

    The payload is encoded and decoded again. When the decoded payload equals
    `instance.data` (known without decoding for plain JSON values, which
    always read back equal) and that data is what the key was solved from
    (`solved_as_is`: nothing was added to it after the solve), the key stands:
    solvers are deterministic and never change their input (both checked for
    every shipped template by tests/test_generate_purity.py), so a second
    solve of equal data gives the same answer. Otherwise (a payload that does
    not survive JSON as it was, or data changed after its solve) the decoded
    payload is solved again and must give the same key."""
    if solved_as_is and not ALWAYS_RESOLVE:
        # Plain JSON values (dicts with str keys, lists, str, int, finite
        # floats, bool, None) read back equal by construction: steer-core
        # writes them with Python's bytes, and no decoding is needed to know.
        plain = _native.plain_json(instance.data)
        if plain is not None:
            return plain
    payload = _PAYLOAD.encode(instance.data)
    data = json.loads(payload)
    if solved_as_is and not ALWAYS_RESOLVE and data == instance.data:
        return payload
    again = solver.solve(Instance(data, instance.fields, instance.choices))
    if (again.choice, again.value, again.text) != (
        solution.choice,
        solution.value,
        solution.text,
    ):
        raise AssertionError(f"{template_id}: solver is not deterministic on its payload")
    return payload


def _control_part(
    rng: np.random.Generator,
    spec: GradeSpec,
    t: TemplateSpec,
    instance: Instance,
    solution: Solution,
    values: dict[str, object],
    phrasing: str,
) -> _Part:
    """The matched control of a choice question (see steer.generate._control),
    rendered with the original's words and phrasing."""
    solver = SOLVERS[t.solver]
    control = control_instance(rng, spec, t, instance)
    answer = solver.solve(control)
    check_flipped((instance, solution), (control, answer))
    texts, tags, correct = choice_options(control, answer, t)
    problem = verify(texts, tags, correct)
    if problem:
        raise Resample(problem)
    shown = {**values, **control.text_fields(), **answer.text_fields(), "answer": texts[correct]}
    if t.explanation:
        explanation = key_after_colon(render(t.explanation, shown), texts[correct])
    else:
        working = str(shown.get("working", "")).rstrip(".")
        tail = f" {answer_sentence(texts[correct])}"
        explanation = (f"{working}.{tail}" if working else tail).strip()
    return _Part(
        render(phrasing, shown), texts, tags, correct, answer.value, "", explanation,
        control, answer,
    )  # fmt: skip


def _tidy(value: float | None) -> float | None:
    """A key's value without binary noise (1 - 0.83 is 0.17000000000000004):
    twelve significant digits keep every figure a question can show."""
    return None if value is None else float(f"{value:.12g}")


def answer_sentence(key: str) -> str:
    """The explanation's last sentence, naming the key. An option's capital is
    a sentence's or a name's: "A tie between …" and "The fixed-price contract"
    lose it after "The answer is", and an option that is itself a clause
    ("There is no Condorcet winner") is said as one."""
    first, _, rest = key.partition(" ")
    if first in ("There", "It") and rest[:1].islower():
        return f"So {key[:1].lower()}{key[1:]}."
    if first in ("A", "An", "The") and rest[:1].islower():
        key = key[:1].lower() + key[1:]
    return f"The answer is {key}."


def key_after_colon(explanation: str, key: str) -> str:
    """An explanation that names the key after a colon mid-sentence ("The
    most enjoyable: The yogurt.") gives its leading article the small letter
    ("…: the yogurt."): the option's capital is a sentence's."""
    first, _, rest = key.partition(" ")
    if first in ("A", "An", "The") and rest[:1].islower():
        return explanation.replace(f": {key}", f": {key[:1].lower()}{key[1:]}")
    return explanation


_CURRENCIES = ("$", "€", "£", "¥", "₹")


def _answer_form(t: TemplateSpec) -> str:
    """How a free-text answer is read (the question's `answer_form`): from the
    format of the variable the template's `answer` names (percent: a fraction,
    compared as a percentage; money), else money for a currency unit."""
    name = (t.answer or "").strip()
    fmt = t.formats.get(name) if name.isidentifier() else None
    if fmt == "percent":
        return "percent"
    if fmt == "money" or t.unit in _CURRENCIES:
        return "money"
    return "number"


def _one_question(
    template: Template, grade: int, index: int, seed: int, seen: set[str], streams: _Streams
) -> list[tuple[object, ...]]:
    """One question as rows (one per part, each a tuple of _parallel.COLUMNS),
    every key checked against its payload (see _resolved_payload)."""
    t = template.spec
    spec = t.grade[grade]
    structure, solver = STRUCTURES[t.structure], SOLVERS[t.solver]
    problem = "no draw made"
    rng = streams(grade, index)
    duplicates = 0
    control: _Part | None = None
    for _draw in range(MAX_DRAWS):
        try:
            instance = structure.sample(rng, spec, t)
            solution = solver.solve(instance)
            values, perspective = _render_values(template, rng, index, instance, solution)
            if solver.answer == "consistency":
                parts = consistency_parts(t, values)
                rule = consistency_rule_of(t, values)
                problem = verify_parts(parts, rule) or ""
                texts, tags, correct = parts[0][1], None, None
            else:
                if solver.answer == "numeric":
                    texts, tags, correct = numeric_options(rng, instance, solution, t, spec, grade)
                elif solver.answer == "text":
                    texts, tags, correct = text_options(rng, instance, solution, t, spec)
                else:
                    texts, tags, correct = choice_options(instance, solution, t)
                problem = verify(texts, tags, correct) or ""
        except (Resample, Unmet) as exc:
            problem = str(exc)
            continue
        if problem:
            continue
        if correct is not None:
            values["answer"] = texts[correct]
        phrasing = t.phrasings[integer(rng, 0, len(t.phrasings))]
        text = render(phrasing, values)
        if t.control is not None:
            # The matched control: same wording, person and choice order.
            try:
                control = _control_part(rng, spec, t, instance, solution, values, phrasing)
            except (Resample, Unmet) as exc:
                problem = str(exc)
                continue
        if control is not None:
            fingerprint = "\x1f".join(
                [text, *sorted(texts), control.text, *sorted(control.options)]
            )
        elif solver.answer == "consistency":
            # The numbers can sit in the options (value brackets); a reshuffle
            # of an earlier question's options is still a duplicate.
            fingerprint = "\x1f".join(
                [text, *(p[0] + "\x1e" + "\x1e".join(sorted(p[1])) for p in parts)]
            )
        elif solver.answer == "numeric":
            fingerprint = text  # the text states the whole problem
        else:
            # Choices can carry the problem (a menu of lotteries); a reshuffle
            # of an earlier question's options is still a duplicate.
            fingerprint = text + "\x1f" + "\x1f".join(sorted(texts))
        if fingerprint in seen:
            problem = "duplicate of an earlier question"
            duplicates += 1
            continue
        seen.add(fingerprint)
        # The stored payload must reproduce the key on its own. Checked after
        # the duplicate test (it draws nothing from `rng`), so repeats of
        # earlier questions, common in small grades, skip the check. The
        # original of a matched pair gained its `role` after it was solved
        # (control_instance adds it), so its payload is always solved again.
        payload = _resolved_payload(
            t.id, solver, instance, solution, solved_as_is=t.control is None
        )
        if t.explanation:
            key = texts[correct] if correct is not None else ""
            explanation = key_after_colon(render(t.explanation, values), key)
        else:
            working = str(values.get("working", "")).rstrip(".")
            working = working[:1].upper() + working[1:]  # it may open with an option's text
            tail = f" {answer_sentence(texts[correct])}" if correct is not None else ""
            explanation = (f"{working}.{tail}" if working else tail).strip()
        base_id = f"{t.id}.g{grade}.{index}"
        qid = f"{template.element}/{base_id}/"
        source = f"steer:{template.source}"
        if solver.answer != "consistency":
            assert correct is not None and tags is not None
            answered = [_Part(text, texts, tags, correct, solution.value, payload, explanation)]
            if control is not None:
                assert control.instance is not None and control.solution is not None
                control.payload = _resolved_payload(
                    t.id, solver, control.instance, control.solution
                )
                # Which part is the control: one seeded coin per question.
                at = 0 if rng.random() < 0.5 else 1
                answered.insert(at, control)
            # The final seeded order of the options (the last draws of the
            # question's stream); the parts of a matched pair share it, so the
            # control's key still sits where the original's does not.
            final: dict[int, list[int]] = {}
            out: list[tuple[object, ...]] = []
            # Labels a structure gives the question (a control story, say).
            labels = instance.data.get("question_tags") or None
            for part, p in enumerate(answered):
                n = len(p.options)
                if n not in final:
                    final[n] = _final_order(rng, n)
                order = final[n]
                # The columns of _parallel.COLUMNS, in order.
                out.append(
                    (
                        f"{qid}{part}", template.element, base_id, part, p.text,
                        [p.options[i] for i in order], order.index(p.correct), "answer",
                        None, None, t.type, t.domain, perspective, grade, t.id, seed, source,
                        p.explanation, [p.tags[i] for i in order], _tidy(p.value), labels,
                        p.payload,
                        None if p.value is None else t.tolerance,
                        None if p.value is None else _answer_form(t), order,
                    )
                )  # fmt: skip
            return out
        rows: list[tuple[object, ...]] = []
        orders = option_orders(t, values)
        for part, (part_text, options) in enumerate(parts):
            rows.append(
                (
                    f"{qid}{part}", template.element, base_id, part,
                    f"{text}\n\n{part_text}" if part == 0 else part_text, options, None,
                    "consistency", base_id, rule, t.type, t.domain, perspective, grade, t.id,
                    seed, source, explanation, None, None, None, payload, None, None,
                    orders[part],
                )
            )  # fmt: skip
        return rows
    if duplicates:
        # Draws that worked only repeated earlier questions: the template ran dry.
        return []
    raise FileFormatError(
        f"template {t.id!r}, grade {grade}: no valid question in {MAX_DRAWS} draws "
        f"(last problem: {problem})",
        source=template.source,
        where=f"line {template.line}" if template.line else None,
    )


def _template_rows(
    template: Template, grades: list[int], per_cell: int, seed: int
) -> list[tuple[object, ...]]:
    """Up to `per_cell` questions for each grade; no text repeats within the
    template. A grade whose every draw repeats an earlier question has run out
    of distinct questions and stops early (small grades such as one-digit sums
    have only so many)."""
    seen: set[str] = set()
    streams = _Streams(seed, template.spec.id)
    rows: list[tuple[object, ...]] = []
    for grade in grades:
        for i in range(per_cell):
            made = _one_question(template, grade, i, seed, seen, streams)
            if not made:
                break
            rows.extend(made)
    return rows


def generate_questions(
    templates: Iterable[Template],
    *,
    per_cell: int = 5,
    seed: int = 0,
    grades: tuple[int, int] | None = None,
    domains: Sequence[str] | None = None,
    workers: int = 1,
) -> pa.Table:
    """Generate `per_cell` questions per template × grade; returns a validated bank.

    Deterministic for a seed (whatever `workers`, the number of processes);
    no two questions of a template and grade share their text and options.
    """
    if per_cell < 1:
        raise InputError(f"per_cell must be at least 1, got {per_cell}")
    cells = [
        (template, chosen)
        for template in templates
        if not domains or template.spec.domain in domains
        for chosen in [
            [g for g in sorted(template.spec.grade) if not grades or grades[0] <= g <= grades[1]]
        ]
        if chosen
    ]
    if not cells:
        raise InputError("no templates match the requested elements, grades and domains")
    return validate_questions(run_cells(cells, per_cell, seed, workers), "<generated>")


def _benchmarks_of(selectors: Sequence[str] | None) -> set[str | None]:
    """The benchmarks full element selectors name ("steer.3.1" → steer); None
    in the set when some selector (a short id, a slug) does not say."""
    if not selectors:
        return {None}
    out: set[str | None] = set()
    for selector in selectors:
        head = selector.split(".", 1)[0]
        out.add(head if head in ("steer", "steer-me") and "." in selector else None)
    return out


def generate_bank(
    elements: Sequence[str] | None = None,
    *,
    suite: str | None = None,
    templates: Sequence[Template] | None = None,
    per_cell: int = 5,
    seed: int = 0,
    grades: tuple[int, int] | None = None,
    domains: Sequence[str] | None = None,
    workers: int = 1,
) -> pa.Table:
    """Generate a bank for taxonomy selectors (`steer.3.1`, `1.1.c`, `steer.2.*.b`).

    `suite` keeps one benchmark's templates (`steer`, `steer-me`; `all` keeps
    both); `templates` replaces the
    shipped ones (e.g. a researcher's own files, see `load_template_file`).
    """
    # Sizes from the caller reach loops and allocations: bad input, not a hang.
    per_cell = check_count("per_cell", per_cell, 1, MAX_PER_CELL)
    seed = check_count("seed", seed, 0, MAX_SEED)
    taxonomy = load_taxonomy()
    if templates is None:
        # One benchmark's folder when the suite, or every selected element, names one.
        wanted_benchmarks = {suite} if suite not in (None, "all") else _benchmarks_of(elements)
        if not elements and not domains and grades is None:
            # Every cell of the suite: big enough for workers is known before loading.
            one = next(iter(wanted_benchmarks)) if len(wanted_benchmarks) == 1 else None
            warm_up(workers, per_cell * grade_tables(one))
        templates = (
            load_templates(next(iter(wanted_benchmarks)))
            if len(wanted_benchmarks) == 1
            else load_templates()
        )
    templates = tuple(templates)
    if suite is not None and suite != "all":
        templates = tuple(t for t in templates if t.element.startswith(f"{suite}."))
        if not templates:
            raise InputError(f"no templates for suite {suite!r}")
    if elements:
        wanted: set[str] = set()
        for selector in elements:
            matched = taxonomy.select(selector)
            if not matched:
                taxonomy.element(selector)  # raises with 'did you mean'
            wanted.update(e.id for e in matched)
        chosen = [t for t in templates if t.element in wanted]
        missing = sorted(wanted - {t.element for t in chosen})
        if missing and not chosen:
            raise InputError(f"no templates yet for {', '.join(missing)}")
    else:
        chosen = list(templates)
    return generate_questions(
        chosen, per_cell=per_cell, seed=seed, grades=grades, domains=domains, workers=workers
    )
