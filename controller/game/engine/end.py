"""The end of a combat (docs/rules.md §8, §10): transformation costs, eliminations and the
cards they earn, the green warrior's return, fusions for one attack undone, where the
attacker stands (step aside, and the second combat the step may be), the green-space
reward."""

from __future__ import annotations

from controller.core.errors import IllegalActionError
from controller.core.quoting import short_repr
from controller.game.engine.combat import begin_combat, begin_green_combat
from controller.game.engine.common import (
    board_space,
    check_card,
    check_names,
    count_play,
    draw,
    playable,
    standing_on,
    use_card,
)
from controller.game.engine.duel import duel_after
from controller.game.engine.extra import (
    after_combat_step,
    foes_fought,
    green_foe_is_new,
    not_again,
    second_by_step,
    second_combat_allowed,
    second_combat_cards,
)
from controller.game.engine.fusion import eliminate, split
from controller.game.events import ChooseReward, Pass, PlayCard, StepAside
from controller.game.space_decks import deck_of_colour
from controller.game.state import Combat, GameState, Phase
from controller.gamedata.board import Colour
from controller.gamedata.cards import DRAW_DECKS, Card, Timing
from controller.rules.combat import after_combat
from controller.rules.endurance import is_eliminated


def finish_combat(s: GameState) -> None:
    """Settle the combat in progress once its attacks are over: the forms' costs, then a
    rescue card offered to each player whose warrior is eliminated (A l.335, l.346), then
    the eliminations and where everyone stands."""
    c = s.combat
    if c is None:
        return
    if not c.settled:
        v = s.config.variants
        down: list[str] = []
        by_cost: list[str] = []
        for name, form in ((c.attacker, c.attacker_form), (c.defender, c.defender_form)):
            p = s.pieces[name]
            warrior = s.data.warrior(name)
            side = after_combat(warrior, s.data.fighter(name, form), p.damage, v)
            s.pieces[name] = p._replace(damage=side.damage_taken)
            if side.eliminated:
                down.append(name)
                if not is_eliminated(side.damage_taken - side.cost_paid, warrior.endurance, v):
                    by_cost.append(name)
        falling = tuple(n for n in down if _rescue_cards(s, n))
        c = c._replace(settled=True, down=tuple(down), by_cost=tuple(by_cost), falling=falling)
        s.combat = c
    if c.falling:
        s.phase = Phase.RESCUE_OFFER
        return
    _eliminations(s, c)


def _rescue_cards(s: GameState, name: str) -> list[Card]:
    """The rescue cards the player of ``name`` (a player's warrior) may play for it now."""
    seat = s.pieces[name].seat
    return playable(s, seat, Timing.ELIMINATED) if seat is not None else []


def rescue_card(s: GameState, e: PlayCard) -> None:
    """Handle a rescue :class:`PlayCard`: the warrior eliminated stays on its space with no
    damage (A l.259: only the Rescue card saves an eliminated warrior)."""
    c = s.combat
    if c is None or not c.falling:
        raise IllegalActionError("no warrior is eliminated")
    name = c.falling[0]
    card = check_card(s, e.seat, e.card, Timing.ELIMINATED)
    if e.warrior is not None and e.warrior != name:
        raise IllegalActionError(
            f"{card.name} rescues {name}, the warrior falling, not {short_repr(e.warrior)}"
        )
    check_names(card.name, e, warrior=True)
    count_play(s, e.seat, card)
    use_card(s, e.seat, card.name)
    s.pieces[name] = s.pieces[name]._replace(damage=0)
    down = tuple(n for n in c.down if n != name)
    by_cost = tuple(n for n in c.by_cost if n != name)
    s.combat = c._replace(down=down, by_cost=by_cost, falling=c.falling[1:])
    finish_combat(s)


def decline_rescue(s: GameState, e: Pass) -> None:
    """Handle :class:`Pass` at a rescue offer: the warrior is eliminated."""
    c = s.combat
    if c is None or not c.falling:
        raise IllegalActionError("no warrior is eliminated")
    s.combat = c._replace(falling=c.falling[1:])
    finish_combat(s)


