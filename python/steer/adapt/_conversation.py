"""Put a question (all parts of it, in one conversation) to a model under an
adaptation, and turn the replies into answers.

A backend supplies one coroutine, `call(messages, kind) -> Completion`; every
format is a fixed sequence of such calls:

- mc / none: options shown, one answer turn.
- shown: options shown, a reasoning turn, then an answer turn.
- hidden: a reasoning turn without options, then the options and an answer turn.
- together: options shown, one turn with an explanation ending "ANSWER: X".
- separate: an explanation turn, then a fresh call that sees only the
  explanation and the options and answers with a letter.
- free: no options; a numeric reply credited only when it matches the key and
  is closer to it than to every distractor, else read as the distractor it
  matches, else answered off the options (see _free.judge_reply); a
  categorical reply by the option's words (_free.judge_words).
"""

from __future__ import annotations

import json
import re
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any

from steer.adapt import _prompts as prompts
from steer.adapt._free import extract_number, read_free_reply
from steer.adapt._letters import letters, parse_letter
from steer.adapt._lists import number_list, read_number_list
from steer.adapt._probs import first_letter_position, letter_mass, option_probs
from steer.adapt._types import Answer, CallKind, Completion, Message
from steer.schema import NO_ANSWER, Adaptation

Call = Callable[[list[Message], CallKind], Awaitable[Completion]]
_ANSWER_MARK = re.compile(r"answer", re.IGNORECASE)
#: Times an elicitation trial (`steer play`) is asked again when its reply names
#: no option; a reply still unparsable after that is recorded as no answer.
ELICIT_REASKS = 2


def _format(adaptation: Adaptation) -> str:
    # `cot` is the older spelling of the shown/hidden formats.
    if adaptation.format == "mc" and adaptation.cot != "none":
        return adaptation.cot
    return adaptation.format


def _example_turns(example: Mapping[str, Any], fmt: str) -> list[Message]:
    key = int(example["correct_index"])
    letter = letters(len(example["options"]))[key]
    explanation = str(example.get("explanation") or "").strip()
    if fmt == "free":
        value = example.get("answer_value")
        shown = example["options"][key]
        if value is not None:
            pct = example.get("answer_form") == "percent"
            shown = f"{value * 100:g}%" if pct else f"{value:g}"
        return [
            {"role": "user", "content": prompts.without_options(example, prompts.FREE)},
            {"role": "assistant", "content": f"{explanation}\n\\boxed{{{shown}}}"},
        ]
    if fmt in ("shown", "hidden", "together"):
        return [
            {"role": "user", "content": prompts.with_options(example, prompts.TOGETHER)},
            {"role": "assistant", "content": f"{explanation}\nANSWER: {letter}"},
        ]
    return [
        {"role": "user", "content": prompts.with_options(example, prompts.LETTER_ONLY)},
        {"role": "assistant", "content": letter},
    ]


def system_message(adaptation: Adaptation) -> Message:
    """The system message of a conversation under `adaptation`: the persona's
    text first where it has one (`Adaptation.with_persona`)."""
    if adaptation.persona is not None and adaptation.persona_text is None:
        raise ValueError(
            f"adaptation persona {adaptation.persona!r} has no text "
            "(give it with Adaptation.with_persona)"
        )
    return {"role": "system", "content": prompts.system_text(adaptation.persona_text)}


def opening(examples: Sequence[Mapping[str, Any]], adaptation: Adaptation) -> list[Message]:
    """System prompt (with the persona, if any) and few-shot turns that start
    every conversation."""
    messages: list[Message] = [system_message(adaptation)]
    fmt = _format(adaptation)
    for example in examples:
        messages.extend(_example_turns(example, fmt))
    return messages


