"""What each input was asked: the denominator of its scores.

A run directory's manifest records its bank (path and sha256) and the ids of
the questions it was asked (`asked`; manifests written before that field hold
the first `limit` rows of the bank). A bare response table has no manifest: the
`--bank FILE` it answered supplies every question of that bank. An input with
neither has an unknown denominator (coverage "unknown").
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc

from steer.errors import FileFormatError, InputError

MANIFEST = "manifest.json"


@dataclass(frozen=True)
class Asked:
    """The questions one input was asked.

    `ids` are the asked question ids (unique); `questions` the matching bank
    rows, row k asking `ids[k]`, or None when the bank file could not be found (then
    only an input with a row for every asked question can be scored);
    `bank_size` the number of questions in the bank (None when unknown).
    `card` is (model, adaptation dict, run_id, backend) from a manifest, so
    that a run without a single row still gets its card.
    """

    source: str
    ids: pa.Array
    questions: pa.Table | None
    bank_size: int | None
    bank_sha256: str | None
    card: tuple[str, dict[str, object], str, str] | None = None
    # A run directory's whole bank (None: not found, or not a run). A run
    # rerun with a smaller --limit keeps the answers of its earlier, larger
    # ask: rows of its own bank outside `ids` widen the ask instead of failing.
    run_bank: pa.Table | None = None
    from_run: bool = False

    def widened(self, extra: pa.Array) -> Asked:
        """The ask plus question ids `extra` (this run answered them earlier)."""
        ids = pa.concat_arrays([self.ids, extra.cast(self.ids.type)])
        questions = self.questions
        if questions is not None and self.run_bank is not None:
            more = self.run_bank.filter(pc.is_in(self.run_bank["question_id"], value_set=extra))
            order = pc.index_in(extra.cast(self.ids.type), value_set=more["question_id"])
            questions = pa.concat_tables([questions, more.take(order)])
        return replace(self, ids=ids, questions=questions)


@dataclass(frozen=True)
class Bank:
    """A question bank given with `--bank` (or `bank=`)."""

    name: str
    table: pa.Table
    sha256: str | None


def read_bank_arg(bank: str | Path | pa.Table) -> Bank:
    """The bank of `--bank FILE`, validated like any bank."""
    from steer.bank import file_sha256, read_bank

    if isinstance(bank, pa.Table):
        return Bank("<bank>", bank, None)
    path = Path(bank)
    if path.exists() and not path.is_file():
        what = "a directory" if path.is_dir() else "not a regular file (a pipe, device or socket)"
        raise InputError(f"{path}: {what}, expected a bank file (--bank)")
    if not path.is_file():
        raise InputError(f"{path}: no such bank file (--bank)")
    return Bank(str(path), read_bank(path), file_sha256(path))


def bank_asked(bank: Bank) -> Asked:
    """A bare table answered `bank`: every question of it was asked."""
    ids = _unique_ids(bank.table, bank.name)
    return Asked(bank.name, ids, bank.table, bank.table.num_rows, bank.sha256)


def run_asked(run_dir: Path, bank: Bank | None) -> Asked | None:
    """What the run in `run_dir` was asked, from its manifest (None: no manifest).

    The bank rows come from `bank` when its sha256 matches the manifest's,
    else from the manifest's `bank_path` (as recorded, or beside the run).
    """
    from steer.bank import file_sha256, read_bank

    path = run_dir / MANIFEST
    if not path.is_file():
        return None
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError, RecursionError) as exc:
        raise FileFormatError(f"not a valid run manifest ({exc})", source=str(path)) from None
    if not isinstance(doc, dict):
        raise FileFormatError("not a valid run manifest (not a JSON object)", source=str(path))
    sha = doc.get("bank_sha256")
    questions: pa.Table | None = None
    if bank is not None and bank.sha256 == sha:
        questions = bank.table
    else:
        recorded = doc.get("bank_path")
        if isinstance(recorded, str) and recorded:
            for candidate in (Path(recorded), run_dir / recorded, run_dir.parent / recorded):
                if candidate.is_file() and file_sha256(candidate) == sha:
                    questions = read_bank(candidate)
                    break
    card = _manifest_card(doc)
    asked = doc.get("asked")
    if asked is None:
        # Manifests before `asked`: the run asked the first `limit` rows.
        if questions is None:
            return None
        limit = doc.get("limit")
        rows = questions if limit is None else questions.slice(0, int(limit))
        ids = _unique_ids(rows, str(path))
        return Asked(str(path), ids, rows, questions.num_rows, sha, card, questions, True)
    if not isinstance(asked, list) or not all(isinstance(q, str) for q in asked):
        raise FileFormatError(
            "`asked` must be a list of question ids", source=str(path), field="asked"
        )
    ids = pc.unique(pa.array(asked, pa.string()))
    if questions is None:
        return Asked(str(path), ids, None, None, sha, card, None, True)
    chosen = questions.filter(pc.is_in(questions["question_id"], value_set=ids))
    if chosen.num_rows != len(ids):
        raise FileFormatError(
            f"{len(ids) - chosen.num_rows} of the question ids asked are not in the run's bank",
            source=str(path),
            field="asked",
        )
    # Bank order: `questions` row k is the question `ids[k]`.
    ids = _unique_ids(chosen, str(path))
    return Asked(str(path), ids, chosen, questions.num_rows, sha, card, questions, True)


def _manifest_card(doc: dict[str, object]) -> tuple[str, dict[str, object], str, str] | None:
    from steer.schema import Adaptation

    model = doc.get("model")
    if not isinstance(model, str):
        return None
    raw = doc.get("adaptation")
    try:
        adaptation = Adaptation.model_validate(raw if isinstance(raw, dict) else {})
    except ValueError:
        return None
    return (model, adaptation.model_dump(), str(doc.get("run_id", "")), str(doc.get("backend", "")))


def _unique_ids(table: pa.Table, source: str) -> pa.Array:
    ids = table["question_id"].combine_chunks()
    if ids.type != pa.string():
        ids = ids.cast(pa.string())
    unique = pc.unique(ids)
    if len(unique) != len(ids):
        counts = pc.value_counts(ids)
        dup = counts.filter(pc.greater(pc.struct_field(counts, "counts"), 1))[0]
        raise FileFormatError(
            f"question id `{dup['values']}` appears more than once in the bank",
            source=source,
            field="question_id",
        )
    return unique
