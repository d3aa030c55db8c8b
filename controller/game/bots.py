"""Bot players and the table simulator's inputs, for whole simulated games.

A bot turns a state into the next action of its seat (or, while it throws, the
next dice state); :func:`table_input` plays the table's part (a die for the
first player, shuffles, transformation dice) from a seeded ``random.Random``.
Both are deterministic for a given RNG state.
"""

from __future__ import annotations

import random
from typing import Protocol

from controller.core.errors import IllegalActionError
from controller.core.symbols import ATTACK_SYMBOLS, Symbol
from controller.game import engine
from controller.game.events import (
    ChooseAttack,
    DiceThrown,
    DieRolled,
    Draft,
    FirstPlayerChosen,
    GameEvent,
    Move,
    Pass,
    Place,
    Shuffled,
)
from controller.game.legal import legal_actions
from controller.game.state import Answer, GameState, Phase
from controller.gamedata.board import Colour
from controller.gamedata.bundle import GameData
from controller.gamedata.cards import EffectKind

FACES: tuple[Symbol, ...] = tuple(Symbol)
_ENOUGH = (12, 15, 18)  # the greedy bot stops at this much damage after 1, 2, 3+ throws


class Bot(Protocol):
    """Chooses the next event for its seat."""

    name: str

    def act(self, state: GameState, rng: random.Random) -> GameEvent:
        """The next action (or dice state) for the seat the game waits for."""
        ...


def roll(rng: random.Random, n: int, faces: tuple[Symbol, ...] = FACES) -> tuple[Symbol, ...]:
    """``n`` dice thrown (dice bearing ``faces``: the data's die)."""
    return tuple(faces[rng.randrange(len(faces))] for _ in range(n))


def reroll(
    rng: random.Random, dice: tuple[Symbol, ...], keep: set[int], faces: tuple[Symbol, ...] = FACES
) -> tuple[Symbol, ...]:
    """A new dice state: the dice at ``keep`` stay, the others are thrown again."""
    return tuple(d if i in keep else faces[rng.randrange(len(faces))] for i, d in enumerate(dice))


def table_input(state: GameState, rng: random.Random) -> GameEvent | None:
    """The table's input the game waits for (None when it waits for a player)."""
    ph = state.phase
    if ph is Phase.FIRST_PLAYER:
        return FirstPlayerChosen(rng.randrange(len(state.players)))
    if ph is Phase.SHUFFLE:
        deck = engine.decks_to_shuffle(state)[0]
        order = engine.expected_deck(state, deck)
        rng.shuffle(order)
        return Shuffled(deck, tuple(order))
    if ph in (Phase.TRANSFORM, Phase.FUSION_ROLL):
        n = engine.awaiting(state).die_count
        return DieRolled(tuple(rng.randint(1, 6) for _ in range(n)))
    return None


def _transformation_die(state: GameState, rng: random.Random) -> GameEvent:
    """A bot always tries to transform (declining is a player's choice, never a bot's)."""
    event = table_input(state, rng)
    if event is None:
        raise IllegalActionError("no transformation roll is awaited")
    return event


def _defence_dice(state: GameState, rng: random.Random) -> GameEvent:
    c = state.combat
    if c is None:
        raise IllegalActionError("no defence in progress")
    if not c.defence_throws:
        return DiceThrown(roll(rng, c.defence_pool, state.data.die.faces))
    last = c.defence_throws[-1]
    keep = {i for i, d in enumerate(last) if d in (Symbol.TELEPORT, Symbol.STAR)}
    if c.answer in (Answer.CARD, Answer.REFLECT_CARD) and c.answer_card is not None:
        need = list(state.data.cards.card(c.answer_card).combo)
        keep = set()
        for i, d in enumerate(last):
            if d in need:
                need.remove(d)
                keep.add(i)
            elif d is Symbol.STAR:
                keep.add(i)
    return DiceThrown(reroll(rng, last, keep, state.data.die.faces))


