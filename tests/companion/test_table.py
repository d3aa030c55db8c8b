"""The companion modes at the table: button flows, refusals, undo, the journal, resume, screens."""

from __future__ import annotations

import dataclasses
import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from controller.companion.base import Offer, parse_action
from controller.companion.bots import CompanionBot, Decision, Undo
from controller.companion.entry import build_action, enterable, entry_fields, label
from controller.companion.journal import ActionRefused, ActionTaken, CompanionJournal
from controller.companion.registry import get_mode
from controller.core.errors import DataError, UnknownNameError
from controller.core.kinds import GameKind
from controller.storage.journal import JournalError, JournalIOError
from controller.table.companion import CompanionTable, describe
from hardware.controls.events import ButtonName, ButtonPressed, ButtonRepeated, EncoderTurned
from hardware.displays.companion import (
    SCREENS,
    CompanionView,
    companion_cases,
    pick_screen,
    render,
)

pytestmark = pytest.mark.timeout(60)

MODES = {
    "dbs-tournament": ("Ann", "Bob", "Cid"),
    "dbz-tcg": ("Goku", "Vegeta"),
    "challengers": ("Ann", "Bob", "Cid", "Dee"),
}
C, N, U, M = ButtonName.CONFIRM, ButtonName.NEXT, ButtonName.UNDO, ButtonName.MENU


def _table(tmp_path: Path, mode: str, players: tuple[str, ...] | None = None) -> CompanionTable:
    return CompanionTable.new(mode, players or MODES[mode], tmp_path / f"{mode}.sqlite")


def _pick(table: CompanionTable, wanted: str) -> None:
    """Press next until ``wanted`` is selected, then confirm."""
    view = table.view()
    assert wanted in view.options, (wanted, view.options)
    for _ in range((view.options.index(wanted) - view.selected) % len(view.options)):
        table.press(N)
    table.press(C)


def _perform(table: CompanionTable, d: Decision) -> None:
    while table.view().player != d.player:
        table.press(M)
    _pick(table, d.do)
    while table.view().action:
        _pick(table, label(d.answers[table.view().question]))


def _play_by_bots(
    table: CompanionTable, seed: int, views: list[CompanionView] | None = None
) -> int:
    bot = CompanionBot(seed)
    for decisions in range(3000):
        decision = bot.decide(table.mode, table.state, table.history)
        if decision is None:
            return decisions
        if isinstance(decision, Undo):
            table.press(U)
        else:
            _perform(table, decision)
        if views is not None:
            views.append(table.view())
    raise AssertionError("no winner")


# --- a whole game at the table -----------------------------------------------------------


