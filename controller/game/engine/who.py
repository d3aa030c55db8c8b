"""Who (or which input) the game waits for: :func:`actor` and :func:`awaiting`."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum, auto

from controller.game.engine.common import decks_to_shuffle, seat_of, transformation_dice
from controller.game.state import Answer, GameState, Phase, ShuffledDeck


class ActorKind(Enum):
    """Who acts in a phase."""

    INPUT = auto()  # nobody: the game waits for an input (a die, a shuffle, dice)
    TURN = auto()  # the player whose turn it is
    TRANSFORMING = auto()  # the player of the warrior transforming
    STRIKER = auto()  # the player of the warrior attacking now
    TARGET = auto()  # the player of the warrior attacked now
    DUEL_PICKER = auto()  # the tied player whose duel pick comes next
    FUSER = auto()  # the player of the warrior offered a fusion roll
    DEFENCE_ROLLER = auto()  # the target; the striker when it dodges its reflected sphere
    RESCUER = auto()  # the player of the warrior eliminated, offered its rescue cards


ACTOR_KIND: dict[Phase, ActorKind] = {
    Phase.FIRST_PLAYER: ActorKind.INPUT,
    Phase.SHUFFLE: ActorKind.INPUT,
    Phase.FUSION_ROLL: ActorKind.INPUT,
    Phase.OVER: ActorKind.INPUT,
    Phase.DRAFT: ActorKind.TURN,
    Phase.PLACE: ActorKind.TURN,
    Phase.STARTER: ActorKind.TURN,
    Phase.DISCARD: ActorKind.TURN,
    Phase.START_CARD: ActorKind.TURN,
    Phase.MOVE: ActorKind.TURN,
    Phase.FUSION_OFFER: ActorKind.FUSER,
    Phase.REWARD: ActorKind.TURN,
    Phase.STEP_ASIDE: ActorKind.TURN,
    Phase.EXTRA_OFFER: ActorKind.TURN,
    Phase.RESCUE_OFFER: ActorKind.RESCUER,
    Phase.TRANSFORM: ActorKind.TRANSFORMING,  # the die, or Pass: keep the base form (A l.89)
    Phase.RETRY_OFFER: ActorKind.TRANSFORMING,
    Phase.ATTACK: ActorKind.STRIKER,
    Phase.DEFENCE_CHOICE: ActorKind.TARGET,
    Phase.REFLECT_CHOICE: ActorKind.STRIKER,
    Phase.DEFENCE_ROLL: ActorKind.DEFENCE_ROLLER,
    Phase.COUNTER_OFFER: ActorKind.TARGET,
    Phase.DUEL_PICK: ActorKind.DUEL_PICKER,
    Phase.FLEE: ActorKind.TARGET,
    Phase.STORY_FIGHT: ActorKind.TURN,
}


def actor(state: GameState) -> int | None:
    """The seat whose action the game waits for (None while it waits for an input)."""
    who = ACTOR_KIND[state.phase]
    if who is ActorKind.INPUT:
        return None
    c = state.combat
    if who is ActorKind.DUEL_PICKER:
        return state.tied[len(state.duel_picks)] if c is None else state.seat
    if who is ActorKind.TURN or c is None:
        return state.seat
    if who is ActorKind.TRANSFORMING:
        return seat_of(state, c.to_transform[0])
    if who is ActorKind.STRIKER:
        return seat_of(state, c.striker)
    if who is ActorKind.TARGET:
        return seat_of(state, c.target)
    if who is ActorKind.RESCUER:
        return seat_of(state, c.falling[0]) if c.falling else state.seat
    if who is ActorKind.FUSER:
        return seat_of(state, c.fusers[0]) if c.fusers else state.seat
    # a defence roll; the attacker's own when it dodges a reflected sphere
    reflected = c.answer in (Answer.REFLECT, Answer.REFLECT_CARD)
    return seat_of(state, c.striker if reflected else c.target)


class InputKind(Enum):
    """An input the table gives the game (as opposed to a player's action)."""

    FIRST_PLAYER = auto()  # the die that decides who starts: FirstPlayerChosen
    SHUFFLE = auto()  # a deck's order: Shuffled
    DIE = auto()  # numbered dice (transformation, fusion): DieRolled
    DICE = auto()  # a throw of symbol dice: DiceThrown


@dataclass(frozen=True)
class Awaiting:
    """What the game waits for: an ``input`` (None: none) and/or an action by ``seat``.
    ``dice``: the dice count of the throw awaited."""

    phase: Phase
    seat: int | None
    input: InputKind | None = None
    dice: int = 0
    die_count: int = 0
    decks: tuple[ShuffledDeck, ...] = ()


def awaiting(state: GameState) -> Awaiting:
    """Describe what the game waits for now."""
    ph = state.phase
    c = state.combat
    seat = actor(state)
    if ph is Phase.FIRST_PLAYER:
        return Awaiting(ph, None, InputKind.FIRST_PLAYER)
    if ph is Phase.SHUFFLE:
        return Awaiting(ph, None, InputKind.SHUFFLE, decks=decks_to_shuffle(state))
    if ph is Phase.TRANSFORM and c is not None:
        return Awaiting(
            ph, seat, InputKind.DIE, die_count=transformation_dice(state, c.to_transform[0])
        )
    if ph is Phase.FUSION_ROLL:
        return Awaiting(ph, None, InputKind.DIE, die_count=1)
    if ph is Phase.ATTACK and c is not None:
        more = len(c.throws) <= c.max_rerolls
        return Awaiting(ph, seat, InputKind.DICE if more else None, dice=c.pool)
    if ph is Phase.DEFENCE_ROLL and c is not None:
        return Awaiting(ph, seat, InputKind.DICE, dice=c.defence_pool)
    return Awaiting(ph, seat)