class RandomBot:
    """Picks uniformly among the legal actions (but a move onto a teammate); rerolls at
    random."""

    name = "random"

    def act(self, state: GameState, rng: random.Random) -> GameEvent:
        c = state.combat
        if state.phase is Phase.ATTACK and c is not None:
            can = len(c.throws) <= c.max_rerolls
            if not c.throws or (can and rng.random() < 0.5):
                if not c.throws:
                    return DiceThrown(roll(rng, c.pool, state.data.die.faces))
                last = c.throws[-1]
                keep = {i for i in range(len(last)) if rng.random() < 0.5}
                return DiceThrown(reroll(rng, last, keep, state.data.die.faces))
        if state.phase is Phase.DEFENCE_ROLL:
            return _defence_dice(state, rng)
        if state.phase is Phase.TRANSFORM:
            return _transformation_die(state, rng)
        seat = engine.actor(state)
        if seat is not None and state.phase is Phase.DRAFT:  # same choice, without the objects
            names = engine.draftable(state)
            return Draft(seat, names[rng.randrange(len(names))])
        if seat is not None and state.phase is Phase.PLACE:
            todo = next(n for n in state.teams[seat] if state.pieces[n].space is None)
            spaces = engine.placements(state, seat)
            return Place(seat, todo, spaces[rng.randrange(len(spaces))])
        if seat is not None and state.phase is Phase.MOVE:
            # never onto a teammate: legal, but a hall-sensor board sees one token per space
            mine = state.on_board(seat)
            mates = {p.space for p in mine}
            moves = [
                (p.name, sp)
                for p in mine
                for sp in engine.move_targets(state, p.name)
                if sp not in mates
            ]
            name, space = moves[rng.randrange(len(moves))]
            return Move(seat, name, space)
        actions = list(iter(legal_actions(state)))
        return actions[rng.randrange(len(actions))]


class GreedyBot:
    """Picks the best-scoring option it sees: attacks the weakest foe, keeps the best dice."""

    name = "greedy"

    def __init__(self) -> None:
        # worked out once for the game data in use (its draft order, each space's worth)
        self._data: GameData | None = None
        self._draft_order: list[str] = []
        self._space_value: dict[int, float] = {}

    def _learn(self, data: GameData) -> None:
        if data is self._data:
            return
        self._data = data
        self._draft_order, self._space_value = _learnt(data)

    def act(self, state: GameState, rng: random.Random) -> GameEvent:
        ph = state.phase
        c = state.combat
        seat = engine.actor(state)
        if seat is None:
            raise IllegalActionError("no player is awaited")
        if ph is Phase.ATTACK and c is not None:
            return self._attack(state, rng)
        if ph is Phase.DEFENCE_ROLL:
            return _defence_dice(state, rng)
        if ph is Phase.TRANSFORM:
            return _transformation_die(state, rng)
        if ph is Phase.MOVE:
            return self._move(state, seat, rng)
        if ph is Phase.DRAFT:
            return self._draft(state, seat)
        if ph is Phase.PLACE:
            todo = next(n for n in state.teams[seat] if state.pieces[n].space is None)
            spaces = engine.placements(state, seat)
            return Place(seat, todo, spaces[rng.randrange(len(spaces))])
        if ph in _OFFERS:  # the first useful offer, else decline
            for a in legal_actions(state):
                if not isinstance(a, Pass) and (
                    ph is not Phase.START_CARD or self._worth_it(state, a)
                ):
                    return a
            return Pass(seat)
        actions = list(iter(legal_actions(state)))
        if ph in (Phase.DEFENCE_CHOICE, Phase.REFLECT_CHOICE):
            order = {Answer.NONE.value: 0, Answer.DODGE.value: 2}
            return max(actions, key=lambda a: order.get(getattr(a, "answer", ""), 3))
        if ph is Phase.STORY_FIGHT:  # agree to the fight proposed (the first action), or propose
            return actions[0] if _fight_proposed(state) else actions[rng.randrange(len(actions))]
        if ph is Phase.DUEL_PICK:

            def left(a: GameEvent) -> int:
                p = state.pieces[getattr(a, "warrior", "")]
                return state.data.warrior(p.name).endurance - p.damage

            return max(actions, key=left)
        return actions[rng.randrange(len(actions))]

    def _draft(self, state: GameState, seat: int) -> GameEvent:
        self._learn(state.data)
        order = self._draft_order
        room = state.config.team_size - len(state.teams[seat])
        pairs = state.config.variants.fusion_pairs_drafted_together
        outside = engine.outside_tournament(state.data)
        for name in order:
            if name in state.pieces or name in outside:
                continue
            pair = engine.pair_of(name) if pairs else None
            if pair is not None and (pair in state.pieces or room < 2):
                continue
            return Draft(seat, name)
        raise IllegalActionError("nothing left to draft")

    @staticmethod
    def _worth_it(state: GameState, a: GameEvent) -> bool:
        card = state.data.cards.cards.get(getattr(a, "card", ""))
        return card is not None and card.effect.kind is not EffectKind.MOVE

    def _attack(self, state: GameState, rng: random.Random) -> GameEvent:
        c = state.combat
        seat = engine.actor(state)
        if c is None or seat is None:
            raise IllegalActionError("no attack in progress")
        if not c.throws:
            return DiceThrown(roll(rng, c.pool, state.data.die.faces))
        options = engine.attack_options(state)
        name, best = max(options, key=lambda o: o[1])
        can = len(c.throws) <= c.max_rerolls
        left = state.data.warrior(c.target).endurance - state.pieces[c.target].damage
        # a faster attack leaves the defender fewer answers: settle for less when it is fast
        enough = _ENOUGH[min(len(c.throws), len(_ENOUGH)) - 1]
        if not can or best >= enough or best >= left:
            return ChooseAttack(seat, name)
        last = c.throws[-1]
        fighter = engine.fighter(state, c.striker)
        values = fighter.values
        top = max(ATTACK_SYMBOLS, key=lambda s: last.count(s) * 10 + values.get(s, 0))
        keep = {i for i, d in enumerate(last) if d is top or d is Symbol.STAR}
        return DiceThrown(reroll(rng, last, keep, state.data.die.faces))

    def _move(self, state: GameState, seat: int, rng: random.Random) -> GameEvent:
        """Attack the foe in reach with the least endurance left; else the best colour."""
        data = state.data
        occ = state.occ
        pieces = state.pieces
        steps = engine.MOVE_STEPS + state.move_bonus
        mine = state.on_board(seat)
        mates = {q.space for q in mine}
        self._learn(data)
        colour_value = self._space_value
        attack: tuple[int, str, int] | None = None
        best = -1.0
        calm: list[tuple[str, int]] = []
        for p in mine:
            if p.space is None:
                continue
            for space in data.distances(p.space, steps):
                if space in mates:  # its own space too
                    continue
                foe = occ.get(space)
                if foe is not None:
                    left = data.warrior(foe).endurance - pieces[foe].damage
                    if attack is None or left < attack[0]:
                        attack = (left, p.name, space)
                elif attack is None:
                    value = colour_value[space]
                    if value > best:
                        best, calm = value, [(p.name, space)]
                    elif value == best:
                        calm.append((p.name, space))
        if attack is not None:
            return Move(seat, attack[1], attack[2])
        name, space = calm[rng.randrange(len(calm))]
        return Move(seat, name, space)


