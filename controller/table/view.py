"""From the game state (and what the table is asking) to the screens' :class:`TableView`.

The screens never see the engine; this module is the one place that reads a
:class:`~controller.game.state.GameState` for them. It is pure: the same state,
prompt, faults and clock give the same view. :func:`prompt_for` words the
question the table asks (a read to check, a choice to make) from what
:class:`~controller.table.entry.TableEntry` has under way.
"""

from __future__ import annotations

from dataclasses import dataclass

from controller.core.game_limits import extra_round
from controller.core.symbols import AttackSpeed, Defence, Symbol, speed_after_rerolls
from controller.game import engine
from controller.game.prompt import phase_label
from controller.game.state import GameState, Phase
from controller.rules.speed import allowed_defences
from controller.rules.warriors import AbilityKind
from controller.table.chooser import ChooserKind, option_label
from controller.table.entry import TableEntry
from hardware.displays.model import (
    AdviceView,
    AttackOption,
    Clock,
    CombatView,
    Fault,
    FighterView,
    Prompt,
    PromptKind,
    SeatView,
    TableView,
)


@dataclass(frozen=True)
class Overlay:
    """What the table adds to the game state: the question asked, faults, the clock, advice."""

    prompt: Prompt | None = None
    faults: tuple[Fault, ...] = ()
    seconds_left: int | None = None
    advice: AdviceView | None = None
    cursor: tuple[str | None] | None = None
    """The attack option under the buttons' cursor, which the combat screens mark
    (``(None,)``: the cursor is on another action); None: no cursor, the best is marked."""


def build_view(state: GameState, overlay: Overlay = Overlay()) -> TableView:
    """The view of ``state`` with the table's ``overlay``."""
    seats = tuple(
        SeatView(
            name=name,
            warriors_left=state.count(i),
            warriors_total=max(len(state.teams[i]), state.count(i)),
            cards_in_hand=len(state.hands[i]),
            victory_points=state.story.points[i] if state.story is not None else None,
        )
        for i, name in enumerate(state.players)
    )
    actor = engine.actor(state)
    seat = actor if actor is not None else state.seat
    rounds = state.rounds  # Story: its squares
    clock = Clock(
        max(1, state.round),
        rounds,
        overlay.seconds_left if rounds is None else None,
        extra_round(state.extra_rounds),  # the engine's count: a 45-minute game has no last round
    )
    return TableView(
        turn=max(1, state.round),
        seat=seat,
        player=state.players[seat],
        clock=clock,
        phase=phase_label(state),
        over=state.phase is Phase.OVER,
        seats=seats,
        combat=combat_view(state, overlay.advice, overlay.cursor),
        prompt=overlay.prompt,
        faults=overlay.faults,
    )


