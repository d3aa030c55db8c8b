"""The next game from the table (review "growth" f05): a finished game's journal is set
aside when the table starts again, and holding CONFIRM at game over stops the table for
it; it took a shell to move the journal away after every game of a season."""

from __future__ import annotations

import errno
import json
import os
import re
from pathlib import Path
from typing import Any

import pytest

from controller.config import Config, parse_config
from controller.daemon.finished import SetAsideError, aside_name, set_aside, unpublished
from controller.daemon.journals import StartError, resume_or_start
from controller.game.events import ClockPaused
from controller.game.journal import JournalCorruptError
from controller.game.session import TableGame
from controller.game.simulate import load_game_data, play_game
from controller.game.state import Phase
from controller.gamedata.datadir import init_data_dir
from controller.publish.outbox import MARK_SUFFIX, JournalReader
from controller.storage.origin import ContradictionError
from controller.table.companion import CompanionTable
from controller.table.controller import TableController
from controller.table.entry import FaultSource
from controller.table.paused import NEXT_GAME, NEXT_GAME_HINT
from hardware.controls.events import ButtonName, ButtonPressed
from hardware.displays.companion import render as render_companion
from hardware.displays.font import SMALL
from hardware.displays.renderers import NEXT_GAME_KEYS
from hardware.displays.screens import render
from tests.hardware.displays.helpers import shows

HOLD_OK = ButtonPressed(ButtonName.CONFIRM, long=True)


def _finished(journal: Path, player: str = "table") -> tuple[dict[str, Any], str]:
    """A table's config on ``journal``, whose game ``player`` plays to its end; its id."""
    config = {"table": {"journal": str(journal), "players": 2, "length": "rounds5"}}
    data = load_game_data()
    held = resume_or_start(parse_config(config), data, seed=3, player=player)
    assert isinstance(held, TableGame)
    with held:
        play_game(held.config, data, 3, submit=held.submit)
        assert held.state.phase is Phase.OVER
        return config, held.journal.game_id


