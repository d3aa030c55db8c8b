"""The game flow of RULES.md §9–§11 as a pure state machine: ``apply(state, event)``.

Nothing here rolls dice, reads a clock or does I/O: dice, shuffles and the clock
arrive as input events; players' choices arrive as actions. An illegal event
raises :class:`~controller.core.errors.IllegalActionError` saying why, and leaves the
state untouched (:func:`apply` works on a copy).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace

from controller.core.errors import IllegalActionError, InvalidThrowError
from controller.core.symbols import Symbol
from controller.game.cards import DRAW_DECKS, Card, Deck, EffectKind, Timing
from controller.game.events import (
    Action,
    ChooseAttack,
    ChooseReward,
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
from controller.game.state import (
    FUSIONS,
    HAND_LIMIT,
    MAX_DUEL_COMBATS,
    MAX_EXTRA_ROUNDS,
    NOT_DRAFTED,
    WARRIOR_DECK,
    Combat,
    GameConfig,
    GameData,
    GameState,
    Length,
    Phase,
    Piece,
    deck_of_colour,
)
from controller.rules.combat import (
    SOLAR_FLARE_BELOW,
    Attack,
    AttackResult,
    dodge_made,
    resolve_attack,
)
from controller.rules.dice import counts_of
from controller.rules.endurance import divided_damage, is_eliminated
from controller.rules.pools import (
    attack_pool,
    attack_rerolls,
    defence_pool,
    defence_rerolls,
    support_dice,
)
from controller.rules.scoring import CardCombo, CardDefence, ThrowScorer, makes, need_vector
from controller.rules.speed import Defence, attack_speed
from controller.rules.warriors import AbilityKind, Fighter

MOVE_STEPS = 4
FLEE_STEPS = 3  # Solar Flare: flee 3 spaces (§8)
FUSION_ROLL_NEEDED = 4
HEALTH_PER_TURN = 5
# indices into GameState.played[seat]
P_ATTACK_SPECIAL, P_SPECIAL, P_DEFENCE, P_EXTRA, P_COUNTER = range(5)


def new_game(config: GameConfig, data: GameData) -> GameState:
    """A game set up with ``config``, waiting for the die that picks the first player.

    Raises:
        IllegalActionError: a bad number of players.
    """
    config.check()
    return GameState(data, config)


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
    handler = _HANDLERS.get((state.phase, type(event)))
    if handler is None:
        raise IllegalActionError(f"a {event.kind} event is not expected now (phase {state.phase})")
    handler(state, event)
    state.events_applied += 1


# ------------------------------------------------------------------ who acts
def actor(state: GameState) -> int | None:
    """The seat whose action the game waits for (None while it waits for an input)."""
    who = _ACTOR_KIND[state.phase]
    if who == 0:  # an input
        return None
    c = state.combat
    if who == 1 or c is None:  # the player whose turn it is
        if who == 5:
            return state.tied[len(state.duel_picks)]
        return state.seat
    if who == 2:
        return _seat_of(state, c.to_transform[0])
    if who == 3:
        return _seat_of(state, c.striker)
    if who == 4:
        return _seat_of(state, c.target)
    if who == 6:
        return _seat_of(state, c.fusers[0]) if c.fusers else state.seat
    if who == 7:  # a defence roll; the attacker's own when it dodges a reflected sphere
        return _seat_of(state, c.striker if c.answer == "reflect" else c.target)
    return state.seat


# 0: an input; 1: the turn's player; 2: the warrior transforming; 3: the striker; 4: the target;
# 5: a duel pick
_ACTOR_KIND: dict[Phase, int] = {
    Phase.FIRST_PLAYER: 0, Phase.SHUFFLE: 0, Phase.FUSION_ROLL: 0, Phase.TRANSFORM: 0,
    Phase.OVER: 0, Phase.DRAFT: 1, Phase.PLACE: 1, Phase.DISCARD: 1, Phase.START_CARD: 1,
    Phase.MOVE: 1, Phase.FUSION_OFFER: 6, Phase.REWARD: 1, Phase.STEP_ASIDE: 1,
    Phase.EXTRA_OFFER: 1, Phase.RETRY_OFFER: 2, Phase.ATTACK: 3, Phase.DEFENCE_CHOICE: 4,
    Phase.DEFENCE_ROLL: 7, Phase.COUNTER_OFFER: 4, Phase.DUEL_PICK: 5,
    Phase.FLEE: 4,
}  # fmt: skip


def _seat_of(state: GameState, name: str) -> int:
    c = state.combat
    p = state.pieces[name]
    if p.seat >= 0:
        return p.seat
    return c.d_seat if c is not None else state.seat


@dataclass(frozen=True)
class Awaiting:
    """What the game waits for: an ``input`` (kind: first_player, shuffle, die, dice) and/or
    an action by ``seat``. ``dice``: the dice count of the throw awaited."""

    phase: Phase
    seat: int | None
    inputs: tuple[str, ...] = ()
    dice: int = 0
    die_count: int = 0
    decks: tuple[str, ...] = ()


def awaiting(state: GameState) -> Awaiting:
    """Describe what the game waits for now."""
    ph = state.phase
    c = state.combat
    seat = actor(state)
    if ph is Phase.FIRST_PLAYER:
        return Awaiting(ph, None, ("first_player",))
    if ph is Phase.SHUFFLE:
        return Awaiting(ph, None, ("shuffle",), decks=_decks_to_shuffle(state))
    if ph is Phase.TRANSFORM and c is not None:
        return Awaiting(
            ph, None, ("die",), die_count=state.data.warrior(c.to_transform[0]).transform_dice
        )
    if ph is Phase.FUSION_ROLL:
        return Awaiting(ph, None, ("die",), die_count=1)
    if ph is Phase.ATTACK and c is not None:
        more = len(c.throws) <= c.max_rerolls
        return Awaiting(ph, seat, ("dice",) if more else (), dice=c.pool)
    if ph is Phase.DEFENCE_ROLL and c is not None:
        return Awaiting(ph, seat, ("dice",), dice=c.d_pool)
    return Awaiting(ph, seat)


# ------------------------------------------------------------------ setup
def _first_player(s: GameState, e: FirstPlayerChosen) -> None:
    if not 0 <= e.seat < len(s.players):
        raise IllegalActionError(f"no seat {e.seat}: seats are 0..{len(s.players) - 1}")
    s.first = s.seat = e.seat
    s.phase = Phase.DRAFT


def draftable(state: GameState) -> list[str]:
    """Warriors the player picking now may draft (Kefla and Anilaza never, §11; with the
    fusion-pair variant, a pair only as a whole and only when the team has room for both)."""
    taken = state.pieces
    room = state.config.team_size - len(state.teams[state.seat])
    pairs = state.config.variants.fusion_pairs_drafted_together
    out = []
    for w in state.data.roster:
        if w in taken or w in NOT_DRAFTED:
            continue
        partner = _pair_of(w) if pairs else None
        if partner is not None and (partner in taken or room < 2):
            continue
        out.append(w)
    return out


def _pair_of(name: str) -> str | None:
    for a, b in FUSIONS.values():
        if name == a:
            return b
        if name == b:
            return a
    return None


def _draft(s: GameState, e: Draft) -> None:
    name = _roster_name(s, e.warrior)
    if name in NOT_DRAFTED:
        raise IllegalActionError(f"{name} cannot be drafted (only reached by fusion)")
    if name in s.pieces:
        raise IllegalActionError(f"{name} is already drafted")
    picks = [name]
    partner = _pair_of(name)
    if s.config.variants.fusion_pairs_drafted_together and partner is not None:
        if partner in s.pieces:
            raise IllegalActionError(f"{name} is drafted with {partner}, who is already taken")
        picks.append(partner)
    room = s.config.team_size - len(s.teams[e.seat])
    if len(picks) > room:
        raise IllegalActionError(
            f"{' and '.join(picks)} need {len(picks)} places; the team has {room}"
        )
    for n in picks:
        s.pieces[n] = Piece(n, e.seat)
    s.teams = _set(s.teams, e.seat, s.teams[e.seat] + tuple(picks))
    nxt = _next_seat(s, e.seat, lambda q: len(s.teams[q]) < s.config.team_size)
    if nxt is None:
        s.phase = Phase.SHUFFLE
    else:
        s.seat = nxt


def _roster_name(s: GameState, text: str) -> str:
    try:
        return s.data.roster.find(text)[0].name
    except KeyError as exc:
        raise IllegalActionError(str(exc)) from None


def _decks_to_shuffle(s: GameState) -> tuple[str, ...]:
    return tuple(d for d in (*[x.value for x in Deck], WARRIOR_DECK) if d not in s.shuffled)


def expected_deck(s: GameState, deck: str) -> list[str]:
    """The cards (or warriors) a shuffle of ``deck`` must hold."""
    if deck == WARRIOR_DECK:
        return [w for w in s.data.roster if w not in s.pieces and w not in NOT_DRAFTED]
    return list(s.data.cards.decks[Deck(deck)])


def _shuffled(s: GameState, e: Shuffled) -> None:
    if e.deck not in _decks_to_shuffle(s):
        raise IllegalActionError(f"deck {e.deck!r} is not waiting to be shuffled")
    if Counter(e.order) != Counter(expected_deck(s, e.deck)):
        raise IllegalActionError(f"the shuffled {e.deck} deck does not hold the expected cards")
    if e.deck == WARRIOR_DECK:
        s.green_deck = tuple(e.order)
    else:
        s.decks[e.deck] = tuple(e.order)
    s.shuffled = s.shuffled | {e.deck}
    if not _decks_to_shuffle(s):
        s.phase = Phase.PLACE
        s.seat = s.first


def placements(state: GameState, seat: int) -> list[int]:
    """Spaces where ``seat`` may place a token: empty, not next to a teammate (§11).

    When the spacing rule leaves no space (a crowded board), any empty space.
    """
    board = state.data.board
    mine = {p.space for p in state.on_board(seat)}
    empty = [sid for sid in board.spaces if sid not in state.occ]
    near = state.data.near
    spaced = [sid for sid in empty if not (near[sid] & mine)]
    return spaced or empty


def _place(s: GameState, e: Place) -> None:
    p = s.pieces.get(e.warrior)
    if p is None or p.seat != e.seat:
        raise IllegalActionError(f"{e.warrior} is not in seat {e.seat}'s team")
    if p.space >= 0:
        raise IllegalActionError(f"{e.warrior} is already placed")
    if e.space not in placements(s, e.seat):
        raise IllegalActionError(
            f"space {e.space} is taken, missing or next to a teammate: tokens are never placed beside one"
        )
    _put(s, p._replace(space=e.space))
    nxt = _next_seat(s, e.seat, lambda q: any(s.pieces[n].space < 0 for n in s.teams[q]))
    if nxt is not None:
        s.seat = nxt
        return
    for k in range(len(s.players)):  # starting hand: one Attack, one Defence, one Special
        for d in DRAW_DECKS:
            _draw(s, (s.first + k) % len(s.players), d.value, 1)
    s.round = 1
    _start_turn(s, s.first)


# ------------------------------------------------------------------ helpers
def _set(t: tuple[tuple[str, ...], ...], i: int, v: tuple[str, ...]) -> tuple[tuple[str, ...], ...]:
    return (*t[:i], v, *t[i + 1 :])


def _next_seat(s: GameState, seat: int, ok: Callable[[int], bool]) -> int | None:
    n = len(s.players)
    for k in range(1, n + 1):
        q = (seat + k) % n
        if ok(q):
            return q
    return None


def _put(s: GameState, p: Piece) -> None:
    old = s.pieces.get(p.name)
    if old is not None and old.space >= 0 and s.occ.get(old.space) == p.name:
        del s.occ[old.space]
    s.pieces[p.name] = p
    if p.space >= 0:
        s.occ[p.space] = p.name


def _draw(s: GameState, seat: int, deck: str, n: int) -> None:
    for _ in range(n):
        cards = s.decks.get(deck, ())
        if not cards:
            return
        s.decks[deck] = cards[1:]
        s.hands = _set(s.hands, seat, s.hands[seat] + (cards[0],))


def _to_bottom(s: GameState, card: str) -> None:
    deck = s.data.cards.card(card).deck.value
    s.decks[deck] = (*s.decks.get(deck, ()), card)


def _use_card(s: GameState, seat: int, card: str) -> None:
    hand = list(s.hands[seat])
    hand.remove(card)
    s.hands = _set(s.hands, seat, tuple(hand))
    _to_bottom(s, card)


def _count_play(s: GameState, seat: int, card: Card) -> None:
    c = list(s.played[seat])
    if card.deck in (Deck.ATTACK, Deck.SPECIAL):
        c[P_ATTACK_SPECIAL] += 1
    if card.deck is Deck.SPECIAL:
        c[P_SPECIAL] += 1
    if card.deck is Deck.DEFENCE:
        c[P_DEFENCE] += 1
    if card.effect.kind is EffectKind.EXTRA_COMBAT:
        c[P_EXTRA] += 1
    if card.effect.kind is EffectKind.COUNTER_ATTACK:
        c[P_COUNTER] += 1
    s.played = (*s.played[:seat], (c[0], c[1], c[2], c[3], c[4]), *s.played[seat + 1 :])


def limit_problem(state: GameState, seat: int, card: Card) -> str | None:
    """Why ``card`` would break the per-turn card limits of §9 (None: it may be played)."""
    c = state.played[seat]
    if card.deck in (Deck.ATTACK, Deck.SPECIAL) and c[P_ATTACK_SPECIAL] >= 2:
        return "at most two Attack/Special cards per turn"
    if card.deck is Deck.SPECIAL and c[P_SPECIAL] >= 1:
        return "at most one Special card per turn"
    if card.deck is Deck.DEFENCE and c[P_DEFENCE] >= 1:
        return "at most one Defence card per turn"
    if card.effect.kind is EffectKind.EXTRA_COMBAT and c[P_EXTRA] >= 1:
        return "at most one card granting an extra combat per turn"
    if card.effect.kind is EffectKind.COUNTER_ATTACK and c[P_COUNTER] >= 1:
        return "at most one Counter-Attack card per turn"
    return None


def _check_card(s: GameState, seat: int, name: str, timing: Timing) -> Card:
    if name not in s.hands[seat]:
        raise IllegalActionError(f"{s.players[seat]} has no {name!r} in hand")
    card = s.data.cards.card(name)
    if card.timing is not timing:
        raise IllegalActionError(f"{name} is played at {card.timing}, not now ({timing})")
    why = limit_problem(s, seat, card)
    if why:
        raise IllegalActionError(f"{name} cannot be played: {why}")
    return card


def _playable(s: GameState, seat: int, timing: Timing) -> list[Card]:
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


# ------------------------------------------------------------------ turn flow
def _to_move(s: GameState) -> None:
    """Step 2 of a turn: the move (a player with no warrior on the board ends the turn)."""
    s.phase = Phase.MOVE
    if not s.on_board(s.seat):
        _end_turn(s)


def _start_turn(s: GameState, seat: int) -> None:
    if not any(p.space >= 0 and p.seat >= 0 for p in s.pieces.values()):
        _count_and_end(s)  # nobody has a warrior left: nothing more can happen
        return
    s.seat = seat
    s.played = ((0, 0, 0, 0, 0),) * len(s.players)
    s.move_bonus = s.damage_bonus = s.combats = 0
    s.extra_granted = False
    s.pending_draws = ()
    s.event_card = ""
    s.combat = None
    s.last_landing = ""
    for p in s.on_board(seat):  # Health: removes up to 5 of its damage each turn (§8)
        if p.damage and s.data.warrior(p.name).ability.kind is AbilityKind.HEALTH:
            _put(s, p._replace(damage=max(0, p.damage - HEALTH_PER_TURN)))
    if len(s.hands[seat]) > HAND_LIMIT:
        s.phase = Phase.DISCARD
        return
    _event_card(s)


def _event_card(s: GameState) -> None:
    deck = s.decks.get(Deck.EVENT.value, ())
    if deck:
        name = deck[0]
        s.decks[Deck.EVENT.value] = (*deck[1:], name)
        s.event_card = name
        eff = s.data.cards.card(name).effect
        if eff.kind is EffectKind.HEAL:
            for p in s.on_board(s.seat):
                _put(s, p._replace(damage=max(0, p.damage - eff.amount)))
        elif eff.kind is EffectKind.DRAW and eff.deck is not None:
            _draw(s, s.seat, eff.deck.value, eff.amount)
        elif eff.kind is EffectKind.MOVE:
            s.move_bonus += eff.amount
        elif eff.kind is EffectKind.DAMAGE:
            s.damage_bonus += eff.amount
        elif eff.kind is EffectKind.EXTRA_COMBAT:
            s.extra_granted = True
    if _start_cards(s):
        s.phase = Phase.START_CARD
    else:
        _to_move(s)


def _start_cards(s: GameState) -> list[Card]:
    return [c for c in _playable(s, s.seat, Timing.START_OF_TURN) if _start_targets(s, c)]


def _start_targets(s: GameState, card: Card) -> list[tuple[str, int]]:
    """(warrior, space) targets a start-of-turn card can take ('' / -1 when it needs none)."""
    k = card.effect.kind
    if k is EffectKind.HEAL:
        return [(p.name, -1) for p in s.on_board(s.seat) if p.damage > 0]
    if k is EffectKind.FUSION:
        return [(f, -1) for f in FUSIONS if _fusion_ready(s, s.seat, f)]
    if k is EffectKind.RESCUE:
        out: list[tuple[str, int]] = []
        spaces = _rescue_spaces(s)
        for n in s.teams[s.seat]:
            p = s.pieces[n]
            if p.eliminated and n not in FUSIONS:
                out.extend((n, sp) for sp in spaces)
        return out
    return [("", -1)] if s.on_board(s.seat) else []


def _rescue_spaces(s: GameState) -> list[int]:
    b = s.data.board
    return [sid for sid, sp in b.spaces.items() if sid not in s.occ and sp.colour.value != "green"]


def _fusion_ready(s: GameState, seat: int, fused: str) -> bool:
    a, b = FUSIONS[fused]
    pa, pb = s.pieces.get(a), s.pieces.get(b)
    if fused not in s.data.roster or pa is None or pb is None:
        return False
    if pa.seat != seat or pb.seat != seat or pa.space < 0 or pb.space < 0:
        return False
    return s.data.board.adjacent(pa.space, pb.space)


def _discard(s: GameState, e: Discard) -> None:
    if e.card not in s.hands[e.seat]:
        raise IllegalActionError(f"{e.card!r} is not in hand")
    _use_card(s, e.seat, e.card)
    if len(s.hands[e.seat]) <= HAND_LIMIT:
        _event_card(s)


def _start_card(s: GameState, e: PlayCard) -> None:
    card = _check_card(s, e.seat, e.card, Timing.START_OF_TURN)
    targets = _start_targets(s, card)
    k = card.effect.kind
    if k in (EffectKind.HEAL, EffectKind.FUSION):
        if (e.warrior, -1) not in targets:
            raise IllegalActionError(
                f"{card.name}: {e.warrior!r} is not a valid target; choose one of "
                + ", ".join(t for t, _ in targets)
            )
    elif k is EffectKind.RESCUE:
        if (e.warrior, e.space) not in targets:
            raise IllegalActionError(
                f"{card.name}: rescue an eliminated warrior of yours onto an empty, non-green space"
            )
    elif not targets:
        raise IllegalActionError(f"{card.name} has no use now")
    _count_play(s, e.seat, card)
    _use_card(s, e.seat, card.name)
    eff = card.effect
    if k is EffectKind.HEAL:
        p = s.pieces[e.warrior]
        _put(s, p._replace(damage=max(0, p.damage - eff.amount)))
    elif k is EffectKind.MOVE:
        s.move_bonus += eff.amount
    elif k is EffectKind.DRAW and eff.deck is not None:
        _draw(s, e.seat, eff.deck.value, eff.amount)
    elif k is EffectKind.FUSION:
        _fuse(s, e.warrior, permanent=True)
    elif k is EffectKind.RESCUE:
        p = s.pieces[e.warrior]
        _put(s, p._replace(space=e.space, damage=0, eliminated=False))
    _to_move(s)


def _skip_start_card(s: GameState, e: Pass) -> None:
    _to_move(s)


def _fuse(s: GameState, fused: str, permanent: bool) -> tuple[Piece, ...]:
    """Replace the two partners by the fused warrior on the first partner's space."""
    a, b = FUSIONS[fused]
    pa, pb = s.pieces[a], s.pieces[b]
    space = pa.space
    for p in (pa, pb):
        _put(s, p._replace(space=-1, fused_into=fused))
    _put(s, Piece(fused, pa.seat, space))
    if fused not in s.teams[pa.seat]:
        s.teams = _set(s.teams, pa.seat, s.teams[pa.seat] + (fused,))
    return () if permanent else (pa, pb)


