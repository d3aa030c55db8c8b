"""The daemon resumes a game from its journal alone: the seed the journal recorded drives
the table, and a seed or data set that contradicts the journal is refused untouched."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from controller.config import parse_config
from controller.core.errors import IllegalActionError
from controller.core.kinds import GameKind
from controller.daemon.held_problem import held_game_problem
from controller.daemon.journals import (
    StartError,
    open_companion_table,
    recorded_seed,
    resume_or_start,
)
from controller.daemon.tables import table_seed
from controller.game import engine
from controller.game.session import TableGame, run_journaled
from controller.gamedata import DEMO_DIR
from controller.gamedata.bundle import load_game_data
from controller.storage.origin import ContradictionError, data_fingerprint


def test_a_new_game_records_a_seed_and_a_resume_keeps_it(tmp_path: Path) -> None:
    config = parse_config({"table": {"journal": str(tmp_path / "t.sqlite"), "players": 2}})
    with resume_or_start(config, load_game_data(), seed=None) as held:
        chosen = recorded_seed(held)  # the clock's time, written down
        assert chosen is not None
        assert isinstance(held, TableGame)
        assert held.origin.data_fingerprint == data_fingerprint(DEMO_DIR)
    with resume_or_start(config, load_game_data()) as held:  # the daemon restarted
        assert recorded_seed(held) == chosen
    assert table_seed(chosen, 99) == chosen  # the journal's seed drives the table, not the option
    assert table_seed(None, 99) == 99  # an older journal: the option's
    with pytest.raises(ContradictionError, match=f"--seed {chosen + 1} contradicts"):
        resume_or_start(config, load_game_data(), seed=chosen + 1)


def test_a_config_naming_another_data_set_is_refused_untouched(tmp_path: Path) -> None:
    shutil.copytree(DEMO_DIR.parent, tmp_path / "data")
    other = tmp_path / "data" / DEMO_DIR.name
    journal = tmp_path / "t.sqlite"
    config = parse_config({"table": {"journal": str(journal), "data_dir": str(other)}})
    resume_or_start(config, load_game_data(other), seed=4).close()
    warriors = other / "warriors.toml"
    warriors.write_text(warriors.read_text(encoding="utf-8") + "\n# edited\n", encoding="utf-8")
    resume_or_start(config, load_game_data(other)).close()  # a comment: the same data
    text = warriors.read_text(encoding="utf-8")
    warriors.write_text(text.replace("dodge = 5", "dodge = 4", 1), encoding="utf-8")
    before = journal.read_bytes()
    with pytest.raises(ContradictionError) as caught:
        resume_or_start(config, load_game_data(other))
    assert str(caught.value) == (
        f"{journal}: [table] data_dir {other} is not the data the game was played with: "
        "warriors.toml changed (resume with the data the game was played with: restore it "
        "as it was when the game began, or name that data with [table] data_dir)"
    )
    assert journal.read_bytes() == before
    # config check says so before the service is started, and names the file
    assert held_game_problem(config) == (
        f"names {journal}, which the daemon would refuse: [table] data_dir {other} is not the "
        "data the game was played with: warriors.toml changed (resume with the data the game "
        "was played with: restore it as it was when the game began, or name that data with "
        "[table] data_dir)"
    )
    warriors.write_text(text, encoding="utf-8")
    assert held_game_problem(config) is None
    shutil.rmtree(other)
    problem = held_game_problem(config)
    assert problem is not None and "the daemon would refuse" in problem
    assert "data directory not found" in problem


def test_a_companion_journal_records_its_seed(tmp_path: Path) -> None:
    journal = tmp_path / "c.sqlite"
    open_companion_table(GameKind.DBZ_TCG, journal, ["A", "B"], seed=8).close()
    with open_companion_table(GameKind.DBZ_TCG, journal, ["A", "B"]) as table:
        assert recorded_seed(table) == 8
    with pytest.raises(ContradictionError, match="--seed 9 contradicts the journal's 8"):
        open_companion_table(GameKind.DBZ_TCG, journal, ["A", "B"], seed=9)


def test_the_demo_and_game_play_do_not_play_the_tables_own_game(tmp_path: Path) -> None:
    """Review 102: `demo --resume --journal` on the service's journal had its bots play
    the players' game to its end; `game play` did it to a table journal not yet begun."""
    journal = tmp_path / "journal.sqlite"
    config = parse_config({"table": {"journal": str(journal), "players": 2}})
    with resume_or_start(config, load_game_data(), seed=5) as held:  # `toptable run`
        assert isinstance(held, TableGame) and held.origin.played_by == "table"
    before = journal.read_bytes()
    said = (
        f"{journal}: the table's own game (started by `toptable run`): `toptable demo` does "
        "not play it; `toptable run` resumes it, or give `toptable demo` another journal"
    )
    with pytest.raises(ContradictionError, match=re.escape(said)):
        resume_or_start(config, load_game_data(), player="demo")
    with pytest.raises(ContradictionError, match="`toptable game play` does not play it"):
        run_journaled(journal)
    assert journal.read_bytes() == before
    resume_or_start(config, load_game_data()).close()  # the table itself resumes it
    # the demo's own game is the demo's (and the table may take one over)
    other = parse_config({"table": {"journal": str(tmp_path / "d.sqlite"), "players": 2}})
    with resume_or_start(other, load_game_data(), seed=5, player="demo") as held:
        assert isinstance(held, TableGame) and held.origin.played_by == "demo"
    resume_or_start(other, load_game_data(), player="demo").close()
    resume_or_start(other, load_game_data()).close()


