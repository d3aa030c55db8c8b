"""Load and validate a cards file (the four decks, RULES.md §9).

Format (``cards.toml``)::

    invented = true          # the demo deck's texts are invented
    [[card]]
    name = "Kamehameha"       # unique
    deck = "attack"           # attack | defence | special | event
    timing = "attack"         # see controller.game.cards.Timing
    combo = ["sphere", "sphere", "punch"]   # optional
    defence = "cards_or_dice" # cards_or_dice | none | invulnerable_only (attack cards)
    invulnerable = false
    copies = 2
    effect = { kind = "damage", amount = 22 }   # kind: see EffectKind; deck for draw

Every problem is reported at once, naming the file, the card and the field.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from controller.core.errors import DataError, DataProblem
from controller.core.symbols import Symbol
from controller.core.tomlfile import read_toml
from controller.game.cards import (
    AMOUNT_EFFECTS,
    EFFECT_TIMINGS,
    Card,
    CardSet,
    Deck,
    Effect,
    EffectKind,
    Timing,
)
from controller.rules.scoring import CardDefence

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
}
_EFFECT_KEYS = {"kind", "amount", "deck"}
MAX_COPIES = 20
MAX_AMOUNT = 200


def _choice(raw: Any, enum: Any, what: str) -> tuple[Any, str | None]:
    try:
        return enum(str(raw)), None
    except ValueError:
        names = ", ".join(e.value for e in enum)
        return (
            None,
            f"expected one of {names}, got {raw!r}" if raw is not None else f"missing {what}",
        )


def parse_cards(data: Mapping[str, Any], file: str) -> CardSet:
    """Build and validate a card set from parsed TOML.

    Raises:
        DataError: every problem found, each naming the file, the card and the field.
    """
    problems: list[DataProblem] = []
    for key in data:
        if key not in _TOP_KEYS:
            problems.append(
                DataProblem(
                    file, "", key, f"unknown key; expected one of {', '.join(sorted(_TOP_KEYS))}"
                )
            )
    invented = data.get("invented", False)
    if not isinstance(invented, bool):
        problems.append(DataProblem(file, "", "invented", "expected true or false"))
        invented = True
    raw_cards = data.get("card")
    if not isinstance(raw_cards, list) or not raw_cards:
        problems.append(DataProblem(file, "", "card", "expected at least one [[card]] table"))
        raise DataError(problems)
    cards: dict[str, Card] = {}
    decks: dict[Deck, list[str]] = {d: [] for d in Deck}
    for i, raw in enumerate(raw_cards):
        card = _parse_card(raw, i, file, problems, cards)
        if card is not None:
            cards[card.name] = card
            decks[card.deck].extend([card.name] * card.copies)
    for deck, names in decks.items():
        if not names:
            problems.append(DataProblem(file, "", "card", f"the {deck} deck has no card"))
    if problems:
        raise DataError(problems)
    return CardSet(cards, invented, file, {d: tuple(n) for d, n in decks.items()})


def _parse_card(
    raw: Any, index: int, file: str, problems: list[DataProblem], seen: Mapping[str, Card]
) -> Card | None:
    def bad(field: str, message: str) -> None:
        problems.append(DataProblem(file, entry, field, message))

    entry = f"card #{index + 1}"
    if not isinstance(raw, dict):
        bad("", "expected a table")
        return None
    name = raw.get("name")
    if not isinstance(name, str) or not name.strip():
        bad("name", "expected a non-empty string")
        return None
    name = name.strip()
    entry = f"card {name!r}"
    before = len(problems)
    if name in seen:
        bad("name", "duplicate card name")
    for key in raw:
        if key not in _CARD_KEYS:
            bad(key, f"unknown key; expected one of {', '.join(sorted(_CARD_KEYS))}")
    deck, msg = _choice(raw.get("deck"), Deck, "deck")
    if msg:
        bad("deck", msg)
    timing, msg = _choice(raw.get("timing"), Timing, "timing")
    if msg:
        bad("timing", msg)
    defence, msg = _choice(raw.get("defence", "cards_or_dice"), CardDefence, "defence")
    if msg:
        bad("defence", msg)
    invulnerable = raw.get("invulnerable", False)
    if not isinstance(invulnerable, bool):
        bad("invulnerable", "expected true or false")
    copies = raw.get("copies", 1)
    if not isinstance(copies, int) or isinstance(copies, bool) or not 1 <= copies <= MAX_COPIES:
        bad("copies", f"expected a whole number 1..{MAX_COPIES}, got {copies!r}")
        copies = 1
    text = raw.get("text", "")
    if not isinstance(text, str):
        bad("text", "expected a string")
    combo: list[Symbol] = []
    raw_combo = raw.get("combo", [])
    if not isinstance(raw_combo, list):
        bad("combo", "expected a list of symbols")
    else:
        for s in raw_combo:
            sym, msg = _choice(s, Symbol, "symbol")
            if msg or sym is Symbol.STAR:
                bad("combo", msg or "a combo cannot ask for a star (stars are wild)")
            else:
                combo.append(sym)
        if len(combo) > 6:
            bad("combo", f"a combo of {len(combo)} symbols cannot be made with 6 dice")
    effect = _parse_effect(raw.get("effect"), bad)
    if effect is not None and timing is not None:
        allowed = EFFECT_TIMINGS[effect.kind]
        if timing not in allowed:
            bad(
                "timing",
                f"a {effect.kind} effect is played at {', '.join(sorted(allowed))}, not {timing}",
            )
        if (deck is Deck.EVENT) != (timing is Timing.EVENT):
            bad("timing", "event cards, and only they, have timing 'event'")
        if effect.kind is EffectKind.DAMAGE and timing is Timing.ATTACK and not combo:
            bad("combo", "an attack card that deals damage needs a combo")
    if len(problems) > before or deck is None or timing is None or effect is None:
        return None
    return Card(
        name, deck, timing, effect, tuple(combo), defence, bool(invulnerable), copies, str(text)
    )


def _parse_effect(raw: Any, bad: Any) -> Effect | None:
    if not isinstance(raw, dict):
        bad("effect", 'expected a table like { kind = "damage", amount = 20 }')
        return None
    for key in raw:
        if key not in _EFFECT_KEYS:
            bad("effect", f"unknown key {key!r}; expected one of {', '.join(sorted(_EFFECT_KEYS))}")
    kind, msg = _choice(raw.get("kind"), EffectKind, "effect kind")
    if msg:
        bad("effect", f"kind: {msg}")
        return None
    amount = raw.get("amount", 0)
    if not isinstance(amount, int) or isinstance(amount, bool) or not 0 <= amount <= MAX_AMOUNT:
        bad("effect", f"amount: expected a whole number 0..{MAX_AMOUNT}, got {amount!r}")
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
