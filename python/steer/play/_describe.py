"""What a seat is told: the rules of a game, the history it may see, the question.

Every sentence is built from the game's data (its payoff table or its rule's
parameters), so a user's game file gets a correct description without
writing one. The history follows the game's `information` level (see
`steer.play._games`): a seat never reads what that level hides.

Two wordings (`WORDINGS`), as Rationality Check asks each game under two
prompt versions and averages them: ``v1`` tells the rules, then the
history, then asks; ``v2`` asks first, states the payoff table as compact
"choices → points" lines, and calls the history "earlier rounds". The facts
are the same in both.

The sequential games (pirate, battle royale) are told by the same functions:
their rules come from the rule's parameters, their history is the public
record of the steps so far (one line per proposal and its vote, or per
shot, written by `pirate_line` and `shot_line`), and `turn_text` asks the
step's question (`steer.play._sequential`).
"""

from __future__ import annotations

import itertools

import numpy as np

from steer.play._games import (
    AuctionParams,
    BattleRoyaleParams,
    BeautyParams,
    DinerParams,
    DivideParams,
    ElFarolParams,
    FloatArray,
    Game,
    GuessingParams,
    MinimumEffortParams,
    NumberActions,
    PirateParams,
    PublicGoodsParams,
    SealedBidParams,
    Turn,
)


def number(x: float) -> str:
    """A number as a person writes it (12, 12.5, 0.3333)."""
    return f"{round(float(x), 4):g}"


WORDINGS = ("v1", "v2")


def _table_rules_v2(game: Game, seat: int) -> str:
    assert isinstance(game.actions, tuple) and game.table is not None
    labels, n = game.actions, game.players
    order = [seat, *(s for s in range(n) if s != seat)]
    who = ", ".join(["yours", *(f"player {s + 1}'s" for s in order[1:])])
    lines = []
    for profile in itertools.product(range(len(labels)), repeat=n):
        pay = game.table[profile]
        choices = ", ".join(labels[profile[s]] for s in order)
        points = ", ".join(number(pay[s]) for s in order)
        lines.append(f"({choices}) → {points}")
    return (
        f"Everyone picks one of: {', '.join(labels)}, at the same time. Points for each "
        f"combination of choices ({who}, in that order):\n" + "\n".join(lines)
    )


def _table_rules(game: Game, seat: int) -> str:
    assert isinstance(game.actions, tuple) and game.table is not None
    labels, n = game.actions, game.players
    lines = []
    others = [s for s in range(n) if s != seat]
    for profile in itertools.product(range(len(labels)), repeat=n):
        pay = game.table[profile]
        mine = f"you choose {labels[profile[seat]]}"
        theirs = ", ".join(f"player {s + 1} chooses {labels[profile[s]]}" for s in others)
        rest = ", ".join(f"player {s + 1} gets {number(pay[s])}" for s in others)
        lines.append(f"- If {mine} and {theirs}: you get {number(pay[seat])}, {rest}.")
    head = (
        f"Each player chooses one action: {', '.join(labels)}. All players choose at the "
        "same time. The points each player gets depend on everyone's choices:"
    )
    return head + "\n" + "\n".join(lines)