def test_players_named_after_the_game_began_are_refused_not_ignored(tmp_path: Path) -> None:
    """Review 102: [events] players added while a game was under way was ignored without a
    word; the scoreboard counted the game to Player 1 and Player 2, not to Ann and Bob."""
    journal = tmp_path / "t.sqlite"
    plain = {"journal": str(journal), "players": 2}
    resume_or_start(parse_config({"table": plain}), load_game_data(), seed=3).close()
    events = {"broker": "mqtt://127.0.0.1:1", "table_id": "t1", "players": ["Ann=ann", "Bob=bob"]}
    named = parse_config({"table": plain, "events": events}, "second.toml")
    with pytest.raises(StartError, match="holds a game of Player 1, Player 2, but second.toml's "
                       r"\[events\] players names Ann, Bob: names are a new game's"):  # fmt: skip
        resume_or_start(named, load_game_data())
    assert held_game_problem(named) is not None  # config check says it first
    same = {**events, "players": ["Player 1=p1", "Player 2=p2"]}  # the same names: resumed
    resume_or_start(parse_config({"table": plain, "events": same}), load_game_data()).close()
    # the same names in another order would pair seats and people otherwise (tests2 d03)
    swapped = parse_config({"table": plain, "events": {**events, "players": [
        "Player 2=p2", "Player 1=p1"]}})  # fmt: skip
    with pytest.raises(StartError, match="players names Player 2, Player 1"):
        resume_or_start(swapped, load_game_data())
    # nor is a game of other variants resumed as the config's (tests2 d02)
    varied = parse_config({"table": {**plain, "variants": ["dodge_needs_every_die"]}})
    with pytest.raises(StartError, match="variants dodge_needs_every_die"):
        resume_or_start(varied, load_game_data())


def test_the_demo_does_not_play_a_companion_table_s_own_game(tmp_path: Path) -> None:
    journal = tmp_path / "companion.sqlite"
    with open_companion_table(GameKind.DBZ_TCG, journal, ("Goku", "Vegeta"), seed=2) as held:
        assert held.journal.origin.played_by == "table"
    with pytest.raises(ContradictionError, match="`toptable demo` does not play it"):
        open_companion_table(GameKind.DBZ_TCG, journal, ("Goku", "Vegeta"), player="demo")
    open_companion_table(GameKind.DBZ_TCG, journal, ("Goku", "Vegeta")).close()


def test_a_companion_tables_players_named_after_it_began_are_refused(tmp_path: Path) -> None:
    """Review 105: the dice game's refusal left the companion modes out."""
    journal = tmp_path / "t.sqlite"
    table = {"journal": str(journal), "players": 2, "mode": "dbz-tcg"}
    resume_or_start(parse_config({"table": table}), seed=3).close()
    events = {"broker": "mqtt://127.0.0.1:1", "table_id": "t1", "players": ["Ann=ann", "Bob=bob"]}
    named = parse_config({"table": table, "events": events}, "second.toml")
    with pytest.raises(StartError, match=r"but second.toml.s \[events\] players names Ann, Bob"):
        resume_or_start(named)
    assert "players names Ann, Bob" in (held_game_problem(named) or "")


def test_config_check_says_the_held_game_does_not_replay(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``config check`` read the held journal's set-up alone: after an upgrade it said OK
    for a journal whose game does not replay by the new rules, and ``run`` refused it
    (review 110). A look: nothing is written to the journal or beside it."""
    journal = tmp_path / "t.sqlite"
    config = parse_config({"table": {"journal": str(journal), "players": 2}})
    resume_or_start(config, load_game_data(), seed=4).close()
    assert held_game_problem(config) is None
    before = sorted(p.name for p in tmp_path.iterdir())

    def not_these_rules(*_: object) -> None:
        raise IllegalActionError("out of turn: seat 1 cannot act now")

    monkeypatch.setattr(engine, "replay", not_these_rules)
    assert held_game_problem(config) == (
        f"names {journal}, which the daemon would refuse: the journal does not replay: out "
        "of turn: seat 1 cannot act now"
    )
    assert sorted(p.name for p in tmp_path.iterdir()) == before
