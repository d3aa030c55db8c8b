"""The start-of-turn card window (docs/rules.md §9, turn step 1): heal, move, draw, fuse.

The other card windows live with their phase: the Fusion card at the start of a combat,
transformation retries and attack cards in :mod:`.combat` and :mod:`.attack`, defence
cards in :mod:`.defence`, counter-attacks in :mod:`.resolve`, rescues (when a warrior is
eliminated) in :mod:`.end`, extra combats in :mod:`.extra`.
"""

from __future__ import annotations

from controller.core.errors import IllegalActionError
from controller.core.quoting import short_repr
from controller.game.engine.common import (
    check_card,
    check_names,
    count_play,
    draw,
    put,
    use_card,
)
from controller.game.engine.fusion import fuse
from controller.game.engine.turn import start_targets, to_move
from controller.game.events import Pass, PlayCard
from controller.game.state import GameState
from controller.gamedata.cards import EffectKind, Timing


def start_card(s: GameState, e: PlayCard) -> None:
    """Handle a start-of-turn :class:`PlayCard`, then the move."""
    card = check_card(s, e.seat, e.card, Timing.START_OF_TURN)
    targets = start_targets(s, card)
    k = card.effect.kind
    check_names(card.name, e, warrior=k in (EffectKind.HEAL, EffectKind.FUSION))
    warrior = e.warrior or ""  # a card that names a warrior is checked against its targets
    if k in (EffectKind.HEAL, EffectKind.FUSION):
        if e.warrior is None or (e.warrior, None) not in targets:
            raise IllegalActionError(
                f"{card.name}: {short_repr(e.warrior)} is not a valid target; choose one of "
                + ", ".join(t for t, _ in targets if t is not None)
            )
    elif not targets:
        raise IllegalActionError(f"{card.name} has no use now")
    count_play(s, e.seat, card)
    use_card(s, e.seat, card.name)
    eff = card.effect
    if k is EffectKind.HEAL:
        p = s.pieces[warrior]
        put(s, p._replace(damage=max(0, p.damage - eff.amount)))
    elif k is EffectKind.MOVE:
        s.move_bonus += eff.amount
    elif k is EffectKind.DRAW and eff.deck is not None:
        draw(s, e.seat, eff.deck, eff.amount)
    elif k is EffectKind.FUSION:
        fuse(s, warrior)
    to_move(s)


def skip_start_card(s: GameState, e: Pass) -> None:
    """Handle :class:`Pass` in the start-of-turn window: on to the move."""
    to_move(s)
