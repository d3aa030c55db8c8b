"""What every phase of the engine shares: moving pieces, drawing and playing cards,
the fighters of the combat in progress and the resolution of one attack.

Functions with a leading underscore change the state in place (the engine's fast path);
the others only look at it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from controller.core.errors import IllegalActionError
from controller.core.quoting import short_repr
from controller.core.symbols import Symbol
from controller.game.events import PlayCard
from controller.game.state import (
    FUSIONS,
    NOTHING_PLAYED,
    WARRIOR_DECK,
    CardsPlayed,
    GameState,
    Piece,
    ShuffledDeck,
)
from controller.gamedata.board import MOVE_STEPS
from controller.gamedata.cards import Card, Deck, Timing
from controller.rules.attack import resolve_attack
from controller.rules.combat_types import Attack, AttackResult
from controller.rules.pools import support_dice
from controller.rules.scoring import CardCombo, ThrowScorer, scorer_for
from controller.rules.warriors import Fighter

FLEE_STEPS = 3  # Solar Flare: flee 3 spaces (§8)
FUSION_ROLL_NEEDED = 4

__all__ = ["FLEE_STEPS", "FUSION_ROLL_NEEDED", "MOVE_STEPS", "limit_problem"]


# ------------------------------------------------------------------ seats and pieces
def set_at(
    t: tuple[tuple[str, ...], ...], i: int, v: tuple[str, ...]
) -> tuple[tuple[str, ...], ...]:
    """``t`` with item ``i`` replaced by ``v``."""
    return (*t[:i], v, *t[i + 1 :])


def next_seat(
    s: GameState, seat: int, ok: Callable[[int], bool], *, to_the_right: bool = False
) -> int | None:
    """The next seat after ``seat`` for which ``ok`` holds (``seat`` itself last): in the
    order of play (clockwise), or going to the right (:func:`player_to_the_right`)."""
    n = len(s.players)
    step = -1 if to_the_right else 1
    for k in range(1, n + 1):
        q = (seat + step * k) % n
        if ok(q):
            return q
    return None


def player_to_the_right(s: GameState, seat: int) -> int:
    """The player to the right of ``seat``, the one definition (docs/rules.md §10).

    Seats are numbered in the order play goes round the table, clockwise (A l.215):
    seat 1 plays after seat 0. Seen from a seat, the player who plays next sits on its
    left; the one to its right is the one who played before it (seat 0's right is the
    last seat). The right one drafts next (A l.25, B l.257) and plays the green-space
    warrior (A l.237, B l.311).
    """
    return (seat - 1) % len(s.players)


def put(s: GameState, p: Piece) -> None:
    """Store ``p``, keeping the space index right: ``s.occ`` names one warrior standing on
    each occupied space (the first there, when teammates share it, docs/rules.md §10)."""
    old = s.pieces.get(p.name)
    if old is not None and old.space is not None and old.space != p.space:
        vacate(s, p.name, old.space)
    s.pieces[p.name] = p
    if p.space is not None and p.space not in s.occ:
        s.occ[p.space] = p.name


def vacate(s: GameState, name: str, space: int) -> None:
    """``name`` leaves ``space``: if the index named it, it names the next warrior still
    standing there (a teammate sharing the space, or the attacker waiting on the arena)."""
    if s.occ.get(space) != name:
        return
    del s.occ[space]
    for q in s.pieces.values():
        if q.space == space and q.name != name and q.seat is not None:
            s.occ[space] = q.name
            return


def standing_on(s: GameState, space: int) -> list[Piece]:
    """Every player's warrior standing on ``space`` (teammates may share one)."""
    return [q for q in s.pieces.values() if q.space == space and q.seat is not None]


def owner(p: Piece) -> int:
    """The seat of ``p``, a player's warrior.

    Raises:
        IllegalActionError: ``p`` is a green-space warrior (nobody's).
    """
    if p.seat is None:
        raise IllegalActionError(f"{p.name} is a green-space warrior: it has no player")
    return p.seat


def on_space(p: Piece) -> int:
    """The space ``p`` stands on.

    Raises:
        IllegalActionError: ``p`` is off the board.
    """
    if p.space is None:
        raise IllegalActionError(f"{p.name} is not on the board")
    return p.space


