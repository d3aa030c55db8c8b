"""Cards as data (docs/rules.md §9): the four decks, each card's combo, timing, defence and
effect, and the loading and validation of a cards file.

A card's effect is built from a small set of documented primitives
(:class:`EffectKind`); the game flow (:mod:`controller.game.engine`) applies them.

Format (``cards.toml``)::

    invented = true          # the demo deck's texts are invented
    [[card]]
    name = "Kamehameha"       # unique
    deck = "attack"           # attack | defence | special | event
    timing = "attack"         # see Timing
    combo = ["sphere", "sphere", "punch"]   # optional
    defence = "cards_or_dice" # cards_or_dice | none | invulnerable_only (attack cards)
    invulnerable = false
    sphere_only = false       # as an answer: to a sphere attack only (A l.344, l.366)
    target = 5                # transformation_retry only: the last form on this or more
    copies = 2
    effect = { kind = "damage", amount = 22 }   # kind: see EffectKind; deck for draw

Every problem is reported at once, naming the file, the card and the field.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence, Set
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any

from controller.core.checked import Problems, name_key, name_problem
from controller.core.errors import InvalidThrowError, TopTableError
from controller.core.quoting import short_repr
from controller.core.symbols import Symbol, parse_symbol
from controller.core.tomlfile import read_toml
from controller.gamedata.combo_symbols import combo_problem, combo_symbols
from controller.rules.combat_types import Deck as Deck  # re-exported: the cards' decks
from controller.rules.scoring import CardCombo, CardDefence

DRAW_DECKS: tuple[Deck, ...] = (Deck.ATTACK, Deck.DEFENCE, Deck.SPECIAL)


class Timing(StrEnum):
    """When a card may be played."""

    START_OF_TURN = "start_of_turn"  # the optional card of turn step 1
    ATTACK = "attack"  # cashed in as the attack's option (its combo)
    DEFENCE = "defence"  # answers an attack
    COUNTER_ATTACK = "counter_attack"  # after being attacked, strike back at once
    TRANSFORMATION = "transformation"  # after a failed transformation roll
    AFTER_COMBAT = "after_combat"  # once the first combat of the turn is over
    ELIMINATED = "eliminated"  # the moment a warrior of the player is eliminated (A l.346)
    EVENT = "event"  # turned at the start of a turn (event deck only)


class EffectKind(StrEnum):
    """The effect primitives. ``amount`` and ``deck`` are their parameters.

    - damage: the card's combo, when made, deals ``amount`` damage (attack);
      as an event, every attack of the player this turn deals ``amount`` more.
    - prevent: the attack's damage is prevented (its combo thrown like a dodge,
      or at once when the card has no combo).
    - dodge: counts as a successful dodge once its combo is made (A l.203), at once
      when the card has none.
    - reflect: the attack's damage goes back to the attacker.
    - heal: remove up to ``amount`` damage from one of the player's warriors
      (as an event: from each of them).
    - extra_combat: a second combat this turn (not in the 45-minute game with B's variant).
    - transformation_retry: roll a failed transformation again; with a ``target``, a
      roll reaching it gives the warrior's last form (B l.423).
    - fusion: the two fusion partners on one space (or one apart, a variant) fuse (A l.209).
    - rescue: played the moment a warrior of the player is eliminated: it stays on
      its space with no damage (A l.259, l.335, l.346).
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
    EffectKind.RESCUE: frozenset({Timing.ELIMINATED}),
    EffectKind.COUNTER_ATTACK: frozenset({Timing.COUNTER_ATTACK}),
    EffectKind.MOVE: frozenset({Timing.START_OF_TURN, Timing.EVENT}),
    EffectKind.DRAW: frozenset({Timing.START_OF_TURN, Timing.EVENT}),
}
# Which timings each deck's cards may have (docs/rules.md §9; the loader checks it): Attack cards
# are cashed in as an attack (A l.322-323); Defence cards answer an attack, are played during the
# turn, and hold the Counter-Attack cards (A l.342-346, l.356); Special cards are played at the
# start of the turn, as an attack or an answer, or to retry a transformation (A l.333, l.363-368,
# l.374); both decks hold the cards played when a warrior is eliminated (A l.335, l.346); any of
# the three may be played for its combo instead of the warrior's (A l.63, l.189; B l.163), and a
# card of any deck may grant a second combat (A l.19, B l.321: "Event, Attack, Defence or Special
# card"); Event cards only as events.
DECK_TIMINGS: Mapping[Deck, frozenset[Timing]] = {
    Deck.ATTACK: frozenset({Timing.ATTACK, Timing.AFTER_COMBAT}),
    Deck.DEFENCE: frozenset(
        {
            Timing.ATTACK,
            Timing.DEFENCE,
            Timing.COUNTER_ATTACK,
            Timing.START_OF_TURN,
            Timing.AFTER_COMBAT,
            Timing.ELIMINATED,
        }
    ),
    Deck.SPECIAL: frozenset(
        {
            Timing.START_OF_TURN,
            Timing.ATTACK,
            Timing.DEFENCE,
            Timing.TRANSFORMATION,
            Timing.AFTER_COMBAT,
            Timing.ELIMINATED,
        }
    ),
    Deck.EVENT: frozenset({Timing.EVENT}),
}
TARGET_FACES = range(1, 13)  # a transformation retry's target: one or two dice's total
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
    sphere_only: bool = False  # as an answer: to a sphere attack only (A l.344, l.366)
    target: int | None = None  # transformation_retry: the last form on this or more (B l.423)

    def combo_view(self) -> CardCombo:
        """The card as the scorer sees it (damage for an attack card, else 0)."""
        damage = self.effect.amount if self.effect.kind is EffectKind.DAMAGE else 0
        return CardCombo(
            self.name, self.combo, damage, self.defence, self.invulnerable, self.sphere_only
        )


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