def _eliminations(s: GameState, c: Combat) -> None:
    down = list(c.down)
    attacker_seat, defender_seat = s.pieces[c.attacker].seat, s.pieces[c.defender].seat
    arena = board_space(c.arena)
    a_space = board_space(c.origin) if c.adjacent else arena
    d_space = s.pieces[c.defender].space if not c.green else arena
    reward = False
    for name in down:
        space = a_space if name == c.attacker else d_space
        eliminate(s, name, space)
        winner_seat = defender_seat if name == c.attacker else attacker_seat
        by_cost = name in c.by_cost and s.config.rules_revision >= 2
        if name == c.defender and c.green and not (by_cost and s.config.rules_revision >= 5):
            reward = True  # eliminating the green warrior earns cards
        elif by_cost:
            pass  # its own form's cost eliminated it: its foe earns no card (A l.259), nor
            # (revision 5) the green warrior's 2 (A l.239: no victory of the attacker's)
        elif winner_seat is not None and space is not None:
            deck = deck_of_colour(s.data.colours[space])
            if deck:
                draw(s, winner_seat, deck, 1)
    if c.green and c.defender not in down:  # back to the bottom of the warrior deck, healed
        del s.pieces[c.defender]
        s.green_deck = (*s.green_deck, c.defender)
    attacker_alive = c.attacker not in down
    if c.split_after:  # fusion for one attack: the partners come back
        split(s, c.attacker, c.split_after, attacker_alive, c.adjacent or c.green, arena)
        c = c._replace(attacker=c.split_after[0].name)
        s.combat = c
    if c.defender_split_after:
        split(s, c.defender, c.defender_split_after, c.defender not in down, True, arena)
        down = [c.defender_split_after[0].name if n == c.defender else n for n in down]
        c = c._replace(defender=c.defender_split_after[0].name)
        s.combat = c
    if c.duel:
        duel_after(s, down)
        return
    defender_alive = c.defender not in down
    offer = True  # the extra-combat offer may follow (a foe next to where the attacker is)
    if attacker_alive and not c.adjacent:
        left = None if defender_alive else _foe_left_on(s, arena)
        if left is not None:
            s.occ[arena] = left  # it shared the space with the foe eliminated (revision 5)
        if s.pieces[c.attacker].space != arena:
            pass  # it fled with Solar Flare from the counter-attack: it stands where it fled
        elif (c.green or not defender_alive) and left is None:
            # it stays where it fought: after an elimination the books say nothing of a step
            # (A l.259, B l.343); a second combat is against a foe next to it (.extra)
            s.occ[arena] = c.attacker
        elif defender_alive and s.pieces[c.defender].space != arena:
            _settle(s, arena)  # the defender fled: the attacker holds the space (engine decision)
        # the foe survived on its space, or another foe still stands there: step aside (A l.261)
        elif step_spaces(s) or (second_steps(s) and second_combat_cards(s)):
            s.phase = Phase.STEP_ASIDE
            return
        else:  # no adjacent empty non-green space: back where it came from (engine decision)
            _settle(s, board_space(c.origin))
            offer = not second_by_step(s)
    if reward:
        s.phase = Phase.REWARD
        return
    after_combat_step(s, offer=offer)


def _foe_left_on(s: GameState, space: int | None) -> str | None:
    """A foe of the attacker still standing on ``space`` after the combat there (its
    teammate, who shared the space, was the one eliminated), from rules revision 5; before
    it the attacker stayed on the space beside that foe. None: no such foe."""
    c = s.combat
    if c is None or space is None or s.config.rules_revision < 5:
        return None
    for p in standing_on(s, space):
        if p.seat != c.attacker_seat and p.name != c.attacker:
            return p.name
    return None


def step_spaces(state: GameState) -> list[int]:
    """Where the attacker may step after a combat its foe survived: "an empty space beside
    him/her" (A l.261, B l.347), not green and not "another Warrior token" — unless a second
    combat is granted (the event card, or a card played now, A l.261 "2 combats per turn
    only if you have a card that allows this", l.39): then a green space too, whose warrior
    is that second combat, or (revision 3 on) the space of another foe beside the first,
    whom the attacker then fights on its space (:func:`second_steps`)."""
    spaces = plain_steps(state)
    if state.extra_granted:
        spaces += second_steps(state)
    return sorted(spaces)


def plain_steps(state: GameState) -> list[int]:
    """The empty spaces next to the combat that are not green: a step there fights nothing
    (its card is drawn at the end of the turn)."""
    c = state.combat
    if c is None or c.arena is None:  # no combat, or a Story one (no board)
        return []
    return sorted(
        sid
        for sid in state.data.near[c.arena]
        if sid not in state.occ and state.data.colours[sid] is not Colour.GREEN
    )


def second_steps(state: GameState) -> list[int]:
    """The steps next to the combat that would be the turn's second combat, if one may still
    be fought (:func:`green_steps`, and from revision 3 :func:`foe_steps`)."""
    return sorted(green_steps(state) + foe_steps(state))


def green_steps(state: GameState) -> list[int]:
    """The empty green spaces next to the combat a second combat could take the attacker to
    (a second combat allowed this turn, a warrior left in the green deck)."""
    c = state.combat
    if c is None or c.arena is None or not second_combat_allowed(state):
        return []
    if not green_foe_is_new(state, foes_fought(c)):
        return []
    return sorted(
        sid
        for sid in state.data.near[c.arena]
        if sid not in state.occ and state.data.colours[sid] is Colour.GREEN
    )