def board_space(space: int | None) -> int:
    """A combat's ``arena`` or ``origin``, a board space.

    Raises:
        IllegalActionError: None, a Story combat's (fought on no board space).
    """
    if space is None:
        raise IllegalActionError("a Story combat is fought on no board space")
    return space


def seat_of(state: GameState, name: str) -> int:
    """The seat that acts for ``name`` (the player acting for a green-space warrior)."""
    c = state.combat
    p = state.pieces[name]
    if p.seat is not None:
        return p.seat
    return c.defender_seat if c is not None else state.seat


def roster_name(s: GameState, text: str) -> str:
    """The roster's name for ``text`` (IllegalActionError: no such warrior)."""
    try:
        return s.data.roster.find(text)[0].name
    except KeyError as exc:
        raise IllegalActionError(str(exc)) from None


def pair_of(name: str) -> str | None:
    """The fusion partner of ``name`` (None if it has none)."""
    for a, b in FUSIONS.values():
        if name == a:
            return b
        if name == b:
            return a
    return None


def decks_to_shuffle(s: GameState) -> tuple[ShuffledDeck, ...]:
    """The decks (and the warrior deck) still waiting for their shuffle."""
    return tuple(d for d in (*Deck, WARRIOR_DECK) if d not in s.shuffled)


# ------------------------------------------------------------------ cards
def draw(s: GameState, seat: int, deck: Deck, n: int) -> None:
    """``seat`` draws ``n`` cards of ``deck`` (fewer when it runs out)."""
    for _ in range(n):
        cards = s.decks.get(deck, ())
        if not cards:
            return
        s.decks[deck] = cards[1:]
        s.hands = set_at(s.hands, seat, s.hands[seat] + (cards[0],))


def use_card(s: GameState, seat: int, card: str) -> None:
    """``card`` leaves ``seat``'s hand for the bottom of its deck."""
    hand = list(s.hands[seat])
    hand.remove(card)
    s.hands = set_at(s.hands, seat, tuple(hand))
    deck = s.data.cards.card(card).deck
    s.decks[deck] = (*s.decks.get(deck, ()), card)


def count_play(s: GameState, seat: int, card: Card) -> None:
    """Count ``card`` against ``seat``'s per-turn limits."""
    played: tuple[CardsPlayed, ...] = s.played
    s.played = (*played[:seat], played[seat].after(card), *played[seat + 1 :])


def new_turn_counts(s: GameState) -> None:
    """Nobody has played a card this turn."""
    s.played = (NOTHING_PLAYED,) * len(s.players)


def limit_problem(state: GameState, seat: int, card: Card) -> str | None:
    """Why ``card`` would break the per-turn card limits of §9 (None: it may be played)."""
    return state.played[seat].problem(card, state.config.variants, seat == state.seat)


def check_card(s: GameState, seat: int, name: str, timing: Timing) -> Card:
    """The card ``name`` that ``seat`` plays now.

    Raises:
        IllegalActionError: not in hand, not played at ``timing``, or over a limit.
    """
    if name not in s.hands[seat]:
        raise IllegalActionError(f"{s.players[seat]} has no {short_repr(name)} in hand")
    card = s.data.cards.card(name)
    if card.timing is not timing:
        raise IllegalActionError(f"{name} is played at {card.timing}, not now ({timing})")
    why = limit_problem(s, seat, card)
    if why:
        raise IllegalActionError(f"{name} cannot be played: {why}")
    return card


def check_names(
    card: str, e: PlayCard, *, warrior: bool = False, target: bool = False, space: bool = False
) -> None:
    """Refuse a play of ``card`` that names a warrior, a target or a space the card does not
    take here (``warrior``, ``target``, ``space``: what it takes): a name it would ignore
    could show one thing at the table and do another.

    Raises:
        IllegalActionError: naming what was given and what the card takes.
    """
    given = [
        f"{what} {short_repr(value)}"
        for what, value, takes in (
            ("warrior", e.warrior, warrior),
            ("target", e.target, target),
            ("space", e.space, space),
        )
        if value is not None and not takes
    ]
    if given:
        takes_ = [
            w for w, t in (("a warrior", warrior), ("a target", target), ("a space", space)) if t
        ]
        raise IllegalActionError(
            f"{card} takes {' and '.join(takes_) or 'no warrior, target or space'} here, "
            f"not the {', '.join(given)} given"
        )


