"""An attack's outcome applied (docs/rules.md §8): the attack card cashed in, the damage
dealt and reflected, then the counter-attack offer or the end of the combat."""

from __future__ import annotations

from controller.core.errors import IllegalActionError
from controller.game.engine.combat import start_attack
from controller.game.engine.common import (
    check_card,
    count_play,
    counter_cards,
    fighter,
    owner,
    use_card,
)
from controller.game.engine.end import finish_combat
from controller.game.events import CounterAttack, Pass
from controller.game.state import GameState, Phase
from controller.gamedata.cards import Timing
from controller.rules.combat import may_strike_back
from controller.rules.combat_types import AttackResult
from controller.rules.endurance import is_eliminated
from controller.rules.warriors import AbilityKind


def attack_done(s: GameState, r: AttackResult) -> None:
    """Apply the resolved attack ``r``; then a counter-attack offer or the combat's end."""
    c = s.combat
    if c is None:
        return
    # The attack card cashed in goes under its deck. A card whose combo failed is kept:
    # only options the final throw makes can be chosen, so it was never played.
    if r.option.card is not None:
        seat = owner(s.pieces[c.striker])
        card = s.data.cards.card(r.option.card.name)
        count_play(s, seat, card)
        use_card(s, seat, card.name)
    dealt = r.damage_dealt
    if dealt > 0 and s.damage_bonus and s.pieces[c.striker].seat == s.seat:
        dealt += s.damage_bonus
    tp, sp = s.pieces[c.target], s.pieces[c.striker]
    s.pieces[c.target] = tp._replace(damage=tp.damage + dealt)
    s.pieces[c.striker] = sp._replace(damage=sp.damage + r.damage_reflected)
    if may_be_countered(s):
        t = fighter(s, c.target)
        v = s.config.variants
        target_down = is_eliminated(s.pieces[c.target].damage, t.warrior.endurance, v)
        striker_down = is_eliminated(
            s.pieces[c.striker].damage, fighter(s, c.striker).warrior.endurance, v
        )
        if may_strike_back(r, target_down, striker_down) and (
            t.has(AbilityKind.COUNTER_ATTACK) or counter_cards(s)
        ):
            s.phase = Phase.COUNTER_OFFER
            return
    finish_combat(s)


def may_be_countered(state: GameState) -> bool:
    """Whether a counter-attack may follow the attack under way: not one of its own, nor a
    tie's duel's, whose attacks alternate by themselves (docs/rules.md §11). The advisor
    asks too (``table.advice``)."""
    c = state.combat
    return c is not None and not c.counter and not c.duel


def counter(s: GameState, e: CounterAttack) -> None:
    """Handle :class:`CounterAttack` (by ability, or by playing a Counter-Attack card)."""
    c = s.combat
    if c is None:
        raise IllegalActionError("no combat")
    if e.card:
        if s.pieces[c.target].seat is None:
            raise IllegalActionError(
                f"{c.target} fights from the green space and holds no cards (A l.237, "
                "B l.311): it counter-attacks by its ability or not at all"
            )
        card = check_card(s, e.seat, e.card, Timing.COUNTER_ATTACK)
        count_play(s, e.seat, card)
        use_card(s, e.seat, card.name)
    elif not fighter(s, c.target).has(AbilityKind.COUNTER_ATTACK):
        raise IllegalActionError(
            f"{c.target} has no counter-attack ability: play a Counter-Attack card"
        )
    start_attack(s, counter=True)


def decline_counter(s: GameState, e: Pass) -> None:
    """Handle :class:`Pass` at the counter-attack offer: the combat ends."""
    finish_combat(s)
