"""Absurd sizes handed straight to the extension (issue 19 §3): every native
function that allocates by a size it is given (groups, bins, resamples,
parents, draws, key space) refuses it with steer's `InputError` up front, and
the Rust core allocates fallibly behind that, so nothing aborts the process.

The calls run in a child process: an allocation abort would kill it with a
signal, which this test then reports by case instead of dying with it.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from typing import Any

import numpy as np
import pytest

from steer import _native
from steer.errors import InputError

HUGE = 2**62
TOP = 2**64 - 1  # the largest size that converts to usize

EMPTY_PARENTS = "np.zeros(0, np.uint32)"
KEY = "np.zeros(1, np.int32)"

# name: (call, regex its InputError message must match)
CASES: dict[str, tuple[str, str]] = {
    "score_cells bins": ("_native.score_cells({'n_groups': 1}, 10**9)", r"^bins: "),
    "score_cells bins top": (f"_native.score_cells({{'n_groups': 1}}, {TOP})", r"^bins: "),
    "score_cells groups": (f"_native.score_cells({{'n_groups': {HUGE}}}, 10)", "cells"),
    "score_cells groups top": (f"_native.score_cells({{'n_groups': {TOP}}}, 1)", "cells"),
    "score_keyed space": ("_native.score_keyed({}, [], [10**6, 10**6], 10)", "cells"),
    "score_keyed radix overflow": (f"_native.score_keyed({{}}, [], [{TOP}], 10)", "cells"),
    "score_keyed bins": (f"_native.score_keyed({{}}, [], [2], {HUGE})", r"^bins: "),
    "ece_equal_mass bins": (f"_native.ece_equal_mass({{}}, {HUGE})", r"^bins: "),
    "ece_equal_mass groups": (
        f"_native.ece_equal_mass({{'n_groups': {HUGE}}}, 10)",
        r"^n_groups: ",
    ),
    "bootstrap_ci resamples": (
        f"_native.bootstrap_ci({{}}, ['exact_match'], resamples={HUGE})",
        r"^resamples: ",
    ),
    "bootstrap_ci bins": (
        f"_native.bootstrap_ci({{}}, ['ece'], resamples=10, bins={TOP})",
        r"^bins: ",
    ),
    "bootstrap_ci groups": (
        f"_native.bootstrap_ci({{'n_groups': {HUGE}}}, ['exact_match'], resamples=10)",
        r"^n_groups: ",
    ),
    "bootstrap_ci kept replicates": (
        "_native.bootstrap_ci({'n_groups': 50_000_000}, ['gap', 'ece'],"
        " resamples=100_000, keep_replicates=True)",
        "replicates",
    ),
    "bootstrap_min resamples": (
        f"_native.bootstrap_min({{}}, 'gap', {EMPTY_PARENTS}, 1, resamples={HUGE})",
        r"^resamples: ",
    ),
    "bootstrap_min parents": (
        f"_native.bootstrap_min({{}}, 'gap', {EMPTY_PARENTS}, {HUGE}, resamples=10)",
        r"^n_parents: ",
    ),
    "bootstrap_min groups": (
        f"_native.bootstrap_min({{'n_groups': {TOP}}}, 'gap', {EMPTY_PARENTS}, 1, resamples=10)",
        r"^n_groups: ",
    ),
    "paired_bootstrap resamples": (
        f"_native.paired_bootstrap(np.ones(3), np.ones(3), resamples={HUGE})",
        r"^resamples: .* is too many$",
    ),
    "paired_bootstrap resamples top": (
        f"_native.paired_bootstrap(np.ones(3), np.ones(3), resamples={TOP})",
        r"^resamples: ",
    ),
    "paired_bootstrap no resamples": (
        "_native.paired_bootstrap(np.ones(3), np.ones(3), resamples=0)",
        r"^resamples: ",
    ),
    "binomial_draws size": (f"_native.binomial_draws(3, 0.5, {HUGE})", r"^size: "),
    "binomial_draws size top": (f"_native.binomial_draws(3, 0.5, {TOP})", r"^size: "),
    "encode_groups key space": (
        f"_native.encode_groups([{KEY}, {KEY}], [2**40, 2**40])",
        "key combinations",
    ),
    "encode_groups radix overflow": (
        f"_native.encode_groups([{KEY}], [{TOP}])",
        "key combinations",
    ),
}

CHILD = """
import json, sys
import numpy as np
from steer import _native
from steer.errors import InputError
for name, call in json.load(sys.stdin).items():
    print(json.dumps({"start": name}), flush=True)
    try:
        eval(call)
        outcome = {"type": None, "message": ""}
    except BaseException as err:
        outcome = {"type": type(err).__name__, "input_error": isinstance(err, InputError),
                   "message": str(err)}
    print(json.dumps({"case": name, **outcome}), flush=True)
