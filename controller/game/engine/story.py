"""Story mode in the engine (docs/rules.md §12): the squares as phases of the same fold.

A Story game is a :class:`~controller.game.state.GameState` whose ``story`` holds the
pure :class:`~controller.game.story.StoryState` (squares, bouts, victory points).
:func:`sync` shows it to the rest of the engine — and so to the table, the journal,
undo and resume — as the Tournament's phases: a square with several fights waits in
``Phase.STORY_FIGHT`` for the bout's two players to agree on a fight (:class:`ChooseFight`,
green proposing first); each attack attempt is ``Phase.ATTACK`` with a :class:`Combat`
(green warrior the attacker, red the defender, the thrower the striker, each in the form
the square names, the square's combo its one card combo), fed by the same
:class:`DiceThrown` / :class:`ThrowCorrected` handlers as a Tournament attack;
:class:`ChooseAttack` records the attempt's damage, and after the red attempt
:func:`controller.game.story.record_damage` decides the bout. The fighters of the bout
on show stand as off-board pieces (``space=None``) so the seats, the advisor and the
screens find them as in a Tournament combat.
"""

from __future__ import annotations

from controller.core.errors import IllegalActionError
from controller.core.quoting import short_repr
from controller.game.engine.attack import attack_options
from controller.game.events import ChooseAttack, ChooseFight
from controller.game.state import Combat, GameState, Phase, Piece
from controller.game.story import StorySide, StoryStakes, new_story, record_damage, story_actor
from controller.game.story import choose_fight as story_choose_fight
from controller.gamedata.story import Square
from controller.rules.dice import clamp_pool
from controller.rules.scoring import CardCombo
from controller.rules.warriors import Fighter


def start_story(s: GameState) -> None:
    """Open square 1 of a new Story game (``s.config.story``).

    Raises:
        IllegalActionError: the game data has no Story squares (no story.toml).
    """
    if s.data.story is None:
        raise IllegalActionError("Story mode needs the story squares (story.toml) in the data")
    s.story = new_story(s.data.story, s.players)
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
        seat = story_actor(st)
        s.phase, s.combat, s.seat = Phase.STORY_FIGHT, None, b.green_seat if seat is None else seat
        return
    (green, green_form), (red, red_form) = (_warrior_and_form(s, n) for n in st.fighters(b))
    red_turn = b.green_damage is not None
    striker, form = (red, red_form) if red_turn else (green, green_form)
    pool, rerolls = attempt_dice(s.data.fighter(striker, form))
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
        attacker_form=green_form,
        defender_form=red_form,
        striker=striker,
        target=green if red_turn else red,
        pool=pool,
        max_rerolls=rerolls,
        cards=square_cards(st.story.squares[st.square]),
    )


def square_cards(square: Square) -> tuple[CardCombo, ...]:
    """The cards both sides' attempts on ``square`` may cash in: the square's combo (B l.188;
    a warrior's own combos are its fighter's)."""
    return (square.combo,)


def attempt_dice(f: Fighter) -> tuple[int, int]:
    """A Story attempt's dice and rerolls: the fighter's power and technique, no support
    die, no ability (B l.188: "as many dice as their power permits and rerolls as many
    times as their technique allows")."""
    return clamp_pool(f.power), f.technique


def story_stakes(s: GameState) -> StoryStakes | None:
    """What the Story attempt under way plays for (None: no Story attempt): the striker's
    side, the other side's fighter, dice and cards (the square's combo) and, once it has
    made its attempt, its damage. The advisor's Story objective (controller.advisor.story)."""
    st, c = s.story, s.combat
    b = None if st is None else st.current
    if st is None or c is None or b is None or b.fight is None or s.phase is not Phase.ATTACK:
        return None
    red_turn = b.green_damage is not None
    other, form = (c.attacker, c.attacker_form) if red_turn else (c.defender, c.defender_form)
    f = s.data.fighter(other, form)
    pool, rerolls = attempt_dice(f)
    side = StorySide.RED if red_turn else StorySide.GREEN
    return StoryStakes(side, f, pool, rerolls, c.cards, b.green_damage)


def _warrior_and_form(s: GameState, name: str) -> tuple[str, str | None]:
    """The warrior a square names and its form (None: the base card)."""
    warrior, form = s.data.roster.find(name)
    return warrior.name, form.name if form is not None else None


def choose_fight(s: GameState, e: ChooseFight) -> None:
    """Handle :class:`ChooseFight`: a proposal, or the agreement that fixes the bout's fight."""
    if s.story is None:
        raise IllegalActionError("not a Story game")
    s.story = story_choose_fight(s.story, e.seat, e.fight)
    sync(s)


def choose_attack(s: GameState, e: ChooseAttack) -> None:
    """Handle :class:`ChooseAttack` in Story mode: the attempt's damage is recorded; after
    the red attempt the bout is decided."""
    st, c = s.story, s.combat
    if st is None or c is None or not c.throws:
        raise IllegalActionError("throw the dice before choosing what the throw is worth")
    options = attack_options(s)
    key = e.option.strip().casefold()
    match = next(((n, d) for n, d in options if n.strip().casefold() == key), None)
    if match is None:
        names = ", ".join(n for n, _ in options)
        raise IllegalActionError(
            f"the last throw does not make {short_repr(e.option)}; it makes: {names}"
        )
    if c.striker != c.attacker:
        s.log_combats += 1
    s.story = record_damage(st, match[1])
    sync(s)
