"""Every whole number of the modes' data has an upper bound a table can play: the largest
allowed value loads, one past it is refused naming the field (from a data file or a
script's ``data``), and a number bounded by another is refused naming both."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from controller.companion import datafile, dbz_tcg
from controller.companion.challengers import load_data as load_challengers
from controller.companion.dbs_tournament import load_data as load_dbs
from controller.companion.dbz_tcg import load_data as load_dbz
from controller.companion.dbz_tcg.model import DECK
from controller.companion.entry import entry_fields
from controller.companion.registry import get_mode
from controller.companion.replay import replay
from controller.core.errors import DataError

TWO = ["Goku", "Vegeta"]
# the bounds, written out: a change to one is a change of what a table may load
MAX_COUNT = 99
MAX_PLAYERS = 8
MAX_BRACKETS = 7
MAX_FLOOR = 60_000_000
Loader = Callable[..., Any]
LOADERS: dict[str, Loader] = {
    "dbz-tcg": load_dbz,
    "dbs-tournament": load_dbs,
    "challengers": load_challengers,
}


def test_the_bounds_are_the_modules_named_constants() -> None:
    from controller.companion.dbz_tcg import model
    from controller.companion.entry import POWER_LEVELS

    assert (datafile.MAX_COUNT, datafile.MAX_PLAYERS) == (MAX_COUNT, MAX_PLAYERS)
    assert (model.MAX_BRACKETS, model.MAX_FLOOR) == (MAX_BRACKETS, MAX_FLOOR)
    assert len(POWER_LEVELS) == MAX_BRACKETS and max(POWER_LEVELS) == MAX_FLOOR


def fans(rounds: int) -> list[int]:
    """A Trophy's fans for each of ``rounds`` rounds, rising as they must (0, 1, 2...)."""
    return list(range(rounds))


# (mode, field, lowest, most, the other fields the largest value needs)
BOUNDED: list[tuple[str, str, int, int, dict[str, Any]]] = [
    ("dbz-tcg", "life_deck", 1, DECK, {}),
    ("dbz-tcg", "levels", 1, MAX_COUNT, {}),
    ("dbz-tcg", "max_stages", 1, MAX_COUNT, {}),
    ("dbz-tcg", "start_level", 1, MAX_COUNT, {"levels": MAX_COUNT}),
    ("dbz-tcg", "start_stages", 0, MAX_COUNT, {"max_stages": MAX_COUNT}),
    ("dbz-tcg", "level_up_stages", 0, MAX_COUNT, {"max_stages": MAX_COUNT}),
    ("dbz-tcg", "anger_to_level", 1, MAX_COUNT, {}),
    ("dbz-tcg", "draw_step_cards", 1, DECK, {}),
    ("dbz-tcg", "combat_draw_cards", 0, DECK, {}),
    ("dbz-tcg", "hand_limit", 0, DECK, {}),
    ("dbz-tcg", "critical_life_cards", 1, DECK, {}),
    ("dbz-tcg", "dragon_balls", 1, DECK, {}),
    ("dbs-tournament", "life", 1, 99, {}),
    ("dbs-tournament", "max_players", 2, MAX_PLAYERS, {}),
    ("dbs-tournament", "min_players", 2, MAX_PLAYERS, {"max_players": MAX_PLAYERS}),
    ("dbs-tournament", "champion_cost_step", 0, MAX_COUNT, {}),
    ("challengers", "rounds", 1, MAX_COUNT, {}),
    ("challengers", "max_players", 2, MAX_PLAYERS, {}),
    ("challengers", "min_players", 2, MAX_PLAYERS, {"max_players": MAX_PLAYERS}),
]


def load(mode: str, data: dict[str, Any]) -> Any:
    """The mode's data with ``data`` as a script's overrides (a rounds override brings
    its Trophies' fans along)."""
    if isinstance(data.get("rounds"), int):
        data = {"trophy_fans": fans(data["rounds"]), **data}
    return LOADERS[mode](data, source="s.json")


def refusal(mode: str, data: dict[str, Any]) -> str:
    with pytest.raises(DataError) as info:
        load(mode, data)
    message = str(info.value)
    assert "\n" not in message
    return message


