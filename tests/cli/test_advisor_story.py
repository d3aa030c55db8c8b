"""``toptable advise`` in a Story attempt (docs/rules.md §12): the advice is the Advisor's
for the stakes the engine gives at the table (``engine.story_stakes``), and input that
does not fit a Story attempt is one line, exit 2."""

from __future__ import annotations

import json

import pytest

from controller.advisor.advisor import Advice, Advisor
from controller.core.symbols import Symbol
from controller.game import engine
from controller.game.events import ChooseAttack, DiceThrown
from controller.game.state import GameState
from controller.game.story import StorySide, StoryStakes
from controller.gamedata import DEMO_DIR
from controller.gamedata.cards import parse_card_spec
from controller.gamedata.datadir import init_data_dir
from controller.gamedata.warriors import load_warriors
from tests.cli_runner import Run, cli_runner
from tests.game.helpers import build
from tests.paths import SCENARIOS

pytestmark = pytest.mark.timeout(120)

K, P, T = Symbol.KICK, Symbol.PUNCH, Symbol.TELEPORT
GREEN_THROW = (K, K, K, K, K)  # Super Saiyan 3 Son Goku's 5 dice: the sum, 30
RED_THROW = (K, K, K, K, P, T)  # Beerus's 6 dice


@pytest.fixture
def run(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> Run:
    """``toptable`` with only the advisor's commands registered."""
    return cli_runner(monkeypatch, capsys, "controller.cli.advisor")


def _square_1(variants: tuple[str, ...]) -> GameState:
    """Square 1 of a demo Story game (Super Saiyan 3 Son Goku v Beerus), green to throw."""
    sc = {"mode": "story", "players": ["P1", "P2"], "variants": list(variants)}
    return build(sc, SCENARIOS / "game" / "story.toml")


def _table_advice(state: GameState, dice: tuple[Symbol, ...], made: int) -> Advice:
    """The Advisor the table builds for the attempt under way (controller/table/advice.py)."""
    c = state.combat
    stakes = engine.story_stakes(state)
    assert c is not None and c.striker is not None and stakes is not None
    form = c.attacker_form if c.striker == c.attacker else c.defender_form
    advisor = Advisor(
        state.data.fighter(c.striker, form),
        cards=c.cards,
        variants=state.config.variants,
        pool=c.pool,
        rerolls=c.max_rerolls,
        die=state.data.die,
        sum_allowed=engine.sum_allowed(state),
        story=stakes,
    )
    return advisor.advise(dice, made)


def _same(cli: dict[str, object], api: Advice) -> None:
    want = api.to_json()
    assert cli["objective"] == "story" == want["objective"]
    assert cli["choices"] == want["choices"] and cli["best"] == want["best"]
    assert cli["pool"] == want["pool"] and cli["rerolls_left"] == want["rerolls_left"]
    assert api.best.p_win is not None
    assert cli["best"]["p_win"] == round(api.best.p_win, 6)  # type: ignore[index]


def _dice(throw: tuple[Symbol, ...]) -> str:
    return ",".join(str(s) for s in throw)


@pytest.mark.parametrize("variants", [(), ("story_combos_only",)])
def test_green_square_advice_is_the_tables(run: Run, variants: tuple[str, ...]) -> None:
    state = engine.apply(_square_1(variants), DiceThrown(GREEN_THROW))
    extra = [a for v in variants for a in ("--variant", v)]
    code, out, err = run(
        "advise", "--warrior", "Son Goku", "--square", "1", "--dice", _dice(GREEN_THROW),
        "--rerolls-made", "0", "--json", *extra,
    )  # fmt: skip
    assert code == 0, err
    data = json.loads(out)
    _same(data, _table_advice(state, GREEN_THROW, 0))
    assert data["warrior"] == "Super Saiyan 3 Son Goku"  # the square's form
    assert data["story"] == {
        "side": "green", "square": 1, "opponent": "Beerus", "opponent_pool": 6,
        "opponent_rerolls": 3, "opponent_damage": None, "cards": ["Square 1 Combo"],
        "sum_allowed": not variants,
    }  # fmt: skip


@pytest.mark.parametrize("variants", [(), ("story_combos_only",)])
def test_red_square_advice_is_the_tables(run: Run, variants: tuple[str, ...]) -> None:
    green = engine.apply(_square_1(variants), DiceThrown(GREEN_THROW))
    option = "sum" if not variants else "no combo"
    red = engine.apply(engine.apply(green, ChooseAttack(0, option)), DiceThrown(RED_THROW))
    stakes = engine.story_stakes(red)
    assert stakes is not None and stakes.side is StorySide.RED
    made = str(stakes.other_damage)
    code, out, err = run(
        "advise", "--warrior", "Beerus", "--square", "1", "--opponent-damage", made,
        "--dice", _dice(RED_THROW), "--rerolls-made", "1", "--json", *[
            a for v in variants for a in ("--variant", v)],
    )  # fmt: skip
    assert code == 0, err
    data = json.loads(out)
    _same(data, _table_advice(red, RED_THROW, 1))
    assert data["story"]["opponent_damage"] == stakes.other_damage


def test_typed_stakes_match_the_advisor_api(run: Run) -> None:
    """Without --square: the side, the other warrior in its form and the square's combo
    typed; the same advice as Advisor(..., story=StoryStakes(...)) for those stakes."""
    roster = load_warriors(DEMO_DIR / "warriors.toml")
    wf = roster.roster
    combo = "Clash:kick+kick+strength:19"
    other = wf.fighter("Beerus")
    pool, rerolls = engine.attempt_dice(other)
    striker = wf.fighter("Son Goku", "Super Saiyan 3 Son Goku")
    cards = (parse_card_spec(combo),)
    api = Advisor(
        striker, cards=cards, pool=engine.attempt_dice(striker)[0],
        rerolls=engine.attempt_dice(striker)[1], die=roster.die,
        story=StoryStakes(StorySide.GREEN, other, pool, rerolls, cards, None),
    ).advise(GREEN_THROW, 2)  # fmt: skip
    code, out, err = run(
        "advise", "--warrior", "Goku", "--form", "Super Saiyan 3 Son Goku", "--story", "green",
        "--opponent", "Beerus", "--square-combo", combo, "--dice", _dice(GREEN_THROW),
        "--rerolls-made", "2", "--json",
    )  # fmt: skip
    assert code == 0, err
    _same(json.loads(out), api)


def test_text_shows_the_chance_of_taking_the_square(run: Run) -> None:
    code, out, err = run(
        "advise", "--warrior", "Beerus", "--square", "1", "--opponent-damage", "30",
        "--dice", _dice(RED_THROW), "--rerolls-made", "0",
    )  # fmt: skip
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0].startswith("Beerus: 6 dice, 3 rerolls left (0 made) · Story square 1")
    assert "green made 30" in lines[0]
    assert lines[2] == "best: reroll all · P(win) 92% · E 33"  # tests/table: 0.9227
    assert "P(win)" in lines[3] and "P(KO)" not in out
    assert lines[4].startswith("  * reroll all 6") and "92.3%" in lines[4]


