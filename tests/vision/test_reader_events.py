"""What the reader tells the table of a settled tray: the dice to rethrow apart from the
dice to confirm, and how long the tray has been quiet (the camera thread's idle pace)."""

from __future__ import annotations

import queue
from dataclasses import replace

from controller.core.events import Event
from controller.core.symbols import Symbol
from tests.waiting import posted
from vision.events import ThrowSettled
from vision.reading.model import FaceModel
from vision.reading.reader import DiceReader
from vision.synth.scenes import Renderer, Settings


def test_a_cocked_die_is_to_be_rethrown_not_confirmed(model: FaceModel) -> None:
    """A cocked die has no face to confirm: the event lists it as cocked only, even when its
    nearest face was read unsure (here every die is: the bar is 1)."""
    renderer = Renderer(Settings(touching=0.0), seed=11)
    scene = renderer.scene([Symbol.KICK, Symbol.STAR, Symbol.TELEPORT], cocked=1)
    q: queue.Queue[Event] = queue.Queue()
    reader = DiceReader(replace(model, threshold=1.0), q, expect=3)
    for t, frame in enumerate([renderer.render([])] + [scene.image] * 5):
        reader.feed(frame, t * 0.1)
    event = q.get_nowait()
    assert isinstance(event, ThrowSettled) and q.empty()
    (cocked,) = event.cocked
    assert event.faces[cocked] is None
    assert event.unsure == tuple(i for i in range(3) if i != cocked)


def test_the_quiet_count_starts_again_at_the_first_motion(model: FaceModel) -> None:
    """The camera thread slows down on a tray quiet for a while and takes the full rate back
    at the first motion: the count of quiet frames is back at 0 when something moves."""
    renderer = Renderer(Settings(width=640, height=480), seed=5)
    empty = renderer.render([])
    dice = renderer.render(renderer.place([Symbol.STAR, Symbol.KICK]))
    reader = DiceReader(model, queue.Queue())
    counts = []
    for t, frame in enumerate([empty] * 12 + [dice]):
        reader.feed(frame, t * 0.1)
        counts.append(reader.quiet_frames)
    # moving, settling (3), the empty tray read, then quiet; then the dice thrown in
    assert counts == [0, 0, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 0]


def test_a_camera_back_over_an_empty_tray_counts_the_first_throw_after_it(
    model: FaceModel,
) -> None:
    """The camera came back over an empty tray (its baseline): the next two throws into it
    where no die is found say the camera moved, as two throws in a row do at any time."""
    tray = Renderer(Settings(width=640, height=480), seed=5).render([])
    first, second = tray.copy(), tray.copy()
    first[100:180, 100:180] = (200, 200, 200)  # something thrown in that is no die (blank)
    second[300:380, 400:480] = (200, 200, 200)
    q: queue.Queue[Event] = queue.Queue()
    reader = DiceReader(model, q, expect=6)
    reader.settle.rebase()  # as the camera thread does when the camera is back
    reader.new_attack(expect=6)
    for t, frame in enumerate([tray] * 5 + [first] * 5 + [second] * 5):
        reader.feed(frame, t * 0.1)
    kinds = [type(e).__name__ for e in posted(q)]
    assert reader.reads == 3 and kinds == ["OutOfDepth"]