@pytest.mark.parametrize(
    ("mode", "key", "lowest", "most", "needs"), BOUNDED, ids=[f"{m}-{k}" for m, k, *_ in BOUNDED]
)
def test_the_largest_value_loads_and_one_past_it_is_refused_naming_the_field(
    mode: str, key: str, lowest: int, most: int, needs: dict[str, Any]
) -> None:
    assert getattr(load(mode, {**needs, key: most}), key) == most
    assert refusal(mode, {**needs, key: most + 1}) == (
        f"s.json: data: field '{key}': expected a whole number {lowest}..{most}, got {most + 1}"
    )


@pytest.mark.parametrize(("each", "ok"), [(MAX_COUNT, True), (MAX_COUNT + 1, False)])
def test_a_trophys_fans_are_bounded(each: int, ok: bool) -> None:
    data = {"trophy_fans": [1, 2, 3, 4, 5, 6, each]}
    if ok:
        assert load_challengers(data).trophy_fans[-1] == each
        return
    assert refusal("challengers", data) == (
        f"s.json: data: field 'trophy_fans[6]': expected a whole number 0..{MAX_COUNT}, got {each}"
    )


# --- one number bounded by another ------------------------------------------------------


@pytest.mark.parametrize(
    ("mode", "data", "key", "other", "expected"),
    [
        (
            "dbs-tournament",
            {"min_players": 5, "max_players": 4},
            "min_players",
            "max_players",
            "2..4",
        ),
        ("challengers", {"min_players": 3, "max_players": 2}, "min_players", "max_players", "2..2"),
        ("dbz-tcg", {"levels": 3, "start_level": 4}, "start_level", "levels", "1..3"),
        ("dbz-tcg", {"max_stages": 10, "start_stages": 11}, "start_stages", "max_stages", "0..10"),
        (
            "dbz-tcg",
            {"max_stages": 10, "level_up_stages": 11},
            "level_up_stages",
            "max_stages",
            "0..10",
        ),
        ("dbz-tcg", {"life_deck": 5, "draw_step_cards": 6}, "draw_step_cards", "life_deck", "1..5"),
        ("dbz-tcg", {"life_deck": 5, "hand_limit": 6}, "hand_limit", "life_deck", "0..5"),
        (
            "dbz-tcg",
            {"life_deck": 4, "critical_life_cards": 5},
            "critical_life_cards",
            "life_deck",
            "1..4",
        ),
    ],
)
def test_a_number_past_the_one_it_may_not_exceed_names_both(
    mode: str, data: dict[str, Any], key: str, other: str, expected: str
) -> None:
    got = data[key]
    assert refusal(mode, data) == (
        f"s.json: data: field '{key}': expected a whole number {expected}, got {got} "
        f"(at most {other})"
    )
    load(mode, {**data, key: data[other]})  # equal: allowed


def test_a_wrong_maximum_is_the_only_problem_not_the_numbers_it_bounds() -> None:
    with pytest.raises(DataError) as info:
        load_dbz({"max_stages": 0, "start_stages": 5}, source="s.json")
    assert [str(p) for p in info.value.problems] == [
        "s.json: data: field 'max_stages': expected a whole number 1..99, got 0"
    ]


# --- the attack table ---------------------------------------------------------------------


def attack_table(brackets: int, top_floor: int = 0, cell: int = 1) -> dict[str, Any]:
    """A table of ``brackets`` brackets, its last floor ``top_floor`` (if above the others)
    and ``cell`` the damage of its last row (the top bracket attacking)."""
    floors = list(range(brackets))
    floors[-1] = max(floors[-1], top_floor)
    return {
        "brackets": [chr(ord("A") + i) for i in range(brackets)],
        "floors": floors,
        "damage": [[1] * brackets] * (brackets - 1) + [[cell] * brackets],
    }


@pytest.mark.parametrize(
    ("table", "field", "expected"),
    [
        (attack_table(MAX_BRACKETS + 1), "brackets", f"expected 1..{MAX_BRACKETS} names, got 8"),
        (
            attack_table(6, top_floor=MAX_FLOOR + 1),
            "floors",
            f"expected 6 rising whole numbers 0..{MAX_FLOOR}",
        ),
        (
            attack_table(6, cell=MAX_COUNT + 1),
            "damage[5]",
            f"expected 6 whole numbers 0..{MAX_COUNT}",
        ),
    ],
)
def test_the_attack_table_past_its_bounds_names_the_field(
    table: dict[str, Any], field: str, expected: str
) -> None:
    message = refusal("dbz-tcg", {"attack_table": table})
    assert message.startswith(f"s.json: attack_table: field '{field}': {expected}")