def prompt_for(state: GameState, entry: TableEntry) -> Prompt | None:
    """The question on the screens: a read to check or correct, or the choice the buttons
    make (None while the camera or the board gives the game what it waits for)."""
    check = entry.read_check
    if check is not None:
        shown = tuple(d if d is not None else Symbol.STAR for d in check.dice)
        if check.fixing is not None:
            return Prompt(
                PromptKind.CONFIRM_READ, f"die {check.fixing + 1}: next changes it",
                ("NEXT", "OK"), 1, shown, check.fixing,
            )  # fmt: skip
        cocked = [i for i, d in enumerate(check.dice) if d is None]
        if check.seen is not None:  # the dice not seen are not cocked: drawn as none at all
            wanted = len(check.dice)
            return Prompt(
                PromptKind.RETHROW, f"{check.seen} dice seen, not {wanted}: throw again or OK",
                ("OK",), 0, tuple(d for d in check.dice if d is not None),
                title=f"{check.seen} of {wanted} seen",
            )  # fmt: skip
        if cocked:
            return Prompt(
                PromptKind.RETHROW, f"die {cocked[0] + 1} is cocked: throw it again, or OK to enter it",
                ("OK",), 0, shown, cocked[0],
            )  # fmt: skip
        if check.doubted:
            names = ", ".join(str(i + 1) for i in check.doubted)
            text = f"is die {names} read right?" if len(check.doubted) == 1 else (
                f"are dice {names} read right?")  # fmt: skip
            return Prompt(
                PromptKind.CONFIRM_READ, text, ("UNDO", "OK"), 1, shown, check.doubted[0],
                marked=check.doubted[1:], title=f"check {'die' if len(check.doubted) == 1 else 'dice'} {names}",
            )  # fmt: skip
        return Prompt(PromptKind.CONFIRM_READ, "is this read right?", ("UNDO", "OK"), 1, shown)
    chooser = entry.chooser
    if chooser is None or entry.hidden(state):
        return None  # the camera or the board gives it; the chooser stays as a fallback
    label = chooser.labels[chooser.selected] if chooser.labels else ""
    plain = chooser.kind is ChooserKind.ACTIONS and not chooser.count
    moving = state.phase in (Phase.MOVE, Phase.STEP_ASIDE)
    if moving and entry.board_ok and plain and entry.board_note is not None:
        return Prompt(
            PromptKind.CHOOSE_MOVE, f"{entry.board_note}. Move: {label}", ("NEXT", "OK"), 1,
            step=chooser.selected + 1, steps=len(chooser.labels),
        )  # fmt: skip
    return Prompt(
        PromptKind.CHOOSE, label, ("NEXT", "OK"), 1,
        step=chooser.selected + 1, steps=len(chooser.labels), title=chooser.title,
    )  # fmt: skip


def combat_view(
    state: GameState, advice: AdviceView | None = None, cursor: tuple[str | None] | None = None
) -> CombatView | None:
    """The fight on show, or None outside a combat; the option marked is the one under
    the ``cursor`` (:attr:`Overlay.cursor`), else the best."""
    c = state.combat
    if c is None:
        return None
    striker, target = c.striker, c.target
    s_form = c.attacker_form if striker == c.attacker else c.defender_form
    t_form = c.defender_form if target == c.defender else c.attacker_form
    defending = state.phase is Phase.DEFENCE_ROLL
    throws = c.defence_throws if defending else c.throws
    dice = tuple(Symbol(s) for s in throws[-1]) if throws else ()
    options: tuple[AttackOption, ...] = ()
    speed: AttackSpeed | None = None
    defences: tuple[Defence, ...] = ()
    if c.throws and not defending:
        under = cursor[0] if cursor is not None else None  # None: the cursor is on no option
        marked = under if under is not None else engine.best_attack_option(state)
        opts = []
        for name, damage in engine.attack_options(state):
            opts.append(AttackOption(option_label(name), damage, name == marked))
        options = tuple(opts)
        rules_speed = speed_after_rerolls(len(c.throws) - 1)
        speed = rules_speed
        denies = state.data.fighter(striker, s_form).has(AbilityKind.NO_DEFENCE_DICE)
        defences = (
            ()
            if state.story is not None
            else tuple(  # a Story attempt has no defence
                d
                for d in allowed_defences(
                    rules_speed, state.config.variants, attacker_denies_dice=denies
                )
                if d is not Defence.NONE
            )
        )
    rolls_max = (c.defence_max_rerolls if defending else c.max_rerolls) + 1
    return CombatView(
        attacker=_fighter(state, striker, s_form),
        defender=_fighter(state, target, t_form),
        dice=dice,
        roll_no=max(1, len(throws)),
        rolls_max=rolls_max,
        options=options,
        speed=speed,
        defences=defences,
        advice=advice if not defending else None,
    )


def _fighter(state: GameState, name: str, form: str | None) -> FighterView:
    warrior = state.data.warrior(name)
    piece = state.pieces.get(name)
    damage = piece.damage if piece is not None else 0
    return FighterView(
        name=name,
        endurance_left=max(0, warrior.endurance - damage),
        endurance_max=warrior.endurance,
        form=form,
    )


def faults_from(sources: dict[str, str]) -> tuple[Fault, ...]:
    """Faults in a stable order from a source -> message mapping."""
    return tuple(Fault(source, message) for source, message in sorted(sources.items()))
