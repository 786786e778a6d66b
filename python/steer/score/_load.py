"""Gather response tables from files, run directories or memory, remembering
where each row came from so errors can name the file and its row."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeAlias

import pyarrow as pa
import pyarrow.compute as pc

from steer._suggest import did_you_mean
from steer.errors import FileFormatError, InputError, row_location
from steer.score._asked import Asked, Bank, bank_asked, read_bank_arg, run_asked
from steer.score._coverage import CardKey, Coverage, complete, mark_errors
from steer.score._errors import with_bank_columns
from steer.score._keys import Dedupe, check_within, filler_mask, origins, resolve_keys

REQUIRED = ("n_options", "chosen_index", "correct_index")
# Columns the engine reads as numbers, and those that may not hold nulls.
NUMERIC = ("n_options", "chosen_index", "correct_index", "part", "option_probs")
NOT_NULL = ("n_options", "chosen_index")
# What multi-part and consistency-graded questions are identified by.
UNIT_KEYS = ("run_id", "element", "base_id", "part")

ResponseInput: TypeAlias = pa.Table | str | Path
BankInput: TypeAlias = str | Path | pa.Table


@dataclass(frozen=True)
class Source:
    name: str
    rows: int


@dataclass
class Loaded:
    """The concatenated responses, completed with a no-answer row for every
    asked question without one, and the coverage of every (model, adaptation).

    `coverage` maps (model, adaptation label) to what it was asked; a card
    missing from it, or with `asked` None, has unknown coverage.
    """

    table: pa.Table
    sources: list[Source]
    problems: list[str]
    coverage: dict[CardKey, Coverage] = field(default_factory=dict)

    def locate(self, row: int) -> tuple[str, int]:
        """(source name, row within it) of a row of the concatenated table."""
        for source in self.sources:
            if row < source.rows:
                return source.name, row
            row -= source.rows
        return "<responses>", row


def _expand(item: ResponseInput) -> list[ResponseInput]:
    """A directory made of runs as those runs: a game run (`steer play GAME`)
    as its rounds' run directories, a collective run (`steer run
    --collective`) as its members' and its vote's; any other input as it is."""
    if isinstance(item, pa.Table):
        return [item]
    path = Path(item)
    if (path / "game.json").is_file():
        rounds = sorted(p for p in path.glob("rounds/r*/p*") if p.is_dir())
        if not rounds:
            raise InputError(f"{path}: a game run with no rounds played yet")
        return list(rounds)
    if (path / "collective.json").is_file():
        from steer.run._collective import collective_parts

        parts = collective_parts(path)
        if not parts:
            raise InputError(f"{path}: a collective run with no member answers yet")
        return list(parts)
    return [item]


def load_responses(
    inputs: ResponseInput | Sequence[ResponseInput] | Loaded,
    *,
    bank: BankInput | None = None,
    dedupe: Dedupe = None,
) -> Loaded:
    """Concatenate response tables; paths may be Parquet/JSONL files or run dirs.

    Every asked question counts: a run directory's manifest says what it was
    asked; a bare table answered `bank` (a bank file or table) when one is
    given. Each asked question a (model, adaptation) has no usable row for
    becomes a no-answer row; a row recording an error is a no-answer. Rows
    of questions that were not asked are an error. A response's key is
    (bank_sha256, question_id, model, adaptation, sample): the same key in
    two inputs, or twice in one file or run, is an error naming both, unless
    `dedupe="latest"` (keep the latest `recorded_at`; without one, the input
    given later wins). An empty input with a bank but no manifest is an error:
    nothing says which model its no-answers belong to.

    An already `Loaded` input is returned as it is, so a caller that reports
    the reading problems first does not read the files twice.
    """
    if isinstance(inputs, Loaded):
        return inputs
    if dedupe not in (None, "latest"):
        raise InputError(f"dedupe must be 'latest' or None, got {dedupe!r}")
    items = [inputs] if isinstance(inputs, pa.Table | str | Path) else list(inputs)
    items = [part for item in items for part in _expand(item)]
    if not items:
        raise InputError("no response tables given")
    given = read_bank_arg(bank) if bank is not None else None
    tables, sources, problems, added = [], [], [], []
    coverage: dict[CardKey, dict[str | None, tuple[int, int | None]]] = {}
    for item in items:
        if isinstance(item, pa.Table):
            table, name = item, "<table>"
        else:
            table, found = _read(item)
            problems.extend(found)
            name = str(item)
        missing = [c for c in REQUIRED if c not in table.column_names]
        if missing:
            hint = did_you_mean(missing[0], table.column_names)
            extra = f" — did you mean {hint[0]!r}?" if hint else ""
            raise FileFormatError(f"missing required column{extra}", source=name, field=missing[0])
        table = mark_errors(_checked(table, name))
        asked = _asked(item, given)
        n_before = table.num_rows
        if asked is not None:
            if not asked.from_run:
                _check_bank(table, given, name)
            table = _fill_bank(table, asked)
        if dedupe is None and not isinstance(item, pa.Table):
            # A file or run given twice over, or padded with copies of its rows,
            # would count its answers more than once. (An in-memory table is the
            # caller's: its rows are scored as they are.)
            check_within(table, name)
        if not table.num_rows and asked is not None and asked.card is None:
            # No row says which model answered: no card to count no-answers for.
            raise InputError(
                f"{name}: no responses in {name}; nothing says which model the "
                f"{len(asked.ids)} questions of the bank were asked of"
            )
        if asked is not None:
            try:
                table, counts = complete(table, asked, name)
            except FileFormatError as exc:
                raise _journal_located(exc, item) from None
            for key, n in counts.items():
                per = coverage.setdefault(key, {})
                old = per.get(asked.bank_sha256, (0, None))
                per[asked.bank_sha256] = (max(old[0], n), asked.bank_size)
            # Error types (tables recorded without them) and answer_kind from the bank.
            table = with_bank_columns(table, asked.questions)
        tables.append(table)
        added.append(table.num_rows - n_before)
        sources.append(Source(name, table.num_rows))
    cards = _coverage(coverage, sources)
    if len(tables) == 1:
        table = tables[0]
    else:
        try:
            table = pa.concat_tables(tables, promote_options="permissive")
        except (pa.ArrowInvalid, pa.ArrowTypeError) as exc:
            raise InputError(f"response tables do not share a schema ({exc})") from None
    if len(tables) > 1 or dedupe is not None:
        lengths = [t.num_rows for t in tables]
        filled = filler_mask(table, lengths, added) if any(added) else None
        names = [s.name for s in sources]
        table = resolve_keys(table, origins(lengths), names, filled, dedupe)
    return Loaded(table, sources, problems, cards)


def _asked(item: ResponseInput, bank: Bank | None) -> Asked | None:
    """What `item` was asked: its manifest's record, else `bank`'s questions."""
    if isinstance(item, str | Path) and Path(item).is_dir():
        found = run_asked(Path(item), bank)
        if found is not None:
            return found
    return bank_asked(bank) if bank is not None else None


def _check_bank(table: pa.Table, bank: Bank | None, source: str) -> None:
    """Rows stamped with another bank's fingerprint did not answer `--bank`."""
    if bank is None or bank.sha256 is None or "bank_sha256" not in table.column_names:
        return
    column = table["bank_sha256"]
    if column.null_count == table.num_rows:
        return
    other = pc.fill_null(pc.not_equal(column.cast(pa.string()), bank.sha256), False)
    hits = pc.indices_nonzero(other)
    if not len(hits):
        return
    row = int(hits[0].as_py())
    theirs = str(column[row].as_py())
    raise FileFormatError(
        f"answered bank {theirs[:12]}…, not --bank {bank.sha256[:12]}… ({bank.name}); "
        "give the bank these responses answered, or the run directory",
        source=source,
        where=row_location(source, row),
        field="bank_sha256",
    )


def _journal_located(exc: FileFormatError, item: ResponseInput) -> FileFormatError:
    """A row error in a run directory read from its journal, re-pointed at the
    journal's file and line (error path only: it rereads the journal)."""
    from steer.run._runner import JOURNAL

    if not isinstance(item, str | Path) or exc.field != "question_id" or not exc.where:
        return exc
    journal = Path(item) / JOURNAL
    if not Path(item).is_dir() or not journal.is_file():
        return exc
    wanted = exc.problem.split("`")[1] if exc.problem.count("`") >= 2 else None
    if wanted is None:
        return exc
    import json

    with journal.open("rb") as fh:
        for number, line in enumerate(fh, 1):
            try:
                row = json.loads(line)
            except (ValueError, RecursionError):
                continue
            if isinstance(row, dict) and row.get("question_id") == wanted:
                return FileFormatError(
                    exc.problem, source=str(journal), where=f"line {number}", field=exc.field
                )
    return exc


def _fill_bank(table: pa.Table, asked: Asked) -> pa.Table:
    """Rows without a bank fingerprint answered the input's bank."""
    if asked.bank_sha256 is None:
        return table
    sha = pa.scalar(asked.bank_sha256, pa.string())
    if "bank_sha256" not in table.column_names:
        return table.append_column("bank_sha256", pa.repeat(sha, table.num_rows))
    column = table["bank_sha256"]
    if not column.null_count:
        return table
    index = table.schema.get_field_index("bank_sha256")
    return table.set_column(index, "bank_sha256", pc.fill_null(column.cast(pa.string()), sha))


def _coverage(
    known: dict[CardKey, dict[str | None, tuple[int, int | None]]],
    sources: list[Source],
) -> dict[CardKey, Coverage]:
    """Per card: questions asked and bank size summed over its banks. A card
    absent from the result has unknown coverage."""
    out: dict[CardKey, Coverage] = {}
    names = [s.name for s in sources]
    for key, per in known.items():
        banks = [b for _, b in per.values()]
        bank = None if any(b is None for b in banks) else sum(b for b in banks if b is not None)
        out[key] = Coverage(sum(n for n, _ in per.values()), bank, names)
    return out


def _read(path: str | Path) -> tuple[pa.Table, list[str]]:
    """`read_responses`, with 'did you mean' added when a required column is
    missing but a column of the file has a close name (error path only)."""
    from steer.bank import read_table
    from steer.run import read_responses
    from steer.schema import RESPONSE_SCHEMA

    folder = Path(path)
    started = folder.is_dir() and (folder / "manifest.json").is_file()
    if started and not any((folder / n).exists() for n in ("journal.jsonl", "responses.parquet")):
        # A run stopped before its first answer: every asked question is a
        # no-answer (its manifest says which), not a missing run.
        return RESPONSE_SCHEMA.empty_table(), []
    try:
        return read_responses(path)
    except FileFormatError as exc:
        if exc.problem != "missing required column" or not exc.field or Path(path).is_dir():
            raise
        try:
            names = read_table(path).column_names
        except InputError:
            raise exc from None
        hint = did_you_mean(exc.field, names)
        if not hint:
            raise
        raise FileFormatError(
            f"missing required column — did you mean {hint[0]!r}?",
            source=exc.source,
            where=exc.where,
            field=exc.field,
        ) from None


def row_error(exc: Exception, loaded: Loaded) -> Exception:
    """Turn a native row error (with .row/.field) into one naming file and row."""
    row = getattr(exc, "row", None)
    if row is None:
        return exc
    name, local = loaded.locate(int(row))
    return FileFormatError(
        getattr(exc, "problem", str(exc)),
        source=name,
        where=row_location(name, local),
        field=getattr(exc, "field", None),
    )


def _checked(table: pa.Table, source: str) -> pa.Table:
    """Cast the columns the engine reads to their schema types (files were
    conformed already; in-memory tables may hold strings or floats), with
    errors naming the column, so no Arrow exception escapes."""
    from steer.schema import RESPONSE_SCHEMA

    for name in NUMERIC:
        if name not in table.column_names:
            continue
        values = table[name]
        target = RESPONSE_SCHEMA.field(name).type
        if values.type != target:
            try:
                values = values.cast(target, safe=True)
            except (pa.ArrowInvalid, pa.ArrowNotImplementedError, pa.ArrowTypeError):
                raise FileFormatError(
                    f"expected {target}, got {values.type}", source=source, field=name
                ) from None
            table = table.set_column(table.schema.get_field_index(name), name, values)
        if name in NOT_NULL and values.null_count:
            row = int(pc.indices_nonzero(pc.is_null(values))[0].as_py())
            raise FileFormatError(
                "value is missing (null)",
                source=source,
                where=row_location(source, row),
                field=name,
            )
    multi = "part" in table.column_names and (pc.max(table["part"]).as_py() or 0) > 0
    rules = table["consistency_rule"] if "consistency_rule" in table.column_names else None
    if multi or (rules is not None and rules.null_count < table.num_rows):
        for name in UNIT_KEYS:
            if name not in table.column_names:
                raise FileFormatError(
                    "missing column, needed to group the parts of multi-part and "
                    "consistency-graded questions",
                    source=source,
                    field=name,
                )
    return table