def _probs_at(
    done: Completion, n: int, adaptation: Adaptation, after_mark: bool
) -> list[float] | None:
    if not done.tokens or not done.top_logprobs:
        return None
    start = 0
    if after_mark:
        marks = list(_ANSWER_MARK.finditer(done.text))
        if marks:
            offset, seen = marks[-1].end(), 0
            for i, token in enumerate(done.tokens):
                seen += len(token)
                if seen > offset:
                    start = i
                    break
    pos = first_letter_position(done.tokens, n, start)
    if pos is None or pos >= len(done.top_logprobs):
        return None
    top = dict(done.top_logprobs[pos]) or {done.tokens[pos]: 0.0}
    return option_probs(letter_mass(top, n), adaptation.prob_mode)


def _free_choice(text: str, q: Mapping[str, Any]) -> tuple[int, float | None]:
    # The credit rule and error classification live in _free (judge_reply for
    # numbers, judge_words for categorical questions).
    return read_free_reply(text, q)


def number_range(q: Mapping[str, Any]) -> tuple[float, float] | None:
    """The range of a game's numeric move (`steer play GAME`), from an
    elicitation row's payload; None for every other row."""
    if q.get("grading") != "elicit" or not q.get("payload"):
        return None
    span = json.loads(q["payload"]).get("number_range")
    return None if span is None else (float(span[0]), float(span[1]))


def _in_range(text: str, span: tuple[float, float]) -> float | None:
    value = extract_number(text)
    return value if value is not None and span[0] <= value <= span[1] else None


class _Tally:
    def __init__(self) -> None:
        self.tokens_in = self.tokens_out = 0
        self.cost: float | None = 0.0
        self.latency = 0.0

    def add(self, c: Completion) -> Completion:
        self.tokens_in += c.tokens_in
        self.tokens_out += c.tokens_out
        self.cost = None if self.cost is None or c.cost_usd is None else self.cost + c.cost_usd
        self.latency += c.latency_s
        return c


async def converse(
    call: Call,
    parts: Sequence[Mapping[str, Any]],
    adaptation: Adaptation,
    examples: Sequence[Mapping[str, Any]] = (),
) -> list[Answer]:
    """Answers for every part of one question, asked in order in one conversation."""
    fmt = _format(adaptation)
    messages = opening(examples, adaptation)
    answers = []
    for q in parts:
        tally = _Tally()
        explanation: str | None = None
        mark = False
        if fmt in ("mc", "none"):
            messages.append(
                {"role": "user", "content": prompts.with_options(q, prompts.LETTER_ONLY)}
            )
            final = tally.add(await call(messages, "answer"))
        elif fmt in ("shown", "hidden"):
            first = prompts.with_options(q, prompts.REASON_FIRST) if fmt == "shown" else None
            messages.append(
                {
                    "role": "user",
                    "content": first or prompts.without_options(q, prompts.REASON_FIRST),
                }
            )
            reasoning = tally.add(await call(messages, "reason"))
            explanation = reasoning.text
            messages.append({"role": "assistant", "content": reasoning.text})
            follow = prompts.FINAL_LETTER
            if fmt == "hidden":
                follow = f"{prompts.HIDDEN_OPTIONS}\n\n{prompts.option_block(q['options'])}"
            messages.append({"role": "user", "content": follow})
            final = tally.add(await call(messages, "answer"))
        elif fmt == "together":
            messages.append({"role": "user", "content": prompts.with_options(q, prompts.TOGETHER)})
            final = tally.add(await call(messages, "reason"))
            explanation, mark = final.text, True
        elif fmt == "separate":
            messages.append(
                {"role": "user", "content": prompts.with_options(q, prompts.EXPLAIN_ONLY)}
            )
            explained = tally.add(await call(messages, "reason"))
            explanation = explained.text
            side: list[Message] = [
                system_message(adaptation),
                {
                    "role": "user",
                    "content": f"{prompts.SEPARATE_ANSWER}\n\nExplanation:\n{explanation}\n\n"
                    f"Options:\n{prompts.option_block(q['options'])}",
                },
            ]
            final = tally.add(await call(side, "answer"))
            messages.append({"role": "assistant", "content": explanation})
            answers.append(_answer(q, final, explanation, tally, adaptation, mark))
            continue
        elif fmt == "free" and number_list(q) is not None:
            answers.append(await _ask_list(call, messages, q, tally))
            continue
        elif fmt == "free":
            messages.append({"role": "user", "content": prompts.without_options(q, prompts.FREE)})
            final = tally.add(await call(messages, "reason"))
            messages.append({"role": "assistant", "content": final.text})
            span = number_range(q)
            if span is None:
                chosen, read = _free_choice(final.text, q)
            else:
                # A game's numeric move: any number in the range is a move; a
                # reply without one is asked again (a bounded number of times).
                read = _in_range(final.text, span)
                for _ in range(ELICIT_REASKS):
                    if read is not None:
                        break
                    lo, hi = (f"{x:g}" for x in span)
                    messages.append(
                        {"role": "user", "content": prompts.REASK_NUMBER.format(lo=lo, hi=hi)}
                    )
                    final = tally.add(await call(messages, "answer"))
                    messages.append({"role": "assistant", "content": final.text})
                    read = _in_range(final.text, span)
                chosen = NO_ANSWER if read is None else 0
                if read is None:  # keep what was read, for the forfeit's reason
                    read = extract_number(final.text)
            answers.append(
                Answer(
                    chosen_index=chosen,
                    answer_read=read,
                    option_probs=None,
                    response_text=final.text,
                    tokens_in=tally.tokens_in,
                    tokens_out=tally.tokens_out,
                    cost_usd=tally.cost,
                    latency_s=tally.latency,
                )
            )
            continue
        else:  # pragma: no cover - Adaptation validates the format
            raise ValueError(f"unknown format {fmt!r}")
        messages.append({"role": "assistant", "content": final.text})
        if q.get("grading") == "elicit":
            # An experiment's choice is data, not a graded answer: a reply that
            # names no option is asked again (a bounded number of times).
            n = len(q["options"])
            for _ in range(ELICIT_REASKS):
                if parse_letter(final.text, n) != NO_ANSWER:
                    break
                messages.append({"role": "user", "content": prompts.REASK})
                final = tally.add(await call(messages, "answer"))
                messages.append({"role": "assistant", "content": final.text})
                mark = False
        answers.append(_answer(q, final, explanation, tally, adaptation, mark))
    return answers