# ------------------------------------------------------------------ loading
_TOP_KEYS = {"invented", "note", "card"}
_CARD_KEYS = {
    "name",
    "deck",
    "timing",
    "combo",
    "defence",
    "invulnerable",
    "copies",
    "effect",
    "text",
    "sphere_only",
    "target",
}
_EFFECT_KEYS = {"kind", "amount", "deck"}
_EFFECT_KEYS_TEXT = ", ".join(sorted(_EFFECT_KEYS))
MAX_COPIES = 20
MAX_AMOUNT = 200


def _choice(raw: Any, enum: Any, what: str) -> tuple[Any, str | None]:
    try:
        return enum(str(raw)), None
    except ValueError:
        names = ", ".join(e.value for e in enum)
        got = f"expected one of {names}, got {short_repr(raw)}"
        return None, got if raw is not None else f"missing {what}"


def parse_cards(data: Mapping[str, Any], file: str) -> CardSet:
    """Build and validate a card set from parsed TOML.

    Raises:
        DataError: every problem found, each naming the file, the card and the field.
    """
    problems = Problems(file)
    problems.unknown_keys(data, _TOP_KEYS)
    problems.optional_text(data, "note")
    invented = data.get("invented", False)
    if not isinstance(invented, bool):
        problems.add("", "invented", "expected true or false")
        invented = True
    raw_cards = data.get("card")
    if not isinstance(raw_cards, list) or not raw_cards:
        problems.add("", "card", "expected at least one [[card]] table")
        raise problems.error()
    cards: dict[str, Card] = {}
    decks: dict[Deck, list[str]] = {d: [] for d in Deck}
    keys: set[str] = set()  # the names so far, as name_key says them
    for i, raw in enumerate(raw_cards):
        card = _parse_card(raw, i, file, problems, keys)
        if card is not None:
            cards[card.name] = card
            keys.add(name_key(card.name))
            decks[card.deck].extend([card.name] * card.copies)
    for deck, names in decks.items():
        if not names:
            problems.add("", "card", f"the {deck} deck has no card")
    problems.check()
    return CardSet(cards, invented, file, {d: tuple(n) for d, n in decks.items()})


