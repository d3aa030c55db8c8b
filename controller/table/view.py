"""From the game state (and what the table is asking) to the screens' :class:`TableView`.

The screens never see the engine; this module is the one place that reads a
:class:`~controller.game.state.GameState` for them. It is pure: the same state,
prompt, faults and clock give the same view.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from controller.core.symbols import Symbol
from controller.game import engine
from controller.game.state import GameState, Phase
from controller.rules.speed import Defence as RulesDefence
from controller.rules.speed import allowed_defences, attack_speed
from controller.rules.warriors import AbilityKind
from hardware.displays.model import (
    Advice,
    AttackOption,
    AttackSpeed,
    Clock,
    Combat,
    Defence,
    Fault,
    Fighter,
    Prompt,
    Seat,
    TableView,
)

_DEFENCES = {
    RulesDefence.DEFENCE_CARDS: Defence.DEFENCE_CARD,
    RulesDefence.ANY_CARDS: Defence.ANY_CARD,
    RulesDefence.DODGE: Defence.DODGE,
}


@dataclass(frozen=True)
class Overlay:
    """What the table adds to the game state: the question asked, faults, the clock, advice."""

    prompt: Prompt | None = None
    faults: tuple[Fault, ...] = ()
    seconds_left: int | None = None
    advice: Advice | None = None


def build_view(state: GameState, overlay: Overlay = Overlay()) -> TableView:
    """The view of ``state`` with the table's ``overlay``."""
    seats = tuple(
        Seat(
            name=name,
            warriors_left=state.count(i),
            warriors_total=max(len(state.teams[i]), state.count(i)),
            cards_in_hand=len(state.hands[i]),
        )
        for i, name in enumerate(state.players)
    )
    actor = engine.actor(state)
    seat = actor if actor is not None else state.seat
    rounds = state.config.rounds
    clock = Clock(max(1, state.round), rounds, overlay.seconds_left if rounds is None else None)
    return TableView(
        turn=max(1, state.round),
        seat=seat,
        player=state.players[seat],
        clock=clock,
        phase=phase_label(state),
        seats=seats,
        combat=combat_view(state, overlay.advice),
        prompt=overlay.prompt,
        faults=overlay.faults,
    )


_PHASE_LABELS: dict[Phase, str] = {
    Phase.FIRST_PLAYER: "first player",
    Phase.DRAFT: "draft",
    Phase.SHUFFLE: "shuffle",
    Phase.PLACE: "place tokens",
    Phase.DISCARD: "discard",
    Phase.START_CARD: "play a card?",
    Phase.MOVE: "move",
    Phase.FUSION_OFFER: "fusion?",
    Phase.FUSION_ROLL: "fusion roll",
    Phase.TRANSFORM: "transform",
    Phase.RETRY_OFFER: "retry?",
    Phase.ATTACK: "attack",
    Phase.DEFENCE_CHOICE: "defend",
    Phase.DEFENCE_ROLL: "defence roll",
    Phase.FLEE: "flee",
    Phase.COUNTER_OFFER: "counter?",
    Phase.REWARD: "reward",
    Phase.STEP_ASIDE: "step aside",
    Phase.EXTRA_OFFER: "extra combat?",
    Phase.DUEL_PICK: "duel",
    Phase.OVER: "game over",
}


def phase_label(state: GameState) -> str:
    """A short, screen-sized name for where the game waits (the winner once it is over)."""
    if state.phase is Phase.OVER and state.winners:
        names = " & ".join(state.players[w] for w in state.winners)
        return f"{names} win{'s' if len(state.winners) == 1 else ''}"
    return _PHASE_LABELS.get(state.phase, str(state.phase))


def combat_view(state: GameState, advice: Advice | None = None) -> Combat | None:
    """The fight on show, or None outside a combat."""
    c = state.combat
    if c is None:
        return None
    striker = c.striker or c.attacker
    target = c.target or c.defender
    s_form = c.a_form if striker == c.attacker else c.d_form
    t_form = c.d_form if target == c.defender else c.a_form
    defending = state.phase is Phase.DEFENCE_ROLL
    throws = c.d_throws if defending else c.throws
    dice = tuple(Symbol(s) for s in throws[-1]) if throws else ()
    options: tuple[AttackOption, ...] = ()
    speed: AttackSpeed | None = None
    defences: tuple[Defence, ...] = ()
    if c.throws and not defending:
        scored = engine.attack_options(state)
        best = max((d for _, d in scored), default=None)
        marked = False
        opts = []
        for name, damage in scored:
            is_best = not marked and damage == best
            marked = marked or is_best
            opts.append(AttackOption("symbol sum" if name == "sum" else name, damage, is_best))
        options = tuple(opts)
        rules_speed = attack_speed(len(c.throws) - 1)
        speed = AttackSpeed(rules_speed.value)
        denies = state.data.fighter(striker, s_form).has(AbilityKind.NO_DEFENCE_DICE)
        defences = tuple(
            _DEFENCES[d]
            for d in allowed_defences(
                rules_speed, state.config.variants, attacker_denies_dice=denies
            )
            if d in _DEFENCES
        )
    rolls_max = (c.d_max_rerolls if defending else c.max_rerolls) + 1
    return Combat(
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


def _fighter(state: GameState, name: str, form: str) -> Fighter:
    warrior = state.data.warrior(name)
    piece = state.pieces.get(name)
    damage = piece.damage if piece is not None else 0
    return Fighter(
        name=name,
        endurance_left=max(0, warrior.endurance - damage),
        endurance_max=warrior.endurance,
        form=form,
    )


def faults_from(sources: dict[str, str]) -> tuple[Fault, ...]:
    """Faults in a stable order from a source -> message mapping."""
    return tuple(Fault(source, message) for source, message in sorted(sources.items()))


def choices_text(labels: Sequence[str], limit: int = 24) -> tuple[str, ...]:
    """Choice labels cut to what a 128-px line shows."""
    return tuple(label if len(label) <= limit else label[: limit - 1] + "…" for label in labels)
