"""The Tournament of Power mode's rules: state + action -> new state (rule text 002)."""

from __future__ import annotations

import dataclasses
from collections.abc import Collection, Mapping, Sequence
from typing import Any

from controller.companion.base import (
    R_AMOUNT,
    JsonDict,
    Offer,
    RuleViolationError,
    check_players,
    checked_revision,
    clockwise_from,
)
from controller.companion.dbs_tournament.model import (
    KIND,
    RULES_REVISION,
    AttackDeclared,
    ChampionPlay,
    ChampionReturn,
    ChooseFirst,
    CounterKind,
    CounterOrder,
    Damage,
    DbsAction,
    DbsState,
    DeckOut,
    EndTurn,
    Roll,
    Seat,
    Step,
    load_data,
)
from controller.core.quoting import short_repr

R_SETUP = "Game Setup: Starting the Game (whoever rolls highest picks the player who goes first)"
R_TURN = "Multiplayer Rules: Turn Order (each player completes their turn before the next)"
R_PROTECT = "Game Setup: First Turn Protection"
R_ELIM = "Multiplayer Rules: Eliminating Players (their skills and effects end)"
R_CHAMP_PLAY = "Champion Rules: Playing Your Champion (from the Champion Zone)"
R_CHAMP_RETURN = "Champion Rules: Returning Your Champion"
R_COUNTER = "Skill Rules: Counter Windows"
R_CHOICE = "Skill Rules: Choice Skills (offered to all opponents in turn order)"
R_OVER = "Multiplayer Rules: the game is over"


def new_game(
    players: Sequence[str],
    data: Mapping[str, Any] | None = None,
    source: str = "script",
    revision: int | None = None,
) -> DbsState:
    """Everyone at full life, waiting for the roll; played by rules ``revision`` (None:
    :data:`RULES_REVISION`).

    Raises:
        DataError: the players, the data or the revision.
    """
    rules = checked_revision(revision, RULES_REVISION, source)
    d = load_data(data, source)
    names = check_players(players, d.min_players, d.max_players, KIND.value, source)
    seats = tuple(Seat(n, d.life) for n in names)
    return DbsState(data=d, seats=seats, rolling=names, rules_revision=rules)


def next_player(state: DbsState, after: str) -> str:
    """The next player still in, clockwise after ``after``."""
    ring = clockwise_from(state.names, after, state.names)
    return next(p for p in ring[1:] if p in state.live)


def counter_order(
    state: DbsState, kind: CounterKind, by: str, target: str | None = None
) -> tuple[str, ...]:
    """The players offered a [Counter] window, or a Choice Skill's choice, in the order
    they are asked."""
    live = [p for p in state.live if p != by]
    if kind is not CounterKind.ATTACK:
        return clockwise_from(state.names, by, live)
    if target is None:
        raise RuleViolationError(R_COUNTER, "a [Counter: Attack] window needs the attack's target")
    return clockwise_from(state.names, target, live)


def counter_response(order: Sequence[str], willing: Collection[str]) -> str | None:
    """Who answers a [Counter] window: the first player in ``order`` willing to counter.

    Only one [Counter] responds to each window, so the players after them are not asked.
    """
    return next((p for p in order if p in willing), None)


def checkpoint_order(state: DbsState) -> tuple[str, ...]:
    """Who resolves their [Auto] skills at a checkpoint: the turn player, then clockwise."""
    if state.turn is None:
        return ()
    return clockwise_from(state.names, state.turn, state.live)


def _replace_seat(state: DbsState, name: str, **changes: Any) -> DbsState:
    seats = tuple(dataclasses.replace(s, **changes) if s.name == name else s for s in state.seats)
    return dataclasses.replace(state, seats=seats)


def _eliminate(state: DbsState, name: str) -> DbsState:
    out = _replace_seat(state, name, eliminated=True, life=max(0, state.seat(name).life))
    out = dataclasses.replace(out, eliminated=(*state.eliminated, name))
    if len(out.live) == 1:
        return dataclasses.replace(out, winner=out.live[0], step=Step.OVER, turn=None)
    if out.turn == name:
        out = dataclasses.replace(out, turn=next_player(out, name))
    return out


def _in_game(state: DbsState, *names: str | None) -> None:
    if state.step is Step.OVER:
        raise RuleViolationError(R_OVER, f"the game is over ({state.winner} won)")
    if state.step is not Step.TURN:
        raise RuleViolationError(R_SETUP, "the game starts once the first player is chosen")
    for n in names:
        if n is not None and state.seat(n).eliminated:
            raise RuleViolationError(R_ELIM, f"{n} is eliminated")


