"""Challengers! (rule text 004, a fragment): the tournament around the matches.

The table keeps the rounds, the Trophies won (their round and fans), the fans collected,
who begins each match, the finalists after round 7 and the final's winner. The match
itself is played with cards; :func:`flag_attack` is the pure helper that adds up revealed
cards' power and says when the flag changes hands.

Referee decisions where the text is silent (also in ``README.md``):

* Every player plays one match a round; a round is over once ``players // 2`` matches are
  reported (with an odd number of players one sits out), and the next round begins at once.
  A match must name the round being played.
* A player's ``fans`` are everything that counts at the end: fans collected (``fans``
  actions, kept as ``fan_cards``) plus the fans on the back of their Trophies.
* Who begins: in round 1, a flag toss; from round 2 the player whose best Trophy has the
  higher round number; a tie (including two players without Trophies) is a flag toss.
  The final ("as usual") uses the same rule; ask for it with round 8 (``rounds + 1``).
* Finalists: most fans, then more Trophies, then the single Trophy of the highest round.
  Two players may both hold a Trophy of that round (every match of a round gives one):
  their next-highest Trophies are compared, and so on; a tie still left goes to the
  earlier seat.
* Round 7's fans entered after its last result count until the final begins (rules
  revision 3), and choose the finalists again.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from controller.companion.base import (
    R_AMOUNT,
    CompanionMode,
    JsonDict,
    Offer,
    RuleViolationError,
    SeatSummary,
    check_players,
    checked_revision,
)
from controller.companion.challengers_model import (
    ACTIONS,
    ChallengersAction,
    ChallengersData,
    ChallengersState,
    Contender,
    Fans,
    Final,
    FirstPlayer,
    Match,
    Trophy,
)
from controller.companion.datafile import (
    ENTRY,
    MAX_COUNT,
    MAX_PLAYERS,
    at_most,
    mode_data,
    whole_number,
)
from controller.core.kinds import GameKind
from controller.core.quoting import short_repr

KIND = GameKind.CHALLENGERS
RULES_REVISION = 3
"""The mode's rules revision (recorded in each journal; a game replays by its own):
1. as first built; 2. the Trophies' fans must rise round by round (rule text 004);
3. fans collected in round 7 count however the matches' results come in (rule text 004
l.2-4: "After round 7 every player adds up the fans"): they are taken after round 7's last
result until the final begins (who begins it is asked, or its result), and the finalists
are chosen again with them."""
FLAG_TOSS = "flag toss"

R_ROUND = "Tournament: seven rounds, each player plays one match a round"
R_BEGIN = "Match Phase: who begins (from round 2, the higher-round Trophy; a tie is a flag toss)"
R_FINAL = "The final: the two players with the most fans, after round 7"
R_OVER = "The final: the winner of the final wins Challengers!"
R_REVEAL = "Attack: you must not reveal more cards than needed to get in flag possession"


@dataclass(frozen=True)
class FlagAttack:
    """An attack's revealed cards: the running total after each, and the card taking the flag."""

    totals: tuple[int, ...]
    takes_flag_at: int | None  # index into the revealed cards, None if the attack falls short


def card_power(base: int, bonus: int = 0) -> int:
    """A card's total power: base power plus power bonuses."""
    return base + bonus


def flag_attack(flag_power: int, revealed: Sequence[int]) -> FlagAttack:
    """Reveal cards one after the other until their total power reaches the flag card's.

    ``revealed`` are the revealed cards' total powers, in order. Raises RuleViolationError if
    cards follow the one that took the flag.
    """
    totals: list[int] = []
    total = 0
    for i, power in enumerate(revealed):
        if totals and total >= flag_power:
            raise RuleViolationError(R_REVEAL, f"card {i + 1} is revealed after the flag was taken")
        total += power
        totals.append(total)
    takes = len(totals) - 1 if totals and total >= flag_power else None
    return FlagAttack(tuple(totals), takes)


def load_data(
    overrides: Mapping[str, Any] | None = None, source: str = "script", rising: bool = True
) -> ChallengersData:
    """The mode's data file, with a script's overrides (e.g. ``trophy_fans``); ``rising``:
    each round's Trophy must hold more fans than the round before's (rule text 004, "The
    amount of fans on the Trophies increases in later rounds"; rules revision 2 on).

    Raises:
        DataError: every problem of the file or the overrides.
    """
    table, problems = mode_data("challengers", overrides, source)
    rounds = whole_number(table, "rounds", problems, 1, MAX_COUNT)
    max_players = whole_number(table, "max_players", problems, 2, MAX_PLAYERS)
    seats = (2, MAX_PLAYERS)
    min_players = at_most(table, "min_players", problems, seats, "max_players", max_players)
    fans = problems.whole_numbers(
        table.get("trophy_fans"), ENTRY, "trophy_fans", rounds, 0, MAX_COUNT
    )
    if rising and fans is not None:
        for i in range(1, len(fans)):
            if fans[i] <= fans[i - 1]:
                problems.add(
                    ENTRY,
                    f"trophy_fans[{i}]",
                    f"expected more than round {i}'s {fans[i - 1]} fans (the fans on the "
                    f"Trophies increase in later rounds), got {fans[i]}",
                )
                fans = None
                break
    return ChallengersData(
        rounds=problems.checked(rounds),
        min_players=problems.checked(min_players),
        max_players=problems.checked(max_players),
        trophy_fans=problems.checked(fans),
    )