def _rule_rules(game: Game) -> str:
    p, n = game.rule_params, game.players
    if isinstance(p, PublicGoodsParams):
        return (
            f"Each of the {n} players has {number(p.endowment)} points and chooses how many to "
            f"contribute to a common pool. The pool is multiplied by {number(p.multiplier)} "
            f"and shared equally among all {n} players. Each player keeps what it does not "
            "contribute plus its share of the pool."
        )
    if isinstance(p, SealedBidParams | AuctionParams):
        price = getattr(p, "price", "second")
        pays = "its own bid" if price == "first" else "the second-highest bid"
        return (
            f"{n} players bid for one item in a sealed-bid auction. Each player has a "
            "private value for the item, known only to itself, drawn anew each round from "
            f"{', '.join(number(v) for v in p.values)}. The highest bid wins (a tie goes to "
            f"the lower-numbered player) and pays {pays}; the winner gets its value minus "
            "the price, everyone else gets 0."
        )
    if isinstance(p, GuessingParams):
        return (
            f"Each of the {n} players picks a number. The target is {number(p.fraction)} times "
            "the average of all numbers picked (yours included). The player closest to the "
            f"target wins {number(p.prize)} (shared equally on a tie); the others get 0."
        )
    if isinstance(p, BeautyParams):
        return (
            f"Each of the {n} players picks a number. The target is {number(p.fraction)} times "
            "the average of all numbers picked (yours included). Each player loses as many "
            "points as its number is away from the target."
        )
    if isinstance(p, MinimumEffortParams):
        return (
            f"Each of the {n} players chooses an effort level. A player's payoff is "
            f"{number(p.a)} times the lowest effort chosen by anyone, minus {number(p.b)} "
            f"times its own effort, plus {number(p.c)}."
        )
    if isinstance(p, ElFarolParams):
        return (
            f"Each of the {n} players decides whether to go to a bar or stay home. If at most "
            f"{number(p.capacity * 100)}% of the players go, those who go get "
            f"{number(p.go_uncrowded)}; if more go, those who go get {number(p.go_crowded)}. "
            f"Staying home gives {number(p.stay)}."
        )
    if isinstance(p, DivideParams):
        return (
            f"Each of the {n} players claims an amount of {number(p.total)} points. If the "
            f"claims add up to at most {number(p.total)}, every player gets its claim; "
            "otherwise every player gets 0."
        )
    if isinstance(p, DinerParams):
        return (
            f"{n} players dine together and split the bill equally. Each orders the cheap "
            f"dish (price {number(p.cheap_price)}, worth {number(p.cheap_utility)} to the "
            f"diner) or the expensive one (price {number(p.expensive_price)}, worth "
            f"{number(p.expensive_utility)}). A player's payoff is what its dish is worth "
            "minus its share of the bill."
        )
    if isinstance(p, PirateParams):
        return (
            f"{n} pirates share {p.gold} gold coins. They are ranked by seniority: player 1 is "
            f"the most senior, player {n} the most junior. The most senior pirate still on board "
            "proposes how to split the coins among the pirates on board (a whole number of coins "
            f"for each, adding up to {p.gold}), and every pirate on board votes to accept or "
            "reject the plan; the proposer votes for its own plan. If at least "
            f"{number(p.pass_share * 100)}% of the votes accept, the coins are split as proposed. "
            "Otherwise the proposer is thrown overboard: it dies and gets no coins, and the next "
            "most senior pirate on board proposes. A pirate left alone on board keeps all the "
            "coins. Each pirate's payoff is the coins it ends with."
        )
    if isinstance(p, BattleRoyaleParams):
        rates = ", ".join(f"player {s + 1} {_percent(r)}" for s, r in enumerate(p.hit_rates))
        return (
            f"{n} players take turns to shoot, in the order of their numbers, skipping players "
            "who are out. On its turn a player either shoots at one other player still in the "
            "game or shoots into the air (a deliberate miss). A shot at a player hits with the "
            f"shooter's own hit rate ({rates}); a player who is hit is out of the game. The last "
            "player standing wins and gets 1; every other player gets 0."
        )
    raise ValueError(f"game {game.name!r} is not played round by round")  # pragma: no cover


def _percent(rate: float) -> str:
    return f"{number(rate * 100)}%"


def _length(game: Game, rounds: int) -> str:
    if isinstance(game.rule_params, PirateParams):
        return "The game ends when a plan is accepted or one pirate is left."
    if isinstance(game.rule_params, BattleRoyaleParams):
        return (
            f"The game ends when one player is left, or after {rounds} turns in all; players "
            "still standing then share the win (each gets 1 divided by their number)."
        )
    if game.continuation is not None:
        return (
            f"After each round another round follows with probability {number(game.continuation)}."
        )
    if rounds == 1:
        return "The game is played once."
    return f"The game is played for {rounds} rounds."


def rules_text(game: Game, seat: int, rounds: int, wording: str = "v1") -> str:
    """The game as told to `seat` (0-based), for a game of `rounds` rounds."""
    if game.table is not None:
        body = _table_rules_v2(game, seat) if wording == "v2" else _table_rules(game, seat)
    else:
        body = _rule_rules(game)
    length = _length(game, rounds)
    if wording == "v2":
        return f"There are {game.players} players and you are player {seat + 1}. {length}\n{body}"
    return f"You are player {seat + 1} of {game.players} in a game. {body}\n{length}"


def compose(rules: str, history: str, ask: str, wording: str = "v1") -> str:
    """A seat's whole prompt text in `wording`."""
    if wording == "v2":
        history = history.replace("What happened so far:", "Earlier rounds:", 1)
        return "\n\n".join(t for t in (ask, f"How the game works: {rules}", history) if t)
    return "\n\n".join(t for t in (rules, history, ask) if t)


def _action(game: Game, move: float) -> str:
    if isinstance(game.actions, tuple):
        return game.actions[int(move)]
    return number(move)


def history_text(
    game: Game,
    seat: int,
    moves: FloatArray,
    pay: FloatArray,
    values: FloatArray | None,
) -> str:
    """The rounds played so far (rows of `moves`/`pay`, one column per seat)
    as `game.information` lets `seat` see them."""
    info = game.information
    if moves.shape[0] == 0 or info == "none":
        return ""
    lines = []
    for r in range(moves.shape[0]):
        row, got = moves[r], pay[r]
        own = f"you chose {_action(game, row[seat])} and got {number(got[seat])}"
        if info == "all-moves":
            rest = "; ".join(
                f"player {s + 1} chose {_action(game, row[s])} and got {number(got[s])}"
                for s in range(game.players)
                if s != seat
            )
            text = f"{own}; {rest}"
        elif info == "aggregate":
            if isinstance(game.actions, tuple):
                counts = ", ".join(
                    f"{int(np.sum(row == i))} chose {label}" for i, label in enumerate(game.actions)
                )
                text = f"{own}; of all players, {counts}"
            else:
                text = (
                    f"{own}; all players' total was {number(row.sum())} "
                    f"(average {number(row.mean())})"
                )
        elif info == "outcome" and values is not None:
            winner = int(np.argmax(row))
            price = np.sort(row)[-2] if _price(game) == "second" else row[winner]
            who = "you" if winner == seat else f"player {winner + 1}"
            text = (
                f"your value was {number(values[r, seat])}, you bid {_action(game, row[seat])}; "
                f"{who} won and paid {number(price)}; you got {number(got[seat])}"
            )
        elif info == "outcome":
            text = f"{own}; the average choice was {number(row.mean())}"
        else:  # own-payoff
            text = own
        lines.append(f"Round {r + 1}: {text}.")
    return "What happened so far:\n" + "\n".join(lines)