def _parse_card(raw: Any, index: int, file: str, problems: Problems, seen: Set[str]) -> Card | None:
    def bad(field: str, message: str) -> None:
        problems.add(entry, field, message)

    entry = f"card #{index + 1}"
    if not isinstance(raw, dict):
        bad("", "expected a table")
        return None
    name = raw.get("name")
    if not isinstance(name, str) or not name.strip():
        bad("name", "expected a non-empty string")
        return None
    if (why := name_problem(name)) is not None:
        bad("name", why)
        return None
    name = name.strip()
    entry = f"card {name!r}"
    before = problems.mark()
    if name_key(name) in seen:
        bad("name", "duplicate card name (names differing in case or spaces are one)")
    problems.unknown_keys(raw, _CARD_KEYS, entry)
    deck = problems.choice(raw.get("deck"), Deck, entry, "deck")
    timing = problems.choice(raw.get("timing"), Timing, entry, "timing")
    defence = problems.choice(
        raw.get("defence", CardDefence.ANY.value), CardDefence, entry, "defence"
    )
    invulnerable = raw.get("invulnerable", False)
    if not isinstance(invulnerable, bool):
        bad("invulnerable", "expected true or false")
    sphere_only = raw.get("sphere_only", False)
    if not isinstance(sphere_only, bool):
        bad("sphere_only", "expected true or false")
    target = raw.get("target")
    if target is not None and (
        not isinstance(target, int) or isinstance(target, bool) or target not in TARGET_FACES
    ):
        bad("target", f"expected a whole number 1..{TARGET_FACES[-1]}, got {short_repr(target)}")
    copies = raw.get("copies", 1)
    if not isinstance(copies, int) or isinstance(copies, bool) or not 1 <= copies <= MAX_COPIES:
        bad("copies", f"expected a whole number 1..{MAX_COPIES}, got {short_repr(copies)}")
        copies = 1
    text = raw.get("text", "")
    if not isinstance(text, str):
        bad("text", "expected a string")
    raw_combo = raw.get("combo", [])  # a card may have no combo
    combo = combo_symbols(raw_combo, problems, entry, "combo") if raw_combo != [] else ()
    effect = _parse_effect(raw.get("effect"), bad)
    if effect is not None and timing is not None:
        allowed = EFFECT_TIMINGS[effect.kind]
        if timing not in allowed:
            bad(
                "timing",
                f"a {effect.kind} effect is played at {', '.join(sorted(allowed))}, not {timing}",
            )
        if target is not None and effect.kind is not EffectKind.TRANSFORMATION_RETRY:
            bad("target", "only a transformation_retry card has a target")
        if sphere_only and timing is not Timing.DEFENCE:
            bad("sphere_only", "only a card that answers an attack (timing 'defence') has it")
    if deck is not None and timing is not None and timing not in DECK_TIMINGS[deck]:
        timings = ", ".join(sorted(DECK_TIMINGS[deck]))
        bad(
            "timing",
            f"{deck.title()} cards are played at {timings}, not {timing} (docs/rules.md §9)",
        )
    elif deck is Deck.ATTACK and combo == ():
        bad("combo", "every Attack card needs a combo (A l.331)")
    if (
        problems.since(before)
        or deck is None
        or timing is None
        or effect is None
        or defence is None
        or combo is None
    ):
        return None
    return Card(
        name, deck, timing, effect, combo, defence, bool(invulnerable), copies, str(text),
        bool(sphere_only), target,
    )  # fmt: skip


def _parse_effect(raw: Any, bad: Any) -> Effect | None:
    if not isinstance(raw, dict):
        bad("effect", 'expected a table like { kind = "damage", amount = 20 }')
        return None
    for key in raw:
        if key not in _EFFECT_KEYS:
            bad("effect", f"unknown key {short_repr(key)}; expected one of {_EFFECT_KEYS_TEXT}")
    kind, msg = _choice(raw.get("kind"), EffectKind, "effect kind")
    if msg:
        bad("effect", f"kind: {msg}")
        return None
    amount = raw.get("amount", 0)
    if not isinstance(amount, int) or isinstance(amount, bool) or not 0 <= amount <= MAX_AMOUNT:
        bad("effect", f"amount: expected a whole number 0..{MAX_AMOUNT}, got {short_repr(amount)}")
        return None
    if kind in AMOUNT_EFFECTS and amount < 1:
        bad("effect", f"a {kind} effect needs amount >= 1")
        return None
    deck = None
    if kind is EffectKind.DRAW:
        deck, msg = _choice(raw.get("deck"), Deck, "deck")
        if msg or deck is Deck.EVENT:
            bad("effect", f"deck: {msg or 'cannot draw from the event deck'}")
            return None
    elif "deck" in raw:
        bad("effect", f"a {kind} effect takes no deck")
    return Effect(kind, amount, deck)