_LEARNT: list[tuple[GameData, list[str], dict[int, float]]] = []  # the last data's, one entry


def _learnt(data: GameData) -> tuple[list[str], dict[int, float]]:
    """The greedy bot's draft order (strongest first) and each space's worth for ``data``,
    kept for the last game data seen: a simulation builds new bots for every game."""
    if _LEARNT and _LEARNT[0][0] is data:
        return _LEARNT[0][1], _LEARNT[0][2]
    roster = data.roster

    def strength(name: str) -> int:
        w = roster[name]
        return w.endurance + 6 * w.power + 3 * w.technique

    order = sorted(roster, key=strength, reverse=True)
    values = {sid: _COLOUR_VALUE[c] for sid, c in data.colours.items()}
    _LEARNT[:] = [(data, order, values)]
    return order, values


def _fight_proposed(state: GameState) -> bool:
    st = state.story
    b = st.current if st is not None else None
    return b is not None and b.proposal is not None


_OFFERS = frozenset(
    {
        Phase.START_CARD,
        Phase.RETRY_OFFER,
        Phase.RESCUE_OFFER,
        Phase.COUNTER_OFFER,
        Phase.FUSION_OFFER,
        Phase.EXTRA_OFFER,
    }
)
_COLOUR_VALUE: dict[Colour, float] = {
    Colour.GREEN: 20.0,
    Colour.RED: 10.0,
    Colour.BLUE: 8.0,
    Colour.YELLOW: 6.0,
}


BOTS: dict[str, type[RandomBot] | type[GreedyBot]] = {"random": RandomBot, "greedy": GreedyBot}
