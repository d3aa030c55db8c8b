"""The Dragon Ball Z TCG mode's rules: state + action -> new state (rule text 003)."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import Any

from controller.companion.base import (
    R_AMOUNT,
    JsonDict,
    Offer,
    RuleViolationError,
    check_players,
    checked_revision,
)
from controller.companion.dbz_tcg.model import (
    KIND,
    RULES_REVISION,
    Anger,
    Critical,
    DbzAction,
    DbzState,
    DeclareCombat,
    DiscardDragonBall,
    DragonBall,
    Draw,
    EndTurn,
    GainStages,
    Level,
    LifeDamage,
    PayStages,
    Personality,
    PhysicalAttack,
    Pur,
    Rejuvenate,
    StageDamage,
    Step,
    UseCritical,
    Victory,
    load_data,
)
from controller.core.quoting import short_repr

R_DRAW = "Draw Step: draw three cards at the beginning of your turn"
R_PLANNING = "Planning Step: Dragon Balls and the PUR gain only on your turn, in the Planning Step"
R_PUR = "Planning Step: the Main Personality gains its PUR once"
R_PUR_FIRST = "Planning Step: the step ends with the PUR gain (a pur of 0 when there is none)"
R_COMBAT = "Combat Step (optional): declared by the turn player, once, after the Planning Step"
R_REJUVENATE = "Rejuvenation Step: if you did not declare combat this turn, rejuvenate one card"
R_DRAGON_BALL = "Dragon Balls: numbered 1-7; you cannot play one that matches one on the table"
R_BALL_DISCARD = "Dragon Balls: one discarded or destroyed goes to the bottom of your deck"
R_ENERGY = "Energy Attacks: lower your Main Personality's stages to pay; without enough, no attack"
R_CRITICAL = "Critical damage: after five or more Life Cards of damage from one unstopped attack"
R_LEVEL = "Levels: a card advances or lowers the Main Personality within its Levels; Drills go"
R_TURN = "Turn steps: only the turn player does this"
R_OVER = "Winning the game: the game is over"


def new_game(
    players: Sequence[str],
    data: Mapping[str, Any] | None = None,
    source: str = "script",
    revision: int | None = None,
) -> DbzState:
    """Both players at Level 1, five Power Stages, a full Life Deck; the first listed begins;
    played by rules ``revision`` (None: :data:`RULES_REVISION`).

    Raises:
        DataError: the players, the data or the revision.
    """
    rules = checked_revision(revision, RULES_REVISION, source)
    d = load_data(data, source)
    a, b = check_players(players, 2, 2, KIND.value, source)
    fighters = tuple(Personality(n, d.life_deck, d.start_level, d.start_stages) for n in (a, b))
    return DbzState(data=d, fighters=(fighters[0], fighters[1]), turn=a, rules_revision=rules)


def _planning_must_end_with_pur(state: DbzState) -> bool:
    """Whether the Planning Step is still open and waits for its PUR (revision 2 on)."""
    return state.rules_revision >= 2 and state.step is Step.PLANNING


def _pur_first(state: DbzState, what: str) -> None:
    """RuleViolationError (R_PUR_FIRST) if ``what`` would leave the Planning Step before
    its PUR gain (revision 2 on; rule text 003 l.110-112)."""
    if _planning_must_end_with_pur(state):
        raise RuleViolationError(R_PUR_FIRST, f"{what}: {state.turn} has not gained the PUR")


def _declare_combat(state: DbzState, a: DeclareCombat) -> DbzState:
    """Combat declared; from revision 2 the defender then draws ``combat_draw_cards``
    (rule text 003 l.150; an empty Life Deck loses by Survival)."""
    _turn_player(state, a.player, R_COMBAT, f"{a.player} declares combat")
    if state.step not in (Step.PLANNING, Step.COMBAT_CHOICE):
        raise RuleViolationError(
            R_COMBAT, f"combat cannot be declared in the {state.step.value} step"
        )
    _pur_first(state, f"{a.player} declares combat")
    out = dataclasses.replace(state, step=Step.COMBAT, combat_declared=True)
    cards = state.data.combat_draw_cards
    if state.rules_revision >= 2 and cards:
        out = _lose_life(out, state.opponent(a.player), cards)
    return out


def _set(state: DbzState, name: str, **changes: Any) -> DbzState:
    fighters = tuple(
        dataclasses.replace(f, **changes) if f.name == name else f for f in state.fighters
    )
    return dataclasses.replace(state, fighters=(fighters[0], fighters[1]))


def _win(state: DbzState, winner: str, how: Victory) -> DbzState:
    return dataclasses.replace(state, winner=winner, victory=how, step=Step.OVER)


def _lose_life(state: DbzState, name: str, cards: int) -> DbzState:
    life = state.fighter(name).life - cards
    out = _set(state, name, life=max(0, life))
    return _win(out, state.opponent(name), Victory.SURVIVAL) if life <= 0 else out


def _change_anger(state: DbzState, name: str, delta: int) -> DbzState:
    f = state.fighter(name)
    d = state.data
    anger = max(0, f.anger + delta)
    if anger < d.anger_to_level:
        return _set(state, name, anger=anger)
    if f.level >= d.levels:
        out = _set(state, name, anger=d.anger_to_level)
        return _win(out, name, Victory.MPPV)
    # Advance a Level at ten stages; the Anger resets (any excess is lost); Drills are discarded.
    return _set(
        state,
        name,
        level=f.level + 1,
        stages=d.level_up_stages,
        anger=0,
        drill_discards=f.drill_discards + 1,
    )


def _damage(state: DbzState, name: str, stages: int, life_cards: int) -> DbzState:
    f = state.fighter(name)
    overflow = max(0, stages - f.stages)
    out = _set(state, name, stages=max(0, f.stages - stages))
    cards = life_cards + overflow
    out = _lose_life(out, name, cards) if cards else out
    if out.step is Step.COMBAT and cards >= state.data.critical_life_cards:
        out = _set(out, state.opponent(name), critical_available=True)
    return out


def _level(state: DbzState, a: Level) -> DbzState:
    """Rule text 003 l.55: a card's effect moves ``a.player``'s Main Personality by
    ``a.delta`` Levels, and their Drills are discarded; RuleViolationError (R_AMOUNT, R_LEVEL)
    for no change or a Level outside 1..``levels``. Anger and stages stay as they are (the
    text's note on an advanced or lowered Personality is cut off, l.76): a card that sets
    them is entered with ``anger``, ``gain_stages`` or ``pay_stages``."""
    if a.delta == 0:
        raise RuleViolationError(R_AMOUNT, "a Level change of 0")
    f = state.fighter(a.player)
    level = f.level + a.delta
    if not 1 <= level <= state.data.levels:
        raise RuleViolationError(
            R_LEVEL,
            f"{a.player} is on Level {f.level} of 1-{state.data.levels}: {a.delta:+d} leaves them",
        )
    return _set(state, a.player, level=level, drill_discards=f.drill_discards + 1)


# The next attack (its cost paid, its damage) or the turn's end closes the critical choice
# of the attack before (revision 3 on); anything else is one of its "Hit" effects, which
# come first (l.189).
_CLOSES_CRITICAL = (StageDamage, LifeDamage, PhysicalAttack, PayStages, EndTurn)


def _turn_player(state: DbzState, name: str, rule: str, what: str) -> None:
    if name != state.turn:
        raise RuleViolationError(rule, f"{what}: it is {state.turn}'s turn")


def _critical(state: DbzState, a: UseCritical) -> DbzState:
    me = state.fighter(a.player)
    if not me.critical_available:
        raise RuleViolationError(R_CRITICAL, f"{a.player} has no critical damage choice now")
    foe = state.opponent(a.player)
    out = _set(state, a.player, critical_available=False)
    if a.choice is Critical.LOWER_ANGER:
        return _change_anger(out, foe, -1)
    if a.choice is Critical.CAPTURE:
        balls = state.fighter(foe).dragon_balls
        if a.number is None:
            raise RuleViolationError(R_CRITICAL, f"a capture names one of {foe}'s Dragon Balls")
        if a.number not in balls:
            raise RuleViolationError(
                R_CRITICAL, f"{foe} has no Dragon Ball {short_repr(a.number)} in play"
            )
        out = _set(out, foe, dragon_balls=tuple(b for b in balls if b != a.number))
        mine = tuple(sorted((*me.dragon_balls, a.number)))
        out = _set(out, a.player, dragon_balls=mine)
        if len(mine) >= state.data.dragon_balls:
            out = _win(out, a.player, Victory.DRAGON_BALLS)
        return out
    return out  # DISCARD_ALLY: allies are not tracked


def _pay_stages(state: DbzState, a: PayStages) -> DbzState:
    """Rule text 003 l.177: an Energy Attack's cost lowers the Main Personality's stages;
    RuleViolationError (R_ENERGY) if it has fewer stages than the cost (a cost is no damage:
    nothing turns into Life Cards)."""
    if a.amount < 1:
        raise RuleViolationError(R_AMOUNT, f"a cost of {short_repr(a.amount)} stages")
    stages = state.fighter(a.player).stages
    if a.amount > stages:
        raise RuleViolationError(
            R_ENERGY, f"{a.player} has {stages} stages, the cost is {a.amount}"
        )
    return _set(state, a.player, stages=stages - a.amount)


def _discard_dragon_ball(state: DbzState, a: DiscardDragonBall) -> DbzState:
    """Rule text 003 l.65 (and l.213, Destroy discards a card in play): the Dragon Ball leaves
    play for the bottom of the Life Deck of ``a.player``, who controlled it; RuleViolationError
    (R_BALL_DISCARD) if they control no such ball or their Life Deck is full (a captured
    ball could overfill it; the text does not say whose deck it goes to then)."""
    me = state.fighter(a.player)
    if a.number not in me.dragon_balls:
        raise RuleViolationError(
            R_BALL_DISCARD, f"{a.player} has no Dragon Ball {short_repr(a.number)} in play"
        )
    if me.life >= state.data.life_deck:
        raise RuleViolationError(R_BALL_DISCARD, f"{a.player}'s Life Deck is full")
    balls = tuple(b for b in me.dragon_balls if b != a.number)
    return _set(state, a.player, dragon_balls=balls, life=me.life + 1)


def apply(state: DbzState, action: DbzAction) -> DbzState:
    """The state after ``action``; RuleViolationError if the rules forbid it now."""
    if state.step is Step.OVER:
        raise RuleViolationError(
            R_OVER, f"{state.winner} won ({state.victory and state.victory.value})"
        )
    if isinstance(action, UseCritical):
        return _critical(state, action)
    if state.rules_revision < 3 or isinstance(action, _CLOSES_CRITICAL):
        # up to revision 2 the choice is made at once: any other action passes it up
        a, b = (dataclasses.replace(f, critical_available=False) for f in state.fighters)
        state = dataclasses.replace(state, fighters=(a, b))
    step = state.step
    if isinstance(action, Draw):
        if action.cards < 1:
            raise RuleViolationError(R_AMOUNT, f"drawing {short_repr(action.cards)} cards")
        if step is Step.DRAW and action.player == state.turn:
            if action.cards != state.data.draw_step_cards:
                raise RuleViolationError(
                    R_DRAW, f"the Draw Step draws {state.data.draw_step_cards}"
                )
            out = _lose_life(state, action.player, action.cards)
            return out if out.step is Step.OVER else dataclasses.replace(out, step=Step.PLANNING)
        return _lose_life(state, action.player, action.cards)
    if isinstance(action, Anger):
        return _change_anger(state, action.player, action.delta)
    if isinstance(action, Level):
        if state.rules_revision < 3:  # revisions 1-2 had no such action: as a script then
            raise RuleViolationError(R_LEVEL, "recorded from rules revision 3 on")
        return _level(state, action)
    if isinstance(action, StageDamage | LifeDamage):
        if action.amount < 1:
            raise RuleViolationError(R_AMOUNT, f"damage of {short_repr(action.amount)}")
        if isinstance(action, StageDamage):
            return _damage(state, action.player, action.amount, 0)
        return _damage(state, action.player, 0, action.amount)
    if isinstance(action, PhysicalAttack):
        if min(action.attacker_power_level, action.defender_power_level) < 0:
            raise RuleViolationError(R_AMOUNT, "Power Levels are 0 or more")
        table = state.data.attack_table
        stages = table.physical_damage(action.attacker_power_level, action.defender_power_level)
        return _damage(state, action.player, stages, 0)
    if isinstance(action, GainStages):
        if action.amount < 1:
            raise RuleViolationError(R_AMOUNT, f"a gain of {short_repr(action.amount)} stages")
        stages = state.fighter(action.player).stages + action.amount
        return _set(state, action.player, stages=min(state.data.max_stages, stages))
    if isinstance(action, PayStages):
        return _pay_stages(state, action)
    if isinstance(action, DiscardDragonBall):
        return _discard_dragon_ball(state, action)
    if isinstance(action, EndTurn):
        if step is Step.DRAW:
            raise RuleViolationError(R_DRAW, f"{state.turn} has not drawn for the Draw Step")
        _pur_first(state, f"{state.turn}'s turn ends")
        return dataclasses.replace(
            state,
            turn=state.opponent(state.turn),
            step=Step.DRAW,
            turn_number=state.turn_number + 1,
            combat_declared=False,
            pur_gained=False,
        )
    if step is Step.DRAW:
        raise RuleViolationError(R_DRAW, f"{state.turn} draws first")
    if isinstance(action, Pur):
        _turn_player(state, action.player, R_PLANNING, f"{action.player} gains PUR")
        if step is not Step.PLANNING:
            raise RuleViolationError(R_PUR, "the Planning Step is over")
        if action.amount < 0:
            raise RuleViolationError(R_AMOUNT, f"a PUR of {short_repr(action.amount)}")
        f = state.fighter(action.player)
        out = _set(
            state, action.player, stages=min(state.data.max_stages, f.stages + action.amount)
        )
        return dataclasses.replace(out, step=Step.COMBAT_CHOICE, pur_gained=True)
    if isinstance(action, DragonBall):
        _turn_player(state, action.player, R_PLANNING, f"{action.player} plays a Dragon Ball")
        if step is not Step.PLANNING:
            raise RuleViolationError(R_PLANNING, "the Planning Step is over")
        if not 1 <= action.number <= state.data.dragon_balls:
            raise RuleViolationError(
                R_DRAGON_BALL, f"there is no Dragon Ball {short_repr(action.number)}"
            )
        if any(action.number in f.dragon_balls for f in state.fighters):
            raise RuleViolationError(
                R_DRAGON_BALL, f"Dragon Ball {action.number} is already on the table"
            )
        mine = tuple(sorted((*state.fighter(action.player).dragon_balls, action.number)))
        out = _set(state, action.player, dragon_balls=mine)
        if len(mine) >= state.data.dragon_balls:
            out = _win(out, action.player, Victory.DRAGON_BALLS)
        return out
    if isinstance(action, DeclareCombat):
        return _declare_combat(state, action)
    if isinstance(action, Rejuvenate):
        _turn_player(state, action.player, R_REJUVENATE, f"{action.player} rejuvenates")
        _pur_first(state, f"{action.player} rejuvenates")
        if state.combat_declared:
            raise RuleViolationError(R_REJUVENATE, "combat was declared this turn")
        if step is Step.REJUVENATION:
            raise RuleViolationError(R_REJUVENATE, "one card per turn")
        if state.fighter(action.player).life >= state.data.life_deck:
            raise RuleViolationError(
                R_REJUVENATE, "the discard pile is empty (the Life Deck is full)"
            )
        out = _set(state, action.player, life=state.fighter(action.player).life + 1)
        return dataclasses.replace(out, step=Step.REJUVENATION)
    raise TypeError(f"not a {KIND.value} action: {action!r}")


def _level_changes(state: DbzState, me: Personality) -> tuple[int, ...]:
    """The Level changes that keep ``me`` within 1..``levels`` (others are refused): the
    advances first, then the drops."""
    top = state.data.levels
    return (*range(1, top - me.level + 1), *range(-1, -me.level, -1))


def legal_actions(state: DbzState, player: str) -> tuple[Offer, ...]:
    """What the table may offer ``player`` now."""
    me = state.fighter(player)  # UnknownNameError for a stranger
    if state.step is Step.OVER:
        return ()
    out = []
    if me.critical_available:
        # a capture names one of the opponent's Dragon Balls in play: offered as they are,
        # whatever numbers the data's dragon_balls gives them (the buttons' own list stops at 7)
        foe = state.fighter(state.opponent(player)).dragon_balls
        # a capture takes one of the foe's Dragon Balls in play: none, no capture offered
        choices = tuple(c.value for c in Critical if foe or c is not Critical.CAPTURE)
        out.append(Offer("critical", (("player", (player,)), ("choice", choices), ("number", foe))))
        if state.rules_revision < 3:
            return tuple(out)
    mine = (("player", (player,)),)
    out += [
        Offer("draw", mine, ("cards",)),
        Offer("anger", mine, ("delta",)),
        *(
            [Offer("level", (*mine, ("delta", _level_changes(state, me))))]
            if state.rules_revision >= 3
            else []
        ),
        Offer("stage_damage", mine, ("amount",)),
        Offer("life_damage", mine, ("amount",)),
        Offer("physical_attack", mine, ("attacker_power_level", "defender_power_level")),
        Offer("gain_stages", mine, ("amount",)),
    ]
    if me.stages:  # a cost up to the stages held (l.177): more is refused
        out.append(Offer("pay_stages", (*mine, ("amount", tuple(range(1, me.stages + 1))))))
    if me.dragon_balls:
        out.append(Offer("discard_dragon_ball", (*mine, ("number", me.dragon_balls))))
    if player != state.turn:
        return tuple(out)
    if state.step is Step.DRAW:
        return (Offer("draw", (("player", (player,)), ("cards", (state.data.draw_step_cards,)))),)
    if state.step is Step.PLANNING:
        taken = {b for f in state.fighters for b in f.dragon_balls}
        free = tuple(n for n in range(1, state.data.dragon_balls + 1) if n not in taken)
        out.append(Offer("pur", mine, ("amount",)))
        if free:  # all seven on the table (none won): none can be played (003 l.114)
            out.append(Offer("dragon_ball", (*mine, ("number", free))))
        if _planning_must_end_with_pur(state):
            return tuple(out)
    if state.step in (Step.PLANNING, Step.COMBAT_CHOICE):
        out.append(Offer("declare_combat", mine))
        if me.life < state.data.life_deck:
            out.append(Offer("rejuvenate", mine))
    out.append(Offer("end_turn"))
    return tuple(out)


def to_json(state: DbzState) -> JsonDict:
    """The state as JSON (the replay's output without ``refused``)."""
    loser = (
        state.opponent(state.winner) if state.victory is Victory.SURVIVAL and state.winner else None
    )
    return {
        "mode": KIND.value,
        "step": state.step.value,
        "players": [
            {
                "name": f.name,
                "level": f.level,
                "stages": f.stages,
                "anger": f.anger,
                "life": f.life,
                "dragon_balls": list(f.dragon_balls),
                "critical_available": f.critical_available,
                "drill_discards": f.drill_discards,
            }
            for f in state.fighters
        ],
        "turn": None if state.step is Step.OVER else state.turn,
        "turn_number": state.turn_number,
        "combat_declared": state.combat_declared,
        "winner": state.winner,
        "victory": state.victory.value if state.victory else None,
        "eliminated": [loser] if loser else [],
    }
