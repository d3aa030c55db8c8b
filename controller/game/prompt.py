"""One line saying what the game waits for, for the table's screens and logs."""

from __future__ import annotations

from controller.game import engine
from controller.game.state import GameState, Phase

_TEXT: dict[Phase, str] = {
    Phase.DRAFT: "draft a warrior",
    Phase.PLACE: "place a token (not next to a teammate)",
    Phase.DISCARD: "discard down to 5 cards",
    Phase.START_CARD: "play a card or pass",
    Phase.MOVE: "move a warrior up to {steps} spaces",
    Phase.FUSION_OFFER: "try a fusion (die of 4+) or pass",
    Phase.RETRY_OFFER: "play a transformation card or pass",
    Phase.DEFENCE_CHOICE: "answer the attack: {answers}",
    Phase.COUNTER_OFFER: "counter-attack or pass",
    Phase.REWARD: "choose the deck of your reward",
    Phase.STEP_ASIDE: "step to an adjacent empty space (not green)",
    Phase.FLEE: "flee up to 3 spaces",
    Phase.EXTRA_OFFER: "a second combat, or pass",
    Phase.DUEL_PICK: "pick your warrior for the duel",
}


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
        return f"roll {n} {'die' if n == 1 else 'dice'} for the {what}"
    seat = engine.actor(state)
    who = state.players[seat] if seat is not None else "?"
    if ph is Phase.ATTACK and c is not None:
        fight = f"{c.striker} attacking {c.target}"
        if not c.throws:
            return f"{who}: throw {c.pool} dice ({fight})"
        left = c.max_rerolls - (len(c.throws) - 1)
        if left > 0:
            return f"{who}: reroll ({left} left) or choose the attack ({fight})"
        return f"{who}: choose the attack ({fight})"
    if ph is Phase.DEFENCE_ROLL and c is not None:
        what = "to dodge the reflected sphere" if c.answer == "reflect" else f"for {c.answer}"
        return f"{who}: throw {c.d_pool} dice {what}"
    text = _TEXT.get(ph, str(ph))
    text = text.format(
        steps=engine.MOVE_STEPS + state.move_bonus,
        answers=", ".join(engine.defence_answers(state)),
    )
    return f"{who}: {text}"