def move_targets(state: GameState, warrior: str) -> frozenset[int]:
    """Spaces ``warrior`` may move to this turn (≤ 4 steps plus bonuses, never onto a teammate)."""
    p = state.pieces[warrior]
    if p.space < 0:
        return frozenset()
    mates = {q.space for q in state.on_board(p.seat)}
    dist = state.data.distances(p.space, MOVE_STEPS + state.move_bonus)
    return frozenset(sp for sp, d in dist.items() if d >= 1 and sp not in mates)


def _move(s: GameState, e: Move) -> None:
    p = s.pieces.get(e.warrior)
    if p is None or p.seat != e.seat or p.space < 0:
        raise IllegalActionError(f"{e.warrior!r} is not a warrior of seat {e.seat} on the board")
    if e.space not in move_targets(s, e.warrior):
        if e.space in s.occ and s.pieces[s.occ[e.space]].seat == e.seat:
            why = "a move never ends on a teammate"
        elif e.space not in s.data.board.spaces:
            why = "no such space"
        else:
            why = f"it is more than {MOVE_STEPS + s.move_bonus} steps away"
        raise IllegalActionError(f"{e.warrior} cannot move to space {e.space}: {why}")
    origin = p.space
    target = s.occ.get(e.space)
    colour = s.data.colours[e.space]
    if target is not None:  # an opponent: combat on its space
        del s.occ[origin]
        s.pieces[p.name] = p._replace(space=e.space)
        s.last_landing = f"combat {target}"
        _begin_combat(s, p.name, target, origin, e.space, green=False, adjacent=False)
        return
    _put(s, p._replace(space=e.space))
    if colour == "green":
        if s.green_deck:
            foe = s.green_deck[0]
            s.green_deck = s.green_deck[1:]
            s.pieces[foe] = Piece(foe, -1, -1)
            s.last_landing = f"green {foe}"
            _begin_combat(s, p.name, foe, origin, e.space, green=True, adjacent=False)
            return
        s.last_landing = "green (deck empty)"
    else:
        deck = deck_of_colour(colour)
        if deck:
            s.pending_draws += (deck,)
        s.last_landing = f"draw {deck}"
    _after_combat_step(s)