def _roll(state: DbsState, a: Roll) -> DbsState:
    if state.step is not Step.ROLL:
        raise RuleViolationError(R_SETUP, "the roll is over")
    rolled: dict[str, int] = dict(a.values)
    if sorted(rolled) != sorted(state.rolling) or len(rolled) != len(a.values):
        raise RuleViolationError(
            R_SETUP, f"each of {', '.join(state.rolling)} rolls once, no one else"
        )
    if min(rolled.values()) < 1:
        raise RuleViolationError(R_AMOUNT, "a die shows 1 or more")
    top = max(rolled.values())
    best = tuple(p for p in state.rolling if rolled[p] == top)
    if len(best) > 1:
        return dataclasses.replace(state, rolling=best)
    return dataclasses.replace(state, rolling=(), chooser=best[0], step=Step.CHOOSE_FIRST)


def _choose_first(state: DbsState, a: ChooseFirst) -> DbsState:
    if state.step is not Step.CHOOSE_FIRST:
        raise RuleViolationError(R_SETUP, "the first player is chosen once, after the roll")
    two = len(state.seats) == 2
    seats = []
    for s in state.seats:
        first = s.name == a.player
        if two:
            markers, draws = (0, False) if first else (1, True)
        else:
            markers, draws = (1, True) if first else (2, True)
        seats.append(dataclasses.replace(s, energy_markers=markers, draws_first_turn=draws))
    return dataclasses.replace(
        state, seats=tuple(seats), step=Step.TURN, first_player=a.player, turn=a.player
    )


def _must_be_turn_player(state: DbsState, name: str, rule: str, what: str) -> None:
    if state.turn != name:
        raise RuleViolationError(rule, f"{what} only on their own turn; it is {state.turn}'s turn")


def _attack_allowed(state: DbsState, attacker: str, target: str | None) -> None:
    """RuleViolationError (R_TURN, R_PROTECT) unless ``attacker`` may attack ``target`` now:
    on their own turn, another player who has taken their first turn (002 l.73)."""
    _must_be_turn_player(state, attacker, R_TURN, f"{attacker} attacks")
    if target == attacker:
        raise RuleViolationError(R_TURN, "a player does not attack themselves")
    if target is not None and not state.seat(target).first_turn_taken:
        raise RuleViolationError(R_PROTECT, f"{target} has not taken their first turn")


def apply(state: DbsState, action: DbsAction) -> DbsState:
    """The state after ``action``; RuleViolationError if the rules forbid it now."""
    if isinstance(action, Roll):
        return _roll(state, action)
    if isinstance(action, ChooseFirst):
        return _choose_first(state, action)
    if isinstance(action, EndTurn):
        _in_game(state)
        assert state.turn is not None
        out = _replace_seat(state, state.turn, first_turn_taken=True)
        return dataclasses.replace(out, turn=next_player(out, state.turn))
    if isinstance(action, AttackDeclared):
        _in_game(state, action.attacker, action.target)
        _attack_allowed(state, action.attacker, action.target)
        return dataclasses.replace(
            state, attacks=(*state.attacks, (action.attacker, action.target))
        )
    if isinstance(action, Damage):
        _in_game(state, action.player)
        if action.amount < 1:
            raise RuleViolationError(R_AMOUNT, f"damage of {short_repr(action.amount)}")
        life = state.seat(action.player).life - action.amount
        out = _replace_seat(state, action.player, life=max(0, life))
        return _eliminate(out, action.player) if life <= 0 else out
    if isinstance(action, DeckOut):
        _in_game(state, action.player)
        return _eliminate(state, action.player)
    if isinstance(action, CounterOrder):
        _in_game(state, action.by, action.target)
        if action.kind is CounterKind.PLAY and action.target is not None:
            raise RuleViolationError(R_COUNTER, "a [Counter: Play] window has no target")
        if action.kind is CounterKind.CHOICE and state.rules_revision < 2:
            raise RuleViolationError(R_CHOICE, "ordered from rules revision 2 on")
        if action.kind is CounterKind.CHOICE and action.target is not None:
            raise RuleViolationError(R_CHOICE, "a Choice Skill is offered to every opponent")
        if action.target == action.by:
            raise RuleViolationError(R_COUNTER, "the attacker is not the target")
        order = counter_order(state, action.kind, action.by, action.target)
        if action.kind is CounterKind.ATTACK and state.rules_revision >= 2:
            _attack_allowed(state, action.by, action.target)
        return dataclasses.replace(state, counter_orders=(*state.counter_orders, order))
    if isinstance(action, ChampionPlay):
        _in_game(state, action.player)
        _must_be_turn_player(
            state, action.player, R_CHAMP_PLAY, f"{action.player} plays a champion"
        )
        seat = state.seat(action.player)
        if not seat.champion_in_zone:
            raise RuleViolationError(
                R_CHAMP_PLAY, f"{action.player}'s champion is not in the Champion Zone"
            )
        if action.base_cost < 0:
            raise RuleViolationError(R_AMOUNT, f"a cost of {short_repr(action.base_cost)}")
        cost = action.base_cost + state.data.champion_cost_step * seat.champion_returns
        out = _replace_seat(state, action.player, champion_in_zone=False)
        return dataclasses.replace(out, champion_costs=(*state.champion_costs, cost))
    if isinstance(action, ChampionReturn):
        _in_game(state, action.player)
        seat = state.seat(action.player)
        if seat.champion_in_zone:
            raise RuleViolationError(
                R_CHAMP_RETURN, f"{action.player}'s champion is already in the zone"
            )
        return _replace_seat(
            state, action.player, champion_in_zone=True, champion_returns=seat.champion_returns + 1
        )
    raise TypeError(f"not a {KIND.value} action: {action!r}")