async def _ask_list(
    call: Call, messages: list[Message], q: Mapping[str, Any], tally: _Tally
) -> Answer:
    """A game move given as a list of whole numbers (`number_list`): asked,
    then asked again with the reason while the reply gives no valid list."""
    shape = number_list(q)
    assert shape is not None
    count, total = shape
    ask = prompts.FREE_LIST.format(count=count, total=total)
    messages.append({"role": "user", "content": prompts.without_options(q, ask)})
    final = tally.add(await call(messages, "reason"))
    messages.append({"role": "assistant", "content": final.text})
    values, why = read_number_list(final.text, count, total)
    for _ in range(ELICIT_REASKS):
        if values is not None:
            break
        again = prompts.REASK_LIST.format(why=why, count=count, total=total)
        messages.append({"role": "user", "content": again})
        final = tally.add(await call(messages, "answer"))
        messages.append({"role": "assistant", "content": final.text})
        values, why = read_number_list(final.text, count, total)
    return Answer(
        chosen_index=NO_ANSWER if values is None else 0,
        response_text=final.text,
        tokens_in=tally.tokens_in,
        tokens_out=tally.tokens_out,
        cost_usd=tally.cost,
        latency_s=tally.latency,
    )


def _answer(
    q: Mapping[str, Any],
    final: Completion,
    explanation: str | None,
    tally: _Tally,
    adaptation: Adaptation,
    after_mark: bool,
) -> Answer:
    n = len(q["options"])
    return Answer(
        chosen_index=parse_letter(final.text, n),
        option_probs=_probs_at(final, n, adaptation, after_mark),
        response_text=final.text,
        explanation=explanation,
        tokens_in=tally.tokens_in,
        tokens_out=tally.tokens_out,
        cost_usd=tally.cost,
        latency_s=tally.latency,
    )
