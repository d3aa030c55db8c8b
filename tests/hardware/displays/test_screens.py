"""Every screen through luma's dummy device, compared with the reference PNGs.

Regenerate the references deliberately with ``toptable screens references --out tests/data/references/screens``;
a test run never writes them.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from luma.core.device import dummy
from PIL import Image, ImageChops, ImageDraw

from controller.core.symbols import Symbol
from controller.game.simulate import load_game_data
from hardware.displays.draw import fighter_fit, fighter_label
from hardware.displays.errors import UnknownScreenError
from hardware.displays.font import BIG, CAP_HEIGHT, GLYPHS, SMALL, normalise
from hardware.displays.gallery import cases
from hardware.displays.icons import ICON_PIXELS, ICON_SIZE
from hardware.displays.model import Clock, Fault, FighterView, TableView
from hardware.displays.screens import pick_screen, render, screen_by_name, screen_names, show
from hardware.displays.view_json import EXAMPLE_STATE, load_view
from tests.hardware.displays.helpers import shows
from tests.paths import SCREEN_REFERENCES as REFERENCE_DIR

pytestmark = pytest.mark.timeout(60)

VIEW = load_view(EXAMPLE_STATE)
CASES = cases(VIEW)


def _ascii(image: Image.Image) -> str:
    return "\n".join(
        "".join("#" if image.getpixel((x, y)) else "." for x in range(image.width))
        for y in range(image.height)
    )


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_screen_through_dummy_device_matches_reference(case: object) -> None:
    from hardware.displays.gallery import Case

    assert isinstance(case, Case)
    device = dummy(width=case.size[0], height=case.size[1], mode="1")
    show(device, case.view, case.screen)
    ref_path = REFERENCE_DIR / f"{case.name}.png"
    assert ref_path.exists(), (
        f"no reference {ref_path}: run 'toptable screens references --out tests/data/references/screens'"
    )
    ref = Image.open(ref_path).convert("1")
    got = device.image.convert("1")
    assert got.size == ref.size
    diff = ImageChops.difference(got.convert("L"), ref.convert("L")).getbbox()
    assert diff is None, f"{case.name} differs from its reference in {diff}:\n{_ascii(got)}"


def test_every_reference_has_a_case() -> None:
    names = {p.stem for p in REFERENCE_DIR.glob("*.png")}
    assert names == {c.name for c in CASES}


def test_screens_draw_something_and_differ() -> None:
    images = {n: render(VIEW, n).tobytes() for n in screen_names(VIEW)}
    for name, data in images.items():
        assert any(data), f"{name} is blank"
    assert len(set(images.values())) == len(images)


def test_render_is_pure() -> None:
    assert render(VIEW, "combat").tobytes() == render(VIEW, "combat").tobytes()


def test_font_capitals_and_digits_are_eight_pixels_high() -> None:
    assert CAP_HEIGHT >= 8
    for c in "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789":
        ys = {y for _, y in GLYPHS[c].pixels}
        assert min(ys) == 0 and max(ys) == CAP_HEIGHT - 1, c
    assert BIG.height == 16


def test_font_normalises_case_and_accents() -> None:
    assert normalise("Chloé ★") == "CHLOE ?"
    assert SMALL.width("") == 0
    assert SMALL.width("I") == 3
    assert SMALL.width("AB") == 5 + 1 + 5
    assert BIG.width("AB") == 2 * SMALL.width("AB")


def test_text_is_clipped_to_its_width() -> None:
    assert SMALL.width(SMALL.fit("SON GOKU SUPER SAIYAN BLUE", 60)) <= 60


@pytest.mark.timeout(10)
def test_a_name_of_any_length_is_clipped_in_one_pass() -> None:
    # a 200000-letter name in a state file took minutes: each letter cut re-measured the rest
    name = "Son Goku " * 5
    for font in (SMALL, BIG):
        for width in (0, 7, 60, 128):
            fits = [n for n in range(len(name) + 1) if font.width(name[:n]) <= width]
            assert font.fit(name, width) == normalise(name)[: max(fits)].rstrip()
    assert SMALL.fit("x" * 200_000, 128) == "X" * 21


def test_six_distinct_icons_within_size() -> None:
    assert set(ICON_PIXELS) == set(Symbol)
    assert 8 <= ICON_SIZE <= 16
    shapes = {frozenset(p) for p in ICON_PIXELS.values()}
    assert len(shapes) == 6
    for pixels in ICON_PIXELS.values():
        assert all(0 <= x < ICON_SIZE and 0 <= y < ICON_SIZE for x, y in pixels)


def test_no_text_under_eight_pixels_in_the_drawing() -> None:
    # Draw a line of text and measure the lit rows: 8 at scale 1.
    image = Image.new("1", (128, 16))
    SMALL.draw(ImageDraw.Draw(image), (0, 0), "TURN 14 0:59")
    bbox = image.getbbox()
    assert bbox is not None and bbox[3] - bbox[1] == 8


def test_timed_clock_shows_minutes_and_seconds() -> None:
    timed = dataclasses.replace(VIEW, clock=Clock(round_no=2, seconds_left=61))
    later = dataclasses.replace(VIEW, clock=Clock(round_no=2, seconds_left=60))
    assert render(timed, "turn").tobytes() != render(later, "turn").tobytes()
    # the same second (e.g. a tick at half a second) draws the same pixels
    assert render(timed, "turn").tobytes() == render(timed, "turn").tobytes()


def test_pick_screen_prompt_then_faults_then_preferred() -> None:
    # the question the buttons answer first: with the camera lost the dice are entered by
    # hand, and the fault screen hid the face being entered (review 101)
    assert pick_screen(VIEW, "turn") == "prompt"
    assert pick_screen(dataclasses.replace(VIEW, prompt=None), "turn") == "errors"
    quiet = dataclasses.replace(VIEW, faults=())
    assert pick_screen(quiet, "turn") == "prompt"
    calm = dataclasses.replace(quiet, prompt=None)
    assert pick_screen(calm, "combat") == "combat"
    assert pick_screen(dataclasses.replace(calm, combat=None), "combat") == "turn"
    assert pick_screen(VIEW, "teams", alerts=False) == "teams"
    still = dataclasses.replace(calm, faults=(Fault("camera", "Camera lost"),))
    assert pick_screen(still, "combat") == "errors"


def test_an_options_screen_with_no_combat_shows_the_turn() -> None:
    """As a combat screen does: between fights the options display shows whose turn it is,
    not "NO COMBAT" all game long."""
    calm = dataclasses.replace(VIEW, faults=(), prompt=None, combat=None)
    assert pick_screen(calm, "options") == "turn"
    assert pick_screen(calm, "teams") == "teams"


@pytest.mark.parametrize("name", ["seat:one", "seat:-1", "seat:"])
def test_a_seat_screen_needs_a_seat_number(name: str) -> None:
    """A config's ``seat:`` screen without a seat number is refused as an unknown screen,
    naming the choices (``toptable config check`` says it), not a crash or a blank seat."""
    with pytest.raises(UnknownScreenError, match="seat:N"):
        screen_by_name(name)


def test_unknown_screen_names_the_choices() -> None:
    with pytest.raises(UnknownScreenError, match="turn, combat"):
        screen_by_name("scores")
    assert screen_by_name("seat:2") is not None


def test_gallery_writes_nothing_into_references(tmp_path: Path) -> None:
    before = {p: p.stat().st_mtime_ns for p in REFERENCE_DIR.glob("*.png")}
    from hardware.displays.gallery import write_cases

    written = write_cases(CASES[:2], tmp_path, scale=4)
    assert [p.name for p in written] == [
        f"{CASES[0].name}.png",
        f"{CASES[0].name}@4x.png",
        f"{CASES[1].name}.png",
        f"{CASES[1].name}@4x.png",
    ]
    assert Image.open(written[1]).size == (512, 256)
    assert {p: p.stat().st_mtime_ns for p in REFERENCE_DIR.glob("*.png")} == before


def test_six_seats_all_show_on_both_sizes() -> None:
    six = dataclasses.replace(
        VIEW,
        seats=tuple(dataclasses.replace(VIEW.seats[0], name=f"P{i}") for i in range(6)),
        seat=5,
    )
    for size in ((128, 64), (128, 32)):
        image = render(six, "teams", size)
        # the last seat is the current one: its inverted row reaches the screen's lower half
        lit_rows = [y for y in range(size[1]) if image.getpixel((size[0] - 4, y))]
        assert lit_rows and max(lit_rows) > size[1] // 2


@pytest.mark.parametrize("size", sorted({c.size for c in CASES}), ids=lambda s: f"{s[0]}x{s[1]}")
def test_every_screen_differs_where_the_state_differs(size: tuple[int, int]) -> None:
    """Two gallery cases of one screen with different states never draw the same pixels."""
    drawn: dict[tuple[str, bytes], str] = {}
    same = []
    for case in (c for c in CASES if c.size == size):
        key = (case.screen, case.render().tobytes())
        if key in drawn and case.view != next(x.view for x in CASES if x.name == drawn[key]):
            same.append(f"{drawn[key]} = {case.name}")
        drawn.setdefault(key, case.name)
    assert not same, f"screens that hide a difference of state: {same}"


@pytest.mark.parametrize("size", [(128, 64), (128, 32)], ids=["128x64", "128x32"])
def test_a_ties_extra_round_shows_as_one_not_as_a_round_past_the_last(
    size: tuple[int, int],
) -> None:
    # a tie of three or more after round 5 plays on: the screen said ROUND 6/5 and 6/5
    first = render(dataclasses.replace(VIEW, clock=Clock(6, 5, extra_round=1)), "turn", size)
    assert shows(first, "EXTRA 1/3", SMALL) and shows(first, "5+1", BIG)
    assert not shows(first, "6/5", BIG) and not shows(first, "ROUND", SMALL)
    last = render(dataclasses.replace(VIEW, clock=Clock(13, 10, extra_round=3)), "turn", size)
    assert shows(last, "EXTRA 3/3", SMALL) and shows(last, "10+3", BIG)
    timed = dataclasses.replace(VIEW, clock=Clock(11, 10, seconds_left=421, extra_round=1))
    assert shows(render(timed, "turn", size), "EXTRA 1/3", SMALL)
    # the game's own rounds, a Story square and the 45-minute game are drawn as they were
    own = render(dataclasses.replace(VIEW, clock=Clock(round_no=5, rounds=5)), "turn", size)
    assert shows(own, "5/5", BIG) and shows(own, "ROUND", SMALL)
    assert not shows(own, "EXTRA", SMALL)
    square = render(dataclasses.replace(VIEW, clock=Clock(round_no=13, rounds=13)), "turn", size)
    assert shows(square, "13/13", BIG) and not shows(square, "EXTRA", SMALL)
    timeless = render(dataclasses.replace(VIEW, clock=Clock(round_no=9)), "turn", size)
    assert shows(timeless, "9/-", BIG) and not shows(timeless, "EXTRA", SMALL)
    minutes = dataclasses.replace(VIEW, clock=Clock(round_no=9, seconds_left=421))
    assert shows(render(minutes, "turn", size), "ROUND 9", SMALL)


@pytest.mark.parametrize("size", [(128, 64), (128, 32)], ids=["128x64", "128x32"])
def test_a_45_minute_games_extra_round_shows_as_one_when_time_ran_out(
    size: tuple[int, int],
) -> None:
    # a tie when time ran out plays on: the screen said 0:00 and ROUND 9, nothing of the tie
    tie = dataclasses.replace(VIEW, clock=Clock(9, None, seconds_left=0, extra_round=1))
    drawn = render(tie, "turn", size)
    assert shows(drawn, "EXTRA 1/3", SMALL) and shows(drawn, "+1", BIG)
    assert not shows(drawn, "0:00", BIG) and not shows(drawn, "ROUND", SMALL)
    third = dataclasses.replace(VIEW, clock=Clock(11, None, seconds_left=0, extra_round=3))
    assert shows(render(third, "turn", size), "EXTRA 3/3", SMALL)
    # a view from before the field, or time up with no tie: the clock and the round
    older = render(dataclasses.replace(VIEW, clock=Clock(9, None, seconds_left=0)), "turn", size)
    assert shows(older, "0:00", BIG) and shows(older, "ROUND 9", SMALL)
    assert not shows(older, "EXTRA", SMALL)


# ---------------------------------------------------------------- names cut, numbers whole
def _fight(attacker: FighterView, defender: FighterView) -> TableView:
    assert VIEW.combat is not None
    return dataclasses.replace(
        VIEW, combat=dataclasses.replace(VIEW.combat, attacker=attacker, defender=defender)
    )


def test_the_small_combat_screen_cuts_names_never_endurance() -> None:
    """Review 101: "ANDROID 17 26" cut at its end drew "ANDROID 17": the 26 went and the
    17 read as the attacker's endurance; the defender's "24 ANDROID 18" lost its 18."""
    view = _fight(FighterView("Android 17", 26, 26), FighterView("Android 18", 24, 24))
    image = render(view, "combat", (128, 32))
    assert shows(image, "26", SMALL) and shows(image, "24", SMALL)
    assert shows(image, SMALL.fit_marked("Android 17", 64 - 2 - SMALL.width(" 26")), SMALL)
    weaker = _fight(FighterView("Android 17", 9, 26), FighterView("Android 18", 24, 24))
    assert render(weaker, "combat", (128, 32)).tobytes() != image.tobytes()


def test_every_rulebook_warrior_and_form_reads_apart_on_the_combat_screen() -> None:
    """Review screentext f08: cut at its end, four forms read SUPER SAIYAN BLU. (two
    of Son Goku's, two of Vegeta's), and Ribrianne read as Brianne de Chateau."""
    width = 128 - SMALL.width("26/26") - 4  # the 128x64 combat screen's name line
    shown: dict[str, str] = {}
    for warrior in load_game_data().roster.values():
        for form in (None, *(f.name for f in warrior.forms)):
            fighter = FighterView(warrior.name, 26, 26, form)
            line = fighter_fit(fighter, width)
            assert SMALL.width(line) <= width, line
            assert line not in shown, (form or warrior.name, shown.get(line))
            shown[line] = form or warrior.name
    goku = FighterView("Son Goku", 26, 26, "Super Saiyan Blue + Kaio-ken Son Goku")
    assert fighter_fit(goku, width) == "SSB+KK SON GOKU"  # the warrior's name whole
    assert fighter_fit(dataclasses.replace(goku, form="Super Saiyan 2 Son Goku"), width) == (
        "SS2 SON GOKU"
    )
    ribrianne = FighterView("Brianne de Chateau", 26, 26, "Ribrianne")
    assert fighter_fit(ribrianne, width) == "BDC RIBRIANNE"
    image = render(_fight(goku, ribrianne), "combat", (128, 64))
    assert shows(image, "SSB+KK SON GOKU", SMALL) and shows(image, "BDC RIBRIANNE", SMALL)


def test_a_fighter_fitted_exactly_is_kept_and_a_one_word_name_is_never_an_initial() -> None:
    """A form's initials that fill the line to its last pixel are that line (not cut
    further); a warrior's one-word name is not written as its initial: two or more
    words make initials, else the line is squeezed and the name still reads."""
    goku = FighterView("Son Goku", 26, 26, "Super Saiyan Blue + Kaio-ken Son Goku")
    assert fighter_fit(goku, SMALL.width("SSB+KK SON GOKU")) == "SSB+KK SON GOKU"
    vegeta = FighterView("Vegeta", 26, 26, "Super Saiyan Blue Evolved")
    width = SMALL.width("V SUPER SAIYAN BLUE EVOLVED")
    line = fighter_fit(vegeta, width)
    assert SMALL.width(line) <= width and line.startswith("VEGE")


def test_a_cut_is_marked_and_a_form_naming_its_warrior_is_shown_alone() -> None:
    assert SMALL.fit_marked("Vegeta", 128) == "VEGETA"
    cut = SMALL.fit_marked("Brianne de Chateau to 25", 100)
    assert cut.endswith(".") and SMALL.width(cut) <= 100
    ss = FighterView("Caulifla", 20, 20, "Super Saiyan Caulifla")
    ss2 = dataclasses.replace(ss, form="Super Saiyan 2 Caulifla")
    assert fighter_label(ss) == "Super Saiyan Caulifla"  # not CAULIFLA SUPER SA(IYAN...)
    width = 128 - SMALL.width(" 20/20") - 4
    assert SMALL.fit_marked(fighter_label(ss), width) != SMALL.fit_marked(fighter_label(ss2), width)
    assert fighter_label(FighterView("Jiren", 1, 1, "Full Power")) == "Jiren Full Power"


def test_the_errors_screen_counts_every_fault_not_those_it_has_room_for() -> None:
    """Five faults on a screen with room for three: the title says 5 (review tests2 r06)."""
    faults = tuple(Fault(f"s{i}", f"fault number {i}") for i in range(5))
    image = render(dataclasses.replace(VIEW, faults=faults), "errors", (128, 64))
    assert shows(ImageChops.invert(image.convert("L")).convert("1"), "! 5 FAULTS", SMALL)