# ------------------------------------------------------------------ combat
def _begin_combat(
    s: GameState,
    attacker: str,
    defender: str,
    origin: int,
    arena: int,
    *,
    green: bool,
    adjacent: bool,
) -> None:
    d_seat = s.pieces[defender].seat
    if green:  # the player to the right acts for the green-space warrior
        d_seat = (s.seat - 1) % len(s.players)
    s.combat = Combat(
        attacker, defender, s.pieces[attacker].seat, d_seat, green, adjacent, origin, arena
    )
    s.combats += 1
    s.log_combats += 1
    fusers = tuple(n for n in (attacker, defender) if _fusion_candidate(s, n) is not None)
    if fusers and not s.combat.duel:
        s.combat = s.combat._replace(fusers=fusers)
        s.phase = Phase.FUSION_OFFER
        return
    _to_transform(s)


def _fusion_candidate(s: GameState, name: str) -> str | None:
    """The fusion ``name`` may try at the start of this combat: its partner, of the same team,
    stands next to it (the attacker is counted where it fights)."""
    a = s.pieces.get(name)
    if a is None or a.seat < 0 or a.space < 0:
        return None
    for f, pair in FUSIONS.items():
        if name in pair and f in s.data.roster:
            other = s.pieces.get(pair[1] if name == pair[0] else pair[0])
            if (
                other is not None
                and other.seat == a.seat
                and other.space >= 0
                and other.space in s.data.near[a.space]
            ):
                return f
    return None