def test_the_attack_table_at_its_bounds_loads() -> None:
    table = attack_table(MAX_BRACKETS, top_floor=MAX_FLOOR, cell=MAX_COUNT)
    loaded = load_dbz({"attack_table": table}).attack_table
    assert len(loaded.brackets) == MAX_BRACKETS and loaded.floors[-1] == MAX_FLOOR
    assert loaded.physical_damage(MAX_FLOOR, 0) == MAX_COUNT


# --- from the data files, and huge values --------------------------------------------------


@pytest.fixture
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for f in datafile.DATA_DIR.glob("*.toml"):
        (tmp_path / f.name).write_text(f.read_text(encoding="utf-8"), encoding="utf-8")
    monkeypatch.setattr(datafile, "DATA_DIR", tmp_path)
    return tmp_path


@pytest.mark.parametrize(
    ("file", "old", "new", "problem"),
    [
        (
            "dbz_tcg.toml",
            "dragon_balls = 7 ",
            "dragon_balls = 1000000000 ",
            "data: field 'dragon_balls': expected a whole number 1..60, got 1000000000",
        ),
        (
            "dbs_tournament.toml",
            "min_players = 2",
            "min_players = 9",
            "data: field 'min_players': expected a whole number 2..8, got 9",
        ),
        (
            "challengers.toml",
            "max_players = 8",
            "max_players = 1000",
            "data: field 'max_players': expected a whole number 2..8, got 1000",
        ),
    ],
)
def test_a_data_file_past_a_bound_names_the_file_and_the_field(
    data_dir: Path, file: str, old: str, new: str, problem: str
) -> None:
    path = data_dir / file
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new, 1), encoding="utf-8")
    loader = {"dbz_tcg.toml": load_dbz, "dbs_tournament.toml": load_dbs}.get(file, load_challengers)
    with pytest.raises(DataError) as info:
        loader()
    assert str(info.value) == f"{path}: {problem}"
    assert path.read_text(encoding="utf-8").count(new) == 1  # the file is left as it was


@pytest.mark.timeout(10)
def test_a_huge_dragon_balls_override_is_refused_at_once_not_listed() -> None:
    # once accepted, the Planning Step listed every free number, 1..10**9: the table hung
    draw = dbz_tcg.MODE.parse_action({"do": "draw", "player": "Goku", "cards": 3}, TWO)
    with pytest.raises(DataError) as info:
        state = dbz_tcg.new_game(TWO, {"dragon_balls": 10**9}, source="s.json")
        dbz_tcg.legal_actions(dbz_tcg.apply(state, draw), "Goku")
    assert str(info.value) == (
        "s.json: data: field 'dragon_balls': expected a whole number 1..60, got 1000000000"
    )
    script = {"players": TWO, "data": {"dragon_balls": 10**30, "levels": 10**30}, "actions": []}
    with pytest.raises(DataError) as info:
        replay("dbz-tcg", script, source="s.json")
    assert [p.field for p in info.value.problems] == ["levels", "dragon_balls"]


# --- house rules the buttons can still play -------------------------------------------------


def test_a_capture_offers_the_opponents_balls_past_the_seven() -> None:
    # dragon_balls = 9: Vegeta's ball 9 is one the buttons must be able to capture
    players = TWO
    state = dbz_tcg.new_game(players, {"dragon_balls": 9})
    for raw in (
        {"do": "draw", "player": "Goku", "cards": 3},
        {"do": "pur", "player": "Goku", "amount": 0},
        {"do": "end_turn"},
        {"do": "draw", "player": "Vegeta", "cards": 3},
        {"do": "dragon_ball", "player": "Vegeta", "number": 9},
        {"do": "pur", "player": "Vegeta", "amount": 0},
        {"do": "end_turn"},
        {"do": "draw", "player": "Goku", "cards": 3},
        {"do": "pur", "player": "Goku", "amount": 0},
        {"do": "declare_combat", "player": "Goku"},
        {"do": "life_damage", "player": "Vegeta", "amount": 5},
    ):
        state = dbz_tcg.apply(state, dbz_tcg.MODE.parse_action(raw, players))
    offer = dbz_tcg.legal_actions(state, "Goku")[0]  # the choice first, then the others
    assert offer.do == "critical"
    fields = {f.key: f.values for f in entry_fields(dbz_tcg.MODE, state, offer, "Goku")}
    assert fields["number"] == (None, 9)
    capture = {"do": "critical", "player": "Goku", "choice": "capture", "number": 9}
    state = dbz_tcg.apply(state, dbz_tcg.MODE.parse_action(capture, players))
    assert state.fighter("Goku").dragon_balls == (9,)


