"""The game as a fold of events: :func:`apply`, :func:`advance`, :func:`replay`.

Each (phase, event type) pair has one handler, in the module of its phase; an event
with no handler in the current phase is illegal.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from controller.core.errors import IllegalActionError
from controller.game.engine import (
    attack,
    cards,
    combat,
    defence,
    duel,
    end,
    extra,
    move,
    resolve,
    setup,
    story,
    turn,
)
from controller.game.engine.who import actor
from controller.game.events import (
    Action,
    ChooseAttack,
    ChooseFight,
    ChooseReward,
    ChooseStarter,
    ClockEvent,
    CounterAttack,
    Defend,
    DiceThrown,
    DieRolled,
    Discard,
    Draft,
    DuelPick,
    ExtraCombat,
    FirstPlayerChosen,
    GameEvent,
    Move,
    Pass,
    Place,
    PlayCard,
    Shuffled,
    StepAside,
    StopRolling,
    ThrowCorrected,
    TimeUp,
    TryFusion,
)
from controller.game.state import GameConfig, GameState, Length, Phase
from controller.gamedata.bundle import GameData

Handler = Callable[[GameState, Any], None]

HANDLERS: dict[tuple[Phase, type[GameEvent]], Handler] = {
    (Phase.FIRST_PLAYER, FirstPlayerChosen): setup.first_player,
    (Phase.DRAFT, Draft): setup.draft,
    (Phase.SHUFFLE, Shuffled): setup.shuffled,
    (Phase.PLACE, Place): setup.place,
    (Phase.STARTER, ChooseStarter): setup.choose_starter,
    (Phase.DISCARD, Discard): turn.discard,
    (Phase.START_CARD, PlayCard): cards.start_card,
    (Phase.START_CARD, Pass): cards.skip_start_card,
    (Phase.MOVE, Move): move.move,
    (Phase.FUSION_OFFER, TryFusion): combat.try_fusion,
    (Phase.FUSION_OFFER, PlayCard): combat.fusion_card,
    (Phase.FUSION_OFFER, Pass): combat.decline_fusion,
    (Phase.FUSION_ROLL, DieRolled): combat.fusion_roll,
    (Phase.TRANSFORM, DieRolled): combat.transform_roll,
    (Phase.TRANSFORM, Pass): combat.decline_transform,
    (Phase.RESCUE_OFFER, PlayCard): end.rescue_card,
    (Phase.RESCUE_OFFER, Pass): end.decline_rescue,
    (Phase.RETRY_OFFER, PlayCard): combat.retry_card,
    (Phase.RETRY_OFFER, Pass): combat.decline_retry,
    (Phase.ATTACK, DiceThrown): attack.dice_thrown,
    (Phase.ATTACK, ThrowCorrected): attack.throw_corrected,
    (Phase.ATTACK, ChooseAttack): attack.choose_attack,
    (Phase.DEFENCE_CHOICE, Defend): defence.defend,
    (Phase.REFLECT_CHOICE, Defend): defence.defend,
    (Phase.DEFENCE_ROLL, DiceThrown): defence.defence_throw,
    (Phase.DEFENCE_ROLL, ThrowCorrected): defence.defence_corrected,
    (Phase.DEFENCE_ROLL, StopRolling): defence.stop_rolling,
    (Phase.FLEE, StepAside): defence.flee,
    (Phase.COUNTER_OFFER, CounterAttack): resolve.counter,
    (Phase.COUNTER_OFFER, Pass): resolve.decline_counter,
    (Phase.STEP_ASIDE, StepAside): end.step_aside,
    (Phase.STEP_ASIDE, PlayCard): end.grant_card,
    (Phase.STEP_ASIDE, Pass): end.step_back,
    (Phase.REWARD, ChooseReward): end.reward,
    (Phase.EXTRA_OFFER, PlayCard): extra.extra_card,
    (Phase.EXTRA_OFFER, ExtraCombat): extra.extra_event,
    (Phase.EXTRA_OFFER, StepAside): extra.extra_green_event,
    (Phase.EXTRA_OFFER, Pass): extra.decline_extra,
    (Phase.DUEL_PICK, DuelPick): duel.duel_pick,
}

STORY_HANDLERS: dict[tuple[Phase, type[GameEvent]], Handler] = {
    (Phase.STORY_FIGHT, ChooseFight): story.choose_fight,
    (Phase.ATTACK, DiceThrown): attack.dice_thrown,
    (Phase.ATTACK, ThrowCorrected): attack.throw_corrected,
    (Phase.ATTACK, ChooseAttack): story.choose_attack,
}


def new_game(config: GameConfig, data: GameData) -> GameState:
    """A game set up with ``config``, waiting for the die that picks the first player
    (a Story game: at its first square).

    Raises:
        IllegalActionError: a bad number of players; Story mode with no story data.
        DataError: too few warriors to draft or board spaces for the players' teams.
    """
    config.check()
    if not config.story:
        setup.check_fits(config, data)
    state = GameState(data, config)
    if config.story:
        story.start_story(state)
    return state


def apply(state: GameState, event: GameEvent) -> GameState:
    """The state after ``event``; ``state`` is not changed.

    Raises:
        IllegalActionError: the event is not allowed now (the message says why).
        InvalidThrowError: a throw that cannot have happened.
    """
    new = state.copy()
    advance(new, event)
    return new


def advance(state: GameState, event: GameEvent) -> None:
    """Apply ``event`` to ``state`` in place (the fast path; on error the state is undefined).

    Raises:
        IllegalActionError, InvalidThrowError: as :func:`apply`.
    """
    if isinstance(event, ClockEvent):
        return  # the table's clock, journalled beside the game: no rule acts on it
    if state.phase is Phase.OVER:
        raise IllegalActionError("the game is over")
    if isinstance(event, TimeUp):
        if state.config.length is not Length.MINUTES45:
            raise IllegalActionError(
                f"time up only ends a 45-minute game; this one is {state.config.length}"
            )
        state.time_up = True
        state.events_applied += 1
        return
    if isinstance(event, Action):
        want = actor(state)
        if want is None or event.seat != want:
            who = "nobody" if want is None else f"seat {want} ({state.players[want]})"
            raise IllegalActionError(
                f"out of turn: seat {event.seat} cannot act now; the game waits for {who} ({state.phase})"
            )
    handlers = HANDLERS if state.story is None else STORY_HANDLERS
    handler = handlers.get((state.phase, type(event)))
    if handler is None:
        raise IllegalActionError(f"a {event.kind} event is not expected now (phase {state.phase})")
    handler(state, event)
    state.events_applied += 1


def replay(config: GameConfig, data: GameData, events: Iterable[GameEvent]) -> GameState:
    """The state after folding ``events`` into a new game (in place, fast).

    Raises:
        IllegalActionError, InvalidThrowError: an event that does not fit.
    """
    state = new_game(config, data)
    for e in events:
        advance(state, e)
    return state
