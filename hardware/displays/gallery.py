"""The set of rendered screens used for the reference PNGs and the README gallery.

A *case* is one screen of one view at one size. :func:`cases` derives, from a
base view, every screen plus the variants a single state cannot show at once
(each prompt kind, a timed game, a tie's extra round of a game of rounds and of a timed
one, a lightning attack). :func:`write_cases` writes them as PNG; ``toptable screens
references`` is the deliberate command that regenerates the test references with it
(``--out`` names their folder: the package does not know where a checkout keeps its tests).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from PIL import Image

from controller.core.symbols import AttackSpeed, Symbol
from hardware.displays.companion import CompanionCase, companion_cases
from hardware.displays.draw import Size
from hardware.displays.model import Clock, Prompt, PromptKind, TableView
from hardware.displays.screens import render, screen_names

SIZES: tuple[Size, ...] = ((128, 64), (128, 32))


@dataclass(frozen=True)
class Case:
    """One screen of one view at one size; ``name`` is its file stem."""

    name: str
    view: TableView
    screen: str
    size: Size

    def render(self) -> Image.Image:
        """The 1-bit image of this case."""
        return render(self.view, self.screen, self.size)


def variants(view: TableView) -> dict[str, tuple[TableView, str]]:
    """Extra (view, screen) pairs beyond the base view's screens, by label."""
    dice = (Symbol.STAR, Symbol.PUNCH, Symbol.PUNCH, Symbol.KICK, Symbol.SPHERE)
    out: dict[str, tuple[TableView, str]] = {
        "prompt-rethrow": (
            dataclasses.replace(
                view,
                prompt=Prompt(
                    PromptKind.RETHROW, "Die 4 is cocked: throw it again", ("OK",), 0, dice, 3
                ),
            ),
            "prompt",
        ),
        "prompt-choose-move": (
            dataclasses.replace(
                view,
                prompt=Prompt(
                    PromptKind.CHOOSE_MOVE, "Two tokens moved. Which move?", ("12→17", "30→24"), 1
                ),
            ),
            "prompt",
        ),
        "prompt-mapping": (
            dataclasses.replace(
                view,
                prompt=Prompt(
                    PromptKind.MAPPING,
                    "Put a token on space 17 (red)",
                    ("Skip", "Back"),
                    0,
                    step=17,
                    steps=42,
                ),
            ),
            "prompt",
        ),
        "turn-timed": (
            dataclasses.replace(view, clock=Clock(round_no=6, rounds=None, seconds_left=421)),
            "turn",
        ),
        "turn-extra": (  # a tie of three or more plays on past the last round
            dataclasses.replace(view, clock=Clock(round_no=11, rounds=10, extra_round=1)),
            "turn",
        ),
        "turn-extra-timed": (  # ... or past the time of a 45-minute game
            dataclasses.replace(
                view, clock=Clock(round_no=12, rounds=None, seconds_left=0, extra_round=1)
            ),
            "turn",
        ),
    }
    if view.combat is not None:
        fast = dataclasses.replace(
            view.combat, speed=AttackSpeed.LIGHTNING, defences=(), roll_no=1, advice=None
        )
        out["combat-lightning"] = (dataclasses.replace(view, combat=fast), "combat")
    out["combat-none"] = (dataclasses.replace(view, combat=None), "combat")
    out["errors-none"] = (dataclasses.replace(view, faults=()), "errors")
    story = dataclasses.replace(
        view,
        phase="SQ 5 G4 R3",
        seats=tuple(
            dataclasses.replace(s, warriors_left=0, warriors_total=0, victory_points=3 + i)
            for i, s in enumerate(view.seats)
        ),
    )
    out["teams-story"] = (story, "teams")
    out["seat-0-story"] = (story, "seat:0")
    return out


def cases(view: TableView, sizes: tuple[Size, ...] = SIZES) -> list[Case]:
    """Every screen of ``view`` and every variant, at every size."""
    pairs = [(n.replace(":", "-"), view, n) for n in screen_names(view)]
    pairs += [(label, v, s) for label, (v, s) in variants(view).items()]
    return [
        Case(f"{label}_{w}x{h}", v, screen, (w, h))
        for label, v, screen in pairs
        for (w, h) in sizes
    ]


def every_case(view: TableView, sizes: tuple[Size, ...] = SIZES) -> list[Case | CompanionCase]:
    """:func:`cases` and every companion-mode screen (``toptable screens`` draws them all)."""
    return [*cases(view, sizes), *companion_cases(sizes)]


def write_cases(items: Sequence[Case | CompanionCase], out: Path, scale: int = 0) -> list[Path]:
    """Write each case as ``NAME.png`` (1:1) in ``out``, and ``NAME@Nx.png`` if ``scale`` > 1.

    Raises:
        OSError: ``out`` cannot be created or written.
    """
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for case in items:
        image = case.render()
        path = out / f"{case.name}.png"
        image.save(path)
        written.append(path)
        if scale > 1:
            big = image.resize(
                (image.width * scale, image.height * scale), Image.Resampling.NEAREST
            )
            big_path = out / f"{case.name}@{scale}x.png"
            big.save(big_path)
            written.append(big_path)
    return written
