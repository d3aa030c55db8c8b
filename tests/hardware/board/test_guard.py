"""The flicker guard (:class:`hardware.board.guard.FlickerGuard`) once a flickering sensor
settles: what it posts then, and how it takes that sensor's next change."""

from __future__ import annotations

from hardware.board.events import SensorChanged, SensorFlickering
from hardware.board.guard import FlickerGuard


def _flicker(g: FlickerGuard, changes: int) -> list[SensorChanged | SensorFlickering]:
    """Sensor 4 changes ``changes`` times 0.1 s apart from t=0, occupied first."""
    posted: list[SensorChanged | SensorFlickering] = []
    for i in range(changes):
        posted += g.filter(SensorChanged(4, i % 2 == 0, i + 1, 1, at=i * 0.1), i * 0.1)
    return posted


def test_a_sensor_that_settles_as_it_was_last_passed_posts_no_change() -> None:
    """A stuck sensor that flickers and comes to rest in the state the host was last told
    posts nothing when it settles: the journal would get a change that changed nothing."""
    g = FlickerGuard(max_changes=3, window_s=1.0, quiet_s=0.5)
    posted = _flicker(g, 9)  # occupied, empty, occupied passed; held from the 4th, ends occupied
    assert [e.occupied for e in posted if isinstance(e, SensorChanged)] == [True, False, True]
    assert g.holding() == {4}
    assert g.poll(1.5) == []
    assert not g.holding()


def test_a_sensor_that_settled_passes_its_next_change_at_once() -> None:
    """Once a flickering sensor has settled, its next change (a token put on it) is passed
    straight through, not held again for the flicker it settled from."""
    g = FlickerGuard(max_changes=3, window_s=1.0, quiet_s=0.5)
    _flicker(g, 8)  # the last change, empty, at 0.7 s
    released = g.poll(1.3)
    assert [(e.sensor, e.occupied) for e in released if isinstance(e, SensorChanged)] == [
        (4, False)
    ]
    placed = SensorChanged(4, True, 9, 1, at=1.35)
    assert g.filter(placed, 1.35) == [placed]  # within window_s of the flicker, yet passed
    assert not g.holding() and g.flickers == 1
