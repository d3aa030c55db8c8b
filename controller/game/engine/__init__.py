"""The game flow of docs/rules.md §9–§11 as a pure state machine: ``apply(state, event)``.

Nothing here rolls dice, reads a clock or does I/O: dice, shuffles and the clock
arrive as input events; players' choices arrive as actions. An illegal event
raises :class:`~controller.core.errors.IllegalActionError` saying why, and leaves the
state untouched (:func:`apply` works on a copy).

The engine is split by phase; each module handles the events of its phases:

- :mod:`.fold`: :func:`apply`, :func:`advance`, :func:`replay`, the handler table;
- :mod:`.who`: whose action or which input the game waits for;
- :mod:`.setup`: first player, draft, shuffles, placement (and :func:`arrange`);
- :mod:`.turn`: a turn's start and end, the round's end and the final count;
- :mod:`.cards`: the start-of-turn card window;
- :mod:`.move`: the move and its landing;
- :mod:`.combat`: fusions (card or roll) and transformation rolls, each attack's set-up;
- :mod:`.attack`: the striker's throws and its choice;
- :mod:`.defence`: the defender's answer (and the dodge of a reflected sphere);
- :mod:`.resolve`: the attack's damage and the counter-attack;
- :mod:`.end`: the end of a combat; :mod:`.extra`: the second combat; :mod:`.duel`;
- :mod:`.common` and :mod:`.fusion`: what the phases share.

Modules import one way (common <- fusion <- turn <- setup/cards <- combat <- duel <-
extra <- end <- resolve <- attack/defence/move <- fold): a phase that leads back to an
earlier one calls down, never up.

May import: controller.core, rules, gamedata and game's state and events.
"""

from __future__ import annotations

from controller.game.engine.attack import (
    attack_options,
    best_attack_option,
    story_sum_allowed,
    sum_allowed,
)
from controller.game.engine.common import (
    FLEE_STEPS,
    FUSION_ROLL_NEEDED,
    MOVE_STEPS,
    attack_cards,
    board_space,
    counter_cards,
    decks_to_shuffle,
    fighter,
    limit_problem,
    pair_of,
    playable,
    player_to_the_right,
)
from controller.game.engine.defence import (
    DefenceAnswer,
    answer_text,
    defence_answers,
    flee_spaces,
    flight_allowed,
    flight_open,
)
from controller.game.engine.end import (
    green_steps,
    may_step_back,
    plain_steps,
    second_steps,
    step_spaces,
)
from controller.game.engine.extra import (
    extra_green_steps,
    extra_targets,
    second_combat_cards,
)
from controller.game.engine.fold import advance, apply, new_game, replay
from controller.game.engine.fusion import combat_fusion, fusion_candidate, fusion_cards
from controller.game.engine.move import move_targets
from controller.game.engine.resolve import may_be_countered
from controller.game.engine.setup import (
    arrange,
    draftable,
    expected_deck,
    outside_tournament,
    placements,
)
from controller.game.engine.story import attempt_dice, square_cards, story_stakes
from controller.game.engine.turn import start_cards, start_targets
from controller.game.engine.who import ActorKind, Awaiting, InputKind, actor, awaiting

__all__ = [
    "FLEE_STEPS",
    "FUSION_ROLL_NEEDED",
    "MOVE_STEPS",
    "ActorKind",
    "Awaiting",
    "DefenceAnswer",
    "InputKind",
    "actor",
    "advance",
    "answer_text",
    "apply",
    "arrange",
    "attack_cards",
    "attack_options",
    "attempt_dice",
    "awaiting",
    "best_attack_option",
    "board_space",
    "combat_fusion",
    "counter_cards",
    "decks_to_shuffle",
    "defence_answers",
    "draftable",
    "expected_deck",
    "extra_green_steps",
    "extra_targets",
    "fighter",
    "flee_spaces",
    "flight_allowed",
    "flight_open",
    "fusion_candidate",
    "fusion_cards",
    "green_steps",
    "limit_problem",
    "may_be_countered",
    "may_step_back",
    "move_targets",
    "new_game",
    "outside_tournament",
    "pair_of",
    "placements",
    "plain_steps",
    "playable",
    "player_to_the_right",
    "replay",
    "second_combat_cards",
    "second_steps",
    "square_cards",
    "start_cards",
    "start_targets",
    "step_spaces",
    "story_stakes",
    "story_sum_allowed",
    "sum_allowed",
]
