"""Settle detection and roll tracking, on small hand-made inputs."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from numpy.typing import NDArray

from vision.errors import ConfigError
from vision.reading.settle import Motion, SettleDetector, SettleParams
from vision.reading.tracking import RollTracker, TrackedDie, attack_speed


def _frame(level: int, spot: tuple[int, int] | None = None) -> NDArray[Any]:
    img = np.full((120, 160, 3), level, np.uint8)
    if spot is not None:
        x, y = spot
        img[y : y + 20, x : x + 20] = 230
    return img


def test_settles_once_after_motion() -> None:
    det = SettleDetector(SettleParams(still_frames=3))
    seq = [det.update(_frame(40, (10 + 15 * i, 40))) for i in range(4)]
    assert seq == [Motion.MOVING] * 4
    still = [det.update(_frame(40, (55, 40))) for _ in range(6)]
    # the last moving frame already showed the die at rest: three still frames settle
    assert still == [Motion.SETTLING, Motion.SETTLING, Motion.SETTLED,
                     Motion.IDLE, Motion.IDLE, Motion.IDLE]  # fmt: skip


def test_noise_is_not_motion() -> None:
    rng = np.random.default_rng(1)
    det = SettleDetector(SettleParams(still_frames=2))
    base = _frame(60, (50, 50)).astype(np.int16)
    out = [det.update(np.clip(base + rng.normal(0, 4, base.shape), 0, 255).astype(np.uint8))
           for _ in range(4)]  # fmt: skip
    assert out == [Motion.MOVING, Motion.SETTLING, Motion.SETTLED, Motion.IDLE]


def test_rearm_reports_again() -> None:
    det = SettleDetector(SettleParams(still_frames=1))
    det.update(_frame(40))
    assert det.update(_frame(40)) is Motion.SETTLED
    det.rearm()
    assert det.update(_frame(40)) is Motion.SETTLED


def test_settle_params_checked() -> None:
    with pytest.raises(ConfigError, match="still_frames"):
        SettleParams(still_frames=0)


def _die(x: float, y: float, face: str | None) -> TrackedDie:
    return TrackedDie((x, y), 100.0, face)


def test_kept_and_rerolled_across_throws() -> None:
    t = RollTracker()
    first = t.step([_die(100, 100, "kick"), _die(300, 100, "star"), _die(500, 100, "punch")])
    assert (first.roll_no, first.kept, first.rerolled, first.speed) == (
        1,
        (),
        (0, 1, 2),
        "lightning",
    )
    # the star stayed (a pixel off), the others landed elsewhere
    second = t.step([_die(150, 400, "kick"), _die(302, 101, "star"), _die(600, 500, "sphere")])
    assert (second.roll_no, second.kept, second.rerolled, second.speed) == (
        2,
        (1,),
        (0, 2),
        "surprise",
    )
    # a die at the same place but another face was rerolled
    third = t.step([_die(150, 400, "punch"), _die(302, 101, "star"), _die(600, 500, "sphere")])
    assert (third.kept, third.rerolled, third.speed) == ((1, 2), (0,), "normal")
    t.new_attack()
    assert t.step([_die(1, 1, "star")]).roll_no == 1


def test_attack_speed_follows_the_rules() -> None:
    assert [attack_speed(n) for n in (1, 2, 3, 7)] == ["lightning", "surprise", "normal", "normal"]


def test_the_dice_lying_before_an_attack_are_no_throw_of_it() -> None:
    """Review "throws" f03: a new attack forgot the dice in the tray, so a hand over them
    was its first throw; a read no die moved in is no throw, and is not counted."""
    t = RollTracker()
    lying = [_die(100, 100, "star"), _die(300, 100, None)]  # a cocked die lies still too
    t.lying(lying)
    hand = t.step(lying)
    assert (hand.roll_no, hand.kept, hand.rerolled) == (0, (0, 1), ())
    first = t.step([_die(100, 100, "star"), _die(500, 300, "kick")])
    assert (first.roll_no, first.kept, first.rerolled) == (1, (0,), (1,))
    t.new_attack()
    lifted = t.step([_die(500, 300, "kick")])  # the star lifted out: no throw
    assert (lifted.roll_no, lifted.rerolled) == (0, ())
    assert t.step([_die(500, 300, "kick"), _die(50, 50, "punch")]).roll_no == 1