def _try_fusion(s: GameState, e: TryFusion) -> None:
    c = s.combat
    if c is None or not c.fusers or _fusion_candidate(s, c.fusers[0]) is None:
        raise IllegalActionError("no fusion partner stands next to this warrior")
    s.phase = Phase.FUSION_ROLL


def _next_fuser(s: GameState) -> None:
    c = s.combat
    if c is None:
        return
    rest = tuple(n for n in c.fusers[1:] if _fusion_candidate(s, n) is not None)
    s.combat = c._replace(fusers=rest)
    if rest:
        s.phase = Phase.FUSION_OFFER
        return
    _to_transform(s)


def _decline_fusion(s: GameState, e: Pass) -> None:
    _next_fuser(s)


def _fusion_roll(s: GameState, e: DieRolled) -> None:
    if len(e.values) != 1 or not 1 <= e.values[0] <= 6:
        raise InvalidThrowError(f"a fusion roll is one die 1..6, got {list(e.values)}")
    c = s.combat
    if c is None or not c.fusers:
        raise IllegalActionError("no fusion roll is expected")
    first = c.fusers[0]
    fused = _fusion_candidate(s, first)
    if fused is not None and e.values[0] >= FUSION_ROLL_NEEDED:
        a, b = FUSIONS[fused]
        other = b if first == a else a
        pa, po = s.pieces[first], s.pieces[other]
        keep = (pa, po) if s.config.variants.fusion_for_one_attack else ()
        holds_space = s.occ.get(pa.space) == first  # the attacker shares the arena unlisted
        for p in (pa, po):
            if s.occ.get(p.space) == p.name:
                del s.occ[p.space]
            s.pieces[p.name] = p._replace(space=-1, fused_into=fused)
        s.pieces[fused] = Piece(fused, pa.seat, pa.space)
        if holds_space:
            s.occ[pa.space] = fused
        if fused not in s.teams[pa.seat]:
            s.teams = _set(s.teams, pa.seat, s.teams[pa.seat] + (fused,))
        if first == c.attacker:
            c = c._replace(attacker=fused, split_after=keep)
        else:
            c = c._replace(defender=fused, d_split_after=keep)
        s.combat = c
    _next_fuser(s)


def _to_transform(s: GameState) -> None:
    c = s.combat
    if c is None:
        return
    need = tuple(n for n in (c.attacker, c.defender) if s.data.warrior(n).forms)
    s.combat = c._replace(to_transform=need)
    _next_transform(s)


def _next_transform(s: GameState) -> None:
    c = s.combat
    if c is not None and c.to_transform:
        s.phase = Phase.TRANSFORM
        return
    _start_attack(s, counter=False)


def _transform_roll(s: GameState, e: DieRolled) -> None:
    c = s.combat
    if c is None:
        raise IllegalActionError("no combat")
    name = c.to_transform[0]
    w = s.data.warrior(name)
    if len(e.values) != w.transform_dice or any(not 1 <= v <= 6 for v in e.values):
        raise InvalidThrowError(
            f"{name} transforms with {w.transform_dice} dice of 1..6, got {list(e.values)}"
        )
    form = w.form_for_roll(sum(e.values))
    fname = form.name if form is not None else ""
    c = c._replace(a_form=fname) if name == c.attacker else c._replace(d_form=fname)
    seat = _seat_of(s, name)
    retry_ok = (
        form is None
        and name not in c.retried
        and s.pieces[name].seat >= 0
        and bool(_playable(s, seat, Timing.TRANSFORMATION))
    )
    if retry_ok:
        s.combat = c
        s.phase = Phase.RETRY_OFFER
        return
    s.combat = c._replace(to_transform=c.to_transform[1:])
    _next_transform(s)


def _retry_card(s: GameState, e: PlayCard) -> None:
    c = s.combat
    if c is None:
        raise IllegalActionError("no combat")
    card = _check_card(s, e.seat, e.card, Timing.TRANSFORMATION)
    _count_play(s, e.seat, card)
    _use_card(s, e.seat, card.name)
    s.combat = c._replace(retried=(*c.retried, c.to_transform[0]))
    s.phase = Phase.TRANSFORM


def _decline_retry(s: GameState, e: Pass) -> None:
    c = s.combat
    if c is None:
        raise IllegalActionError("no combat")
    s.combat = c._replace(to_transform=c.to_transform[1:])
    _next_transform(s)


def _fighter(s: GameState, name: str) -> Fighter:
    c = s.combat
    form = ""
    if c is not None:
        form = c.a_form if name == c.attacker else c.d_form if name == c.defender else ""
    return s.data.fighter(name, form)


def _space_in_combat(s: GameState, name: str) -> int:
    c = s.combat
    if c is not None and name == c.attacker and not c.adjacent:
        return c.arena
    return s.pieces[name].space


def _support(s: GameState, name: str) -> int:
    p = s.pieces[name]
    if p.seat < 0:
        return 0
    space = _space_in_combat(s, name)
    if space < 0:
        return 0
    near = s.data.near[space]
    abilities = [
        s.data.warrior(q.name).ability
        for q in s.on_board(p.seat)
        if q.name != name and q.space in near
    ]
    return support_dice(abilities)