@pytest.mark.timeout(120)
def test_a_finished_game_is_set_aside_and_the_next_one_starts(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    journal = tmp_path / "table.sqlite"
    config, first = _finished(journal)
    # the publisher's mark: the broker acknowledged up to row 5 (review diff15 f03)
    mark = journal.with_name(journal.name + MARK_SUFFIX)
    mark.write_text(json.dumps({"game_id": first, "acked": 5}))
    rows = JournalReader(journal)
    unsent = rows.last_seq() - 5
    assert unpublished(journal, first, published=False) == unsent  # its mark says so
    mark.rename(tmp_path / "aside")  # published, and the broker acknowledged nothing
    assert unpublished(journal, first, published=True) == rows.last_seq()
    assert unpublished(journal, first, published=False) == 0  # never published at all
    (tmp_path / "aside").rename(mark)
    rows.close()
    data = load_game_data()
    with resume_or_start(parse_config(config), data) as held:  # `game`-less: resumed, over
        assert held.state.phase is Phase.OVER
    with resume_or_start(parse_config(config), data, next_after_over=True) as held:
        assert isinstance(held, TableGame) and held.journal.game_id != first
        assert held.state.phase is Phase.FIRST_PLAYER and held.journal.path == journal
    said = [r.getMessage() for r in caplog.records if r.levelname == "WARNING"]
    assert any(f"never had the last {unsent} events" in m for m in said)
    kept = tmp_path / f"table-{first[:12]}.sqlite"
    assert kept.exists() and kept.with_name(kept.name + MARK_SUFFIX).exists()
    with TableGame.resume(kept) as again:  # whole, and still the finished game
        assert again.journal.game_id == first and again.state.phase is Phase.OVER
    assert aside_name(journal, first) == tmp_path / f"table-{first[:12]}-2.sqlite"
    assert aside_name(journal, "../../etc") == tmp_path / "table-etc.sqlite"


def test_a_journal_that_cannot_be_moved_says_where_and_what_to_do(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    journal = tmp_path / "t.sqlite"
    journal.write_bytes(b"")

    def read_only(src: object, dst: object) -> None:  # a folder the service cannot write
        raise PermissionError(errno.EACCES, "Permission denied")

    monkeypatch.setattr(os, "replace", read_only)
    with pytest.raises(SetAsideError, match=r"cannot move the finished game .*t\.sqlite "
                       r"aside to t-g1\.sqlite: Permission denied: move it away by hand"):  # fmt: skip
        set_aside(journal, "g1")
    assert journal.exists()


@pytest.mark.timeout(120)
def test_holding_confirm_at_game_over_stops_the_table_for_the_next_game(tmp_path: Path) -> None:
    journal = tmp_path / "table.sqlite"
    _finished(journal)
    with TableGame.resume(journal) as game:
        table = TableController(game)
        view = table.render()
        assert view.over and shows(render(view, "turn", (128, 64)), NEXT_GAME_KEYS, SMALL)
        table.on_button(HOLD_OK)  # nothing starts a table again here (the demo): said
        assert table.faults[FaultSource.RULES] == NEXT_GAME_HINT
        asked: list[bool] = []
        table.on_next_game = lambda: asked.append(True)
        table.on_button(ButtonPressed(ButtonName.CONFIRM))  # a short press does nothing
        assert asked == []
        table.on_button(HOLD_OK)
        assert asked == [True]
        assert table.pause().prompt == NEXT_GAME


@pytest.mark.timeout(120)
def test_the_next_game_is_the_one_the_config_sets_up_now(tmp_path: Path) -> None:
    """Players changed in the config after the game was over: the table refused to start
    ("holds a game of 2 players ... move the journal away"): review diff15 f02."""
    journal = tmp_path / "table.sqlite"
    config, first = _finished(journal)
    config["table"]["players"] = 3
    with pytest.raises(StartError, match="move the journal away"):  # a game under way: kept
        resume_or_start(parse_config(config), load_game_data())
    with resume_or_start(parse_config(config), load_game_data(), next_after_over=True) as held:
        assert isinstance(held, TableGame) and held.journal.game_id != first
        assert len(held.config.players) == 3


def _owners_table(mine: Path, journal: Path) -> Config:
    """A table's config on ``journal`` playing the owner's own data set, made in ``mine``."""
    init_data_dir(mine)
    table = {"journal": str(journal), "players": 2, "length": "rounds5", "data_dir": str(mine)}
    return parse_config({"table": table})


def _raise_combo_damage(mine: Path) -> str:
    """Raise every combo's damage in the data set ``mine`` by 4; its warriors file before."""
    warriors = mine / "warriors.toml"
    text = warriors.read_text(encoding="utf-8")
    raised = re.sub(r"damage = (\d+)", lambda m: f"damage = {int(m[1]) + 4}", text)
    warriors.write_text(raised, encoding="utf-8")
    return text


@pytest.mark.timeout(120)
def test_a_finished_game_gives_way_to_data_changed_since(tmp_path: Path) -> None:
    """The owner raised the combos' damage after the game was over: the table refused to
    start (the finished game's replay needs the data it was played with), exit 2, and
    systemd does not restart it; its end is the journal's record, though the game does
    not even replay on the new data (review diff23 f01)."""
    mine, journal = tmp_path / "data", tmp_path / "table.sqlite"
    config = _owners_table(mine, journal)
    with resume_or_start(config, seed=3) as held:
        assert isinstance(held, TableGame)
        play_game(held.config, held.data, 3, submit=held.submit)
        first = held.journal.game_id
    _raise_combo_damage(mine)
    with pytest.raises(ContradictionError, match=r"warriors\.toml changed"):  # resumed: refused
        resume_or_start(config)
    with pytest.raises(JournalCorruptError, match="does not replay"):  # nor replays on it
        TableGame.resume(journal, load_game_data(mine), writable=False)
    with resume_or_start(config, next_after_over=True) as held:
        assert isinstance(held, TableGame) and held.journal.game_id != first
        assert held.state.phase is Phase.FIRST_PLAYER
    assert (tmp_path / f"table-{first[:12]}.sqlite").exists()


class _StoppedError(Exception):
    """The table stopped here."""


@pytest.mark.timeout(120)
def test_a_game_under_way_that_new_data_would_end_is_still_refused(tmp_path: Path) -> None:
    """Round 5 under way, the owner then raised every combo's damage: replayed on the new
    data its last attack ends the game, and the start set it aside as over and began
    another (review diff22 f01). Only the end the journal recorded as played counts."""
    mine, journal = tmp_path / "data", tmp_path / "table.sqlite"
    config = _owners_table(mine, journal)
    with resume_or_start(config, seed=1) as held:
        assert isinstance(held, TableGame)

        def until_134(event: Any) -> Any:
            if len(held.journal) == 134:
                raise _StoppedError
            return held.submit(event)

        with pytest.raises(_StoppedError):
            play_game(held.config, held.data, 18, submit=until_134)
        assert held.state.phase is not Phase.OVER and held.state.round == 5
    text = _raise_combo_damage(mine)
    with TableGame.resume(journal, load_game_data(mine), writable=False) as look:
        assert look.state.phase is Phase.OVER  # what the new data makes of it
    with pytest.raises(ContradictionError, match=r"warriors\.toml changed"):
        resume_or_start(config, next_after_over=True)
    assert sorted(p.name for p in tmp_path.glob("table*")) == ["table.sqlite"]
    (mine / "warriors.toml").write_text(text, encoding="utf-8")
    with TableGame.resume(journal, writable=False) as kept:  # whole, as it was
        assert kept.state.phase is not Phase.OVER and len(kept.journal) == 134


def test_an_end_undone_is_no_end_recorded(tmp_path: Path) -> None:
    """The journal records the row that ended the game; a game over then undone (UNDO
    at the table, `game undo`) is not over as played, and ended again it is."""
    journal = tmp_path / "table.sqlite"
    _finished(journal)
    with TableGame.resume(journal) as game:
        assert game.journal.over_as_played()
        ending = game.undo()
        assert game.state.phase is not Phase.OVER and not game.journal.over_as_played()
        again = game.submit(ending)
        assert again.phase is Phase.OVER and game.journal.over_as_played()
        game.submit(ClockPaused(1.0))  # the table stopped after: still the end as played
        assert game.journal.over_as_played()


def _won_challengers(
    journal: Path, player: str = "table", seed: int | None = None, **more: Any
) -> dict[str, Any]:
    """A table's config of a Challengers game on ``journal`` (and ``more`` sections), won
    by Ann at the table (played by ``player``, with ``seed``)."""
    config = {"table": {"journal": str(journal), "players": 2, "mode": "challengers"}, **more}
    held = resume_or_start(parse_config(config), companion_at=journal, names=("Ann", "Bob"),
                           seed=seed, player=player)  # fmt: skip
    assert isinstance(held, CompanionTable)
    with held:
        for r in range(1, 8):
            held.submit(None, {"do": "match", "round": r, "winner": "Ann", "loser": "Bob"})
        assert held.submit("Ann", {"do": "final", "winner": "Ann"}) is None
        assert held.winner == "Ann"
    return config


def test_a_won_companion_game_is_set_aside_and_the_next_one_starts(tmp_path: Path) -> None:
    """Review diff15 f08: a companion mode had no next game from the table; the won
    game was resumed, over, at every start."""
    journal = tmp_path / "companion.sqlite"
    config = _won_challengers(journal)
    with CompanionTable.resume(journal) as won:
        first = won.journal.game_id
    with resume_or_start(parse_config(config), companion_at=journal) as held:
        assert isinstance(held, CompanionTable) and held.winner == "Ann"  # kept without asking
    config["table"]["players"] = 3  # set up otherwise since: the next game is that one
    with pytest.raises(StartError, match="move the journal away"):
        resume_or_start(parse_config(config), companion_at=journal)
    with resume_or_start(parse_config(config), companion_at=journal, next_after_over=True) as held:
        assert isinstance(held, CompanionTable) and held.winner is None
        assert held.journal.game_id != first and len(held.players) == 3
    with CompanionTable.resume(tmp_path / f"companion-{first[:12]}.sqlite") as kept:
        assert kept.journal.game_id == first and kept.winner == "Ann"


def test_a_companion_game_under_way_is_resumed_not_set_aside(tmp_path: Path) -> None:
    journal = tmp_path / "companion.sqlite"
    config = {"table": {"journal": str(journal), "players": 2, "mode": "challengers"}}
    with resume_or_start(parse_config(config), companion_at=journal, names=("Ann", "Bob")) as held:
        assert isinstance(held, CompanionTable)
        held.submit(None, {"do": "match", "round": 1, "winner": "Ann", "loser": "Bob"})
        first = held.journal.game_id
    with resume_or_start(parse_config(config), companion_at=journal, next_after_over=True) as held:
        assert isinstance(held, CompanionTable) and held.journal.game_id == first
        assert held.history == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == ["companion.sqlite"]


def test_holding_confirm_once_a_companion_game_is_won_stops_for_the_next(tmp_path: Path) -> None:
    journal = tmp_path / "companion.sqlite"
    _won_challengers(journal)
    with CompanionTable.resume(journal) as table:
        view = table.view()
        assert shows(render_companion(view, "choice", (128, 32)), NEXT_GAME_KEYS, SMALL)
        table.handle(HOLD_OK)  # nothing starts the table again here: said
        assert table.view().last == NEXT_GAME_HINT
        asked: list[bool] = []
        table.on_next_game = lambda: asked.append(True)
        table.handle(ButtonPressed(ButtonName.CONFIRM))  # a short press does nothing
        assert asked == []
        table.handle(HOLD_OK)
        assert asked == [True]
        table.pause()
        stopped = table.view()
        assert stopped.next_game
        assert shows(render_companion(stopped, "status", (128, 64)), "NEXT GAME", SMALL)
        assert shows(render_companion(stopped, "choice", (128, 64)), "game over", SMALL)


@pytest.mark.timeout(120)
def test_another_programs_finished_game_is_not_set_aside_as_the_tables(tmp_path: Path) -> None:
    """A journal the demo played to its end, or won, is set aside for the next game only
    as the game the config sets up: set up otherwise, the table refuses it and leaves it
    where it is (it is not the table's to move)."""
    journal = tmp_path / "table.sqlite"
    config, _ = _finished(journal, player="demo")
    config["table"]["players"] = 3
    with pytest.raises(StartError, match="move the journal away"):
        resume_or_start(parse_config(config), load_game_data(), next_after_over=True)
    companion = tmp_path / "companion.sqlite"
    setup = _won_challengers(companion, player="demo")
    setup["table"]["players"] = 3
    with pytest.raises(StartError, match="move the journal away"):
        resume_or_start(parse_config(setup), companion_at=companion, next_after_over=True)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["companion.sqlite", "table.sqlite"]


def test_the_next_companion_game_is_of_the_players_the_config_names_now(tmp_path: Path) -> None:
    """[events] players named otherwise once the game was won: the next game is theirs
    (a game under way would be refused: names are a new game's)."""
    journal = tmp_path / "companion.sqlite"
    events = {"broker": "mqtt://127.0.0.1:1", "table_id": "t1", "players": ["Ann=a", "Bob=b"]}
    config = _won_challengers(journal, events=events)
    config["events"] = {**events, "players": ["Cid=c", "Dan=d"]}
    with pytest.raises(StartError, match="names are a new game's"):
        resume_or_start(parse_config(config), companion_at=journal)
    with resume_or_start(parse_config(config), companion_at=journal, next_after_over=True) as held:
        assert isinstance(held, CompanionTable) and held.players == ("Cid", "Dan")


def test_a_won_companion_game_never_published_is_set_aside_without_a_word_of_the_broker(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """No [events]: no broker ever had the game, so none is said to have missed its end;
    and the next game has a seed of its own, not the one given for the won game."""
    journal = tmp_path / "companion.sqlite"
    config = _won_challengers(journal, seed=7)
    with resume_or_start(
        parse_config(config), companion_at=journal, seed=7, next_after_over=True
    ) as held:
        assert isinstance(held, CompanionTable) and held.winner is None
        assert held.journal.origin.seed != 7
    assert not [r for r in caplog.records if r.levelname == "WARNING"]


def test_a_finished_game_s_name_and_its_unsent_rows_at_their_edges(tmp_path: Path) -> None:
    """A game id with no letter or digit still gives the finished journal a name of its
    own (``-game``); a publish mark past the journal's end (a journal put back from an
    older copy) leaves no rows unsent, not fewer than none."""
    journal = tmp_path / "companion.sqlite"
    assert aside_name(journal, "../..") == tmp_path / "companion-game.sqlite"
    _won_challengers(journal)
    with CompanionTable.resume(journal) as won:
        game_id = won.journal.game_id
    rows = JournalReader(journal)
    last = rows.last_seq()
    rows.close()
    mark = journal.with_name(journal.name + MARK_SUFFIX)
    mark.write_text(json.dumps({"game_id": game_id, "acked": last + 5}))
    assert unpublished(journal, game_id, published=True) == 0