@pytest.mark.parametrize("mode", sorted(MODES))
def test_bots_play_each_mode_to_a_winner_through_the_buttons(tmp_path: Path, mode: str) -> None:
    views: list[CompanionView] = []
    with _table(tmp_path, mode) as table:
        _play_by_bots(table, seed=2, views=views)
        winner = table.winner
        assert winner in MODES[mode]
        assert table.view().winner == winner and table.view().options == ()
        final = table.mode.to_json(table.state)
    # every screen of every view of the game draws, at both sizes
    for view in views[:: max(1, len(views) // 25)] + views[-1:]:
        for name in SCREENS:
            for size in ((128, 64), (128, 32)):
                assert render(view, name, size).getbbox() is not None or name == "refusal"
    # the journal replays to the same end
    with CompanionTable.resume(tmp_path / f"{mode}.sqlite") as again:
        assert again.mode.to_json(again.state) == final


# --- the button flow ---------------------------------------------------------------------


def test_dbs_setup_roll_then_the_chooser_picks_the_first_player(tmp_path: Path) -> None:
    with _table(tmp_path, "dbs-tournament") as t:
        v = t.view()
        assert (v.step, v.player, v.question, v.options) == ("roll", "Ann", "action", ("roll",))
        t.press(C)
        v = t.view()
        assert (v.action, v.question, v.options) == ("roll", "values.Ann", tuple("123456"))
        for _ in range(5):  # Ann rolls 6
            t.press(N)
        t.press(C)
        assert t.view().question == "values.Bob"
        t.press(C)  # Bob 1
        t.press(C)  # Cid 1
        v = t.view()
        assert (v.step, v.player, v.options) == ("choose_first", "Ann", ("choose_first",))
        assert v.last == "Ann: roll Ann 6 Bob 1 Cid 1"
        t.press(C)
        _pick(t, "Bob")
        v = t.view()
        assert (v.step, v.turn, v.player) == ("turn", "Bob", "Bob")
        assert [s.numbers for s in v.seats] == ["L16 E2 C", "L16 E1 C", "L16 E2 C"]
        assert [s.turn for s in v.seats] == [False, True, False]
        assert t.history == 2
        assert v.last == "Ann: choose_first Bob"
        # the turn's own actions come first, the bookkeeping anyone may do after them
        assert v.options == (
            "champion_play",
            "end_turn",
            "damage",
            "deck_out",
            "counter_order",
        )


def test_tie_for_the_highest_roll_asks_only_the_tied_players(tmp_path: Path) -> None:
    with _table(tmp_path, "dbs-tournament") as t:
        t.press(C)
        for _ in range(3):  # everyone rolls 1: all tied
            t.press(C)
        t.press(C)  # again
        assert [t.view().question] == ["values.Ann"]


def test_refusal_shows_the_rule_journals_it_and_clears_on_the_next_press(tmp_path: Path) -> None:
    with _table(tmp_path, "dbs-tournament", ("Ann", "Bob")) as t:
        t.submit("Ann", {"do": "roll", "values": {"Ann": 6, "Bob": 2}})
        t.submit("Ann", {"do": "choose_first", "player": "Ann"})
        for _ in range(2):  # Bob has taken his first turn: Ann may attack him (a target)
            t.submit(None, {"do": "end_turn"})
        state = t.state
        _pick(t, "counter_order")
        assert t.view().question == "kind"
        _pick(t, "play")
        _pick(t, "Bob")  # a [Counter: Play] window has no target
        v = t.view()
        assert v.refusal is not None
        assert v.refusal.rule == "Skill Rules: Counter Windows"
        assert "no target" in v.refusal.reason
        assert pick_screen(v, "choice") == "refusal"
        assert t.state is state and t.refusals == 1
        assert v.options[v.selected] == "counter_order"  # back at the choice, same player
        kinds = [r.kind for r in t.journal.rows()]
        assert kinds == ["action"] * 4 + ["refused"]
        refused = t.journal.rows()[-1].data()
        assert refused["rule"] == "Skill Rules: Counter Windows"
        assert refused["action"] == {
            "do": "counter_order",
            "kind": "play",
            "by": "Ann",
            "target": "Bob",
        }
        t.press(N)
        assert t.view().refusal is None


def test_undo_steps_back_a_field_then_out_then_takes_the_last_action_back(tmp_path: Path) -> None:
    with _table(tmp_path, "dbz-tcg") as t:
        t.press(C)  # the Draw Step: three cards, nothing to ask
        assert (t.history, t.view().step) == (1, "planning")
        _pick(t, "physical_attack")
        assert t.view().question == "attacker_power_level"
        _pick(t, "90000")
        assert t.view().question == "defender_power_level"
        t.press(U)  # back to the attacker's power level, 90000 still selected
        v = t.view()
        assert v.question == "attacker_power_level" and v.options[v.selected] == "90000"
        t.press(U)  # out of the action
        v = t.view()
        assert v.action == "" and v.options[v.selected] == "physical_attack"
        t.press(U)  # the draw is taken back
        assert (t.history, t.view().step, t.undos) == (0, "draw", 1)
        assert t.view().last == "undone: draw Goku 3"
        t.press(U)  # nothing left to undo
        assert t.history == 0
        assert [r.kind for r in t.journal.rows()] == ["action", "undo"]


def test_menu_offers_the_next_player_and_leaves_an_action(tmp_path: Path) -> None:
    with _table(tmp_path, "challengers") as t:
        assert t.view().player == "Ann"
        t.press(M)
        assert t.view().player == "Bob"
        _pick(t, "fans")
        assert t.view().action == "fans"
        t.press(M)  # leave the action, stay with Bob
        assert (t.view().action, t.view().player) == ("", "Bob")
        for _ in range(3):
            t.press(M)
        assert t.view().player == "Ann"  # round the table


def test_attack_offers_the_target_next_to_record_the_damage(tmp_path: Path) -> None:
    with _table(tmp_path, "dbs-tournament", ("Ann", "Bob")) as t:
        for a in (
            {"do": "roll", "values": {"Ann": 6, "Bob": 2}},
            {"do": "choose_first", "player": "Bob"},
            {"do": "end_turn"},
        ):
            assert t.submit(None, a) is None
        assert t.view().player == "Ann"
        _pick(t, "attack")  # Bob is the only target: nothing to ask
        v = t.view()
        assert v.player == "Bob" and "damage" in v.options
        _pick(t, "damage")
        _pick(t, "7")
        assert t.view().seats[1].numbers.startswith("L9 ")


def test_events_from_the_buttons_and_the_encoder(tmp_path: Path) -> None:
    with _table(tmp_path, "challengers") as t:
        assert t.handle(EncoderTurned(2))
        assert t.view().selected == 2
        assert t.handle(EncoderTurned(-1))
        assert t.view().selected == 1
        assert t.handle(ButtonRepeated(ButtonName.NEXT, 1))
        assert t.view().selected == 2
        assert t.handle(ButtonPressed(ButtonName.CONFIRM, long=True))
        assert t.view().action == "match"
        assert not t.handle("something else")
        assert t.presses == 4


def test_a_finished_game_offers_nothing(tmp_path: Path) -> None:
    with _table(tmp_path, "challengers", ("Ann", "Bob")) as t:
        for r in range(1, 8):
            t.submit(None, {"do": "match", "round": r, "winner": "Ann", "loser": "Bob"})
        assert t.view().step == "final"
        assert t.submit("Ann", {"do": "final", "winner": "Ann"}) is None
        v = t.view()
        assert (v.winner, v.options, v.player) == ("Ann", (), None)
        t.press(C)
        t.press(M)
        assert t.history == 8


def test_bad_players_and_modes_write_no_journal(tmp_path: Path) -> None:
    with pytest.raises(DataError, match="needs 2-2 players"):
        CompanionTable.new("dbz-tcg", ["A", "B", "C"], tmp_path / "j.sqlite")
    with pytest.raises(UnknownNameError):
        CompanionTable.new("uno", ["A", "B"], tmp_path / "j.sqlite")
    assert not (tmp_path / "j.sqlite").exists()


# --- the journal and resume --------------------------------------------------------------


def test_resume_after_closing_mid_game_reaches_the_same_state(tmp_path: Path) -> None:
    path = tmp_path / "dbz-tcg.sqlite"
    t = _table(tmp_path, "dbz-tcg")
    bot = CompanionBot(5)
    for _ in range(30):
        d = bot.decide(t.mode, t.state, t.history)
        assert d is not None
        if isinstance(d, Undo):
            t.press(U)
        else:
            _perform(t, d)
    before = (t.mode.to_json(t.state), t.history, t.view().step)
    t.journal.conn.close()  # no orderly close: as if the plug were pulled
    with CompanionTable.resume(path) as again:
        assert (again.mode.to_json(again.state), again.history, again.view().step) == before
        _play_by_bots(again, seed=6)
        assert again.winner is not None


def test_journal_refuses_a_changed_row_a_foreign_file_and_an_existing_path(tmp_path: Path) -> None:
    path = tmp_path / "j.sqlite"
    with _table(tmp_path, "challengers", ("Ann", "Bob")) as t:
        t.submit(None, {"do": "fans", "player": "Ann", "amount": 2})
        t.submit(None, {"do": "fans", "player": "Bob", "amount": 1})
        journal_path = t.journal.path
    with pytest.raises(JournalIOError, match="already exists"):
        CompanionJournal.start(journal_path, GameKind.CHALLENGERS, ["Ann", "Bob"])
    conn = sqlite3.connect(journal_path)
    conn.execute("UPDATE events SET payload = replace(payload, '2', '9') WHERE seq = 1")
    conn.commit()
    conn.close()
    with pytest.raises(JournalError, match="row 1 fails its check"):
        CompanionTable.resume(journal_path)
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE x (a)")
    conn.commit()
    conn.close()
    with pytest.raises(JournalError, match="not a companion journal"):
        CompanionJournal.open(path)
    with pytest.raises(JournalIOError, match="no journal there"):
        CompanionJournal.open(tmp_path / "missing.sqlite")


def test_journal_undo_never_deletes_and_refused_actions_are_not_replayed(tmp_path: Path) -> None:
    mode = get_mode(GameKind.DBZ_TCG)

    def action(raw: dict[str, Any]) -> Any:
        return mode.parse_action(raw, ["A", "B"])

    draw, pur = (
        action({"do": "draw", "player": "A", "cards": 3}),
        action({"do": "pur", "player": "A", "amount": 2}),
    )
    with CompanionJournal.start(tmp_path / "j.sqlite", GameKind.DBZ_TCG, ["A", "B"]) as j:
        j.append(ActionTaken(draw))
        j.append(ActionRefused(action({"do": "pur", "player": "B", "amount": 2}), "rule", "why"))
        j.append(ActionTaken(pur))
        assert j.undo() == pur
        assert j.actions() == [draw]
        assert [r.kind for r in j.rows()] == ["action", "refused", "action", "undo"]
        assert j.rows()[-1].undoes == 3
        assert j.rows()[0].data() == {"do": "draw", "player": "A", "cards": 3}  # the JSON form
    with CompanionJournal.open(tmp_path / "j.sqlite") as j:
        assert j.kind is GameKind.DBZ_TCG and j.actions() == [draw]
        refused = j.events()[1]
        assert isinstance(refused, ActionRefused) and refused.rule == "rule"
    with pytest.raises(JournalError, match="closed"):
        j.append(ActionTaken(draw))


def test_a_format_1_companion_journal_is_upgraded_and_replays(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite"
    with CompanionTable.new(GameKind.CHALLENGERS, ("Ann", "Bob"), path) as t:
        t.submit(None, {"do": "fans", "player": "Ann", "amount": 2})
        game_id = t.journal.game_id
    with sqlite3.connect(path) as conn:  # as format 1 wrote it: the game id in the set-up
        setup = {"mode": "challengers", "players": ["Ann", "Bob"], "data": None, "game_id": game_id}
        conn.execute("DELETE FROM meta WHERE key = 'game_id'")
        conn.execute("UPDATE meta SET value = ? WHERE key = 'setup'", (json.dumps(setup),))
        conn.execute("PRAGMA user_version = 1")
    with CompanionTable.resume(path) as t:
        assert t.journal.game_id == game_id and t.history == 1
    with sqlite3.connect(path) as conn:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == 3
        row = conn.execute("SELECT value FROM meta WHERE key = 'game_id'").fetchone()
        assert row == (game_id,)
        (raw,) = conn.execute("SELECT value FROM meta WHERE key = 'setup'").fetchone()
        assert json.loads(raw)["rules_revision"] == 1  # format 3: the revision written down
    conn.close()


# --- entry, bots, descriptions (pure) ----------------------------------------------------


@pytest.mark.parametrize("mode", sorted(MODES))
def test_bots_reach_a_winner_for_many_seeds_and_only_enter_what_the_buttons_offer(
    mode: str,
) -> None:
    m = get_mode(mode)
    players = MODES[mode]
    for seed in range(1, 9):
        state: Any = m.new_game(players)
        history = [state]
        bot = CompanionBot(seed)
        for _ in range(3000):
            d = bot.decide(m, state, len(history) - 1)
            if d is None:
                break
            if isinstance(d, Undo):
                history.pop()
                state = history[-1]
                continue
            choice = next(c for c in m.legal_actions(state, d.player) if c.do == d.do)
            fields = entry_fields(m, state, choice, d.player)
            assert {f.key for f in fields} == set(d.answers)
            for f in fields:
                assert d.answers[f.key] in f.values
            raw = build_action(m, choice, d.player, d.answers)
            try:
                state = m.apply(state, parse_action(raw, m.actions, players))
            except Exception as exc:  # refusals are fine; nothing else is
                assert type(exc).__name__ == "RuleViolationError", exc
                continue
            history.append(state)
        assert m.to_json(state)["winner"] in players, (mode, seed)


def test_entry_fields_and_build_action() -> None:
    m = get_mode("challengers")
    s = m.new_game(["Ann", "Bob", "Cid"])
    first = next(c for c in m.legal_actions(s, "Ann") if c.do == "first_player")
    fields = entry_fields(m, s, first, "Ann")
    assert [(f.key, f.values) for f in fields] == [("players", ("Bob", "Cid"))]
    assert build_action(m, first, "Ann", {"players": "Cid"}) == {
        "do": "first_player",
        "round": 1,
        "players": ["Ann", "Cid"],
    }
    z = get_mode("dbz-tcg")
    zs = z.new_game(["A", "B"])
    crit = [f for f in z.actions["critical"].__dataclass_fields__]
    assert "number" in crit
    from controller.companion.base import Offer

    fields = entry_fields(
        z, zs, Offer("critical", (("player", ("A",)), ("choice", ("capture",))), ("number",)), "A"
    )
    assert [(f.key, f.values[0]) for f in fields] == [("number", None)]
    assert fields[0].labels[0] == "none"


def test_describe() -> None:
    assert (
        describe("Bob", {"do": "attack", "attacker": "Bob", "target": "Dee"}) == "Bob: attack Dee"
    )
    assert describe(None, {"do": "end_turn"}) == "end_turn"


# --- the screens ------------------------------------------------------------------------


def test_every_companion_screen_renders_at_both_sizes_and_differs() -> None:
    cases = companion_cases()
    assert {c.size for c in cases} == {(128, 64), (128, 32)}
    images = {c.name: c.render() for c in cases}
    for name, image in images.items():
        assert image.getbbox() is not None, f"{name} is blank"
    assert len({im.tobytes() for im in images.values()}) == len(images)
    names = set(images)
    for mode in MODES:
        for screen in ("status", "choice"):
            assert f"companion-{mode}-{screen}_128x64" in names
            assert f"companion-{mode}-{screen}_128x32" in names
    assert "companion-refusal-refusal_128x32" in names


def test_the_gallery_writes_the_companion_screens(tmp_path: Path) -> None:
    from hardware.displays.gallery import every_case, write_cases
    from hardware.displays.view_json import EXAMPLE_STATE, load_view

    items = every_case(load_view(EXAMPLE_STATE))
    companion = [c for c in items if c.name.startswith("companion-")]
    assert len(companion) == len(companion_cases())
    written = write_cases(companion[:2], tmp_path, scale=3)
    assert sorted(p.name for p in written) == sorted(
        [f"{c.name}.png" for c in companion[:2]] + [f"{c.name}@3x.png" for c in companion[:2]]
    )


def test_readme_pictures_exist_for_every_mode() -> None:
    docs = Path(__file__).resolve().parents[2] / "docs" / "screens"
    from PIL import Image

    for mode in MODES:
        with Image.open(docs / f"companion-{mode}.png") as im:
            assert im.size == ((128 * 2 + 4) * 3, 64 * 3)


# --- only what the rules take is offered (review 103) -------------------------------------
SEVEN_BALLS_SPLIT: list[dict[str, Any]] = [
    {"do": "draw", "player": "Goku", "cards": 3},
    *[{"do": "dragon_ball", "player": "Goku", "number": n} for n in (1, 2, 3, 4)],
    {"do": "pur", "player": "Goku", "amount": 1},
    {"do": "end_turn"},
    {"do": "draw", "player": "Vegeta", "cards": 3},
    *[{"do": "dragon_ball", "player": "Vegeta", "number": n} for n in (5, 6, 7)],
]


def test_no_dragon_ball_is_offered_when_all_seven_are_on_the_table(tmp_path: Path) -> None:
    """003 l.114: a ball matching one on the table cannot be played. With the seven split
    (no winner) the entry offered one with no number: the next press failed, and every
    CONFIRM after it, until UNDO."""
    table = _table(tmp_path, "dbz-tcg")
    for action in SEVEN_BALLS_SPLIT:
        player = action.get("player")
        assert table.submit(player if isinstance(player, str) else None, action) is None
    assert table.view().player == "Vegeta"
    assert "dragon_ball" not in table.view().options
    for _ in table.view().options:  # every choice on offer can be opened and left
        table.press(C)
        while table.view().action:
            table.press(U)
        table.press(N)


def test_an_offer_with_no_value_for_a_field_it_needs_is_not_enterable() -> None:
    mode = get_mode(GameKind.DBZ_TCG)
    goku = ("player", ("Goku",))
    assert not enterable(mode, Offer("dragon_ball", (goku, ("number", ()))))
    assert enterable(mode, Offer("dragon_ball", (goku, ("number", (3,)))))
    # an optional field with no value is left to its default (a critical with no capture)
    assert enterable(mode, Offer("critical", (goku, ("choice", ("lower_anger",)), ("number", ()))))


@pytest.mark.parametrize("level", [1, 2, 4])
def test_level_changes_and_costs_offered_are_those_the_rules_take(level: int) -> None:
    """003 l.55 (Levels 1-4) and l.177 (a cost up to the stages held): the buttons offered
    -3..+3 at any Level and costs 1-10 whatever was held; the rules refused the rest."""
    mode = get_mode(GameKind.DBZ_TCG)
    state = mode.new_game(["Goku", "Vegeta"])  # Goku's Draw Step: Vegeta is offered these
    vegeta = dataclasses.replace(state.fighter("Vegeta"), level=level, stages=4)
    state = dataclasses.replace(state, fighters=(state.fighter("Goku"), vegeta))
    offers = {c.do: c for c in mode.legal_actions(state, "Vegeta")}
    offered: dict[str, tuple[int, ...]] = {}
    for do, field in (("level", "delta"), ("pay_stages", "amount")):
        (entry,) = entry_fields(mode, state, offers[do], "Vegeta")
        assert entry.key == field
        offered[do] = tuple(int(v) for v in entry.values if v is not None)
        assert offered[do] and len(offered[do]) == len(entry.values)
        for value in offered[do]:  # each one is taken
            action = build_action(mode, offers[do], "Vegeta", {field: value})
            mode.apply(state, mode.parse_action(action, ["Goku", "Vegeta"]))
    assert {level + d for d in offered["level"]} == set(range(1, 5)) - {level}
    assert offered["pay_stages"] == (1, 2, 3, 4)