def _start_attack(s: GameState, counter: bool) -> None:
    c = s.combat
    if c is None:
        return
    striker, target = (c.defender, c.attacker) if counter else (c.attacker, c.defender)
    f, t = _fighter(s, striker), _fighter(s, target)
    s_support = _support(s, striker)
    s.combat = c._replace(
        striker=striker, target=target, counter=counter,
        pool=attack_pool(f, s_support, t), max_rerolls=attack_rerolls(f, t),
        s_support=s_support, t_support=_support(s, target),
        cards=_cards_for(s, striker),
        throws=(), evidence=(), option="", answer="", d_throws=(),
    )  # fmt: skip
    s.phase = Phase.ATTACK


def attack_cards(state: GameState, seat: int) -> list[Card]:
    """Attack-timed cards in ``seat``'s hand that the limits still allow."""
    if seat < 0:
        return []
    return _playable(state, seat, Timing.ATTACK)


def _striker_cards(s: GameState) -> tuple[CardCombo, ...]:
    c = s.combat
    if c is None:
        return ()
    return c.cards


def _cards_for(s: GameState, striker: str) -> tuple[CardCombo, ...]:
    seat = s.pieces[striker].seat
    if seat < 0:
        return ()
    return tuple(card.combo_view() for card in attack_cards(s, seat))


def _dice_thrown(s: GameState, e: DiceThrown) -> None:
    c = s.combat
    if c is None:
        raise IllegalActionError("no combat")
    if len(e.dice) != c.pool:
        raise InvalidThrowError(f"{c.striker} throws {c.pool} dice, the throw shows {len(e.dice)}")
    if len(c.throws) > c.max_rerolls:
        raise IllegalActionError(
            f"{c.striker} has made all {c.max_rerolls} rerolls: choose what the throw is worth"
        )
    s.combat = c._replace(throws=(*c.throws, tuple(e.dice)), evidence=(*c.evidence, e.evidence))


def _throw_corrected(s: GameState, e: ThrowCorrected) -> None:
    c = s.combat
    if c is None:
        raise IllegalActionError("no throw to correct")
    if s.phase is Phase.ATTACK:
        if not c.throws or len(e.dice) != c.pool:
            raise InvalidThrowError(f"a correction replaces the last throw of {c.pool} dice")
        s.combat = c._replace(throws=(*c.throws[:-1], tuple(e.dice)))
    else:
        if not c.d_throws or len(e.dice) != c.d_pool:
            raise InvalidThrowError(f"a correction replaces the last throw of {c.d_pool} dice")
        s.combat = c._replace(d_throws=c.d_throws[:-1])
        _defence_throw(s, DiceThrown(e.dice, e.evidence))


def attack_options(state: GameState) -> list[tuple[str, int]]:
    """(option name, damage) the attacker's last throw allows (empty before the first throw)."""
    c = state.combat
    if c is None or not c.throws:
        return []
    scorer = _scorer(state)
    score = scorer.score(_syms(c.throws[-1]))
    return [(o.name, o.damage) for o in score.options]


_SCORERS: dict[tuple[int, tuple[CardCombo, ...], int], ThrowScorer] = {}


def _scorer(s: GameState) -> ThrowScorer:
    c = s.combat
    if c is None:
        raise IllegalActionError("no combat")
    f = _fighter(s, c.striker)
    cards = c.cards
    key = (id(f), cards, id(s.config.variants))
    hit = _SCORERS.get(key)
    if hit is None:
        if len(_SCORERS) > 4096:
            _SCORERS.clear()
        hit = _SCORERS[key] = ThrowScorer(f, cards, s.config.variants)
    return hit


def _syms(t: tuple[Symbol, ...]) -> tuple[Symbol, ...]:
    return t


def _choose_attack(s: GameState, e: ChooseAttack) -> None:
    c = s.combat
    if c is None or not c.throws:
        raise IllegalActionError("throw the dice before choosing what the throw is worth")
    names = [n for n, _ in attack_options(s)]
    key = e.option.strip().casefold()
    match = next((n for n in names if n.casefold() == key), None)
    if match is None:
        raise IllegalActionError(
            f"the last throw does not make {e.option!r}; it makes: {', '.join(names)}"
        )
    s.combat = c._replace(option=match)
    probe = _resolve(s, Attack(tuple(_syms(t) for t in c.throws), match))
    s.combat = s.combat._replace(probe=probe)
    allowed = probe.defence
    if probe.reflected and probe.damage_reflected > 0:  # the attacker may dodge it (§8)
        f = _fighter(s, c.striker)
        s.combat = s.combat._replace(
            answer="reflect", d_pool=defence_pool(f, c.s_support), d_max_rerolls=defence_rerolls(f)
        )
        s.phase = Phase.DEFENCE_ROLL
        return
    if probe.shielded or probe.reflected or allowed == (Defence.NONE,):
        _attack_done(s, probe, used_defence_card="")
        return
    s.phase = Phase.DEFENCE_CHOICE


def _reflect_throw(s: GameState, e: DiceThrown) -> None:
    c = s.combat
    if c is None:
        raise IllegalActionError("no combat")
    if len(e.dice) != c.d_pool:
        raise InvalidThrowError(
            f"{c.striker} throws {c.d_pool} dice, the throw shows {len(e.dice)}"
        )
    c = c._replace(d_throws=(*c.d_throws, tuple(e.dice)))
    s.combat = c
    made = dodge_made(c.d_throws[-1], _fighter(s, c.striker).dodge)
    if made or len(c.d_throws) > c.d_max_rerolls:
        _finish_reflect(s)


def _finish_reflect(s: GameState) -> None:
    c = s.combat
    if c is None or c.probe is None:
        return
    if not c.d_throws:
        _attack_done(s, c.probe, "")
        return
    _attack_done(s, _resolve(s, Attack(c.throws, c.option, reflect_dodge_throws=c.d_throws)), "")


def flee_spaces(state: GameState) -> list[int]:
    """Where a defender fleeing with Solar Flare may go: up to 3 steps, an empty space."""
    c = state.combat
    if c is None:
        return []
    start = c.arena
    return sorted(
        sp for sp, d in state.data.distances(start, FLEE_STEPS).items()
        if d >= 1 and sp not in state.occ
    )  # fmt: skip


def _flee(s: GameState, e: StepAside) -> None:
    c = s.combat
    if c is None:
        raise IllegalActionError("no combat")
    if e.space not in flee_spaces(s):
        raise IllegalActionError(f"space {e.space} is not an empty space within {FLEE_STEPS} steps")
    p = s.pieces[c.target]
    _put(s, p._replace(space=e.space))
    _attack_done(s, _resolve(s, Attack(c.throws, c.option, flee=True)), "")


def _resolve(s: GameState, attack: Attack) -> AttackResult:
    c = s.combat
    if c is None:
        raise IllegalActionError("no combat")
    f, t = _fighter(s, c.striker), _fighter(s, c.target)
    left = t.warrior.endurance - s.pieces[c.target].damage
    return resolve_attack(
        f, c.s_support, t, c.t_support, left, attack, _striker_cards(s),
        s.config.variants,
    )  # fmt: skip


