"""Setting a game up (docs/rules.md §11): the die that decides who drafts first, the
draft (going to the right), the shuffles, the placement of the tokens, the starting hands
and who starts (the youngest); :func:`arrange` for a game set up at once."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping

from controller.core.errors import DataError, IllegalActionError
from controller.core.quoting import short_repr
from controller.game.engine.common import (
    decks_to_shuffle,
    draw,
    next_seat,
    pair_of,
    put,
    roster_name,
    set_at,
)
from controller.game.engine.turn import start_turn
from controller.game.events import ChooseStarter, Draft, FirstPlayerChosen, Place, Shuffled
from controller.game.state import (
    NOT_DRAFTED,
    WARRIOR_DECK,
    GameConfig,
    GameState,
    Phase,
    Piece,
    ShuffledDeck,
)
from controller.gamedata.bundle import GameData
from controller.gamedata.cards import DRAW_DECKS, Deck


def first_player(s: GameState, e: FirstPlayerChosen) -> None:
    """Handle :class:`FirstPlayerChosen`: the draft begins with that seat."""
    if not 0 <= e.seat < len(s.players):
        raise IllegalActionError(f"no seat {e.seat}: seats are 0..{len(s.players) - 1}")
    s.first = s.seat = e.seat
    s.phase = Phase.DRAFT


def draftable(state: GameState) -> list[str]:
    """Warriors the player picking now may draft (Kefla and Anilaza never, §11; with the
    fusion-pair variant, a pair only as a whole and only when the team has room for both,
    unless only pairs are left and no room for two: then one alone, engine decision)."""
    return _draftable(state, state.config.variants.fusion_pairs_drafted_together) or (
        _draftable(state, pairs=False)
    )


def _draftable(state: GameState, pairs: bool) -> list[str]:
    taken = state.pieces
    room = state.config.team_size - len(state.teams[state.seat])
    outside = outside_tournament(state.data)
    out = []
    for w in state.data.roster:
        if w in taken or w in outside:
            continue
        partner = _drafted_partner(state, w) if pairs else None
        if partner is not None and (partner in taken or room < 2):
            continue
        out.append(w)
    return out


def check_fits(config: GameConfig, data: GameData) -> None:
    """Refuse a Tournament game the data cannot hold: fewer warriors to draft, or fewer
    board spaces, than the players' teams (else the draft or the placement would stop with
    nothing left to do).

    Raises:
        DataError: naming the file, the count and what the game needs.
    """
    players, team = len(config.players), config.team_size
    need = players * team
    pool = [w for w in data.roster if w not in outside_tournament(data)]
    if len(pool) < need:
        raise DataError.single(
            data.roster.source or "warriors.toml", "", "", f"{len(pool)} warriors may be "
            f"drafted (the fusions and the Story-only cards never are), and {players} players "
            f"draft {team} each: {need} are needed")  # fmt: skip
    if len(data.board.spaces) < need:
        raise DataError.single(
            data.board.source or "board.toml", "", "space", f"{len(data.board.spaces)} spaces, "
            f"and {players} players place {team} tokens each: {need} are needed")  # fmt: skip


def outside_tournament(data: GameData) -> frozenset[str]:
    """The warriors never drafted nor met on a green space: the fusions (docs/rules.md
    §11) and the Story-mode cards (Beerus, §12)."""
    return NOT_DRAFTED | data.story_only


def draft(s: GameState, e: Draft) -> None:
    """Handle :class:`Draft` (with the fusion-pair variant, the partner comes too)."""
    name = roster_name(s, e.warrior)
    if name in NOT_DRAFTED:
        raise IllegalActionError(f"{name} cannot be drafted (only reached by fusion)")
    if s.data.warrior(name).story_only:
        raise IllegalActionError(f"{name} is a Story-mode card: it is not drafted")
    if name in s.pieces:
        raise IllegalActionError(f"{name} is already drafted")
    picks = [name]
    partner = _drafted_partner(s, name)
    pairs = s.config.variants.fusion_pairs_drafted_together
    if pairs and partner is not None and _draftable(s, pairs=True):  # else drafted alone
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
    s.teams = set_at(s.teams, e.seat, s.teams[e.seat] + tuple(picks))
    # the pick passes to the right (A l.25, B l.257)
    nxt = next_seat(s, e.seat, lambda q: len(s.teams[q]) < s.config.team_size, to_the_right=True)
    if nxt is None:
        s.phase = Phase.SHUFFLE
    else:
        s.seat = nxt


def _drafted_partner(state: GameState, name: str) -> str | None:
    """The fusion partner drafted with ``name`` (the fusion-pair variant): none when the
    owner's roster lacks it (a lone Kale is drafted alone)."""
    partner = pair_of(name)
    return partner if partner is not None and partner in state.data.roster else None


