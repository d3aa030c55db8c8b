"""The advisor's line on the combat screen: what to keep and reroll, or to stop.

During an attack with a throw on show, :class:`AdviceLine` asks the reroll
advisor about the striker against its target (building an advisor only when the
fight, the pool or the target's damage changes; in a Story attempt, playing for the
square, :mod:`controller.advisor.story`) and keeps both the screen's
:class:`~hardware.displays.model.AdviceView` and the advisor's best
:class:`~controller.advisor.advisor.Choice`. Outside an attack there is none.
"""

from __future__ import annotations

import logging

from controller.advisor.advisor import Advisor, Choice
from controller.core.errors import TopTableError
from controller.core.symbols import Symbol
from controller.game import engine
from controller.game.state import GameState, Phase
from hardware.displays.model import AdviceView

log = logging.getLogger(__name__)


class AdviceLine:
    """The advice for the throw on show (``enabled=False``: never any)."""

    def __init__(self, enabled: bool = True) -> None:
        self.enabled = enabled
        self.advice: AdviceView | None = None  # what the screens show
        self.best: Choice | None = None  # the advisor's best choice for the throw on show
        self.advisor: Advisor | None = None
        self._key: tuple[object, ...] | None = None

    def update(self, state: GameState) -> AdviceView | None:
        """Advise on ``state``'s throw on show (None: no attack throw, or no advice)."""
        self.advice, self.best = None, None
        c = state.combat
        if not self.enabled or state.phase is not Phase.ATTACK or c is None or not c.throws:
            return None
        striker = c.striker or c.attacker
        target = c.target or c.defender
        s_form = c.attacker_form if striker == c.attacker else c.defender_form
        t_form = c.defender_form if target == c.defender else c.attacker_form
        taken = (state.pieces[striker].damage, state.pieces[target].damage)
        # the options the engine lists (game.engine.attack_options): its cards, its sum rule
        sum_allowed = engine.sum_allowed(state)
        # a Story attempt plays for the square, against no defender (engine.story_stakes)
        story = engine.story_stakes(state)
        flight = engine.flight_open(state)  # none in a tie's duel, nor with nowhere to go
        countered = engine.may_be_countered(state)  # nor a counter-attack
        key = (
            striker, s_form, target, t_form, c.pool, c.max_rerolls, taken, c.cards, sum_allowed,
            story, flight, countered,
        )  # fmt: skip
        try:
            if key != self._key:
                self.advisor = Advisor(
                    state.data.fighter(striker, s_form),
                    defender=None if story else state.data.fighter(target, t_form),
                    defender_damage=0 if story else state.pieces[target].damage,
                    cards=c.cards,
                    sum_allowed=sum_allowed,
                    # what may come back counts (nothing in a Story attempt)
                    attacker_damage=0 if story else state.pieces[striker].damage,
                    variants=state.config.variants,
                    pool=c.pool,
                    rerolls=c.max_rerolls,
                    die=state.data.die,  # the owner's dice, as the data directory describes them
                    story=story,
                    flight=flight,
                    countered=countered,
                )
                self._key = key
            if self.advisor is None:
                return None
            advised = self.advisor.advise(tuple(Symbol(s) for s in c.throws[-1]), len(c.throws) - 1)
        except TopTableError as exc:
            log.debug("no advice: %s", exc)
            return None
        best = advised.best
        self.best = best
        self.advice = AdviceView(
            best.keep, best.p_eliminate, best.expected_damage, win_chance=best.p_win
        )
        return self.advice