def defence_answers(state: GameState) -> list[str]:
    """The answers the defender may give now: ``none``, ``dodge`` and card names."""
    c = state.combat
    if c is None or state.phase is not Phase.DEFENCE_CHOICE:
        return []
    probe = c.probe
    if probe is None:
        return []
    allowed = probe.defence
    out = ["none"]
    if Defence.DODGE in allowed:
        out.append("dodge")
    seat = state.pieces[c.target].seat
    if seat < 0:
        return out
    t = _fighter(state, c.target)
    left = t.warrior.endurance - state.pieces[c.target].damage
    if t.has(AbilityKind.SOLAR_FLARE) and left < SOLAR_FLARE_BELOW and flee_spaces(state):
        out.append("flee")
    attack_card = probe.option.card
    for card in _playable(state, seat, Timing.DEFENCE):
        if _card_answer_ok(card, allowed, attack_card):
            out.append(card.name)
    return out


def _card_answer_ok(
    card: Card, allowed: tuple[Defence, ...], attack_card: CardCombo | None
) -> bool:
    if card.effect.kind is EffectKind.DODGE:
        deck_ok = Defence.DODGE in allowed
    else:
        deck_ok = Defence.ANY_CARDS in allowed or (
            Defence.DEFENCE_CARDS in allowed and card.deck is Deck.DEFENCE
        )
    if attack_card is not None and attack_card.defence is CardDefence.INVULNERABLE_ONLY:
        deck_ok = deck_ok and card.invulnerable
    return deck_ok


def _defend(s: GameState, e: Defend) -> None:
    c = s.combat
    if c is None:
        raise IllegalActionError("no combat")
    answers = defence_answers(s)
    if e.answer not in answers:
        raise IllegalActionError(
            f"{e.answer!r} is not an answer allowed here; allowed: {', '.join(answers)}"
        )
    if e.answer == "none" and c.probe is not None:
        _attack_done(s, c.probe, "")
        return
    if e.answer == "flee":
        s.combat = c._replace(answer="flee")
        s.phase = Phase.FLEE
        return
    t = _fighter(s, c.target)
    seat = s.pieces[c.target].seat
    if e.answer != "dodge":
        card = s.data.cards.card(e.answer)
        _count_play(s, seat, card)
        if not card.combo:  # no combo: the effect holds at once
            _use_card(s, seat, card.name)
            _card_effect_done(s, card, success=True)
            return
    s.combat = c._replace(
        answer=e.answer,
        d_pool=defence_pool(t, c.t_support),
        d_max_rerolls=defence_rerolls(t),
    )
    s.phase = Phase.DEFENCE_ROLL


def _defence_made(s: GameState, dice: tuple[Symbol, ...]) -> bool:
    c = s.combat
    if c is None:
        return False
    syms = _syms(dice)
    if c.answer == "dodge":
        return dodge_made(syms, _fighter(s, c.target).dodge)
    card = s.data.cards.card(c.answer)
    return makes(counts_of(syms), need_vector(card.combo))


def _defence_throw(s: GameState, e: DiceThrown) -> None:
    c = s.combat
    if c is None:
        raise IllegalActionError("no combat")
    if c.answer == "reflect":
        _reflect_throw(s, e)
        return
    if len(e.dice) != c.d_pool:
        raise InvalidThrowError(f"{c.target} throws {c.d_pool} dice, the throw shows {len(e.dice)}")
    c = c._replace(d_throws=(*c.d_throws, tuple(e.dice)))
    s.combat = c
    if _defence_made(s, c.d_throws[-1]) or len(c.d_throws) > c.d_max_rerolls:
        _finish_defence(s)


def _stop_rolling(s: GameState, e: StopRolling) -> None:
    c = s.combat
    if (
        c is not None and c.answer == "reflect"
    ):  # taking the reflected damage, with or without a try
        _finish_reflect(s)
        return
    if c is None or not c.d_throws:
        raise IllegalActionError("throw at least once before stopping")
    _finish_defence(s)


def _finish_defence(s: GameState) -> None:
    c = s.combat
    if c is None:
        return
    throws = tuple(_syms(t) for t in c.throws)
    d_throws = tuple(_syms(t) for t in c.d_throws)
    if c.answer == "dodge":
        _attack_done(s, _resolve(s, Attack(throws, c.option, dodge_throws=d_throws)), "")
        return
    card = s.data.cards.card(c.answer)
    made = _defence_made(s, c.d_throws[-1])
    seat = s.pieces[c.target].seat
    if made:
        _use_card(s, seat, card.name)
        _card_effect_done(s, card, success=True)
    elif c.probe is not None:  # the combo failed: the damage goes through, the card is kept (§4)
        _attack_done(s, c.probe, "")


def _card_effect_done(s: GameState, card: Card, success: bool) -> None:
    c = s.combat
    if c is None:
        return
    base = c.probe if c.probe is not None else _resolve(s, Attack(c.throws, c.option))

    if card.effect.kind is EffectKind.REFLECT:
        back = divided_damage(base.option.damage, _fighter(s, c.striker).divisor)
        result = replace(base, damage_dealt=0, reflected=True, damage_reflected=back,
                         notes=(f"{card.name} sends {back} back",))  # fmt: skip
    elif card.effect.kind is EffectKind.DODGE:
        result = replace(base, damage_dealt=0, dodged=True, notes=(f"{card.name}: dodged",))
    else:
        result = replace(base, damage_dealt=0, card_defended=True, notes=(f"{card.name} stops it",))
    _attack_done(s, result, card.name)


def _attack_done(s: GameState, r: AttackResult, used_defence_card: str) -> None:
    c = s.combat
    if c is None:
        return
    # The attack card cashed in goes under its deck. A card whose combo failed is kept:
    # only options the final throw makes can be chosen, so it was never played.
    if r.option.card is not None:
        seat = s.pieces[c.striker].seat
        card = s.data.cards.card(r.option.card.name)
        _count_play(s, seat, card)
        _use_card(s, seat, card.name)
    dealt = r.damage_dealt
    if dealt > 0 and s.damage_bonus and s.pieces[c.striker].seat == s.seat:
        dealt += s.damage_bonus
    tp, sp = s.pieces[c.target], s.pieces[c.striker]
    s.pieces[c.target] = tp._replace(damage=tp.damage + dealt)
    s.pieces[c.striker] = sp._replace(damage=sp.damage + r.damage_reflected)
    # a counter-attack?
    if not c.counter and not c.duel and not r.fled:
        t = _fighter(s, c.target)
        v = s.config.variants
        standing = not is_eliminated(s.pieces[c.target].damage, t.warrior.endurance, v)
        striker_standing = not is_eliminated(
            s.pieces[c.striker].damage, _fighter(s, c.striker).warrior.endurance, v
        )
        if (
            standing
            and striker_standing
            and (t.has(AbilityKind.COUNTER_ATTACK) or _counter_cards(s))
        ):
            s.phase = Phase.COUNTER_OFFER
            return
    _finish_combat(s)


def _counter_cards(s: GameState) -> list[Card]:
    c = s.combat
    if c is None:
        return []
    seat = s.pieces[c.target].seat
    return [] if seat < 0 else _playable(s, seat, Timing.COUNTER_ATTACK)


def _counter(s: GameState, e: CounterAttack) -> None:
    c = s.combat
    if c is None:
        raise IllegalActionError("no combat")
    if e.card:
        card = _check_card(s, e.seat, e.card, Timing.COUNTER_ATTACK)
        _count_play(s, e.seat, card)
        _use_card(s, e.seat, card.name)
    elif not _fighter(s, c.target).has(AbilityKind.COUNTER_ATTACK):
        raise IllegalActionError(
            f"{c.target} has no counter-attack ability: play a Counter-Attack card"
        )
    _start_attack(s, counter=True)