BASE = ("advise", "--dice", "kick,kick,kick,kick,kick", "--rerolls-made", "0")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--warrior", "Goku", "--square", "1", "--defender", "Hit"),
         "argument --defender: a Story attempt has no defender"),
        (("--warrior", "Goku", "--square", "1", "--support", "1"),
         "argument --support: a Story attempt throws no support die"),
        (("--warrior", "Goku", "--square", "1", "--no-risk"),
         "argument --no-risk: a Story attempt has nothing coming back to count"),
        (("--warrior", "Goku", "--square", "1", "--objective", "ko"),
         "argument --objective: a Story attempt plays for the square"),
        (("--warrior", "Goku", "--square", "1", "--cards", "X:kick+kick:5"),
         "argument --cards: a Story attempt plays no hand card"),
        (("--warrior", "Goku", "--square", "1", "--opponent-damage", "5"),
         "argument --opponent-damage: green attempts first"),
        (("--warrior", "Beerus", "--square", "1"),
         "argument --opponent-damage: red attempts second: give the damage green's Super "
         "Saiyan 3 Son Goku inflicted (0..40)"),
        (("--warrior", "Beerus", "--square", "1", "--opponent-damage", "41"),
         "argument --opponent-damage: 41, but Super Saiyan 3 Son Goku's best throw makes 40"),
        (("--warrior", "Beerus", "--square", "1", "--opponent-damage", "-1"),
         "argument --opponent-damage: expected a whole number 0..1188"),
        (("--warrior", "Goku", "--square", "14"), "argument --square: expected a Story square 1..13"),
        (("--warrior", "Hit", "--square", "1"),
         "argument --warrior: Hit does not fight on square 1 (Super Saiyan 3 Son Goku (green) "
         "v Beerus (red))"),
        (("--warrior", "Goku", "--square", "1", "--story", "red"),
         "argument --warrior: Son Goku does not fight on square 1 as red"),
        (("--warrior", "Goku", "--square", "1", "--opponent", "Hit"),
         "argument --opponent: Son Goku does not fight Hit on square 1"),
        (("--warrior", "Goku", "--form", "Son Goku", "--square", "1"),
         "argument --form: square 1 has Son Goku as Super Saiyan 3 Son Goku"),
        (("--warrior", "Goku", "--square", "1", "--square-combo", "X:kick+kick:5"),
         "argument --square-combo: --square gives the square's combo"),
        (("--warrior", "Goku", "--opponent", "Beerus"),
         "argument --opponent: a Story attempt needs --story or --square"),
        (("--warrior", "Goku", "--story", "green"),
         "argument --opponent: a Story attempt without --square needs the other side's warrior"),
        (("--warrior", "Goku", "--story", "green", "--opponent", "Goku"),
         "argument --opponent: Son Goku cannot fight himself"),
        (("--warrior", "Goku", "--story", "green", "--opponent-form", "Beerus"),
         "argument --opponent-form: name the other side's warrior with --opponent"),
        (("--warrior", "Goku", "--story", "blue"), "argument --story: invalid choice: 'blue'"),
    ],
)  # fmt: skip
def test_bad_story_input_exits_2_with_one_line(
    run: Run, args: tuple[str, ...], message: str
) -> None:
    code, out, err = run(*BASE, *args)
    assert code == 2
    assert out == ""
    assert len(err.strip().splitlines()) == 1 and message in err, err


def test_square_needs_a_story_file(run: Run, tmp_path) -> None:  # type: ignore[no-untyped-def]
    init_data_dir(tmp_path / "data")  # a self-contained copy of the demo set
    (tmp_path / "data" / "story.toml").unlink()
    tmp_path = tmp_path / "data"
    code, out, err = run(*BASE, "--warrior", "Goku", "--square", "1", "--data", str(tmp_path))
    assert code == 2 and out == ""
    assert (
        err.strip()
        == f"toptable: error: argument --square: {tmp_path} has no story.toml (no Story squares)"
    )
