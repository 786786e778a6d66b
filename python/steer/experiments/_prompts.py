"""The words of the experiments: premise, instructions and question.

A trial's text is `{premise}{intervention}{instructions}{question}`; the answer
format (a letter, or a number in free text) is the adaptation's, added by the
backend when it asks. Amounts are dollars, as in the experiments' designs.
"""

from __future__ import annotations

PREMISE = {
    "risk": "This is a decision experiment with real stakes: whatever you choose is paid out.",
    "time": (
        "This is a decision experiment with real stakes: whatever you choose is paid out, "
        "at the time stated."
    ),
    "social": (
        "This is a decision experiment with real stakes and another participant, a stranger "
        "you will never meet. Both of you are paid according to the choices made."
    ),
    "budget": (
        "This is a shopping experiment: you spend a budget on two goods and keep what you buy."
    ),
}

INSTRUCTIONS = {
    "gambling": "Choose between a lottery and an amount for certain.",
    "mixed-gamble": "You may play the lottery below or decline it and get nothing.",
    "waiting": "Choose between an amount now and an amount later.",
    "discounting": "Choose between an amount now and an amount later.",
    "ultimatum-proposer": (
        "You propose how to split a sum of money. If the other participant accepts, "
        "each gets the proposed share; if they reject, neither gets anything."
    ),
    "ultimatum-responder": (
        "The other participant proposed how to split a sum of money. If you accept, "
        "each gets the proposed share; if you reject, neither gets anything."
    ),
    "dictator": "You decide how money is divided between you and the other participant.",
    "mm-triangle": "Choose one of two lotteries.",
    "budget": "Choose how to spend your budget.",
}

# Interventions: text placed between the premise and the instructions.
BIAS_PROMPTS = {
    "risk-neutral": "Be risk neutral: value every lottery at its expected value.",
    "patient": "Be patient: do not discount money for the time you wait.",
    "selfish": "Care only about your own payoff.",
    "fair": "Care about the fairness of the outcome as much as about your own payoff.",
}
ADVICE = (
    "You are advising a friend who will receive the payoffs; choose what you recommend they take."
)


def persona(description: str) -> str:
    return f"Answer as {description} would."


def money(x: float) -> str:
    """$12, $12.50, -$3 (whole dollars without cents)."""
    sign = "-" if x < 0 else ""
    x = abs(x)
    text = f"{x:,.0f}" if abs(x - round(x)) < 1e-9 else f"{x:,.2f}"
    return f"{sign}${text}"


def percent(p: float) -> str:
    text = f"{p * 100:.2f}".rstrip("0").rstrip(".")
    return f"{text}%"


def outcome(x: float) -> str:
    if x < 0:
        return f"lose {money(-x)}"
    return f"win {money(x)}" if x > 0 else "get nothing"


def lottery(branches: list[tuple[float, float]]) -> str:
    """'win $100 with probability 25% and get nothing with probability 75%'."""
    kept = [(x, p) for x, p in branches if p > 0]
    return " and ".join(f"{outcome(x)} with probability {percent(p)}" for x, p in kept)
