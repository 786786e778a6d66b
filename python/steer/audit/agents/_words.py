"""Word-level relations between options and their question's stem, and the
items of set-like options. Computed by exploding to (option, word) rows and
joining, so no Python loop touches a question."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
import pyarrow as pa
import pyarrow.compute as pc

from steer.audit._frame import OptionFrame

F64 = npt.NDArray[np.float64]
WORD_SPLIT = r"[^a-z0-9']+"
# "Player: a, b; Other: c" and "(a, b) and (c, d)": segments, then items.
SEGMENT_SPLIT = r"\s*;\s*"
ITEM_SPLIT = r"\s*,\s*|\s+and\s+|\s+or\s+"
LABEL = r"^(?:(?P<label>[^:]{1,60}):\s*)?(?P<rest>.*)$"


def _pairs(parent: npt.NDArray[np.int64], lists: pa.Array, name: str) -> pa.Table:
    """Distinct (parent, value) rows of a list column, empty values dropped."""
    idx = pc.list_parent_indices(lists).to_numpy()
    flat = pc.list_flatten(lists)
    keep = np.asarray(pc.greater(pc.utf8_length(flat), 0).to_numpy(zero_copy_only=False))
    t = pa.table({name: pa.array(parent[idx][keep], pa.int64()), "v": pc.filter(flat, keep)})
    return t.group_by([name, "v"]).aggregate([])


def stem_overlap(frame: OptionFrame) -> tuple[F64, F64]:
    """Per option: its number of distinct words, and the share of them that
    occur in its question's stem (both with numbers masked)."""
    if "stem_overlap" not in frame.cache:
        frame.cache["stem_overlap"] = _stem_overlap(frame)
    cached: tuple[F64, F64] = frame.cache["stem_overlap"]
    return cached


def _stem_overlap(frame: OptionFrame) -> tuple[F64, F64]:
    n_opt = len(frame.o_row)
    stem = _pairs(
        np.arange(frame.n_rows, dtype=np.int64),
        pc.split_pattern_regex(frame.stem_masked, WORD_SPLIT),
        "row",
    )
    stem = stem.append_column("hit", pa.array(np.ones(stem.num_rows, dtype=np.int64)))
    words = _pairs(
        np.arange(n_opt, dtype=np.int64), pc.split_pattern_regex(frame.o_masked, WORD_SPLIT), "opt"
    )
    opt = words["opt"].to_numpy()
    words = words.append_column("row", pa.array(frame.o_row[opt], pa.int64()))
    joined = words.join(stem, keys=["row", "v"], join_type="left outer")
    hit = pc.fill_null(joined["hit"], 0).to_numpy()
    j_opt = joined["opt"].to_numpy()
    total = np.bincount(opt, minlength=n_opt).astype(np.float64)
    found = np.bincount(j_opt, weights=hit, minlength=n_opt)
    with np.errstate(invalid="ignore", divide="ignore"):
        share = np.where(total > 0, found / total, 0.0)
    return total, share


def set_items(frame: OptionFrame) -> tuple[F64, F64, F64]:
    """Per option: its number of distinct items when read as a set
    ("Fabrikam: Keep price, Cut price; Contoso: Raise price" has three,
    labelled by player), the number of distinct items over all options of
    its question, and the least number of the question's options that share
    one of its items (equal to the option count when every other option
    contains it: a common subset)."""
    if "set_items" not in frame.cache:
        frame.cache["set_items"] = _set_items(frame)
    cached: tuple[F64, F64, F64] = frame.cache["set_items"]
    return cached


def _distinct_items(text: pa.Array | pa.ChunkedArray) -> pa.Table:
    """Each option's distinct items (`opt`, `v`), read from `text` (one string
    per option): segments split on ";", an optional "label:" per segment, items
    split on commas / "and" / "or", each labelled ("Fabrikam|Keep price")."""
    if isinstance(text, pa.ChunkedArray):  # parent indices restart in each chunk
        text = text.combine_chunks()
    segments = pc.split_pattern_regex(text, SEGMENT_SPLIT)
    seg_opt = pc.list_parent_indices(segments).to_numpy()
    parts = pc.extract_regex(pc.list_flatten(segments), LABEL)
    label = pc.fill_null(pc.struct_field(parts, "label"), "")
    items = pc.split_pattern_regex(pc.struct_field(parts, "rest"), ITEM_SPLIT)
    item_seg = pc.list_parent_indices(items).to_numpy()
    flat = pc.utf8_trim_whitespace(pc.list_flatten(items))
    labelled = pc.binary_join_element_wise(pc.take(label, pa.array(item_seg)), flat, "|")
    opt = seg_opt[item_seg]
    keep = np.asarray(pc.greater(pc.utf8_length(flat), 0).to_numpy(zero_copy_only=False))
    t = pa.table({"opt": pa.array(opt[keep], pa.int64()), "v": pc.filter(labelled, keep)})
    return t.group_by(["opt", "v"]).aggregate([])


def _holders(frame: OptionFrame, by_opt: pa.Table) -> tuple[np.ndarray, np.ndarray]:
    """Per (option, item) of `by_opt`: the option and how many options of its
    question hold the item."""
    rows = pa.array(frame.o_row[by_opt["opt"].to_numpy()], pa.int64())
    counts = (
        pa.table({"row": rows, "v": by_opt["v"]}).group_by(["row", "v"]).aggregate([("v", "count")])
    )
    mine = pa.table({"row": rows, "v": by_opt["v"], "opt": by_opt["opt"]}).join(
        counts, keys=["row", "v"], join_type="inner"
    )
    return mine["opt"].to_numpy(), mine["v_count"].to_numpy().astype(np.float64)


def _set_items(frame: OptionFrame) -> tuple[F64, F64, F64]:
    n_opt = len(frame.o_row)
    by_opt = _distinct_items(frame.o_masked)
    o = by_opt["opt"].to_numpy()
    n_items = np.bincount(o, minlength=n_opt).astype(np.float64)
    by_row = pa.table({"row": pa.array(frame.o_row[o], pa.int64()), "v": by_opt["v"]})
    by_row = by_row.group_by(["row", "v"]).aggregate([])
    union = np.bincount(by_row["row"].to_numpy(), minlength=frame.n_rows).astype(np.float64)
    # How many options of the question hold each item, then the least per option.
    opt, held = _holders(frame, by_opt)
    least = np.full(n_opt, np.inf)
    np.minimum.at(least, opt, held)
    return n_items, union[frame.o_row], least


def shared_items(frame: OptionFrame) -> F64:
    """Per option: how many (option, item) pairs of its question's other
    options repeat one of its items, the items read as in `set_items` but from
    the unmasked text ("Kim: shift 3" is one item, labelled by person). Slips
    of a whole answer keep most of its items, so a key built that way is the
    hub of its menu."""
    if "shared_items" not in frame.cache:
        frame.cache["shared_items"] = _shared_items(frame)
    cached: F64 = frame.cache["shared_items"]
    return cached


def _shared_items(frame: OptionFrame) -> F64:
    opt, held = _holders(frame, _distinct_items(frame.o_text))
    return np.bincount(opt, weights=held - 1.0, minlength=len(frame.o_row))
