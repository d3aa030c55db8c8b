"""Any valid TableView draws on every screen at both sizes without error, inside the canvas."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from PIL import Image, ImageDraw

from controller.core.symbols import AttackSpeed, Defence, Symbol
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
from hardware.displays.screens import render, screen_by_name, screen_names

pytestmark = pytest.mark.timeout(60)

names = st.text(min_size=0, max_size=40)
dice = st.lists(st.sampled_from(list(Symbol)), max_size=6).map(tuple)
small = st.integers(min_value=0, max_value=9999)


@st.composite
def fighters(draw: st.DrawFn) -> FighterView:
    top = draw(st.integers(min_value=1, max_value=999))
    return FighterView(draw(names), draw(st.integers(0, top)), top, draw(names))


@st.composite
def seats(draw: st.DrawFn) -> SeatView:
    total = draw(st.integers(min_value=1, max_value=8))
    return SeatView(
        draw(names),
        draw(st.integers(0, total)),
        total,
        draw(small),
        draw(st.none() | st.integers(0, 99)),
    )


@st.composite
def views(draw: st.DrawFn) -> TableView:
    seat_list = tuple(draw(st.lists(seats(), max_size=6)))
    rolls = draw(st.integers(1, 9))
    combat = draw(
        st.none()
        | st.builds(
            CombatView,
            attacker=fighters(),
            defender=fighters(),
            dice=dice,
            roll_no=st.integers(1, rolls),
            rolls_max=st.just(rolls),
            options=st.lists(st.builds(AttackOption, names, small, st.booleans()), max_size=6).map(
                tuple
            ),
            speed=st.none() | st.sampled_from(list(AttackSpeed)),
            defences=st.lists(st.sampled_from(list(Defence)), max_size=4).map(tuple),
            advice=st.none()
            | st.builds(
                AdviceView,
                dice,
                st.none() | st.floats(0, 1),
                st.none() | st.floats(0, 999),
            ),
        )
    )
    prompt_dice = draw(dice)
    choices = tuple(draw(st.lists(names, max_size=4)))
    prompt = draw(
        st.none()
        | st.builds(
            Prompt,
            kind=st.sampled_from(list(PromptKind)),
            text=st.text(max_size=120),
            choices=st.just(choices),
            selected=st.integers(0, max(0, len(choices) - 1)),
            dice=st.just(prompt_dice),
            die_index=st.none() | st.integers(0, max(0, len(prompt_dice) - 1)),
            marked=st.lists(st.integers(0, len(prompt_dice) - 1), max_size=len(prompt_dice)).map(
                tuple
            )
            if prompt_dice
            else st.just(()),
            step=st.none() | st.integers(1, 99),
            steps=st.none() | st.integers(1, 99),
        )
    )
    return TableView(
        turn=draw(st.integers(1, 999)),
        seat=draw(st.integers(0, max(0, len(seat_list) - 1))),
        player=draw(names),
        clock=Clock(
            draw(st.integers(1, 99)),
            draw(st.none() | st.integers(1, 99)),
            draw(st.none() | st.integers(0, 200_000)),
        ),
        phase=draw(names),
        seats=seat_list,
        combat=combat,
        prompt=prompt,
        faults=tuple(draw(st.lists(st.builds(Fault, names, st.text(max_size=80)), max_size=5))),
    )


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(views())
def test_every_screen_renders_any_view(view: TableView) -> None:
    for name in screen_names(view):
        for size in ((128, 64), (128, 32)):
            image = render(view, name, size)
            assert image.size == size and image.mode == "1"
            # drawn on a larger canvas, nothing may land right of or below the screen
            w, h = size
            big = Image.new("1", (w + 64, h + 32))
            screen_by_name(name)(ImageDraw.Draw(big), view, size)
            assert big.crop((w, 0, w + 64, h + 32)).getbbox() is None, name
            assert big.crop((0, h, w + 64, h + 32)).getbbox() is None, name