def expected_deck(s: GameState, deck: ShuffledDeck) -> list[str]:
    """The cards (or warriors) a shuffle of ``deck`` must hold."""
    if deck is WARRIOR_DECK:
        outside = outside_tournament(s.data)
        return [w for w in s.data.roster if w not in s.pieces and w not in outside]
    return list(s.data.cards.decks[deck])


def shuffled(s: GameState, e: Shuffled) -> None:
    """Handle :class:`Shuffled`; once every deck is shuffled, the placement begins."""
    if e.deck not in decks_to_shuffle(s):
        raise IllegalActionError(f"deck {e.deck!r} is not waiting to be shuffled")
    if Counter(e.order) != Counter(expected_deck(s, e.deck)):
        raise IllegalActionError(f"the shuffled {e.deck} deck does not hold the expected cards")
    if e.deck is WARRIOR_DECK:
        s.green_deck = tuple(e.order)
    else:
        s.decks[e.deck] = tuple(e.order)
    s.shuffled = s.shuffled | {e.deck}
    if not decks_to_shuffle(s):
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


def place(s: GameState, e: Place) -> None:
    """Handle :class:`Place`; after the last token, the starting hands and the first turn."""
    p = s.pieces.get(e.warrior)
    if p is None or p.seat != e.seat:
        raise IllegalActionError(f"{short_repr(e.warrior)} is not in seat {e.seat}'s team")
    if p.space is not None:
        raise IllegalActionError(f"{e.warrior} is already placed")
    if e.space not in placements(s, e.seat):
        raise IllegalActionError(
            f"space {e.space} is taken, missing or next to a teammate: tokens are never placed beside one"
        )
    put(s, p._replace(space=e.space))
    nxt = next_seat(s, e.seat, lambda q: any(s.pieces[n].space is None for n in s.teams[q]))
    if nxt is not None:
        s.seat = nxt
        return
    for k in range(len(s.players)):  # starting hand: one Attack, one Defence, one Special
        for d in DRAW_DECKS:
            draw(s, (s.first + k) % len(s.players), d, 1)
    s.phase, s.seat = Phase.STARTER, s.first  # who is the youngest? (the die's winner answers)


def choose_starter(s: GameState, e: ChooseStarter) -> None:
    """Handle :class:`ChooseStarter`: the youngest player starts (A l.33, B l.275); the
    rounds are counted from its turn."""
    if not 0 <= e.starter < len(s.players):
        raise IllegalActionError(f"no seat {e.starter}: seats are 0..{len(s.players) - 1}")
    s.first = e.starter
    s.round = 1
    start_turn(s, e.starter)


def arrange(
    config: GameConfig,
    data: GameData,
    *,
    pieces: Iterable[tuple[str, int, int]],
    first: int = 0,
    seat: int | None = None,
    round_no: int = 1,
    hands: Iterable[Iterable[str]] = (),
    decks: Mapping[str, Iterable[str]] | None = None,
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
        name = roster_name(s, name)
        if not 0 <= owner < n:
            raise IllegalActionError(f"{name}: no seat {owner}")
        if space in s.occ and s.pieces[s.occ[space]].seat != owner:  # teammates may share one
            raise IllegalActionError(f"{name}: space {space} already holds {s.occ[space]}")
        if space not in data.board.spaces:
            raise IllegalActionError(f"{name}: no space {space} on the board")
        put(s, Piece(name, owner, space, (damage or {}).get(name, 0)))
        teams[owner].append(name)
    for name, owner in eliminated:
        s.pieces[name] = Piece(name, owner, None, 0, True)
        teams[owner].append(name)
    s.teams = tuple(tuple(t) for t in teams)
    hand_list = [tuple(h) for h in hands]
    s.hands = tuple(hand_list[i] if i < len(hand_list) else () for i in range(n))
    for card in (c for h in s.hands for c in h):
        data.cards.card(card)
    given = decks or {}
    for d in Deck:
        s.decks[d] = tuple(given.get(d.value, data.cards.decks[d]))
    s.green_deck = tuple(green_deck)
    s.shuffled = frozenset([*Deck, WARRIOR_DECK])
    s.first = first
    s.round = round_no
    start_turn(s, first if seat is None else seat)
    return s
