"""Story mode in the engine (docs/rules.md §12): the squares as phases of the same fold.

A Story game is a :class:`~controller.game.state.GameState` whose ``story`` holds the
pure :class:`~controller.game.story.StoryState` (squares, bouts, victory points).
:func:`sync` shows it to the rest of the engine — and so to the table, the journal,
undo and resume — as the Tournament's phases: a square with several fights waits in
``Phase.STORY_FIGHT`` for the green player's :class:`ChooseFight`; each attack
attempt is ``Phase.ATTACK`` with a :class:`Combat` (green warrior the attacker, red
the defender, the thrower the striker, the square's combo its one card combo), fed
by the same :class:`DiceThrown` / :class:`ThrowCorrected` handlers as a Tournament
attack; :class:`ChooseAttack` records the attempt's damage, and after the red attempt
:func:`controller.game.story.settle` throws a tie again or scores the square.
The fighters of the bout on show stand as off-board pieces (``space=None``) so the
seats, the advisor and the screens find them as in a Tournament combat.
"""

from __future__ import annotations

from dataclasses import replace

from controller.core.errors import IllegalActionError
from controller.game.engine.attack import attack_options
from controller.game.events import ChooseAttack, ChooseFight
from controller.game.state import Combat, GameState, Phase, Piece
from controller.game.story import apply_story, new_story, set_bout, settle
from controller.rules.dice import clamp_pool


def start_story(s: GameState) -> None:
    """Open square 1 of a new Story game (``s.config.story``).

    Raises:
        IllegalActionError: the game data has no Story squares (no story.toml).
    """
    if s.data.story is None:
        raise IllegalActionError("Story mode needs the story squares (story.toml) in the data")
    s.story = new_story(s.data.story, s.data.roster, s.players)
    sync(s)


def sync(s: GameState) -> None:
    """Phase, seat, round, combat and pieces from the Story state."""
    st = s.story
    if st is None:
        raise IllegalActionError("not a Story game")
    s.round = st.square + 1
    b = st.current
    if st.over or b is None:
        s.phase, s.combat, s.winners = Phase.OVER, None, st.winners
        return
    if b.fight is None:
        s.phase, s.combat, s.seat = Phase.STORY_FIGHT, None, b.green_seat
        return
    green, red = st.fighters(b)
    red_turn = b.green_damage is not None
    striker, target = (red, green) if red_turn else (green, red)
    f = s.data.fighter(striker)
    s.pieces = {green: Piece(green, b.green_seat), red: Piece(red, b.red_seat)}
    s.seat = b.red_seat if red_turn else b.green_seat
    s.phase = Phase.ATTACK
    s.combat = Combat(
        attacker=green,
        defender=red,
        attacker_seat=b.green_seat,
        defender_seat=b.red_seat,
        green=False,
        adjacent=False,
        origin=None,  # a Story combat is fought on no board space
        arena=None,
        striker=striker,
        target=target,
        pool=clamp_pool(f.power),
        max_rerolls=f.technique,
        cards=(st.story.squares[st.square].combo,),
    )


def choose_fight(s: GameState, e: ChooseFight) -> None:
    """Handle :class:`ChooseFight`: the pair's fight on a square with several."""
    if s.story is None:
        raise IllegalActionError("not a Story game")
    s.story = apply_story(s.story, e)
    sync(s)


def choose_attack(s: GameState, e: ChooseAttack) -> None:
    """Handle :class:`ChooseAttack` in Story mode: the attempt's damage is recorded; after
    the red attempt the bout is settled (a tie is thrown again)."""
    st, c = s.story, s.combat
    if st is None or c is None or not c.throws:
        raise IllegalActionError("throw the dice before choosing what the throw is worth")
    options = attack_options(s)
    key = e.option.strip().casefold()
    match = next(((n, d) for n, d in options if n.casefold() == key), None)
    if match is None:
        names = ", ".join(n for n, _ in options)
        raise IllegalActionError(f"the last throw does not make {e.option!r}; it makes: {names}")
    b = st.current
    if b is None:
        raise IllegalActionError("nothing to play")
    index = st.bouts.index(b)
    if b.green_damage is None:
        s.story = set_bout(st, index, replace(b, green_damage=match[1]))
    else:
        s.story = settle(set_bout(st, index, replace(b, red_damage=match[1])))
        s.log_combats += 1
    sync(s)
