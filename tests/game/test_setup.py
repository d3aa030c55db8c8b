"""Setting up through events: first player, draft (exclusions, pairs), shuffles, placement, hands."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from controller.core.errors import DataError, IllegalActionError
from controller.game import engine
from controller.game.bots import table_input
from controller.game.events import ChooseStarter, Draft, FirstPlayerChosen, Place, Shuffled
from controller.game.legal import legal_actions
from controller.game.state import WARRIOR_DECK, GameConfig, GameState, Length, Phase
from controller.gamedata.board import BoardLayout
from controller.gamedata.bundle import GameData
from controller.gamedata.cards import Deck
from controller.rules.variants import Variants
from controller.rules.warriors import Roster
from tests.game.helpers import demo_data


def _config(n: int = 2, length: Length = Length.ROUNDS10, *variants: str) -> GameConfig:
    return GameConfig(tuple(f"P{i}" for i in range(n)), length, Variants.from_names(variants))


def test_player_count_is_checked() -> None:
    with pytest.raises(IllegalActionError, match="2 to 6 players"):
        engine.new_game(_config(1), demo_data())
    with pytest.raises(IllegalActionError, match="2 to 6 players"):
        engine.new_game(GameConfig(tuple("ABCDEFG")), demo_data())


@pytest.mark.parametrize(
    ("length", "variants", "size"),
    [
        (Length.ROUNDS10, (), 6),
        (Length.MINUTES45, (), 6),
        (Length.ROUNDS5, (), 6),  # A l.25: teams of 6
        (Length.ROUNDS5, ("four_warriors_in_short_game",), 4),  # B l.248
        (Length.ROUNDS5, ("six_warriors_in_short_game",), 6),  # a retired name: the default
    ],
)
def test_team_size(length: Length, variants: tuple[str, ...], size: int) -> None:
    assert _config(2, length, *variants).team_size == size


def test_draft_order_and_exclusions() -> None:
    s = engine.new_game(_config(3, Length.ROUNDS5), demo_data())
    assert s.phase is Phase.FIRST_PLAYER
    s = engine.apply(s, FirstPlayerChosen(1))
    assert (s.phase, s.seat) == (Phase.DRAFT, 1)
    names = {a.warrior for a in legal_actions(s) if isinstance(a, Draft)}
    assert "Kefla" not in names and "Anilaza" not in names and "Jiren" in names
    with pytest.raises(IllegalActionError, match="cannot be drafted"):
        engine.apply(s, Draft(1, "Kefla"))
    with pytest.raises(IllegalActionError, match="out of turn"):
        engine.apply(s, Draft(0, "Jiren"))
    s = engine.apply(s, Draft(1, "jiren"))  # names are case-insensitive
    # the pick passes to the right (A l.25, B l.257): seat 1's right is seat 0, the seat
    # that plays before it (play goes clockwise, A l.215); seat 0's right is the last seat
    assert s.seat == 0 and s.teams[1] == ("Jiren",)
    with pytest.raises(IllegalActionError, match="already drafted"):
        engine.apply(s, Draft(0, "Jiren"))
    s = engine.apply(s, Draft(0, "Hit"))
    assert s.seat == 2 and engine.player_to_the_right(s, 0) == 2


def test_fusion_pairs_drafted_together() -> None:
    s = engine.new_game(
        _config(2, Length.ROUNDS5, "fusion_pairs_drafted_together", "four_warriors_in_short_game"),
        demo_data(),
    )
    s = engine.apply(s, FirstPlayerChosen(0))
    s = engine.apply(s, Draft(0, "Kale"))
    assert s.teams[0] == ("Kale", "Caulifla") and s.seat == 1
    s = engine.apply(s, Draft(1, "Paparoni"))
    assert s.teams[1] == ("Paparoni", "Koichiarator")
    s = engine.apply(s, Draft(0, "Jiren"))
    s = engine.apply(s, Draft(1, "Hit"))
    s = engine.apply(s, Draft(0, "Toppo"))  # team 0 is full (4)
    assert len(s.teams[0]) == 4
    s2 = engine.new_game(
        _config(2, Length.ROUNDS5, "fusion_pairs_drafted_together", "four_warriors_in_short_game"),
        demo_data(),
    )
    s2 = engine.apply(s2, FirstPlayerChosen(0))
    for name in ("Jiren", "Hit", "Toppo", "Cabba", "Piccolo", "Frieza"):
        s2 = engine.apply(s2, Draft(s2.seat, name))
    with pytest.raises(IllegalActionError, match="need 2 places"):
        engine.apply(s2, Draft(s2.seat, "Kale"))


def _draft_all(s: GameState, rng: random.Random) -> GameState:
    while s.phase is Phase.DRAFT:
        options = [a for a in legal_actions(s)]
        s = engine.apply(s, options[rng.randrange(len(options))])
    return s


def test_shuffles_then_placement_spacing_and_starting_hands() -> None:
    rng = random.Random(4)
    s = engine.apply(engine.new_game(_config(2, Length.ROUNDS5), demo_data()), FirstPlayerChosen(0))
    s = _draft_all(s, rng)
    assert s.phase is Phase.SHUFFLE
    assert set(engine.awaiting(s).decks) == {"attack", "defence", "special", "event", "warriors"}
    with pytest.raises(IllegalActionError, match="does not hold the expected cards"):
        engine.apply(s, Shuffled(Deck.ATTACK, ("Kamehameha",)))
    green = engine.expected_deck(s, WARRIOR_DECK)
    # 83 warriors in the demo set, Beerus (Story only) and the two fusions never drafted,
    # 2 teams of 6 (A l.25, the 5-round game too)
    assert len(green) == 83 - 1 - 2 - 12 and "Kefla" not in green and "Beerus" not in green
    while s.phase is Phase.SHUFFLE:
        event = table_input(s, rng)
        assert event is not None
        s = engine.apply(s, event)
    assert s.phase is Phase.PLACE and s.seat == 0
    first = next(iter(legal_actions(s)))
    assert isinstance(first, Place)
    s = engine.apply(s, first)
    # never next to a teammate
    s = engine.apply(s, next(iter(legal_actions(s))))
    board = s.data.board
    near = sorted(board.neighbours(first.space))
    bad = next(n for n in near if n not in s.occ)
    todo = next(n for n in s.teams[0] if s.pieces[n].space is None)
    with pytest.raises(IllegalActionError, match="next to a teammate"):
        engine.apply(s, Place(0, todo, bad))
    while s.phase is Phase.PLACE:
        s = engine.apply(s, next(iter(legal_actions(s))))
    for seat in (0, 1):
        mine = [s.pieces[n].space for n in s.teams[seat]]
        assert all(not (board.neighbours(a) & set(mine)) for a in mine)
        decks = sorted(s.data.cards.card(c).deck.value for c in s.hands[seat])
        assert decks == ["attack", "defence", "special"]
    # the youngest starts (A l.33, B l.275): the table asks, the die's winner answers
    assert s.phase is Phase.STARTER and engine.actor(s) == 0 and s.round == 0
    assert list(legal_actions(s)) == [ChooseStarter(0, 0), ChooseStarter(0, 1)]
    with pytest.raises(IllegalActionError, match="no seat 2"):
        engine.apply(s, ChooseStarter(0, 2))
    s = engine.apply(s, ChooseStarter(0, 1))
    assert s.round == 1 and s.seat == 1 and s.first == 1
    assert s.phase in (Phase.MOVE, Phase.START_CARD, Phase.DISCARD)


def test_names_and_colours_are_checked() -> None:
    with pytest.raises(IllegalActionError, match="same name"):
        GameConfig(("A", "A")).check()
    with pytest.raises(IllegalActionError, match="different colour"):
        GameConfig(("A", "B"), colours=("red", "red")).check()
    config = GameConfig(
        ("A", "B"),
        Length.MINUTES45,
        Variants.from_names(["green_reward_one"]),
        "g1",
        ("orange", "teal"),
    )
    assert GameConfig.from_dict(config.to_dict()) == config


def _with(roster: list[str] | None = None, spaces: int | None = None) -> GameData:
    """The demo data with only the warriors ``roster`` or the first ``spaces`` spaces (each
    keeping its neighbours among them)."""
    demo = demo_data()
    warriors = Roster([demo.roster[n] for n in roster], "w.toml") if roster else demo.roster
    board = demo.board
    if spaces is not None:
        kept = sorted(board.spaces)[:spaces]
        board = BoardLayout(board.name, {
            sid: replace(board.spaces[sid], neighbours=board.spaces[sid].neighbours & set(kept))
            for sid in kept
        }, board.example, "b.toml")  # fmt: skip
    return GameData(board, warriors, demo.cards, demo.story, die=demo.die)


def test_a_game_the_data_cannot_hold_is_refused_before_it_begins() -> None:
    """Review 94: too few warriors stopped the draft, too few spaces the placement, each
    with no legal action left (and a traceback from the bots)."""
    names = [n for n in demo_data().roster if n not in ("Kefla", "Anilaza")][:10]
    config = GameConfig(("A", "B"), Length.ROUNDS10)
    with pytest.raises(DataError) as info:
        engine.new_game(config, _with(roster=names))
    assert str(info.value) == (
        "w.toml: 10 warriors may be drafted (the fusions and the Story-only cards never are), "
        "and 2 players draft 6 each: 12 are needed"
    )
    with pytest.raises(DataError) as info:
        engine.new_game(config, _with(spaces=11))
    assert str(info.value) == (
        "b.toml: field 'space': 11 spaces, and 2 players place 6 tokens each: 12 are needed"
    )
    engine.new_game(config, _with(spaces=12))


def test_a_fusion_partner_the_roster_lacks_is_not_drafted() -> None:
    """Review 94: with fusion_pairs_drafted_together, drafting Kale drafted a Caulifla the
    owner's roster did not hold, and the game stopped at her first move."""
    names = [n for n in demo_data().roster if n != "Caulifla"]
    config = GameConfig(
        ("A", "B"), Length.ROUNDS10, Variants.from_names(["fusion_pairs_drafted_together"])
    )
    s = engine.apply(engine.new_game(config, _with(roster=names)), FirstPlayerChosen(0))
    assert "Kale" in engine.draftable(s)
    s = engine.apply(s, Draft(0, "Kale"))
    assert s.teams[0] == ("Kale",) and "Caulifla" not in s.pieces


def test_a_pair_is_split_when_nothing_else_is_left_to_draft() -> None:
    """Review 97: with fusion_pairs_drafted_together and a small roster, a team with room
    for one and only a pair left had no legal draft."""
    demo = demo_data()
    pairs = ["Kale", "Caulifla", "Koichiarator", "Paparoni"]
    singles = [n for n in demo.roster if n not in (*pairs, "Kefla", "Anilaza")
               and not demo.roster[n].story_only][:8]  # fmt: skip
    data = GameData(demo.board, Roster([demo.roster[n] for n in pairs + singles], "w.toml"),
                    demo.cards, demo.story, die=demo.die)  # fmt: skip
    config = GameConfig(
        ("A", "B"), Length.ROUNDS10, Variants.from_names(["fusion_pairs_drafted_together"])
    )
    for seed in range(60):
        rng = random.Random(seed)
        s = engine.apply(engine.new_game(config, data), FirstPlayerChosen(rng.randrange(2)))
        while s.phase is Phase.DRAFT:
            actions = list(legal_actions(s))
            assert actions, (seed, s.teams)
            s = engine.apply(s, actions[rng.randrange(len(actions))])
        assert all(len(team) == 6 for team in s.teams)