def _price(game: Game) -> str:
    p = game.rule_params
    return getattr(p, "price", "second") if isinstance(p, AuctionParams) else "second"


def _noun(game: Game) -> str:
    p = game.rule_params
    if isinstance(p, PublicGoodsParams):
        return "How many points do you contribute"
    if isinstance(p, AuctionParams):
        return "What do you bid"
    if isinstance(p, MinimumEffortParams):
        return "What effort level do you choose"
    if isinstance(p, DivideParams):
        return "How much do you claim"
    return "What number do you pick"


def ask_text(game: Game, round_index: int, value: float | None) -> str:
    """The question of round `round_index` (0-based)."""
    private = (
        f"Your private value for the item this round is {number(value)}. "
        if value is not None
        else ""
    )
    if isinstance(game.actions, NumberActions):
        acts = game.actions
        steps = f" in steps of {number(acts.step)}" if acts.step is not None else ""
        return (
            f"{private}{_noun(game)} in round {round_index + 1}? Answer with a number from "
            f"{number(acts.min)} to {number(acts.max)}{steps}."
        )
    return f"{private}Which action do you choose in round {round_index + 1}?"


# --- the sequential games' history and questions ----------------------------------------


def _players(seats: tuple[int, ...] | list[int]) -> str:
    return ", ".join(str(s + 1) for s in seats)


def _plan(seats: tuple[int, ...], plan: tuple[int, ...] | list[int]) -> str:
    return ", ".join(f"player {s + 1} gets {c}" for s, c in zip(seats, plan, strict=True))


_VOTE_WORDS = {True: "accepted", False: "rejected", None: "gave no valid vote (counted as reject)"}


def pirate_line(
    proposal_number: int,
    seats: tuple[int, ...],
    plan: tuple[int, ...] | None,
    votes: dict[int, bool | None],
    carried: bool,
) -> str:
    """One proposal and its vote, as every pirate saw it (`votes`: each other
    living pirate's vote, None for one that gave no valid vote)."""
    who = f"Proposal {proposal_number}: player {seats[0] + 1}"
    if plan is None:
        return f"{who} made no valid proposal and was thrown overboard."
    said = "; ".join(f"player {s + 1} {_VOTE_WORDS[v]}" for s, v in votes.items())
    accepts = 1 + sum(1 for v in votes.values() if v)
    end = (
        "it was accepted"
        if carried
        else f"it was rejected and player {seats[0] + 1} was thrown overboard"
    )
    return (
        f"{who} proposed: {_plan(seats, plan)}. Votes: player {seats[0] + 1} (proposer) accepted; "
        f"{said}. {accepts} of {len(seats)} accepted, so {end}."
    )


def shot_line(turn_number: int, shooter: int, target: int | None, hit: bool) -> str:
    """One turn of the battle royale, as every player saw it."""
    who = f"Turn {turn_number}: player {shooter + 1}"
    if target is None:
        return f"{who} shot into the air."
    if hit:
        return f"{who} shot at player {target + 1} and hit: player {target + 1} is out."
    return f"{who} shot at player {target + 1} and missed."


def sequential_history(lines: list[str]) -> str:
    """The public record of a sequential game so far."""
    return "What happened so far:\n" + "\n".join(lines) if lines else ""


def turn_text(game: Game, turn: Turn, step_number: int) -> str:
    """The question of one step of a sequential game."""
    p = game.rule_params
    if turn.kind == "propose":
        assert isinstance(p, PirateParams)
        seats = turn.alive
        return (
            f"You are the most senior pirate on board; the pirates on board are players "
            f"{_players(seats)}. Propose how to split the {p.gold} coins: give {len(seats)} whole "
            f"numbers, the coins for players {_players(seats)} in that order, adding up to "
            f"{p.gold}."
        )
    if turn.kind == "vote":
        assert turn.proposal is not None
        mine = turn.proposal[turn.alive.index(turn.seat)]
        return (
            f"Player {turn.alive[0] + 1} proposes: {_plan(turn.alive, turn.proposal)}. "
            f"You would get {mine}. Do you accept this plan? Answer 1 to accept or 0 to reject."
        )
    assert isinstance(p, BattleRoyaleParams)
    standing = ", ".join(
        f"player {s + 1} ({'you, ' if s == turn.seat else ''}hit rate {_percent(p.hit_rates[s])})"
        for s in turn.alive
    )
    return (
        f"Turn {step_number}: it is your turn to shoot. Still in the game: {standing}. Which "
        "player do you shoot at? Answer with that player's number, or 0 to shoot into the air."
    )
