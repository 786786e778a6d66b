"""Import steer-bench question files (Parquet or JSONL) into steer's schema.

Two layouts are understood:

* the steer-bench question parquet (`element, question_id, base_id, part,
  question_text, options, correct_index, …, difficulty`), and
* the per-element JSONL of the authors' samples (`element_dir, question_id
  "<base>_<part>", options, correct` flags, `difficulty_level`).

Element names are resolved through the taxonomy (ids, short ids, slugs);
names that match a whole module or several elements must be mapped
explicitly (`element_map`).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from steer._suggest import did_you_mean
from steer.bank._order import DEFAULT_ORDER_SEED, permute_options
from steer.bank._read import read_table
from steer.bank._validate import validate_questions
from steer.errors import FileFormatError, InputError, row_location
from steer.schema import QUESTION_SCHEMA, first_true
from steer.taxonomy import Taxonomy, load_taxonomy

SAMPLE_RENAMES = {"difficulty_level": "grade", "difficulty": "grade"}


def resolve_element(
    name: str, taxonomy: Taxonomy, element_map: Mapping[str, str], source: str, row: int
) -> str:
    """Taxonomy id for a dataset's element name, or a FileFormatError saying why not."""
    if name in element_map:
        return taxonomy.element(element_map[name]).id
    found = taxonomy.find(name)
    if found is not None:
        return found.id
    module = taxonomy.module_by_slug(name)
    if module is not None:
        candidates = [e.id for e in taxonomy.elements_of(module.id)]
    else:
        candidates = [e.id for e in taxonomy if name in e.slug]
    if candidates:
        raise FileFormatError(
            f"{name!r} could be any of {', '.join(candidates)}; choose one with "
            f"--element-map {name}={candidates[0]}",
            source=source,
            where=row_location(source, row),
            field="element",
        )
    hint = did_you_mean(name, [*taxonomy.elements, *(e.slug for e in taxonomy)])
    extra = f" — did you mean {hint[0]!r}?" if hint else ""
    raise FileFormatError(
        f"unknown element {name!r}{extra}",
        source=source,
        where=row_location(source, row),
        field="element",
    )


def _correct_index_from_flags(
    flags: pa.ChunkedArray, options: pa.ChunkedArray, source: str
) -> pa.Array:
    """The position of the single true flag in each row's `correct` list."""
    flags = flags.combine_chunks()
    n_flags = pc.list_value_length(flags)
    mismatch = pc.not_equal(n_flags, pc.list_value_length(options))
    if pc.any(mismatch).as_py():
        raise FileFormatError(
            "has a different length than options",
            source=source,
            where=row_location(source, first_true(mismatch)),
            field="correct",
        )
    values = np.asarray(pc.list_flatten(flags).cast(pa.int64()), dtype=np.int64)
    parents = np.asarray(pc.list_parent_indices(flags), dtype=np.int64)
    n = len(flags)
    n_true = np.bincount(parents, weights=values != 0, minlength=n).astype(np.int64)
    bad = np.flatnonzero(n_true != 1)
    if bad.size:
        row = int(bad[0])
        raise FileFormatError(
            f"must mark exactly one option correct, marks {n_true[row]}",
            source=source,
            where=row_location(source, row),
            field="correct",
        )
    offsets = np.asarray(flags.offsets, dtype=np.int64)[:-1]
    hit = np.flatnonzero(values != 0)
    return pa.array(hit - offsets[parents[hit]], type=pa.int32())


def _split_sample_ids(ids: pa.ChunkedArray) -> tuple[pa.Array, pa.Array]:
    """'12_0' → base '12', part 0; ids without a numeric suffix keep part 0."""
    parts = pc.extract_regex(ids, r"^(?P<base>.*?)(?:_(?P<part>\d+))?$")
    base = pc.struct_field(parts, "base")
    part = pc.struct_field(parts, "part")
    part = pc.if_else(pc.equal(part, ""), "0", part).cast(pa.int32())
    return base, part