def new_game(
    players: Sequence[str],
    data: Mapping[str, Any] | None = None,
    source: str = "script",
    revision: int | None = None,
) -> ChallengersState:
    """Round 1, nobody with fans or Trophies; played by rules ``revision`` (None:
    :data:`RULES_REVISION`).

    Raises:
        DataError: the players, the data or the revision.
    """
    rules = checked_revision(revision, RULES_REVISION, source)
    d = load_data(data, source, rising=rules >= 2)
    names = check_players(players, d.min_players, d.max_players, KIND.value, source)
    return ChallengersState(
        data=d, players=tuple(Contender(n) for n in names), rules_revision=rules
    )


def ranking(state: ChallengersState) -> tuple[str, ...]:
    """Everyone by fans, then Trophies, then the highest-round Trophy (then seat).

    Two players can both hold a Trophy of the same highest round (each match of a round
    gives one); the text is silent there, so their next-highest Trophies are compared,
    and so on (referee decision); a tie still left goes to the earlier seat.
    """
    seats = {p.name: i for i, p in enumerate(state.players)}
    order = sorted(
        state.players,
        key=lambda p: (
            -p.fans,
            -len(p.trophies),
            tuple(-r for r in p.rounds_high_first),
            seats[p.name],
        ),
    )
    return tuple(p.name for p in order)


def who_begins(state: ChallengersState, round_: int, a: str, b: str) -> str:
    """The player who begins a match between ``a`` and ``b``, or ``"flag toss"``."""
    if round_ == 1:
        return FLAG_TOSS
    ra, rb = state.player(a).best_round, state.player(b).best_round
    if ra == rb:
        return FLAG_TOSS
    return a if ra > rb else b


def _replace_player(state: ChallengersState, name: str, **changes: Any) -> ChallengersState:
    players = tuple(
        dataclasses.replace(p, **changes) if p.name == name else p for p in state.players
    )
    return dataclasses.replace(state, players=players)


def _in_final(state: ChallengersState) -> bool:
    return state.round > state.data.rounds