def _attack_targets(state: DbsState, player: str) -> tuple[str, ...]:
    """Whom ``player`` may attack on their turn: the others still in who took a turn."""
    return tuple(
        s.name for s in state.seats if s.name != player and not s.eliminated and s.first_turn_taken
    )


def _counter_offer(state: DbsState, player: str) -> Offer:
    """The windows ``player`` may ask the order of: from revision 2, an attack's only for an
    attack they may make now (its targets offered), and a Choice Skill's."""
    mine = ("by", (player,))
    if state.rules_revision < 2:
        return Offer("counter_order", (("kind", ("play", "attack")), mine), ("target",))
    targets = _attack_targets(state, player) if state.turn == player else ()
    if not targets:
        return Offer("counter_order", (("kind", ("play", "choice")), mine))
    kinds = ("kind", ("play", "attack", "choice"))
    return Offer("counter_order", (kinds, mine, ("target", targets)))


def step(state: DbsState) -> str:
    """``roll``, ``choose_first``, ``turn`` or ``over``."""
    return state.step.value


def legal_actions(state: DbsState, player: str) -> tuple[Offer, ...]:
    """What the table may offer ``player`` now."""
    state.seat(player)  # UnknownNameError for a stranger
    if state.step is Step.ROLL:
        return (Offer("roll", free=("values",)),) if player in state.rolling else ()
    if state.step is Step.CHOOSE_FIRST:
        opts: tuple[tuple[str, tuple[str | int, ...]], ...] = (("player", state.names),)
        return (Offer("choose_first", options=opts),) if player == state.chooser else ()
    if state.step is Step.OVER or state.seat(player).eliminated:
        return ()
    me = state.seat(player)
    out = [Offer("damage", (("player", (player,)),), ("amount",))]
    out.append(Offer("deck_out", (("player", (player,)),)))
    if not me.champion_in_zone:
        out.append(Offer("champion_return", (("player", (player,)),)))
    out.append(_counter_offer(state, player))
    if state.turn == player:
        targets = _attack_targets(state, player)
        if targets:
            out.append(Offer("attack", (("attacker", (player,)), ("target", targets))))
        if me.champion_in_zone:
            out.append(Offer("champion_play", (("player", (player,)),), ("base_cost",)))
        out.append(Offer("end_turn"))
    return tuple(out)


def to_json(state: DbsState) -> JsonDict:
    """The state as JSON (the replay's output without ``refused``)."""
    return {
        "mode": KIND.value,
        "step": step(state),
        "players": [
            {
                "name": s.name,
                "life": s.life,
                "energy_markers": s.energy_markers,
                "draws_first_turn": s.draws_first_turn,
                "eliminated": s.eliminated,
                "first_turn_taken": s.first_turn_taken,
                "champion_in_zone": s.champion_in_zone,
                "champion_returns": s.champion_returns,
                "champion_extra_cost": state.data.champion_cost_step * s.champion_returns,
            }
            for s in state.seats
        ],
        "turn": state.turn,
        "winner": state.winner,
        "eliminated": list(state.eliminated),
        "rolling": list(state.rolling),
        "chooser": state.chooser,
        "first_player": state.first_player,
        "counter_orders": [list(o) for o in state.counter_orders],
        "champion_costs": list(state.champion_costs),
        "checkpoint_order": list(checkpoint_order(state)),
        "attacks": [list(a) for a in state.attacks],
    }