def import_steer_bench(
    paths: list[str | Path],
    element_map: Mapping[str, str] | None = None,
    taxonomy: Taxonomy | None = None,
    *,
    keep_order: bool = False,
    order_seed: int = DEFAULT_ORDER_SEED,
) -> pa.Table:
    """Read steer-bench files and return one validated question table.

    The options of every question are put in a seeded order (`order_seed`;
    see `steer.bank._order`), recorded in `option_order`, unless
    `keep_order`: the authors' order leaks the key (always last in their
    expectation questions). The parts of one question and the questions of
    one consistency group share one permutation; their rules are rewritten.
    """
    taxonomy = taxonomy or load_taxonomy()
    element_map = dict(element_map or {})
    for name, target in element_map.items():
        taxonomy.element(target)  # fail early on a bad map target
        if not name:
            raise InputError("--element-map entries look like NAME=ELEMENT_ID")
    if not paths:
        raise InputError("no input files given")
    tables = [
        validate_questions(_import_one(Path(p), element_map, taxonomy), str(p), taxonomy)
        for p in paths
    ]
    merged = pa.concat_tables(tables)
    counts = pc.value_counts(merged["question_id"])
    dupes = counts.filter(pc.greater(counts.field("counts"), 1))
    if len(dupes):
        dup = dupes.field("values")[0].as_py()
        holders = [
            (str(p), first_true(pc.equal(t["question_id"], dup)))
            for p, t in zip(paths, tables, strict=True)
            if pc.any(pc.equal(t["question_id"], dup)).as_py()
        ]
        source, row = holders[-1]
        raise FileFormatError(
            f"question {dup!r} appears in more than one file ({', '.join(h for h, _ in holders)})",
            source=source,
            where=row_location(source, row),
            field="question_id",
        )
    if keep_order:
        return merged
    permuted, _ = permute_options(merged, order_seed, rules=permuted_rule)
    return validate_questions(permuted, "<imported>", taxonomy)


def permuted_rule(rule: str, perms: list[list[int]]) -> str:
    """A consistency rule restated for permuted parts (perms[p][old] = new)."""
    try:
        from steer.generate._consistency import permute_rule
    except ImportError:  # pragma: no cover - until the rule language lands
        if all(p == perms[0] for p in perms):  # same/flip hold under one bijection
            return rule
        raise InputError(
            f"cannot restate consistency rule {rule!r} for permuted options; use --keep-order"
        ) from None
    return str(permute_rule(rule, perms))


def _import_one(path: Path, element_map: Mapping[str, str], taxonomy: Taxonomy) -> pa.Table:
    source = str(path)
    table = read_table(path)
    if table.num_rows == 0:
        raise FileFormatError("contains no questions", source=source)
    names = table.column_names
    if "element_dir" in names or "correct" in names:
        table = _from_sample_layout(table, source)
    elif "element" not in names:
        raise FileFormatError(
            "missing required column (or 'element_dir')", source=source, field="element"
        )
    table = table.rename_columns([SAMPLE_RENAMES.get(n, n) for n in table.column_names])

    # Resolve each distinct element name once, then map the column.
    raw = table["element"]
    if raw.null_count:
        raise FileFormatError(
            "value is missing (null)",
            source=source,
            where=row_location(source, first_true(pc.is_null(raw))),
            field="element",
        )
    names_seen = pc.unique(raw).to_pylist()
    resolved = [
        resolve_element(n, taxonomy, element_map, source, first_true(pc.equal(raw, n)))
        for n in names_seen
    ]
    index = pc.index_in(raw, value_set=pa.array(names_seen))
    element = pc.take(pa.array(resolved), index)
    table = table.set_column(
        names.index("element") if "element" in names else table.column_names.index("element"),
        "element",
        element,
    )

    if "base_id" not in table.column_names:
        if "question_id" not in table.column_names:
            raise FileFormatError("missing required column", source=source, field="question_id")
        base, part = _split_sample_ids(table["question_id"].cast(pa.string()))
        table = table.append_column("base_id", base)
        if "part" not in table.column_names:
            table = table.append_column("part", part)
    part = (
        table["part"]
        if "part" in table.column_names
        else pa.repeat(pa.scalar(0, pa.int32()), table.num_rows)
    )
    qid = pc.binary_join_element_wise(
        table["element"], table["base_id"].cast(pa.string()), part.cast(pa.string()), "/"
    )
    if "question_id" in table.column_names:
        table = table.set_column(table.column_names.index("question_id"), "question_id", qid)
    else:
        table = table.append_column("question_id", qid)
    if "source" not in table.column_names:
        table = table.append_column(
            "source", pa.repeat(pa.scalar(f"steer-bench:{path.name}"), table.num_rows)
        )
    return table.select([n for n in table.column_names if n in QUESTION_SCHEMA.names])


def _from_sample_layout(table: pa.Table, source: str) -> pa.Table:
    for column in ("element_dir", "question_id", "question_text", "options", "correct"):
        if column not in table.column_names:
            raise FileFormatError("missing required column", source=source, field=column)
    try:
        flags = table["correct"].cast(pa.list_(pa.int64()))
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        raise FileFormatError(
            f"expected a list of 0/1 flags, got {table['correct'].type}",
            source=source,
            field="correct",
        ) from None
    correct_index = _correct_index_from_flags(flags, table["options"], source)
    table = table.drop_columns(
        ["correct"] + [c for c in ("option_ids",) if c in table.column_names]
    )
    table = table.append_column("correct_index", correct_index)
    return table.rename_columns(
        ["element" if n == "element_dir" else n for n in table.column_names]
    )