def _decline_counter(s: GameState, e: Pass) -> None:
    _finish_combat(s)


def _finish_combat(s: GameState) -> None:
    c = s.combat
    if c is None:
        return
    v = s.config.variants
    down: list[str] = []
    for name, form in ((c.attacker, c.a_form), (c.defender, c.d_form)):
        p = s.pieces[name]
        cost = s.data.fighter(name, form).cost if form else 0
        p = p._replace(damage=p.damage + cost)
        s.pieces[name] = p
        if is_eliminated(p.damage, s.data.warrior(name).endurance, v):
            down.append(name)
    a_seat, d_seat = s.pieces[c.attacker].seat, s.pieces[c.defender].seat
    arena = c.arena
    a_space = c.origin if c.adjacent else arena
    d_space = s.pieces[c.defender].space if not c.green else arena
    reward = False
    for name in down:
        space = a_space if name == c.attacker else d_space
        _eliminate(s, name, space)
        winner_seat = d_seat if name == c.attacker else a_seat
        if name == c.defender and c.green:
            reward = True  # eliminating the green warrior earns cards
        elif winner_seat >= 0:
            deck = deck_of_colour(s.data.colours[space])
            if deck:
                _draw(s, winner_seat, deck, 1)
    if c.green and c.defender not in down:  # back to the bottom of the warrior deck, healed
        del s.pieces[c.defender]
        s.green_deck = (*s.green_deck, c.defender)
    attacker_alive = c.attacker not in down
    if c.split_after:  # fusion for one attack: the partners come back
        _split(s, c.attacker, c.split_after, attacker_alive, c.adjacent or c.green, arena)
        c = c._replace(attacker=c.split_after[0].name)
        s.combat = c
    if c.d_split_after:
        _split(s, c.defender, c.d_split_after, c.defender not in down, True, arena)
        down = [c.d_split_after[0].name if n == c.defender else n for n in down]
        c = c._replace(defender=c.d_split_after[0].name)
        s.combat = c
    if c.duel:
        _duel_after(s, down)
        return
    defender_alive = c.defender not in down
    if attacker_alive and not c.adjacent:
        if s.pieces[c.attacker].space != arena:
            pass  # it fled with Solar Flare from the counter-attack: it stands where it fled
        elif c.green or not defender_alive:
            s.occ[arena] = c.attacker
        elif s.pieces[c.defender].space != arena:
            _settle(s, arena)  # the defender fled: the attacker holds the space (engine decision)
        elif step_spaces(s):
            s.phase = Phase.STEP_ASIDE
            return
        else:  # no adjacent empty non-green space: back where it came from (engine decision)
            _settle(s, c.origin)
    if reward:
        s.phase = Phase.REWARD
        return
    _after_combat_step(s)


def _split(
    s: GameState, fused: str, partners: tuple[Piece, ...], alive: bool, listed: bool, arena: int
) -> None:
    """End a fusion for one attack: the partners come back as they were (or eliminated)."""
    p = s.pieces[fused]
    s.pieces[fused] = p._replace(space=-1, eliminated=not alive)
    if s.occ.get(p.space) == fused:
        del s.occ[p.space]
    for q in partners:
        if alive:
            s.pieces[q.name] = q
            if q.space != arena or listed:
                s.occ[q.space] = q.name
        else:
            s.pieces[q.name] = q._replace(space=-1, eliminated=True, last_space=q.space)


def _eliminate(s: GameState, name: str, space: int) -> None:
    p = s.pieces[name]
    if s.occ.get(p.space) == name:
        del s.occ[p.space]
    s.pieces[name] = p._replace(space=-1, eliminated=True, last_space=space)
    if name in FUSIONS:  # eliminating a fusion removes both partners (§11)
        for partner in FUSIONS[name]:
            q = s.pieces.get(partner)
            if q is not None:
                s.pieces[partner] = q._replace(eliminated=True, fused_into="", last_space=space)


def step_spaces(state: GameState) -> list[int]:
    """Where the attacker may step after a combat its foe survived: adjacent, empty, not green."""
    c = state.combat
    if c is None:
        return []
    return sorted(
        sid
        for sid in state.data.near[c.arena]
        if sid not in state.occ and state.data.colours[sid] != "green"
    )


def _settle(s: GameState, space: int) -> None:
    c = s.combat
    if c is None:
        return
    p = s.pieces[c.attacker]
    s.pieces[c.attacker] = p._replace(space=space)
    s.occ[space] = c.attacker
    deck = deck_of_colour(s.data.colours[space])
    if deck:
        s.pending_draws += (deck,)


def _step_aside(s: GameState, e: StepAside) -> None:
    if e.space not in step_spaces(s):
        raise IllegalActionError(
            f"space {e.space} is not an empty, non-green space next to the combat"
        )
    _settle(s, e.space)
    _after_combat_step(s)


def _reward(s: GameState, e: ChooseReward) -> None:
    if e.deck not in [d.value for d in DRAW_DECKS]:
        raise IllegalActionError(f"choose attack, defence or special, not {e.deck!r}")
    _draw(s, e.seat, e.deck, 1 if s.config.variants.green_reward_one else 2)
    _after_combat_step(s)


def extra_targets(state: GameState) -> list[tuple[str, str]]:
    """(attacker, target) pairs for a second combat: a warrior of the player next to a foe."""
    out = []
    for p in state.on_board(state.seat):
        for sp in state.data.near[p.space]:
            foe = state.occ.get(sp)
            if foe is not None and state.pieces[foe].seat != state.seat:
                out.append((p.name, foe))
    return out


def _extra_possible(s: GameState) -> bool:
    if s.combats != 1 or s.config.length is Length.MINUTES45 or s.phase is Phase.OVER:
        return False
    if not (s.extra_granted or _playable(s, s.seat, Timing.AFTER_COMBAT)):
        return False
    return bool(extra_targets(s))


def _after_combat_step(s: GameState) -> None:
    s.combat = None
    if _extra_possible(s):
        s.phase = Phase.EXTRA_OFFER
        return
    _end_turn(s)


def _extra_card(s: GameState, e: PlayCard) -> None:
    card = _check_card(s, e.seat, e.card, Timing.AFTER_COMBAT)
    if (e.warrior, e.target) not in extra_targets(s):
        raise IllegalActionError(
            f"{e.warrior} cannot attack {e.target}: they must stand side by side"
        )
    _count_play(s, e.seat, card)
    _use_card(s, e.seat, card.name)
    _begin_adjacent(s, e.warrior, e.target)


def _extra_event(s: GameState, e: ExtraCombat) -> None:
    if not s.extra_granted:
        raise IllegalActionError("no event card grants a second combat this turn")
    if (e.warrior, e.target) not in extra_targets(s):
        raise IllegalActionError(
            f"{e.warrior} cannot attack {e.target}: they must stand side by side"
        )
    _begin_adjacent(s, e.warrior, e.target)


def _begin_adjacent(s: GameState, a: str, d: str) -> None:
    p = s.pieces[a]
    _begin_combat(s, a, d, p.space, s.pieces[d].space, green=False, adjacent=True)


def _decline_extra(s: GameState, e: Pass) -> None:
    _end_turn(s)


