"""Generated banks put each question's options in a final seeded order
(issue 20 §5), recorded in `option_order`, drawn from the question's own
stream: deterministic per seed, key and tags intact, keys spread evenly over
the positions, the two parts of a matched control pair in one order."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pytest
from click.testing import CliRunner

from steer.audit._chi2 import chisquare
from steer.bank import read_bank, read_bank_metadata
from steer.bank._order import in_payload_order
from steer.cli import cli
from steer.generate import generate_bank

ELEMENTS = ["1.1.c", "2.4.b", "2.4.c", "3.1.b"]


@pytest.fixture(scope="module")
def bank() -> pa.Table:
    return generate_bank(ELEMENTS, per_cell=40, seed=5)


def test_answer_graded_parts_record_a_permutation(bank: pa.Table) -> None:
    answer = [q for q in bank.to_pylist() if q["grading"] == "answer"]
    assert answer
    identity = 0
    for q in answer:
        order = q["option_order"]
        assert sorted(order) == list(range(len(q["options"])))
        identity += order == sorted(order)
        back = in_payload_order(q)
        # The key and its tag travel together; the explanation names the key's text.
        assert q["options"][q["correct_index"]] == back["options"][back["correct_index"]]
        assert q["option_tags"][q["correct_index"]] == "key"
        # (mid-sentence, a leading article takes the small letter: "…: the bonus")
        key = q["options"][q["correct_index"]]
        assert key in q["explanation"] or key[:1].lower() + key[1:] in q["explanation"]
    # A uniform permutation is the identity about 1/n! of the time.
    assert identity < 0.6 * len(answer)


def test_keys_are_spread_over_positions(bank: pa.Table) -> None:
    for element in ("steer.1.1.c", "steer.2.4.b", "steer.3.1.b"):
        rows = [q for q in bank.to_pylist() if q["element"] == element]
        width = max(len(q["options"]) for q in rows)
        observed = np.bincount([q["correct_index"] for q in rows], minlength=width).astype(float)
        expected = np.zeros(width)
        for n, count in Counter(len(q["options"]) for q in rows).items():
            expected[:n] += count / n
        assert chisquare(observed, expected)[1] > 1e-3, (element, observed)


def test_control_pairs_share_one_order(bank: pa.Table) -> None:
    pairs: dict[str, list[dict]] = defaultdict(list)
    for q in bank.to_pylist():
        if q["element"] == "steer.2.4.c":
            pairs[q["base_id"]].append(q)
    assert pairs
    for parts in pairs.values():
        assert len(parts) == 2
        assert parts[0]["option_order"] == parts[1]["option_order"]
        # The control's key still sits where the original's does not.
        assert parts[0]["correct_index"] != parts[1]["correct_index"]
        roles = {json.loads(q["payload"])["role"] for q in parts}
        assert roles == {"original", "control"}


def test_order_is_deterministic_per_seed(bank: pa.Table) -> None:
    again = generate_bank(ELEMENTS, per_cell=40, seed=5)
    assert again.equals(bank)
    other = generate_bank(ELEMENTS, per_cell=40, seed=6)
    assert other["option_order"].to_pylist() != bank["option_order"].to_pylist()


def test_cli_generate_records_the_order(tmp_path: Path) -> None:
    out = tmp_path / "bank.parquet"
    done = subprocess.run(
        [sys.executable, "-m", "steer", "generate", "--elements", "1.1.c",
         "--per-cell", "3", "--seed", "9", "-o", str(out)],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    meta = read_bank_metadata(out)
    assert meta is not None and meta.option_order == "permuted" and meta.order_seed == 9
    info = subprocess.run(
        [sys.executable, "-m", "steer", "bank", "info", str(out)],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert "options permuted with seed 9" in info.stdout


def test_cli_llm_bank_is_permuted_too(fake: Any, tmp_path: Path) -> None:
    """The fake model always writes its key first; the bank does not keep it there."""
    from test_generate_llm import fresh_lottery

    state, url = fake
    state.reply = fresh_lottery
    out = tmp_path / "llm.parquet"
    done = CliRunner().invoke(
        cli,
        ["generate", "--llm", "openai:test-model", "--base-url", url, "--elements", "1.1.c",
         "--grades", "3", "--per-cell", "12", "--seed", "7", "-o", str(out)],
        catch_exceptions=False,
    )  # fmt: skip
    assert done.exit_code == 0, done.output
    rows = read_bank(out).to_pylist()
    assert len({q["correct_index"] for q in rows}) > 1
    for q in rows:
        back = in_payload_order(q)
        assert back["correct_index"] == 0  # where the model put it
        assert q["options"][q["correct_index"]] == back["options"][0]
    meta = read_bank_metadata(out)
    assert meta is not None and meta.option_order == "permuted" and meta.order_seed == 7


def test_final_order_is_uniform_over_all_orders() -> None:
    from itertools import permutations

    from steer.generate._generate import _final_order

    rng = np.random.default_rng(3)
    for n in (2, 3, 4, 7):
        draws = Counter(tuple(_final_order(rng, n)) for _ in range(6000))
        assert set(draws) <= set(permutations(range(n)))
        if n <= 4:
            every = len(list(permutations(range(n))))
            observed = np.array([draws[p] for p in permutations(range(n))], dtype=float)
            assert chisquare(observed, np.full(every, 6000 / every))[1] > 1e-4


# Once options move, an explanation may name the key by its text, never by a
# display letter. 2.5.d names its four gambles "A"–"D" in the question itself
# (a clash with the display letters, left to that template's owner).
_LETTER = re.compile(
    r"\b(?:[Oo]ption|[Cc]hoice|[Ll]etter)\s+\(?[A-H]\)?(?=[\s.,;:]|$)"
    r"|\b[Aa]nswer(?: is)?:?\s+\(?[A-H]\)?(?=[.,;:)]|$)"
)
NAMES_GAMBLES_BY_LETTER = {"steer.2.5.d"}


def test_no_explanation_names_an_option_by_letter() -> None:
    bank = generate_bank(["steer"], per_cell=1, seed=2)
    found = [
        (q["question_id"], m.group(0))
        for q in bank.to_pylist()
        if q["element"] not in NAMES_GAMBLES_BY_LETTER
        for m in [_LETTER.search(q["explanation"] or "")]
        if m
    ]
    assert not found, found[:5]
