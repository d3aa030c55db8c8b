"""The stress run's accounting (``board stress``): real changes against what the host was
told. Its figures were only ever checked on runs that lost nothing (review tests3 b03,
b04): a tally that counted no loss, or matched a change the host heard before it
happened, would have passed every test."""

from __future__ import annotations

from pathlib import Path

from hardware.board.accounting import TruthChange, tally
from hardware.board.events import SensorChanged
from hardware.board.sim import SimBoard


def _heard(sensor: int, occupied: bool, at: float, seq: int) -> SensorChanged:
    return SensorChanged(sensor, occupied, seq, 1, at=at)


def test_a_change_skipped_over_is_lost_and_one_heard_before_it_happened_is_a_phantom() -> None:
    truth = [
        TruthChange(1.0, 3, True),
        TruthChange(2.0, 3, False),  # never heard: the next one heard skips over it
        TruthChange(3.0, 3, True),
        TruthChange(9.0, 5, True),  # happens after the host was told of it: no match
    ]
    heard = [_heard(3, True, 1.1, 1), _heard(3, True, 3.2, 2), _heard(5, True, 4.0, 3)]
    t = tally(truth, heard, until=5.0)
    assert (t.truth, t.seen, t.lost, t.phantom) == (4, 3, 1, 1)
    assert t.lost_examples == [truth[1]] and t.phantom_examples == [heard[2]]
    assert [round(x, 3) for x in t.latencies] == [0.1, 0.2]


def test_a_token_put_where_one_already_lies_is_no_real_change(tmp_path: Path) -> None:
    """The stress run's hand may put a token on a sensor already covered (or lift one from
    a bare sensor): the board sees no change, so the truth holds none the host could miss."""
    with SimBoard(sensors=4, link=tmp_path / "b") as sim:
        at = sim.place(2)
        sim.place(2)
        sim.lift(3)
        assert sim.truth == [TruthChange(at, 2, True)]
    t = tally(sim.truth, [_heard(2, True, at + 0.01, 1)], until=at + 10)
    assert (t.truth, t.seen, t.lost, t.phantom) == (1, 1, 0, 0)