# --- the numbers an action carries ----------------------------------------------------------

MAIN_DECK = 99  # rule text 002: the most life a dbs-tournament player may have
GOKU = {"player": "Goku"}
DBS_START = [
    {"do": "roll", "values": {"Goku": 6, "Vegeta": 1}},
    {"do": "choose_first", "player": "Goku"},
]
# (mode, the action without the number, its field, the least and the most it may be)
ACTION_BOUNDED: list[tuple[str, dict[str, Any], str, int | None, int]] = [
    ("dbs-tournament", {"do": "damage", **GOKU}, "amount", None, MAIN_DECK),
    ("dbs-tournament", {"do": "champion_play", **GOKU}, "base_cost", None, MAX_COUNT),
    ("dbz-tcg", {"do": "draw", **GOKU}, "cards", None, DECK),
    ("dbz-tcg", {"do": "life_damage", **GOKU}, "amount", None, DECK),
    ("dbz-tcg", {"do": "dragon_ball", **GOKU}, "number", None, DECK),
    ("dbz-tcg", {"do": "discard_dragon_ball", **GOKU}, "number", None, DECK),
    ("dbz-tcg", {"do": "critical", **GOKU, "choice": "capture"}, "number", None, DECK),
    ("dbz-tcg", {"do": "pur", **GOKU}, "amount", None, MAX_COUNT),
    ("dbz-tcg", {"do": "stage_damage", **GOKU}, "amount", None, MAX_COUNT),
    ("dbz-tcg", {"do": "pay_stages", **GOKU}, "amount", None, MAX_COUNT),
    ("dbz-tcg", {"do": "anger", **GOKU}, "delta", -MAX_COUNT, MAX_COUNT),
    ("challengers", {"do": "fans", **GOKU}, "amount", None, MAX_COUNT),
    (
        "challengers",
        {"do": "match", "winner": "Goku", "loser": "Vegeta"},
        "round",
        None,
        MAX_COUNT + 1,
    ),
    ("challengers", {"do": "first_player", "players": TWO}, "round", None, MAX_COUNT + 1),
]


@pytest.mark.parametrize(
    ("mode", "action", "field", "least", "most"),
    ACTION_BOUNDED,
    ids=[f"{m}-{a['do']}-{f}" for m, a, f, *_ in ACTION_BOUNDED],
)
def test_an_actions_number_past_what_a_table_can_play_is_refused_naming_the_field(
    mode: str, action: dict[str, Any], field: str, least: int | None, most: int
) -> None:
    """A number typed into a script (or a journal) is bounded when the action is read, as
    the data's are: the rule texts' decks, the data's own bounds (a Life Deck of 60, a
    life of 99, two-digit counts, the final's round after at most 99); under the least,
    the rules refuse it (amounts are positive), as before."""
    parse = get_mode(mode).parse_action
    assert getattr(parse({**action, field: most}, TWO), field) == most
    expected = (
        f"a whole number {least}..{most}" if least is not None else f"a whole number <= {most}"
    )
    for wrong in (most + 1, 10**30, *((least - 1, -(10**30)) if least is not None else ())):
        with pytest.raises(DataError) as info:
            parse({**action, field: wrong}, TWO, source="s.json")
        assert str(info.value) == (
            f"s.json: action ({action['do']}): field '{field}': expected {expected}, got {wrong}"
        )


@pytest.mark.parametrize(
    ("mode", "setup", "action", "reason"),
    [
        ("dbz-tcg", [], {"do": "draw", **GOKU, "cards": -(10**100)}, "drawing {} cards"),
        ("dbs-tournament", DBS_START, {"do": "damage", **GOKU, "amount": -(10**100)},
         "damage of {}"),
        ("challengers", [], {"do": "fans", **GOKU, "amount": -(10**100)}, "{} fans"),
        ("challengers", [], {"do": "match", "round": -(10**100), "winner": "Goku",
                             "loser": "Vegeta"}, "round 1 is being played, not round {}"),
    ],
)  # fmt: skip
def test_a_huge_negative_number_the_rules_refuse_is_shown_in_part(
    mode: str, setup: list[dict[str, Any]], action: dict[str, Any], reason: str
) -> None:
    out = replay(mode, {"players": TWO, "actions": [*setup, action]}, source="s.json")
    assert [r["reason"] for r in out["refused"]] == [
        reason.format(f"{str(-(10**100))[:40]}... (102 characters)")
    ]
