"""Fusions (docs/rules.md §10, §11): who may fuse (the partners on one space, A l.209; one
space apart with B's variant) and how at the start of a combat (the Fusion card, or the die
without it), fusing two partners and ending a fusion."""

from __future__ import annotations

from controller.game.engine.common import limit_problem, on_space, owner, put, set_at, vacate
from controller.game.state import FUSIONS, GameState, Piece
from controller.gamedata.cards import Card, EffectKind


def partners_together(s: GameState, a: int, b: int) -> bool:
    """Whether fusion partners on spaces ``a`` and ``b`` may fuse: on the same space
    (A l.209), or one space apart with B's variant ``fusion_partners_adjacent`` (B l.287)."""
    if s.config.variants.fusion_partners_adjacent:
        return b in s.data.near[a]
    return a == b


def fusion_ready(s: GameState, seat: int, fused: str) -> bool:
    """Whether ``seat``'s two partners of ``fused`` stand together on the board."""
    a, b = FUSIONS[fused]
    pa, pb = s.pieces.get(a), s.pieces.get(b)
    if fused not in s.data.roster or pa is None or pb is None:
        return False
    if pa.seat != seat or pb.seat != seat or pa.space is None or pb.space is None:
        return False
    return partners_together(s, pa.space, pb.space)


def holds_fusion_card(s: GameState, seat: int) -> bool:
    """Whether ``seat`` has a Fusion card in hand."""
    return any(s.data.cards.card(n).effect.kind is EffectKind.FUSION for n in s.hands[seat])


def combat_fusion(s: GameState, name: str) -> str | None:
    """The fusion ``name`` could make at the start of this combat: its partner, of the same
    team, stands with it (A l.209; the attacker is counted where it fights)."""
    a = s.pieces.get(name)
    if a is None or a.seat is None or a.space is None:
        return None
    for f, pair in FUSIONS.items():
        if name in pair and f in s.data.roster:
            other = s.pieces.get(pair[1] if name == pair[0] else pair[0])
            if (
                other is not None
                and other.seat == a.seat
                and other.space is not None
                and partners_together(s, a.space, other.space)
            ):
                return f
    return None


def fusion_candidate(s: GameState, name: str) -> str | None:
    """The fusion ``name`` may try by the die at the start of this combat (:func:`combat_fusion`)
    when its player has no Fusion card (A l.209: "If you do not have the fusion card, you can
    try ...")."""
    seat = s.pieces[name].seat if name in s.pieces else None
    if seat is None or holds_fusion_card(s, seat):
        return None
    return combat_fusion(s, name)


def fusion_cards(s: GameState, name: str) -> list[Card]:
    """The Fusion cards ``name``'s player may play at the start of this combat to fuse it
    (:func:`combat_fusion`; A l.209, Special cards are played "in order to fuse", l.368),
    once each, within the per-turn limits (one Special card a turn, A l.370)."""
    seat = s.pieces[name].seat if name in s.pieces else None
    if seat is None or combat_fusion(s, name) is None:
        return []
    cards = (s.data.cards.card(n) for n in dict.fromkeys(s.hands[seat]))
    return [
        c for c in cards if c.effect.kind is EffectKind.FUSION and limit_problem(s, seat, c) is None
    ]


def fusion_offered(s: GameState, name: str) -> bool:
    """Whether ``name`` is offered a fusion at the start of this combat: by its Fusion card,
    or by the die when its player has none (A l.209)."""
    return fusion_candidate(s, name) is not None or bool(fusion_cards(s, name))


def fuse(s: GameState, fused: str) -> None:
    """Replace the two partners by the fused warrior on the first partner's space, for good."""
    a, b = FUSIONS[fused]
    pa, pb = s.pieces[a], s.pieces[b]
    space = pa.space
    for p in (pa, pb):
        put(s, p._replace(space=None, fused_into=fused))
    put(s, Piece(fused, pa.seat, space))
    join_team(s, owner(pa), fused)


def join_team(s: GameState, seat: int, fused: str) -> None:
    """List ``fused`` in ``seat``'s team (once)."""
    if fused not in s.teams[seat]:
        s.teams = set_at(s.teams, seat, s.teams[seat] + (fused,))


def split(
    s: GameState, fused: str, partners: tuple[Piece, ...], alive: bool, listed: bool, arena: int
) -> None:
    """End a fusion for one attack: the partners come back as they were (or eliminated).

    A fused defender the space index named, on its space where the attacker waits unlisted
    (a combat on its space), gives the index back to its partner standing there: the
    attacker steps off the space after the combat and leaves the partner on it. (Before
    rules revision 3 the index went to the attacker and, once it stepped off, named it on
    a space it had left: a journal of revisions 1 and 2 replays so.)"""
    p = s.pieces[fused]
    s.pieces[fused] = p._replace(space=None, eliminated=not alive)
    held = None  # the space whose index named the fused warrior
    if p.space is not None:
        held = p.space if s.occ.get(p.space) == fused else None
        vacate(s, fused, p.space)
    for q in partners:
        if alive:
            s.pieces[q.name] = q
            if held is not None and q.space == held and s.config.rules_revision >= 3:
                s.occ[held] = q.name
                held = None  # the first partner there: a second one shares it unlisted
            elif (q.space != arena or listed) and on_space(q) not in s.occ:
                s.occ[on_space(q)] = q.name
        else:
            s.pieces[q.name] = q._replace(space=None, eliminated=True, last_space=q.space)


def eliminate(s: GameState, name: str, space: int | None) -> None:
    """``name`` leaves the game, counted as eliminated on ``space`` (a fusion takes both
    partners with it, §11)."""
    p = s.pieces[name]
    s.pieces[name] = p._replace(space=None, eliminated=True, last_space=space)
    if p.space is not None:
        vacate(s, name, p.space)
    if name in FUSIONS:
        for partner in FUSIONS[name]:
            q = s.pieces.get(partner)
            if q is not None:
                s.pieces[partner] = q._replace(eliminated=True, fused_into="", last_space=space)
