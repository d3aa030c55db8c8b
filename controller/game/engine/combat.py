"""The start of a combat (docs/rules.md §8, §10–§11): the fusion offers (card or roll), the
transformation rolls and their retries, and the set-up of each attack (pools, rerolls,
support dice, the striker's cards)."""

from __future__ import annotations

from controller.core.errors import IllegalActionError, InvalidThrowError
from controller.game.engine.common import (
    FUSION_ROLL_NEEDED,
    check_card,
    check_names,
    count_play,
    fighter,
    on_space,
    owner,
    playable,
    player_to_the_right,
    seat_of,
    striker_cards,
    support,
    transformation_dice,
    use_card,
    vacate,
)
from controller.game.engine.fusion import (
    combat_fusion,
    fusion_candidate,
    fusion_offered,
    join_team,
)
from controller.game.events import DieRolled, Pass, PlayCard, TryFusion
from controller.game.state import FUSIONS, Combat, GameState, Phase, Piece
from controller.gamedata.cards import EffectKind, Timing
from controller.rules.pools import attack_pool, attack_rerolls


def begin_combat(
    s: GameState,
    attacker: str,
    defender: str,
    origin: int,
    arena: int,
    *,
    green: bool,
    adjacent: bool,
) -> None:
    """``attacker`` (moved from ``origin``) fights ``defender`` on ``arena``; first the
    fighters offered a fusion (A l.209), the attacker first."""
    # the player to the right acts for the green-space warrior
    defender_seat = player_to_the_right(s, s.seat) if green else owner(s.pieces[defender])
    s.combat = Combat(
        attacker, defender, owner(s.pieces[attacker]), defender_seat, green, adjacent, origin,
        arena, striker=attacker, target=defender,
    )  # fmt: skip
    s.combats += 1
    s.log_combats += 1
    fusers = tuple(n for n in (attacker, defender) if fusion_offered(s, n))
    if fusers and not s.combat.duel:
        s.combat = s.combat._replace(fusers=fusers)
        s.phase = Phase.FUSION_OFFER
        return
    to_transform(s)


def begin_green_combat(s: GameState, attacker: str, origin: int, arena: int) -> None:
    """``attacker``, standing on the green space ``arena`` (moved from ``origin``), fights the
    green deck's top warrior, which the player to the right draws and plays (A l.237)."""
    foe = s.green_deck[0]
    s.green_deck = s.green_deck[1:]
    s.pieces[foe] = Piece(foe, None)
    begin_combat(s, attacker, foe, origin, arena, green=True, adjacent=False)


def try_fusion(s: GameState, e: TryFusion) -> None:
    """Handle :class:`TryFusion`: the fusion roll comes next.

    Raises:
        IllegalActionError: no fusion by the die is offered (no partner there, or the player
            holds a Fusion card, A l.209).
    """
    c = s.combat
    if c is None or not c.fusers or fusion_candidate(s, c.fusers[0]) is None:
        raise IllegalActionError(
            "no fusion roll is offered: no fusion partner stands with this warrior, "
            "or its player holds a Fusion card (A l.209)"
        )
    s.phase = Phase.FUSION_ROLL


def fusion_card(s: GameState, e: PlayCard) -> None:
    """Handle a :class:`PlayCard` of a Fusion card at a fusion offer: the fighter offered
    fuses for sure (A l.209; Special cards are played "in order to fuse", l.368), the card
    counted against the turn's limits (one Special card a turn, A l.370).

    Raises:
        IllegalActionError: no fusion offered, not a Fusion card, a card not in hand or over
            a limit, or ``warrior`` not the fusion offered.
    """
    c = s.combat
    fused = combat_fusion(s, c.fusers[0]) if c is not None and c.fusers else None
    if c is None or fused is None:
        raise IllegalActionError("no fusion is offered")
    # a Fusion card's timing is the start of the turn (EFFECT_TIMINGS); here it is played
    # "in order to fuse" (A l.368)
    card = check_card(s, e.seat, e.card, Timing.START_OF_TURN)
    if card.effect.kind is not EffectKind.FUSION:
        raise IllegalActionError(f"{card.name} is not a Fusion card")
    check_names(card.name, e, warrior=True)
    if e.warrior != fused:
        raise IllegalActionError(f"{card.name} fuses {c.fusers[0]} into {fused}: name {fused}")
    count_play(s, e.seat, card)
    use_card(s, e.seat, card.name)
    _fuse_fighter(s, c.fusers[0], fused)
    _next_fuser(s)


def _next_fuser(s: GameState) -> None:
    c = s.combat
    if c is None:
        return
    rest = tuple(n for n in c.fusers[1:] if fusion_offered(s, n))
    s.combat = c._replace(fusers=rest)
    if rest:
        s.phase = Phase.FUSION_OFFER
        return
    to_transform(s)


def decline_fusion(s: GameState, e: Pass) -> None:
    """Handle :class:`Pass` at a fusion offer (neither the card nor the die)."""
    _next_fuser(s)


def fusion_roll(s: GameState, e: DieRolled) -> None:
    """Handle the fusion roll's :class:`DieRolled`: 4 or more fuses the pair (A l.209).

    Raises:
        InvalidThrowError: not one die of 1..6.
        IllegalActionError: no fusion roll is expected.
    """
    if len(e.values) != 1 or not 1 <= e.values[0] <= 6:
        raise InvalidThrowError(f"a fusion roll is one die 1..6, got {list(e.values)}")
    c = s.combat
    if c is None or not c.fusers:
        raise IllegalActionError("no fusion roll is expected")
    fused = fusion_candidate(s, c.fusers[0])
    if fused is not None and e.values[0] >= FUSION_ROLL_NEEDED:
        _fuse_fighter(s, c.fusers[0], fused)
    _next_fuser(s)