def _match(state: ChallengersState, a: Match) -> ChallengersState:
    if _in_final(state):
        raise RuleViolationError(
            R_ROUND, f"the {state.data.rounds} rounds are over: the final is next"
        )
    if a.round != state.round:
        raise RuleViolationError(
            R_ROUND, f"round {state.round} is being played, not round {short_repr(a.round)}"
        )
    if a.winner == a.loser:
        raise RuleViolationError(R_ROUND, "a match has two players")
    for p in (a.winner, a.loser):
        if p in state.played:
            raise RuleViolationError(R_ROUND, f"{p} already played in round {a.round}")
    trophy = Trophy(a.round, state.data.trophy_fans[a.round - 1])
    out = _replace_player(state, a.winner, trophies=(*state.player(a.winner).trophies, trophy))
    played = (*state.played, a.winner, a.loser)
    if len(played) < 2 * (len(state.players) // 2):
        return dataclasses.replace(out, played=played)
    out = dataclasses.replace(out, played=(), round=state.round + 1)
    if _in_final(out):
        top = ranking(out)
        out = dataclasses.replace(out, finalists=(top[0], top[1]))
    return out


def _first_player(state: ChallengersState, a: FirstPlayer) -> ChallengersState:
    if len(a.players) != 2 or a.players[0] == a.players[1]:
        raise RuleViolationError(R_BEGIN, "a match has two different players")
    if a.round != state.round:
        raise RuleViolationError(
            R_BEGIN, f"round {state.round} is being played, not round {short_repr(a.round)}"
        )
    if _in_final(state) and set(a.players) != set(state.finalists or ()):
        raise RuleViolationError(
            R_FINAL, f"the finalists are {' and '.join(state.finalists or ())}"
        )
    for p in a.players:
        if p in state.played:
            raise RuleViolationError(R_ROUND, f"{p} already played in round {a.round}")
    first = who_begins(state, a.round, a.players[0], a.players[1])
    return dataclasses.replace(
        state, first_players=(*state.first_players, first), final_begun=_in_final(state)
    )


def _fans(state: ChallengersState, a: Fans) -> ChallengersState:
    """``a.player`` collects fans; after round 7 (revision 3 on) until the final begins,
    and the finalists are chosen again; RuleViolationError (R_AMOUNT, R_FINAL) otherwise."""
    if a.amount < 1:
        raise RuleViolationError(R_AMOUNT, f"{short_repr(a.amount)} fans")
    if _in_final(state) and state.rules_revision < 3:
        raise RuleViolationError(R_FINAL, "the fans were counted after round 7")
    if _in_final(state) and state.final_begun:
        raise RuleViolationError(R_FINAL, "the fans were counted after round 7: the final began")
    out = _replace_player(state, a.player, fan_cards=state.player(a.player).fan_cards + a.amount)
    if _in_final(out):
        top = ranking(out)
        out = dataclasses.replace(out, finalists=(top[0], top[1]))
    return out


def apply(state: ChallengersState, action: ChallengersAction) -> ChallengersState:
    """The state after ``action``; RuleViolationError if the rules forbid it now."""
    if state.winner is not None:
        raise RuleViolationError(R_OVER, f"{state.winner} won the final")
    if isinstance(action, Match):
        return _match(state, action)
    if isinstance(action, FirstPlayer):
        return _first_player(state, action)
    if isinstance(action, Fans):
        return _fans(state, action)
    if isinstance(action, Final):
        if not _in_final(state) or state.finalists is None:
            raise RuleViolationError(R_FINAL, f"round {state.round} is being played")
        if action.winner not in state.finalists:
            raise RuleViolationError(R_FINAL, f"{action.winner} is not a finalist")
        return dataclasses.replace(state, winner=action.winner)
    raise TypeError(f"not a {KIND.value} action: {action!r}")


def step(state: ChallengersState) -> str:
    """``round N``, ``final`` or ``over``."""
    if state.winner is not None:
        return "over"
    return "final" if _in_final(state) else f"round {state.round}"


def legal_actions(state: ChallengersState, player: str) -> tuple[Offer, ...]:
    """What the table may offer ``player`` now."""
    state.player(player)  # UnknownNameError for a stranger
    if state.winner is not None:
        return ()
    mine = (("player", (player,)),)
    if _in_final(state):
        finalists = state.finalists or ()
        late = state.rules_revision >= 3 and not state.final_begun  # round 7's fans, late
        fans = (Offer("fans", mine, ("amount",)),) if late else ()
        if player not in finalists:
            return fans
        # Rule text 004 l.9: before the final, "Determine who begins as usual."
        other = tuple(p for p in finalists if p != player)
        ask = Offer("first_player", (("round", (state.round,)), ("players", other)))
        return (*fans, ask, Offer("final", (("winner", finalists),)))
    out = [Offer("fans", mine, ("amount",))]
    if player not in state.played:
        others = tuple(
            p.name for p in state.players if p.name != player and p.name not in state.played
        )
        if others:
            rnd = (("round", (state.round,)),)
            out.append(Offer("first_player", (*rnd, ("players", others))))
            out.append(Offer("match", (*rnd, ("winner", (player,)), ("loser", others))))
    return tuple(out)


def to_json(state: ChallengersState) -> JsonDict:
    """The state as JSON (the replay's output without ``refused``)."""
    out: JsonDict = {
        "mode": KIND.value,
        "step": step(state),
        "players": [
            {
                "name": p.name,
                "fans": p.fans,
                "fan_cards": p.fan_cards,
                "trophies": [t.round for t in p.trophies],
            }
            for p in state.players
        ],
        "turn": None,
        "round": min(state.round, state.data.rounds),
        "winner": state.winner,
        "eliminated": [],
        "first_players": list(state.first_players),
    }
    if state.finalists is not None:
        out["finalists"] = list(state.finalists)
    return out


def seat_summary(player: JsonDict) -> SeatSummary:
    """Fans and Trophies: ``F9 T3``; the fans first."""
    fans = f"F{player['fans']}"
    return SeatSummary(f"{fans} T{len(player['trophies'])}", fans)


def whose_turn(state: ChallengersState) -> str | None:
    """Nobody: the matches of a round are played side by side."""
    return None


MODE: CompanionMode[ChallengersState, Any] = CompanionMode(
    kind=KIND,
    title="CHALLENGERS",
    rules_revision=RULES_REVISION,
    main_number="fans",
    actions=ACTIONS,
    new_game=new_game,
    whose_turn=whose_turn,
    step=step,
    legal_actions=legal_actions,
    apply=apply,
    to_json=to_json,
    seat_summary=seat_summary,
)