"""


@pytest.fixture(scope="module")
def outcomes() -> dict[str, dict[str, Any]]:
    """Runs every case in a child process; a case that kills the child is
    recorded as a crash and the rest run in a fresh child."""
    left = {name: call for name, (call, _) in CASES.items()}
    seen: dict[str, dict[str, Any]] = {}
    while left:
        proc = subprocess.run(
            [sys.executable, "-c", CHILD],
            input=json.dumps(left),
            capture_output=True,
            text=True,
            timeout=300,
        )
        started = None
        for line in proc.stdout.splitlines():
            record = json.loads(line)
            if "start" in record:
                started = record["start"]
            else:
                seen[record["case"]] = record
                left.pop(record["case"])
                started = None
        if proc.returncode != 0:
            crashed = started or next(iter(left))
            seen[crashed] = {
                "type": f"crash (exit status {proc.returncode})",
                "message": proc.stderr[-2000:],
            }
            left.pop(crashed, None)
    return seen


@pytest.mark.parametrize("name", list(CASES))
def test_absurd_size_is_an_input_error(outcomes: dict[str, dict[str, Any]], name: str) -> None:
    got = outcomes[name]
    assert got.get("input_error"), f"{name}: {got['type']}: {got['message']}"
    _, pattern = CASES[name]
    assert re.search(pattern, got["message"]), got["message"]


def test_sizes_at_the_limits_still_work() -> None:
    draws = _native.binomial_draws(3, 0.5, 1000, seed=1)
    assert draws.shape == (1000,) and draws.max() <= 3
    means = _native.paired_bootstrap(np.ones(3), np.zeros(3), resamples=100_000)
    assert means.shape == (100_000, 2)
    assert (means[:, 0] == 1).all() and (means[:, 1] == 0).all()
    empty = _native.binomial_draws(3, 0.5, 0)
    assert empty.shape == (0,)


def test_bootstrap_without_metrics_is_an_input_error() -> None:
    columns = {
        "group": np.zeros(4, np.uint32),
        "n_groups": 1,
        "n_options": np.full(4, 2, np.int32),
        "chosen": np.zeros(4, np.int32),
        "correct": np.array([0, 1, 0, 1], np.int32),
    }
    for keep in (False, True):
        with pytest.raises(InputError, match=r"^metrics: need at least one metric$"):
            _native.bootstrap_ci(columns, [], resamples=10, keep_replicates=keep)
    assert _native.bootstrap_ci(columns, ["gap"], resamples=10)["lo"].shape == (1, 1)


def test_negative_or_oversized_ints_raise_not_crash() -> None:
    """Sizes that do not even convert to an unsigned machine word are refused
    at the argument (OverflowError) before any Rust code runs."""
    with pytest.raises((OverflowError, InputError)):
        _native.binomial_draws(3, 0.5, -1)
    with pytest.raises((OverflowError, InputError)):
        _native.paired_bootstrap(np.ones(3), np.ones(3), resamples=2**64)
