"""How the game's phases read: one table (:data:`PHASE_TEXT`), the short
:func:`phase_label` of the screens and the one-line :func:`prompt` of the screens and logs."""

from __future__ import annotations

from dataclasses import dataclass

from controller.core.game_limits import MAX_EXTRA_ROUNDS, extra_round
from controller.game import engine
from controller.game.state import Answer, GameState, Phase
from controller.game.story import StorySide


@dataclass(frozen=True)
class PhaseText:
    """How the game's phases read: ``label`` is short and screen-sized; ``ask`` says what
    the player does (``{steps}``, ``{answers}``, ``{fusion}`` filled in; None where
    :func:`prompt` says it from the state)."""

    label: str
    ask: str | None = None


PHASE_TEXT: dict[Phase, PhaseText] = {
    Phase.FIRST_PLAYER: PhaseText("first player"),
    Phase.DRAFT: PhaseText("draft", "draft a warrior"),
    Phase.SHUFFLE: PhaseText("shuffle"),
    Phase.PLACE: PhaseText("place tokens", "place a token (not next to a teammate)"),
    Phase.STARTER: PhaseText("youngest?", "who is the youngest player? they start"),
    Phase.DISCARD: PhaseText("discard", "discard down to 5 cards"),
    Phase.START_CARD: PhaseText("play a card?", "play a card or pass"),
    Phase.MOVE: PhaseText("move", "move a warrior up to {steps} spaces"),
    Phase.FUSION_OFFER: PhaseText("fusion?", "{fusion} or pass"),
    Phase.FUSION_ROLL: PhaseText("fusion roll"),
    Phase.TRANSFORM: PhaseText("transform", "roll to transform, or pass: the base form"),
    Phase.RETRY_OFFER: PhaseText("retry?", "play a transformation card or pass"),
    Phase.RESCUE_OFFER: PhaseText("rescue?", "play a rescue card or pass"),
    Phase.ATTACK: PhaseText("attack"),
    Phase.DEFENCE_CHOICE: PhaseText("defend", "answer the attack: {answers}"),
    Phase.REFLECT_CHOICE: PhaseText("reflected!", "answer your reflected sphere: {answers}"),
    Phase.DEFENCE_ROLL: PhaseText("defence roll"),
    Phase.FLEE: PhaseText("flee", "flee 3 spaces"),
    Phase.COUNTER_OFFER: PhaseText("counter?", "counter-attack or pass"),
    Phase.REWARD: PhaseText("reward", "choose the deck of your reward"),
    Phase.STEP_ASIDE: PhaseText(
        "step aside", "step beside the foe (a green space or another foe: a second combat)"
    ),
    Phase.EXTRA_OFFER: PhaseText("extra combat?", "a second combat, or pass"),
    Phase.DUEL_PICK: PhaseText("duel", "pick your warrior for the duel"),
    Phase.STORY_FIGHT: PhaseText("choose fight", "choose the fight of this square together"),
    Phase.OVER: PhaseText("game over"),
}


def phase_label(state: GameState) -> str:
    """A short, screen-sized name for where the game waits (the winner once it is over)."""
    if state.phase is Phase.OVER and state.winners:
        names = " & ".join(state.players[w] for w in state.winners)
        return f"{names} win{'s' if len(state.winners) == 1 else ''}"
    if state.story is not None:
        return story_label(state)
    return PHASE_TEXT[state.phase].label


def story_label(state: GameState) -> str:
    """Story mode's label: the square and the victory points of each side, e.g.
    ``"sq 3 G4 R2"`` (green 4, red 2)."""
    st = state.story
    if st is None:
        return PHASE_TEXT[state.phase].label
    vp = st.side_points()
    return f"sq {st.story.squares[st.square].number} G{vp[StorySide.GREEN]} R{vp[StorySide.RED]}"


def prompt(state: GameState) -> str:
    """What the game waits for now, e.g. ``"Ann: throw 5 dice (Jiren attacking Hit)"``."""
    ph = state.phase
    c = state.combat
    if ph is Phase.OVER:
        names = ", ".join(state.players[w] for w in state.winners)
        return f"game over: {names} {'wins' if len(state.winners) == 1 else 'share the win'}"
    if ph is Phase.FIRST_PLAYER:
        return "roll a die to choose who drafts first"
    if ph is Phase.SHUFFLE:
        return "shuffle: " + ", ".join(engine.awaiting(state).decks)
    if ph in (Phase.TRANSFORM, Phase.FUSION_ROLL) and c is not None:
        what = f"transformation of {c.to_transform[0]}" if ph is Phase.TRANSFORM else "fusion"
        n = engine.awaiting(state).die_count
        keep = ", or pass: the base form" if ph is Phase.TRANSFORM else ""
        return f"roll {n} {'die' if n == 1 else 'dice'} for the {what}{keep}"
    seat = engine.actor(state)
    who = state.players[seat] if seat is not None else "?"
    st = state.story
    if ph is Phase.STORY_FIGHT and st is not None:
        sq = st.story.squares[st.square]
        b = st.current
        if b is not None and b.proposal is not None:
            g, r = sq.fights[b.proposal.fight]
            asked = st.players[b.proposal.seat]
            return f"{who}: agree to {g} v {r} ({asked} proposes) or propose another fight"
        fights = ", ".join(f"{g} v {r}" for g, r in sq.fights)
        return f"{who}: propose the fight of square {sq.number} ({fights})"
    if ph is Phase.ATTACK and c is not None:
        fight = f"{c.striker} attacking {c.target}"
        if not c.throws:
            return f"{who}: throw {c.pool} dice ({fight})"
        left = c.max_rerolls - (len(c.throws) - 1)
        if left > 0:
            return f"{who}: reroll ({left} left) or choose the attack ({fight})"
        return f"{who}: choose the attack ({fight})"
    if ph is Phase.DEFENCE_ROLL and c is not None:
        if c.answer is Answer.REFLECT:
            what = "to dodge the reflected sphere"
        elif c.answer is Answer.REFLECT_CARD:
            what = f"for {c.answer_card} against the reflected sphere"
        else:
            what = f"for {c.answer_card if c.answer is Answer.CARD else c.answer}"
        return f"{who}: throw {c.defence_pool} dice {what}"
    text = PHASE_TEXT[ph].ask or str(ph)
    text = text.format(
        steps=engine.MOVE_STEPS + state.move_bonus,
        answers=", ".join(engine.answer_text(a) for a in engine.defence_answers(state)),
        fusion=_fusion_offer(state) if ph is Phase.FUSION_OFFER else "",
    )
    return f"{who}: {text}"


def _fusion_offer(state: GameState) -> str:
    """The fusion offered: by the die, or by the Fusion card its player holds (A l.209)."""
    c = state.combat
    name = c.fusers[0] if c is not None and c.fusers else None
    if name is None or engine.fusion_candidate(state, name) is not None:
        return "try a fusion (die of 4+)"
    return f"play your Fusion card ({name} into {engine.combat_fusion(state, name)})"


def status_line(state: GameState) -> str:
    """The STATUS= text systemd shows: round (a Story game's square, a tie's extra
    round), whose turn, what the game waits for."""
    turn = max(1, state.round)
    extra = extra_round(state.extra_rounds)  # the engine's count, a 45-minute game's too
    if extra is not None:
        tie = f"after round {state.rounds}" if state.rounds else "when time ran out"
        where = f"extra round {extra} of {MAX_EXTRA_ROUNDS} (a tie {tie})"
    else:
        where = f"round {turn}/{state.rounds}" if state.rounds else f"round {turn}"
    return f"{where}, {state.players[state.seat]}: {phase_label(state)}"