def check_die_faces(s: GameState, dice: Sequence[Symbol], what: str) -> None:
    """Refuse dice showing a face the game's die lacks (an owner's ``[die]``), from rules
    revision 6 (a journal before it replays as it was played).

    Raises:
        InvalidThrowError: naming the face and the die's faces.
    """
    if s.config.rules_revision >= 6:
        s.data.die.check_faces(dice, what)


def playable(s: GameState, seat: int, timing: Timing) -> list[Card]:
    """The cards of ``seat``'s hand played at ``timing`` that the limits allow (once each)."""
    hand = s.hands[seat]
    if not hand:
        return []
    cards = s.data.cards.cards
    out = []
    for name in dict.fromkeys(hand):
        card = cards[name]
        if card.timing is timing and limit_problem(s, seat, card) is None:
            out.append(card)
    return out


def attack_cards(state: GameState, seat: int | None) -> list[Card]:
    """Attack-timed cards in ``seat``'s hand that the limits still allow."""
    if seat is None:
        return []
    return playable(state, seat, Timing.ATTACK)


def counter_cards(s: GameState) -> list[Card]:
    """The Counter-Attack cards the combat's target may play now."""
    c = s.combat
    if c is None:
        return []
    seat = s.pieces[c.target].seat
    return [] if seat is None else playable(s, seat, Timing.COUNTER_ATTACK)


# ------------------------------------------------------------------ the combat's fighters
def fighter(s: GameState, name: str) -> Fighter:
    """``name`` as it fights in the combat in progress (in its form, if it transformed)."""
    c = s.combat
    form = None
    if c is not None:
        form = (
            c.attacker_form
            if name == c.attacker
            else c.defender_form
            if name == c.defender
            else None
        )
    return s.data.fighter(name, form)


def support(s: GameState, name: str) -> int:
    """The support dice ``name`` gets from its teammates next to where it fights."""
    p = s.pieces[name]
    if p.seat is None:
        return 0
    c = s.combat
    space = c.arena if c is not None and name == c.attacker and not c.adjacent else p.space
    if space is None:
        return 0
    near = s.data.near[space]  # a teammate next to it, or sharing its space, supports it
    abilities = [
        s.data.warrior(q.name).ability
        for q in s.on_board(p.seat)
        if q.name != name and (q.space in near or q.space == space)
    ]
    return support_dice(abilities)


def striker_cards(s: GameState, striker: str) -> tuple[CardCombo, ...]:
    """The attack cards ``striker``'s player holds, as combos (fixed for the attempt)."""
    seat = s.pieces[striker].seat
    if seat is None:
        return ()
    return tuple(card.combo_view() for card in attack_cards(s, seat))


def scorer(s: GameState) -> ThrowScorer:
    """The scorer of the striker's throws (kept by the fighter, itself kept by the game data).

    Raises:
        IllegalActionError: no combat.
    """
    c = s.combat
    if c is None:
        raise IllegalActionError("no combat")
    return scorer_for(fighter(s, c.striker), c.cards, s.config.variants)


def resolve(s: GameState, attack: Attack) -> AttackResult:
    """The striker's ``attack`` resolved against the target (rules.attack.resolve_attack).

    Raises:
        IllegalActionError: no combat.
    """
    c = s.combat
    if c is None:
        raise IllegalActionError("no combat")
    f, t = fighter(s, c.striker), fighter(s, c.target)
    left = t.warrior.endurance - s.pieces[c.target].damage
    return resolve_attack(
        f,
        c.striker_support,
        t,
        c.target_support,
        left,
        attack,
        c.cards,
        s.config.variants,
        green=c.green and not c.counter,
        capped_first=s.config.rules_revision >= 2,
    )


def transformation_dice(s: GameState, name: str) -> int:
    """The dice ``name``'s transformation roll takes now: its own (two for Son Goku and
    Vegeta, A l.87), but one for a card's retry at a target (from rules revision 7: the
    target is a die's, B l.423 "5+ ... but he gets 4"; A l.374 "rolling the die again")."""
    c = s.combat
    retry = c is not None and name in c.retried and c.retry_target is not None
    return 1 if retry and s.config.rules_revision >= 7 else s.data.warrior(name).transform_dice
