"""What a player reads on the small screens (review "screentext"): the number or target
that tells two lines apart stays, a refusal says what to do, a game over says who won."""

from __future__ import annotations

import pytest
from PIL import ImageOps

from controller.core.symbols import Symbol
from hardware.displays.draw import fit_lines, squeeze
from hardware.displays.font import GLYPHS, SMALL
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
from hardware.displays.screens import render
from tests.hardware.displays.helpers import shows

SEATS = (SeatView("Ann", 4, 6, 2), SeatView("Maximilian", 5, 6, 3))


def _view(**kw: object) -> TableView:
    base: dict[str, object] = dict(
        turn=5, seat=0, player="Ann", clock=Clock(5, 5), phase="move", seats=SEATS
    )
    base.update(kw)
    return TableView(**base)  # type: ignore[arg-type]


@pytest.mark.parametrize(("name", "left"), [("Lavender", 17), ("Kahseral", 14), ("Nigrishhi", 10)])
def test_the_small_combat_screen_draws_the_endurance_whole(name: str, left: int) -> None:
    """The name was fitted one glyph gap too wide: "LAVENDER 1." for 17 left."""
    fight = CombatView(FighterView(name, left, 17), FighterView("Jiren", 20, 20))
    image = render(_view(combat=fight), "combat", (128, 32))
    assert shows(image, f" {left}", SMALL) and not shows(image, f" {left // 10}.", SMALL)


@pytest.mark.parametrize(
    ("label", "kept"),
    [("place Koichiarator on 12", "ON 12"), ("Second Wind > Android 17", "> ANDROI. 17")],
)
def test_a_one_line_prompt_keeps_the_words_that_tell_labels_apart(label: str, kept: str) -> None:
    """At 128x32 the label's last word (the space, the card's target) was dropped unseen:
    "on 12" and "on 13" read the same."""
    prompt = Prompt(PromptKind.CHOOSE, label, ("NEXT", "OK"), 1)
    image = render(_view(prompt=prompt), "prompt", (128, 32))
    assert squeeze(label, 128).endswith(kept) and shows(image, kept, SMALL)


def test_a_line_too_long_for_its_words_keeps_its_first_and_last_words() -> None:
    """Review diff15 f05: "place Brianne de Chateau on 12" kept its first words only,
    and the space was lost."""
    assert squeeze("place Brianne de Chateau on 12", 128) == "PLACE BRIANNE DE. ON 12"
    assert squeeze("put a token on space 17 (red)", 128) == "PUT A TOKEN ON. 17 (RED)"
    assert fit_lines("a b c", 128, 0) == []
    lines = fit_lines("two tokens moved. which move? (board 2)", 70, 2)
    assert lines[0] == "two tokens" and lines[1].endswith("2)")
    # a sentence reads from its start: its first whole words, marked
    assert squeeze("the table is paused; the game resumes when it starts again", 128) == (
        "THE TABLE IS PAUSED."
    )


def test_a_refusal_says_what_to_do_where_there_is_room() -> None:
    """Only the fault's first line was drawn: "A THROW IS NOT UNDONE:", never the fix."""
    prompt = Prompt(PromptKind.CHOOSE, "attack", ("NEXT", "OK"), 1)
    fault = Fault("rules", "a throw is not undone: MENU corrects its dice")
    image = render(_view(prompt=prompt, faults=(fault,)), "prompt", (128, 64))
    assert shows(image, "MENU CORRECTS ITS DICE", SMALL)


def test_the_errors_screen_gives_each_fault_a_line() -> None:
    """At 128x32 the title said "2 FAULTS" and the second was not drawn."""
    faults = (Fault("camera", "camera lost: no frame for 5 s"), Fault("board", "board unplugged"))
    image = render(_view(faults=faults), "errors", (128, 32))
    assert shows(image, "BOARD UNPLUGGED", SMALL)