def load_cards(path: str | Path) -> CardSet:
    """Load and validate a cards file.

    Raises:
        DataError: the file is missing, not TOML, or has invalid cards.
    """
    path = Path(path)
    data = read_toml(path)
    return parse_cards(data, str(path))


# ------------------------------------------------------------------ the --cards spelling
SYNTAX = "NAME:SYM+SYM+...:DAMAGE[:DEFENCE][:invulnerable]"


class CardSpecError(TopTableError, ValueError):
    """A ``--cards`` item that does not read ``NAME:SYM+SYM...:DAMAGE[:DEFENCE][:invulnerable]``."""


def parse_card_spec(text: str) -> CardCombo:
    """One card combo in hand from its command-line spelling (the one parser of card text
    outside the data files), e.g. ``"Kamehameha:sphere+sphere+punch:30"`` or
    ``"Final Flash:sphere+sphere+star:35:none:invulnerable"``. DEFENCE is what the card
    allows the defender (``cards_or_dice``, the default; ``none``; ``invulnerable_only``);
    ``invulnerable`` marks an invulnerable card.

    Raises:
        CardSpecError: not of that form; a star (wild: no combo asks for it) or more
            symbols than a pool holds; damage outside what a card deals (the data files'
            rules); a name given already (:func:`parse_card_specs`).
        InvalidThrowError: a symbol that is not a die symbol (the message names the card).
    """
    parts = [p.strip() for p in text.split(":")]
    card = f"card {short_repr(text)}"  # as the person gave it, cut short when long
    if len(parts) < 3 or len(parts) > 5 or not parts[0] or not parts[1]:
        raise CardSpecError(f"{card}: expected {SYNTAX}")
    name, syms, dmg, *rest = parts
    try:
        names = [parse_symbol(s).value for s in syms.split("+")]
    except InvalidThrowError as exc:
        raise InvalidThrowError(f"{card}: {exc}") from None
    wrong = combo_problem(names)  # the data files' rules: no star, a pool's dice at most
    if wrong is not None:
        raise CardSpecError(f"{card}: {wrong}")
    symbols = tuple(Symbol(n) for n in names)
    try:
        damage = int(dmg)
    except ValueError:
        raise CardSpecError(f"{card}: damage {short_repr(dmg)} is not a whole number") from None
    if not 0 <= damage <= MAX_AMOUNT:  # ... and an amount a card may deal
        raise CardSpecError(f"{card}: damage must be within 0..{MAX_AMOUNT}")
    defence = CardDefence.ANY
    invulnerable = False
    for extra in rest:
        key = extra.lower()
        if key == "invulnerable":
            invulnerable = True
            continue
        choice, _ = _choice(key, CardDefence, "defence")
        if choice is None:
            allowed = ", ".join([*(str(d) for d in CardDefence), "invulnerable"])
            raise CardSpecError(f"{card}: {short_repr(extra)} is not one of {allowed}")
        defence = choice
    return CardCombo(name, symbols, damage, defence, invulnerable)


def parse_card_specs(items: Sequence[str]) -> tuple[CardCombo, ...]:
    """Every card of a ``--cards`` list (see :func:`parse_card_spec` for what is raised)."""
    cards = tuple(parse_card_spec(t) for t in items)
    names = [name_key(c.name) for c in cards]
    for i, (text, name) in enumerate(zip(items, names, strict=True)):
        if name in names[:i]:
            raise CardSpecError(f"card {short_repr(text)}: a card of that name is given already")
    return cards
