"""The legal-action view (python-chess's ``board.legal_moves`` is the model).

``legal_actions(state)`` is lazy: iterating generates the actions the player
whose turn it is may take now; ``action in legal_actions(state)`` checks one
by applying it to a copy. Inputs (dice, die rolls, shuffles, the clock) are not
actions: :func:`controller.game.engine.awaiting` says which one is expected.
"""

from __future__ import annotations

from collections.abc import Iterator

from controller.core.errors import TopTableError
from controller.game import engine
from controller.game.events import (
    Action,
    ChooseAttack,
    ChooseReward,
    ChooseStarter,
    CounterAttack,
    Defend,
    Discard,
    Draft,
    DuelPick,
    ExtraCombat,
    Move,
    Pass,
    Place,
    PlayCard,
    StepAside,
    StopRolling,
    TryFusion,
)
from controller.game.state import GameState, Phase
from controller.game.story import story_actions
from controller.gamedata.cards import DRAW_DECKS, EffectKind, Timing
from controller.rules.warriors import AbilityKind


class LegalActions:
    """The actions allowed in ``state``, generated on demand."""

    def __init__(self, state: GameState) -> None:
        self.state = state

    def __iter__(self) -> Iterator[Action]:
        return _generate(self.state)

    def __len__(self) -> int:
        return sum(1 for _ in self)

    def __bool__(self) -> bool:
        return any(True for _ in self)

    def __contains__(self, action: object) -> bool:
        if not isinstance(action, Action):
            return False
        try:
            engine.apply(self.state, action)
        except (TopTableError, KeyError, ValueError):
            return False
        return True

    def __repr__(self) -> str:
        return f"<LegalActions ({', '.join(repr(a) for a in self)})>"


def legal_actions(state: GameState) -> LegalActions:
    """A lazy view of the actions legal in ``state``."""
    return LegalActions(state)


def _generate(s: GameState) -> Iterator[Action]:
    seat = engine.actor(s)
    if seat is None:
        return
    ph = s.phase
    c = s.combat
    if ph is Phase.DRAFT:
        for w in engine.draftable(s):
            yield Draft(seat, w)
    elif ph is Phase.PLACE:
        todo = next(
            n for n in s.teams[seat] if s.pieces[n].space is None and not s.pieces[n].eliminated
        )
        for sp in engine.placements(s, seat):
            yield Place(seat, todo, sp)
    elif ph is Phase.STARTER:
        for q in range(len(s.players)):
            yield ChooseStarter(seat, q)
    elif ph is Phase.DISCARD:
        for name in dict.fromkeys(s.hands[seat]):
            yield Discard(seat, name)
    elif ph is Phase.START_CARD:
        yield Pass(seat)
        for card in engine.start_cards(s):
            for named, space in engine.start_targets(s, card):
                yield PlayCard(seat, card.name, named, None, space)
    elif ph is Phase.MOVE:
        for p in s.on_board(seat):
            for sp in sorted(engine.move_targets(s, p.name)):
                yield Move(seat, p.name, sp)
    elif ph is Phase.FUSION_OFFER:
        yield Pass(seat)
        if c is not None and c.fusers:  # the die without a Fusion card, else the card (A l.209)
            if engine.fusion_candidate(s, c.fusers[0]) is not None:
                yield TryFusion(seat)
            fused = engine.combat_fusion(s, c.fusers[0])
            for card in engine.fusion_cards(s, c.fusers[0]):
                yield PlayCard(seat, card.name, fused)
    elif ph is Phase.TRANSFORM:  # the die is the table's input; keeping the base form a choice
        yield Pass(seat)
    elif ph is Phase.RESCUE_OFFER:
        yield Pass(seat)
        for card in engine.playable(s, seat, Timing.ELIMINATED):
            yield PlayCard(seat, card.name)
    elif ph is Phase.RETRY_OFFER:
        yield Pass(seat)
        for card in engine.playable(s, seat, Timing.TRANSFORMATION):
            yield PlayCard(seat, card.name)
    elif ph is Phase.ATTACK:
        for name, _ in engine.attack_options(s):
            yield ChooseAttack(seat, name)
    elif ph in (Phase.DEFENCE_CHOICE, Phase.REFLECT_CHOICE):
        for answer, card_name in engine.defence_answers(s):
            yield Defend(seat, answer, card_name)
    elif ph is Phase.DEFENCE_ROLL:
        if c is not None and c.defence_throws:
            yield StopRolling(seat)
    elif ph is Phase.FLEE:
        for sp in engine.flee_spaces(s):
            yield StepAside(seat, sp)
    elif ph is Phase.COUNTER_OFFER and c is not None:
        yield Pass(seat)
        if engine.fighter(s, c.target).has(AbilityKind.COUNTER_ATTACK):
            yield CounterAttack(seat)
        for card in engine.counter_cards(s):
            yield CounterAttack(seat, card.name)
    elif ph is Phase.REWARD:
        for d in DRAW_DECKS:
            yield ChooseReward(seat, d)
    elif ph is Phase.STEP_ASIDE:
        for sp in engine.step_spaces(s):
            yield StepAside(seat, sp)
        if not s.extra_granted and engine.second_steps(s):
            for card in engine.second_combat_cards(s):
                yield PlayCard(seat, card.name)
        if engine.may_step_back(s):  # only a second combat on: declining it is allowed
            yield Pass(seat)
    elif ph is Phase.EXTRA_OFFER:
        yield Pass(seat)
        targets = engine.extra_targets(s)
        greens = engine.extra_green_steps(s)  # revision 4 on (A l.39)
        if s.extra_granted:
            for a, t in targets:
                yield ExtraCombat(seat, a, t)
            for sp in greens:
                yield StepAside(seat, sp)
        for card in engine.playable(s, seat, Timing.AFTER_COMBAT):
            if card.effect.kind is EffectKind.EXTRA_COMBAT:
                for a, t in targets:
                    yield PlayCard(seat, card.name, a, t)
                for sp in greens:
                    yield PlayCard(seat, card.name, space=sp)
    elif ph is Phase.DUEL_PICK:
        for p in s.on_board(seat):
            yield DuelPick(seat, p.name)
    elif ph is Phase.STORY_FIGHT and s.story is not None:
        yield from story_actions(s.story)
