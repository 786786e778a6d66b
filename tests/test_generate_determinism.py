"""Generation is deterministic per seed: the same seed writes the same bank,
byte for byte, and a small fixed template file keeps a golden digest, so a
change to what a seed draws (variables, words, wording, options, their final
order) shows up here and has to be made on purpose."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pyarrow as pa

from steer.bank import file_sha256, write_bank
from steer.generate import generate_questions
from steer.schema import BankMetadata
from steer.templates import load_template_file

TEMPLATES = """\
element = "steer.2.4.b"

[[template]]
id = "golden.venue"
domain = "events"
type = "positive"
structure = "scenario"
solver = "max_expected_value"
unit = "$"
decimals = 0
perspectives = ["first", "second", "woman", "man", "anonymous"]
vars.fee = { low = 200, high = 900, step = 50 }
vars.prize = { low = 1000, high = 4000, step = 100 }
vars.p = [0.2, 0.25, 0.4, 0.5]
derive = { gamble = "prize * p" }
require = ["abs(gamble - fee) >= 0.05 * fee"]
formats = { fee = "money", prize = "money", p = "percent" }
choices = [
    { text = "a flat fee of {fee}", values = ["fee"] },
    { text = "a {p} chance of {prize}", values = ["prize", "0"], probs = ["p", "1 - p"] },
]
phrasings = [
    "{Agent} can be paid for an {event} in {n_choices} ways. Which is worth more on average?",
    "For the {event}, {agent} must pick one of these offers. Which pays more on average?",
]
words = { event = ["evening concert", "art fair", "open-air market"] }

[template.grade.4]
size = 2

[[template]]
id = "golden.stock"
domain = "retail"
type = "positive"
structure = "scenario"
solver = "formula"
decimals = 0
nonnegative = true
perspectives = ["first", "second", "woman", "man", "anonymous"]
vars = { start = { low = 2, high = 40 }, sold = { low = 1, high = 30 } }
require = ["start - sold >= 0"]
answer = "start - sold"
wrong.added_instead_of_subtracted = "start + sold"
wrong.counted_one_over = "start - sold + 1"
wrong.counted_one_under = "start - sold - 1"
phrasings = [
    "{Agent} {has} {start} {goods}; {sold} of them are sold. How many are left?",
    "After selling {sold} of {possessive} {start} {goods}, how many {does} {agent} keep?",
]
words = { goods = ["melons", "candles", "jars of honey"] }

[template.grade.4]
size = 1
options = 4
"""

# sha256 of the rows as canonical JSON (see `content_digest`) for per_cell=6,
# seed=3. Update it only for a deliberate change to what a seed generates,
# and say so in the commit.
GOLDEN = "94c33c2dccf9093d1ed0dbdfa9d1846859fb41b3179384794cbc72677ae6394c"


def content_digest(table: pa.Table) -> str:
    """sha256 of the bank's rows as sorted-key JSON: independent of how
    Arrow chunks or Parquet encodes them. `source` names the template file,
    which lives in a fresh temporary folder on every run."""
    table = table.drop_columns(["source"])
    rows = json.dumps(table.to_pylist(), sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(rows.encode()).hexdigest()


def _bank(tmp_path: Path, seed: int) -> pa.Table:
    path = tmp_path / "golden.toml"
    path.write_text(TEMPLATES, encoding="utf-8")
    return generate_questions(load_template_file(path), per_cell=6, seed=seed)


def test_the_same_seed_writes_the_same_bytes(tmp_path: Path) -> None:
    meta = BankMetadata(steer_version="test", created_at="2026-01-01T00:00:00Z", n_questions=0)
    shas = []
    for name in ("a", "b"):
        out = write_bank(_bank(tmp_path, seed=3), tmp_path / f"{name}.parquet", meta)
        shas.append(file_sha256(out))
    assert shas[0] == shas[1]
    other = write_bank(_bank(tmp_path, seed=4), tmp_path / "c.parquet", meta)
    assert file_sha256(other) != shas[0]


def test_golden_digest_of_a_fixed_template_file(tmp_path: Path) -> None:
    table = _bank(tmp_path, seed=3)
    assert table.num_rows == 12
    assert content_digest(table) == GOLDEN