def _end_turn(s: GameState) -> None:
    for deck in s.pending_draws:
        _draw(s, s.seat, deck, 1)
    s.pending_draws = ()
    s.combat = None
    n = len(s.players)
    nxt = (s.seat + 1) % n
    if nxt == s.first:
        _round_over(s)
        if s.phase in (Phase.OVER, Phase.DUEL_PICK):
            return
        s.round += 1
    _start_turn(s, nxt)


def _round_over(s: GameState) -> None:
    rounds = s.config.rounds
    if s.extra_rounds:
        done = True
    elif rounds is not None:
        done = s.round >= rounds
    else:
        done = s.time_up
    if done:
        _count_and_end(s)


def _count_and_end(s: GameState) -> None:
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


def _duel_pick(s: GameState, e: DuelPick) -> None:
    p = s.pieces.get(e.warrior)
    if p is None or p.seat != e.seat or p.space < 0:
        raise IllegalActionError(f"{e.warrior!r} is not a warrior of seat {e.seat} still in play")
    s.duel_picks += (e.warrior,)
    if len(s.duel_picks) == 2:
        s.duel_combats = 0
        _duel_combat(s, s.duel_picks[0], s.duel_picks[1])


def _duel_combat(s: GameState, a: str, d: str) -> None:
    s.seat = s.pieces[a].seat
    s.played = ((0, 0, 0, 0, 0),) * len(s.players)  # each duel combat is a turn of its own
    s.move_bonus = s.damage_bonus = 0
    s.extra_granted = False
    pa = s.pieces[a]
    s.combat = Combat(
        a, d, pa.seat, s.pieces[d].seat, False, True, pa.space, s.pieces[d].space, duel=True
    )
    s.duel_combats += 1
    s.log_combats += 1
    _to_transform(s)


def _duel_after(s: GameState, down: list[str]) -> None:
    c = s.combat
    if c is None:
        return
    a, d = c.attacker, c.defender
    if down or s.duel_combats >= MAX_DUEL_COMBATS:
        alive = [n for n in (a, d) if n not in down]
        s.winners = tuple(sorted(s.pieces[n].seat for n in alive)) if alive else s.tied
        if not alive or len(alive) == 2:
            s.winners = s.tied
        s.combat = None
        s.phase = Phase.OVER
        return
    _duel_combat(s, d, a)


_HANDLERS: dict[tuple[Phase, type], Callable[[GameState, object], None]] = {}


def _on(phase: Phase, cls: type, fn: Callable[..., None]) -> None:
    _HANDLERS[(phase, cls)] = fn


for _p, _c, _f in (
    (Phase.FIRST_PLAYER, FirstPlayerChosen, _first_player),
    (Phase.DRAFT, Draft, _draft),
    (Phase.SHUFFLE, Shuffled, _shuffled),
    (Phase.PLACE, Place, _place),
    (Phase.DISCARD, Discard, _discard),
    (Phase.START_CARD, PlayCard, _start_card),
    (Phase.START_CARD, Pass, _skip_start_card),
    (Phase.MOVE, Move, _move),
    (Phase.FUSION_OFFER, TryFusion, _try_fusion),
    (Phase.FUSION_OFFER, Pass, _decline_fusion),
    (Phase.FUSION_ROLL, DieRolled, _fusion_roll),
    (Phase.TRANSFORM, DieRolled, _transform_roll),
    (Phase.RETRY_OFFER, PlayCard, _retry_card),
    (Phase.RETRY_OFFER, Pass, _decline_retry),
    (Phase.ATTACK, DiceThrown, _dice_thrown),
    (Phase.ATTACK, ThrowCorrected, _throw_corrected),
    (Phase.ATTACK, ChooseAttack, _choose_attack),
    (Phase.DEFENCE_CHOICE, Defend, _defend),
    (Phase.DEFENCE_ROLL, DiceThrown, _defence_throw),
    (Phase.DEFENCE_ROLL, ThrowCorrected, _throw_corrected),
    (Phase.DEFENCE_ROLL, StopRolling, _stop_rolling),
    (Phase.FLEE, StepAside, _flee),
    (Phase.COUNTER_OFFER, CounterAttack, _counter),
    (Phase.COUNTER_OFFER, Pass, _decline_counter),
    (Phase.STEP_ASIDE, StepAside, _step_aside),
    (Phase.REWARD, ChooseReward, _reward),
    (Phase.EXTRA_OFFER, PlayCard, _extra_card),
    (Phase.EXTRA_OFFER, ExtraCombat, _extra_event),
    (Phase.EXTRA_OFFER, Pass, _decline_extra),
    (Phase.DUEL_PICK, DuelPick, _duel_pick),
):
    _on(_p, _c, _f)


def replay(config: GameConfig, data: GameData, events: Iterable[GameEvent]) -> GameState:
    """The state after folding ``events`` into a new game (in place, fast).

    Raises:
        IllegalActionError, InvalidThrowError: an event that does not fit.
    """
    state = new_game(config, data)
    for e in events:
        advance(state, e)
    return state


__all__ = [
    "Awaiting",
    "actor",
    "advance",
    "apply",
    "attack_cards",
    "attack_options",
    "attack_speed",
    "awaiting",
    "defence_answers",
    "draftable",
    "expected_deck",
    "extra_targets",
    "limit_problem",
    "move_targets",
    "new_game",
    "placements",
    "replay",
    "step_spaces",
]


def arrange(
    config: GameConfig,
    data: GameData,
    *,
    pieces: Iterable[tuple[str, int, int]],
    first: int = 0,
    seat: int | None = None,
    round_no: int = 1,
    hands: Iterable[Iterable[str]] = (),
    decks: dict[str, Iterable[str]] | None = None,
    green_deck: Iterable[str] = (),
    damage: dict[str, int] | None = None,
    eliminated: Iterable[tuple[str, int]] = (),
) -> GameState:
    """A game already set up: ``pieces`` (warrior, seat, space) on the board, hands and decks
    given (a deck not given holds the data's cards in file order). Play starts at the start
    of ``seat``'s turn (default ``first``) in round ``round_no``.

    For scenario files, tests and a table that starts from a position; a game built this way
    is not the fold of journalled events.

    Raises:
        IllegalActionError: a bad set-up (unknown seat, two tokens on a space...).
    """
    config.check()
    s = GameState(data, config)
    n = len(config.players)
    teams: list[list[str]] = [[] for _ in range(n)]
    for name, owner, space in pieces:
        name = _roster_name(s, name)
        if not 0 <= owner < n:
            raise IllegalActionError(f"{name}: no seat {owner}")
        if space in s.occ:
            raise IllegalActionError(f"{name}: space {space} already holds {s.occ[space]}")
        if space not in data.board.spaces:
            raise IllegalActionError(f"{name}: no space {space} on the board")
        _put(s, Piece(name, owner, space, (damage or {}).get(name, 0)))
        teams[owner].append(name)
    for name, owner in eliminated:
        s.pieces[name] = Piece(name, owner, -1, 0, True)
        teams[owner].append(name)
    s.teams = tuple(tuple(t) for t in teams)
    hand_list = [tuple(h) for h in hands]
    s.hands = tuple(hand_list[i] if i < len(hand_list) else () for i in range(n))
    for card in (c for h in s.hands for c in h):
        data.cards.card(card)
    given = decks or {}
    for d in Deck:
        s.decks[d.value] = tuple(given.get(d.value, data.cards.decks[d]))
    s.green_deck = tuple(green_deck)
    s.shuffled = frozenset([*(d.value for d in Deck), WARRIOR_DECK])
    s.first = first
    s.round = round_no
    _start_turn(s, first if seat is None else seat)
    return s