def foe_steps(state: GameState) -> list[int]:
    """The spaces next to the combat where another foe's warrior stands, a second combat
    could take the attacker to (A l.261: "another Warrior token"; revision 3 on). The foe
    just fought stands on the combat's own space, never beside it, so it is never offered
    again; nor (revision 4 on) is the partner of a fused foe that split back beside it, the
    fused warrior being both characters (A l.209, :func:`.extra.foes_fought`); a teammate's
    space is no foe's (neither is offered a step)."""
    c = state.combat
    if c is None or c.arena is None or not second_by_step(state):
        return []
    if not second_combat_allowed(state):
        return []
    fought = foes_fought(c) if not_again(state) else ()
    return sorted(
        sid
        for sid in state.data.near[c.arena]
        if sid in state.occ
        and state.pieces[state.occ[sid]].seat not in (None, c.attacker_seat)
        and state.occ[sid] not in fought
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


def step_aside(s: GameState, e: StepAside) -> None:
    """Handle the attacker's :class:`StepAside` after a combat its foe survived: onto an empty
    space (no second combat: the turn ends), or with a second combat granted onto a green
    space or another foe's space beside the first foe, where its second combat begins (A
    l.261; the attacker moves onto the foe's space as in any combat)."""
    c = s.combat
    if c is None or e.space not in step_spaces(s):
        raise IllegalActionError(_why_not_step(s, e.space))
    foe = s.occ.get(e.space)
    if foe is not None:  # another foe beside the first: the second combat, on its space
        s.pieces[c.attacker] = s.pieces[c.attacker]._replace(space=e.space)
        # if it must step back after it, it goes where its move began: the space it came
        # from is the first foe's (engine decision, like the one of _eliminations)
        begin_combat(
            s, c.attacker, foe, board_space(c.origin), e.space, green=False, adjacent=False
        )
        return
    _settle(s, e.space)
    if s.data.colours[e.space] is Colour.GREEN:
        begin_green_combat(s, c.attacker, board_space(c.arena), e.space)
        return
    after_combat_step(s, offer=not second_by_step(s))


def _why_not_step(s: GameState, space: int) -> str:
    c = s.combat
    if c is not None and space == c.arena:
        if s.occ.get(space, c.defender) == c.defender:
            return (
                f"{c.defender} survived this combat: the attacker steps beside it, and a "
                "second combat is against another warrior (A l.261)"
            )
        return (
            f"{s.occ[space]} stood there with {c.defender} and still stands: the attacker "
            "steps beside it, and a second combat is against another warrior (A l.261)"
        )
    if c is not None and space in s.occ and s.pieces[s.occ[space]].seat == c.attacker_seat:
        return f"space {space} holds a teammate: it is neither an empty space nor a foe's"
    foe = "; another foe's space beside it too, A l.261" if second_by_step(s) else ""
    return (
        f"space {space} is not an empty space next to the combat (a green one only with a "
        f"second combat granted{foe})"
    )


def may_step_back(state: GameState) -> bool:
    """Whether the attacker is offered to decline (``Pass``) a step aside that only a second
    combat leaves open (:func:`step_back`): rules revision 3 on. A revision-2 game is not
    offered it, but :func:`step_back` still takes it: the code of commits 9c5edcb..c75437b
    offered it in every game, so a revision-2 journal may hold it, and replays as played."""
    return state.config.rules_revision >= 3 and not plain_steps(state)


def step_back(s: GameState, e: Pass) -> None:
    """Handle :class:`Pass` at the step aside: the attacker declines the second combat that
    is the only way on (every empty space beside the foe is green, or the other spaces hold
    foes) and goes back where it came from, as when no second combat may be fought (engine
    decision). A second combat is a permission, never an obligation (A l.39 "unless you have
    a card that lets you fight a second combat", l.249, l.261, l.265). Offered from rules
    revision 3 (:func:`may_step_back`), taken in any game: a revision-2 journal may hold it."""
    c = s.combat
    if c is None:
        raise IllegalActionError("no combat")
    if plain_steps(s):
        raise IllegalActionError(
            "step to an empty space next to the combat (A l.261): "
            + ", ".join(str(sp) for sp in plain_steps(s))
        )
    _settle(s, board_space(c.origin))
    after_combat_step(s, offer=not second_by_step(s))


def grant_card(s: GameState, e: PlayCard) -> None:
    """Handle a second-combat :class:`PlayCard` before stepping aside: the step may then go
    onto a green space (A l.39), or another foe's space beside the first foe (A l.261)."""
    card = check_card(s, e.seat, e.card, Timing.AFTER_COMBAT)
    if second_by_step(s) and (e.warrior or e.target):
        raise IllegalActionError(
            f"{card.name} names no warrior here: the step onto a green space or a foe's "
            "space beside the one just fought is the second combat (A l.261)"
        )
    check_names(card.name, e)
    if card not in second_combat_cards(s) or not second_steps(s) or s.extra_granted:
        what = "green space or foe's space" if second_by_step(s) else "green space"
        raise IllegalActionError(f"{card.name} opens no {what} now")
    count_play(s, e.seat, card)
    use_card(s, e.seat, card.name)
    s.extra_granted = True


def reward(s: GameState, e: ChooseReward) -> None:
    """Handle :class:`ChooseReward`: the cards earned by eliminating the green warrior."""
    if e.deck not in DRAW_DECKS:
        raise IllegalActionError(f"choose attack, defence or special, not {e.deck.value!r}")
    draw(s, e.seat, e.deck, 1 if s.config.variants.green_reward_one else 2)
    after_combat_step(s)
