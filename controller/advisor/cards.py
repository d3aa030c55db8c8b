"""The ``--cards`` syntax: a card combo in hand on one command-line word.

``NAME:SYM+SYM+...:DAMAGE[:DEFENCE][:invulnerable]``, e.g.
``"Kamehameha:sphere+sphere+punch:30"`` or ``"Final Flash:sphere+sphere+star:35:none"``.
DEFENCE is what the card allows the defender (``cards_or_dice``, the default;
``none``; ``invulnerable_only``); ``invulnerable`` marks an invulnerable card
(its spheres pass a Shield and are not reflected).
"""

from __future__ import annotations

from controller.advisor.errors import CardSpecError
from controller.core.symbols import parse_symbol
from controller.rules.scoring import CardCombo, CardDefence

SYNTAX = "NAME:SYM+SYM+...:DAMAGE[:DEFENCE][:invulnerable]"


def parse_card(text: str) -> CardCombo:
    """One card combo from its ``--cards`` spelling.

    Raises:
        CardSpecError: not of the form ``NAME:SYM+SYM...:DAMAGE[...]``.
        InvalidThrowError: a symbol that is not a die symbol.
    """
    parts = [p.strip() for p in text.split(":")]
    if len(parts) < 3 or len(parts) > 5 or not parts[0] or not parts[1]:
        raise CardSpecError(f"card {text!r}: expected {SYNTAX}")
    name, syms, dmg, *rest = parts
    symbols = tuple(parse_symbol(s) for s in syms.split("+"))
    try:
        damage = int(dmg)
    except ValueError:
        raise CardSpecError(f"card {text!r}: damage {dmg!r} is not a whole number") from None
    if damage < 0:
        raise CardSpecError(f"card {text!r}: damage must be >= 0")
    defence = CardDefence.ANY
    invulnerable = False
    for extra in rest:
        key = extra.lower()
        if key == "invulnerable":
            invulnerable = True
            continue
        try:
            defence = CardDefence(key)
        except ValueError:
            allowed = ", ".join([*(str(d) for d in CardDefence), "invulnerable"])
            raise CardSpecError(f"card {text!r}: {extra!r} is not one of {allowed}") from None
    return CardCombo(name, symbols, damage, defence, invulnerable)


def parse_cards(items: list[str] | tuple[str, ...]) -> tuple[CardCombo, ...]:
    """Every card of a ``--cards`` list (see :func:`parse_card` for what is raised)."""
    return tuple(parse_card(t) for t in items)