def _fuse_fighter(s: GameState, first: str, fused: str) -> None:
    """``first``, a fighter of the combat, and its partner fuse into ``fused``, who fights in
    its place (by the card or the die, A l.209); with B's ``fusion_for_one_attack`` the
    partners come back after the combat (B l.287)."""
    c = s.combat
    if c is None:
        return
    a, b = FUSIONS[fused]
    other = b if first == a else a
    pa, po = s.pieces[first], s.pieces[other]
    keep = (pa, po) if s.config.variants.fusion_for_one_attack else ()
    space = on_space(pa)
    holds_space = s.occ.get(space) == first  # the attacker shares the arena unlisted
    for p in (pa, po):
        s.pieces[p.name] = p._replace(space=None, fused_into=fused)
        if p.space is not None:
            vacate(s, p.name, p.space)
    s.pieces[fused] = Piece(fused, pa.seat, space)
    if holds_space:
        s.occ[space] = fused
    join_team(s, owner(pa), fused)
    if first == c.attacker:
        s.combat = c._replace(attacker=fused, split_after=keep)
    else:
        s.combat = c._replace(defender=fused, defender_split_after=keep)


def to_transform(s: GameState) -> None:
    """The transformation rolls of the fighters that have forms, then the attack."""
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
    start_attack(s, counter=False)


def transform_roll(s: GameState, e: DieRolled) -> None:
    """Handle a transformation's :class:`DieRolled`. A failed roll (or, with the variant
    ``transformation_card_when_dissatisfied``, any roll short of the last form) may be
    retried by card; a retry with a target reaches the last form on the target or more and
    otherwise leaves the first result (B l.423)."""
    c = s.combat
    if c is None:
        raise IllegalActionError("no combat")
    name = c.to_transform[0]
    w = s.data.warrior(name)
    dice = transformation_dice(s, name)
    if len(e.values) != dice or any(not 1 <= v <= 6 for v in e.values):
        what = "retries at the card's target" if dice != w.transform_dice else "transforms"
        dice_of = "one die" if dice == 1 else f"{dice} dice"
        raise InvalidThrowError(f"{name} {what} with {dice_of} of 1..6, got {list(e.values)}")
    first = c.attacker_form if name == c.attacker else c.defender_form
    last = w.form_for_roll(max(f.threshold for f in w.forms))
    if name in c.retried and c.retry_target is not None:
        fname = last.name if last is not None and sum(e.values) >= c.retry_target else first
    else:
        form = w.form_for_roll(sum(e.values))
        fname = form.name if form is not None else None
    c = c._replace(attacker_form=fname) if name == c.attacker else c._replace(defender_form=fname)
    seat = seat_of(s, name)
    short = fname is None or (
        s.config.variants.transformation_card_when_dissatisfied
        and last is not None
        and fname != last.name
    )
    retry_ok = (
        short
        and name not in c.retried
        and s.pieces[name].seat is not None
        and bool(playable(s, seat, Timing.TRANSFORMATION))
    )
    if retry_ok:
        s.combat = c
        s.phase = Phase.RETRY_OFFER
        return
    s.combat = c._replace(to_transform=c.to_transform[1:])
    _next_transform(s)


def decline_transform(s: GameState, e: Pass) -> None:
    """Handle :class:`Pass` instead of a transformation roll: transforming is a choice
    (A l.89, "if you perform the transformation"); the warrior fights in its base form."""
    c = s.combat
    if c is None or not c.to_transform:
        raise IllegalActionError("no transformation is offered")
    name = c.to_transform[0]
    c = c._replace(attacker_form=None) if name == c.attacker else c._replace(defender_form=None)
    s.combat = c._replace(to_transform=c.to_transform[1:])
    _next_transform(s)


def retry_card(s: GameState, e: PlayCard) -> None:
    """Handle a transformation-retry :class:`PlayCard`: the roll is made again."""
    c = s.combat
    if c is None:
        raise IllegalActionError("no combat")
    card = check_card(s, e.seat, e.card, Timing.TRANSFORMATION)
    check_names(card.name, e)
    count_play(s, e.seat, card)
    use_card(s, e.seat, card.name)
    s.combat = c._replace(retried=(*c.retried, c.to_transform[0]), retry_target=card.target)
    s.phase = Phase.TRANSFORM


def decline_retry(s: GameState, e: Pass) -> None:
    """Handle :class:`Pass` at a retry offer: the failed roll stands."""
    c = s.combat
    if c is None:
        raise IllegalActionError("no combat")
    s.combat = c._replace(to_transform=c.to_transform[1:])
    _next_transform(s)


def start_attack(s: GameState, counter: bool) -> None:
    """Set up an attack: the attacker's (or, for a counter-attack, the defender's)."""
    c = s.combat
    if c is None:
        return
    striker, target = (c.defender, c.attacker) if counter else (c.attacker, c.defender)
    f, t = fighter(s, striker), fighter(s, target)
    striker_support = support(s, striker)
    s.combat = c._replace(
        striker=striker, target=target, counter=counter,
        pool=attack_pool(f, striker_support, t, capped_first=s.config.rules_revision >= 2),
        max_rerolls=attack_rerolls(f, t),
        striker_support=striker_support, target_support=support(s, target),
        cards=striker_cards(s, striker),
        throws=(), evidence=(), option=None, answer=None, answer_card=None, defence_throws=(),
    )  # fmt: skip
    s.phase = Phase.ATTACK
