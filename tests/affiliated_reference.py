"""Plain-Python reference for 4.4.c, auctions with affiliated values.

The expected-revenue ranking of the English, second-price and first-price
auctions that the model a question states makes a theorem (Milgrom and Weber
1982), and the ranking a key text claims. Written from the theorems, not from
the templates' `values` expressions.
"""

from __future__ import annotations

# Templates whose bidders' values depend on the others' signals (the rest
# have private values, where the English auction works like a second-price one).
INTERDEPENDENT = {"af.oil", "af.spectrum"}


def affiliated_ranking(env: dict[str, float], interdependent: bool) -> dict[str, int]:
    """Expected-revenue rank of each format (higher raises more; equal ranks tie)
    for symmetric bidders, by Milgrom and Weber (1982): jointly normal signals
    with a positive common correlation are strictly affiliated, with 0
    independent. Independent and risk neutral: revenue equivalence. Independent
    private values and risk averse: first-price (Dutch) above second-price
    (English). Affiliated and risk neutral: English >= second-price > first-price,
    the first strict only with interdependent values and three or more bidders."""
    # utility s^r of the surplus, or a sure equivalent of a 50-50 gamble on `stake` or nothing
    averse = env["r"] < 1 if "r" in env else "ce" in env and env["ce"] < env["stake"] / 2
    affiliated = env["rho"] > 0
    if averse:
        assert not affiliated and not interdependent  # the ranking would be ambiguous
        return {"english": 0, "second": 0, "first": 1}
    if not affiliated:
        return {"english": 0, "second": 0, "first": 0}
    english = 2 if interdependent and env["n"] >= 3 else 1
    return {"english": english, "second": 1, "first": 0}


def claimed_ranking(key: str) -> dict[str, int]:
    """The ranks a 4.4.c answer claims; a pairwise answer about English and Dutch
    speaks of second-price and first-price (the same auctions with private values)."""
    if "the most" in key:
        return {"english": 2, "second": 1, "first": 0}
    if "same, " in key:
        return {"english": 1, "second": 1, "first": 0}
    if "three formats" in key:
        return {"english": 0, "second": 0, "first": 0}
    if key == "Both raise the same expected revenue":
        return {"second": 0, "first": 0}
    if key.startswith(("The second-price", "The English")):
        return {"second": 1, "first": 0}
    assert key.startswith(("The first-price", "The Dutch")), key
    return {"second": 0, "first": 1}


def key_is_right(env: dict[str, float], template_id: str, key: str) -> bool:
    """Whether `key` states the ranking the question's model implies, over the
    formats it names (ranks compared after shifting the lowest named to 0)."""
    want = affiliated_ranking(env, template_id in INTERDEPENDENT)
    claim = claimed_ranking(key)
    low = min(want[k] for k in claim)
    return claim == {k: want[k] - low for k in claim}
