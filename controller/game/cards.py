"""Cards as data (RULES.md §9): four decks, each card's combo, timing, defence and effect.

A card's effect is built from a small set of documented primitives
(:class:`EffectKind`); the game flow (:mod:`controller.game.engine`) applies
them. Loading and validating a cards file is :mod:`controller.gamedata.cards`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum

from controller.core.symbols import Symbol
from controller.rules.scoring import CardCombo, CardDefence


class Deck(StrEnum):
    """The four decks; red, yellow and blue spaces draw from the first three."""

    ATTACK = "attack"
    DEFENCE = "defence"
    SPECIAL = "special"
    EVENT = "event"


DRAW_DECKS: tuple[Deck, ...] = (Deck.ATTACK, Deck.DEFENCE, Deck.SPECIAL)


class Timing(StrEnum):
    """When a card may be played."""

    START_OF_TURN = "start_of_turn"  # the optional card of turn step 1
    ATTACK = "attack"  # cashed in as the attack's option (its combo)
    DEFENCE = "defence"  # answers an attack
    COUNTER_ATTACK = "counter_attack"  # after being attacked, strike back at once
    TRANSFORMATION = "transformation"  # after a failed transformation roll
    AFTER_COMBAT = "after_combat"  # once the first combat of the turn is over
    EVENT = "event"  # turned at the start of a turn (event deck only)


class EffectKind(StrEnum):
    """The effect primitives. ``amount`` and ``deck`` are their parameters.

    - damage: the card's combo, when made, deals ``amount`` damage (attack);
      as an event, every attack of the player this turn deals ``amount`` more.
    - prevent: the attack's damage is prevented (its combo thrown like a dodge,
      or at once when the card has no combo).
    - dodge: counts as a successful dodge, without rolling (only where a dodge
      roll is allowed).
    - reflect: the attack's damage goes back to the attacker.
    - heal: remove up to ``amount`` damage from one of the player's warriors
      (as an event: from each of them).
    - extra_combat: a second combat this turn (never in the 45-minute game).
    - transformation_retry: roll a failed transformation again.
    - fusion: the two fusion partners, standing on adjacent spaces, fuse.
    - rescue: an eliminated warrior of the player comes back on an empty,
      non-green space with no damage.
    - counter_attack: after an attack, the defender attacks back at once.
    - move: the move of this turn may go ``amount`` more steps.
    - draw: draw ``amount`` cards from ``deck``.
    """

    DAMAGE = "damage"
    PREVENT = "prevent"
    DODGE = "dodge"
    REFLECT = "reflect"
    HEAL = "heal"
    EXTRA_COMBAT = "extra_combat"
    TRANSFORMATION_RETRY = "transformation_retry"
    FUSION = "fusion"
    RESCUE = "rescue"
    COUNTER_ATTACK = "counter_attack"
    MOVE = "move"
    DRAW = "draw"


# Which timings each effect may have (the loader checks it).
EFFECT_TIMINGS: Mapping[EffectKind, frozenset[Timing]] = {
    EffectKind.DAMAGE: frozenset({Timing.ATTACK, Timing.EVENT}),
    EffectKind.PREVENT: frozenset({Timing.DEFENCE}),
    EffectKind.DODGE: frozenset({Timing.DEFENCE}),
    EffectKind.REFLECT: frozenset({Timing.DEFENCE}),
    EffectKind.HEAL: frozenset({Timing.START_OF_TURN, Timing.EVENT}),
    EffectKind.EXTRA_COMBAT: frozenset({Timing.AFTER_COMBAT, Timing.EVENT}),
    EffectKind.TRANSFORMATION_RETRY: frozenset({Timing.TRANSFORMATION}),
    EffectKind.FUSION: frozenset({Timing.START_OF_TURN}),
    EffectKind.RESCUE: frozenset({Timing.START_OF_TURN}),
    EffectKind.COUNTER_ATTACK: frozenset({Timing.COUNTER_ATTACK}),
    EffectKind.MOVE: frozenset({Timing.START_OF_TURN, Timing.EVENT}),
    EffectKind.DRAW: frozenset({Timing.START_OF_TURN, Timing.EVENT}),
}
# Effects whose parameter ``amount`` must be >= 1.
AMOUNT_EFFECTS = frozenset({EffectKind.DAMAGE, EffectKind.HEAL, EffectKind.MOVE, EffectKind.DRAW})


@dataclass(frozen=True)
class Effect:
    """One effect primitive with its parameters."""

    kind: EffectKind
    amount: int = 0
    deck: Deck | None = None  # for draw


@dataclass(frozen=True)
class Card:
    """A card as printed: name, deck, combo (may be empty), timing, defence allowed, effect."""

    name: str
    deck: Deck
    timing: Timing
    effect: Effect
    combo: tuple[Symbol, ...] = ()
    defence: CardDefence = CardDefence.ANY  # what an attack with this card allows
    invulnerable: bool = False
    copies: int = 1
    text: str = ""

    @property
    def is_special(self) -> bool:
        """Whether the card counts against the one-Special-card-per-turn limit."""
        return self.deck is Deck.SPECIAL

    def combo_view(self) -> CardCombo:
        """The card as the scorer sees it (damage for an attack card, else 0)."""
        damage = self.effect.amount if self.effect.kind is EffectKind.DAMAGE else 0
        return CardCombo(self.name, self.combo, damage, self.defence, self.invulnerable)


@dataclass(frozen=True)
class CardSet:
    """Every card by name, and each deck's list (copies repeated) in file order."""

    cards: Mapping[str, Card]
    invented: bool = False
    source: str = ""
    decks: Mapping[Deck, tuple[str, ...]] = field(default_factory=dict)

    def card(self, name: str) -> Card:
        """The card called ``name``.

        Raises:
            KeyError: no such card.
        """
        return self.cards[name]
