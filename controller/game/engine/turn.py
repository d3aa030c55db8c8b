"""A turn's frame (docs/rules.md §9–§11): its start (health, the hand limit, the event card,
the start-of-turn card window), the step to the move, its end and the end of a round,
and the count that ends the game."""

from __future__ import annotations

from controller.core.errors import IllegalActionError
from controller.core.game_limits import MAX_EXTRA_ROUNDS
from controller.core.quoting import short_repr
from controller.game.engine.common import (
    draw,
    new_turn_counts,
    playable,
    put,
    use_card,
)
from controller.game.engine.fusion import fusion_ready
from controller.game.events import Discard
from controller.game.state import FUSIONS, HAND_LIMIT, GameState, Phase
from controller.gamedata.cards import Card, Deck, EffectKind, Timing
from controller.rules.endurance import heal
from controller.rules.warriors import AbilityKind


def start_turn(s: GameState, seat: int) -> None:
    """Begin ``seat``'s turn (the game ends when nobody has a warrior left). A player with
    none left (its universe destroyed, A l.7) is not asked to discard (from rules revision
    7); its turn still turns its Event card (B l.371: 3 players, 10 rounds, 30 cards), to
    no effect for it."""
    if not any(p.space is not None and p.seat is not None for p in s.pieces.values()):
        count_and_end(s)  # nobody has a warrior left: nothing more can happen
        return
    s.seat = seat
    new_turn_counts(s)
    s.move_bonus = s.damage_bonus = s.combats = 0
    s.extra_granted = False
    s.fighter = None
    s.fought = ()
    s.pending_draws = ()
    s.event_card = None
    s.combat = None
    for p in s.on_board(seat):  # Health: removes up to 5 of its damage each turn (§8)
        if p.damage and s.data.warrior(p.name).ability.kind is AbilityKind.HEALTH:
            put(s, p._replace(damage=heal(p.damage)))
    if len(s.hands[seat]) > HAND_LIMIT and (s.on_board(seat) or s.config.rules_revision < 7):
        s.phase = Phase.DISCARD
        return
    _event_card(s)


def _event_card(s: GameState) -> None:
    deck = s.decks.get(Deck.EVENT, ())
    if deck:
        name = deck[0]
        s.decks[Deck.EVENT] = (*deck[1:], name)
        s.event_card = name
        s.event_cards_turned += 1
        eff = s.data.cards.card(name).effect
        if not s.on_board(s.seat) and s.config.rules_revision >= 7:
            pass  # turned for B l.371's count; a destroyed universe (A l.7) draws nothing
        elif eff.kind is EffectKind.HEAL:
            for p in s.on_board(s.seat):
                put(s, p._replace(damage=max(0, p.damage - eff.amount)))
        elif eff.kind is EffectKind.DRAW and eff.deck is not None:
            draw(s, s.seat, eff.deck, eff.amount)
        elif eff.kind is EffectKind.MOVE:
            s.move_bonus += eff.amount
        elif eff.kind is EffectKind.DAMAGE:
            s.damage_bonus += eff.amount
        elif eff.kind is EffectKind.EXTRA_COMBAT:
            s.extra_granted = True
    if start_cards(s):
        s.phase = Phase.START_CARD
    else:
        to_move(s)


def start_cards(s: GameState) -> list[Card]:
    """The start-of-turn cards the player may play now (each with a use)."""
    return [c for c in playable(s, s.seat, Timing.START_OF_TURN) if start_targets(s, c)]


def start_targets(s: GameState, card: Card) -> list[tuple[str | None, int | None]]:
    """(warrior, space) targets a start-of-turn card can take (None when it needs none)."""
    k = card.effect.kind
    if k is EffectKind.HEAL:
        return [(p.name, None) for p in s.on_board(s.seat) if p.damage > 0]
    if k is EffectKind.FUSION:
        return [(f, None) for f in FUSIONS if fusion_ready(s, s.seat, f)]
    return [(None, None)] if s.on_board(s.seat) else []


def discard(s: GameState, e: Discard) -> None:
    """Handle :class:`Discard`: down to the hand limit, then the turn goes on."""
    if e.card not in s.hands[e.seat]:
        raise IllegalActionError(f"{short_repr(e.card)} is not in hand")
    use_card(s, e.seat, e.card)
    if len(s.hands[e.seat]) <= HAND_LIMIT:
        _event_card(s)


def to_move(s: GameState) -> None:
    """Step 2 of a turn: the move (a player with no warrior on the board ends the turn)."""
    s.phase = Phase.MOVE
    if not s.on_board(s.seat):
        end_turn(s)


def end_turn(s: GameState) -> None:
    """The cards earned by landings are drawn; the next player's turn (or the round's end)."""
    for deck in s.pending_draws:
        draw(s, s.seat, deck, 1)
    s.pending_draws = ()
    s.combat = None
    n = len(s.players)
    nxt = (s.seat + 1) % n
    if s.time_up and not s.extra_rounds and s.config.variants.time_up_ends_turn:
        count_and_end(s)  # B l.249: the turn being played ends the 45-minute game
        if s.phase in (Phase.OVER, Phase.DUEL_PICK):
            return
        s.first, s.round = nxt, s.round + 1  # a tie of more: one whole round more, from here
        start_turn(s, nxt)
        return
    if nxt == s.first:
        _round_over(s)
        if s.phase in (Phase.OVER, Phase.DUEL_PICK):
            return
        s.round += 1
    start_turn(s, nxt)


def _round_over(s: GameState) -> None:
    rounds = s.config.rounds
    if s.extra_rounds:
        done = True
    elif rounds is not None:
        done = s.round >= rounds
    else:
        done = s.time_up
    if done:
        count_and_end(s)


def count_and_end(s: GameState) -> None:
    """Count the warriors: a winner ends the game; a tie of two is a duel, of more an extra
    round (shared after :data:`MAX_EXTRA_ROUNDS`)."""
    counts = s.counts()
    best = max(counts)
    top = tuple(q for q, k in enumerate(counts) if k == best)
    s.combat = None
    if len(top) == 1 or best == 0:
        s.winners = top
        s.phase = Phase.OVER
    elif len(top) == 2:
        s.tied = top
        s.duel_picks = ()
        s.phase = Phase.DUEL_PICK
    elif s.extra_rounds >= MAX_EXTRA_ROUNDS:
        s.winners = top
        s.phase = Phase.OVER
    else:
        s.extra_rounds += 1
        s.tied = top