def test_a_game_over_says_who_won_on_every_screen() -> None:
    """The winner line ran over "TURN 5", off the screen for a shared win, '&' drawn as
    '?'; a loser's screen said "YOUR TURN: MAXIMILIAN WI", the others "TURN: ANN"."""
    assert "&" in GLYPHS
    shared = "Jean-Baptiste & Maximilian win"
    over = _view(phase=shared, over=True)
    turn = render(over, "turn", (128, 64))
    assert shows(turn, "GAME OVER", SMALL) and shows(turn, "TURN 5", SMALL)
    assert shows(turn, squeeze(shared, 128), SMALL)
    for seat in ("seat:0", "seat:1"):
        image = render(over, seat, (128, 64))
        assert shows(image, squeeze(shared, 126), SMALL) and not shows(image, "TURN", SMALL)
    small = render(over, "turn", (128, 32))
    assert shows(small, SMALL.fit_marked(shared, 128 - 4 - SMALL.width("GAME OVER")), SMALL)


def test_a_read_of_another_count_shows_only_the_dice_seen() -> None:
    """A die not seen was drawn as a star, as a cocked die is: "5 of 6 seen" read as "a
    star is cocked"; at 128x32 no word said it."""
    from controller.table.read_check import ReadCheck
    from controller.table.view import prompt_for

    class _Entry:
        read_check = ReadCheck(None, [Symbol.KICK] * 5 + [None], seen=5)

    prompt = prompt_for(None, _Entry())  # type: ignore[arg-type]
    assert prompt is not None and prompt.dice == (Symbol.KICK,) * 5
    assert prompt.title == "5 of 6 seen"
    image = render(_view(prompt=prompt), "prompt", (128, 32))
    assert shows(ImageOps.invert(image.convert("L")).convert("1"), "5 OF 6 SEEN", SMALL)


def test_the_small_turn_screen_draws_the_phase_whole() -> None:
    """A Story square's points were cut to half the line: "SQ 13 G3 R2." for R24 (review
    diff15 f04)."""
    image = render(_view(phase="sq 13 G3 R24", player="Maximilian"), "turn", (128, 32))
    assert shows(image, "SQ 13 G3 R24", SMALL)


@pytest.mark.parametrize(("chance", "shown"), [(0.129, "WIN 13%"), (0.996, "WIN 100%")])
def test_a_story_chance_is_shown_to_the_nearest_percent(chance: float, shown: str) -> None:
    """The chance of taking the square reads as the KO chance does, rounded: 12.9% is 13%,
    not 12%."""
    advice = AdviceView(keep=(Symbol.KICK,), win_chance=chance)
    fight = CombatView(
        FighterView("Goku", 20, 20), FighterView("Jiren", 20, 20), (Symbol.KICK,),
        options=(AttackOption("sum", 3, best=True),), advice=advice,
    )  # fmt: skip
    for size in ((128, 64), (128, 32)):
        image = render(_view(combat=fight), "options", size)
        assert shows(image, shown, SMALL)


def test_at_game_over_no_seat_is_marked_as_playing_on_the_teams_screen() -> None:
    """The game is over: no one plays, so the last player's row is not inverted as the
    current seat's (it is while the game runs)."""
    playing = render(_view(), "teams", (128, 64))
    assert not shows(playing, "ANN", SMALL)  # inverted: the current seat
    over = render(_view(phase="Ann wins", over=True), "teams", (128, 64))
    assert shows(over, "ANN", SMALL) and shows(over, "MAXIMILIAN", SMALL)


@pytest.mark.parametrize(("seats", "titled"), [(5, True), (6, False)])
def test_the_teams_screen_has_its_title_unless_six_seats_fill_it(seats: int, titled: bool) -> None:
    """Five seats leave room for the TEAMS title bar; only six fill the screen without it."""
    many = tuple(SeatView(f"P{i}", 3, 6, 1) for i in range(seats))
    image = render(_view(seats=many, seat=1), "teams", (128, 64))
    inverted = ImageOps.invert(image.convert("L")).convert("1")
    assert shows(inverted, "TEAMS", SMALL) is titled
