"""The owner's die is the table's die everywhere: a data set whose ``[die]`` differs from
the standard one (two spheres, no teleport) drives ``roll``, ``advise``, ``odds``, the
table's advisor line, the bots' throws and the synthetic camera."""

from __future__ import annotations

import contextlib
import json
from pathlib import Path

import pytest

from controller.advisor.advisor import Advisor
from controller.advisor.odds import odds
from controller.cli.main import main
from controller.core.errors import InvalidThrowError
from controller.core.kinds import GameKind
from controller.core.symbols import Symbol
from controller.daemon.hardware import TableDevices
from controller.demo.tray import Tray
from controller.game import engine
from controller.game.events import DiceThrown, GameEvent
from controller.game.session import TableGame
from controller.game.simulate import play_game
from controller.game.state import GameConfig, GameState, Length, Phase
from controller.gamedata.bundle import load_game_data
from controller.gamedata.datadir import init_data_dir
from controller.gamedata.warriors import load_warriors
from controller.rules.dice import TOURNAMENT_DIE, Die
from controller.table.advice import AdviceLine
from vision.settings import CameraConfig, CameraSource
from vision.sources.source import SyntheticSource, open_source
from vision.synth.scenes import Renderer

FACES = ("kick", "punch", "sphere", "sphere", "star", "strength")
OWN = Die("two spheres", tuple(Symbol(f) for f in FACES))


@pytest.fixture(scope="module")
def own_data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The demo set with the owner's die: two spheres and no teleport."""
    folder = tmp_path_factory.mktemp("own") / "data"
    init_data_dir(folder)
    warriors = folder / "warriors.toml"
    text = warriors.read_text(encoding="utf-8")
    faces = ", ".join(f'"{f}"' for f in FACES)
    warriors.write_text(f'{text}\n[die]\nname = "two spheres"\nfaces = [{faces}]\n', "utf-8")
    assert load_warriors(warriors).die == OWN
    return folder


def test_the_data_set_carries_its_die(own_data: Path) -> None:
    assert load_game_data(own_data).die == OWN
    assert load_game_data().die == TOURNAMENT_DIE
    with pytest.raises(InvalidThrowError, match="teleport, but no face of the die 'two spheres'"):
        OWN.check_faces([Symbol.KICK, Symbol.TELEPORT])
    OWN.check_faces([Symbol.STAR, Symbol.KICK])


def test_roll_refuses_a_face_the_die_does_not_have(
    own_data: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    throw = ["--warrior", "Kefla", "--dice", "sphere,sphere,punch,punch,kick"]
    assert (
        main(["roll", *throw[:3], "sphere,sphere,punch,punch,teleport", "--data", str(own_data)])
        == 2
    )
    assert "no face of the die 'two spheres'" in capsys.readouterr().err
    assert main(["roll", *throw[:3], "sphere,sphere,punch,punch,teleport"]) == 0  # standard die
    capsys.readouterr()
    assert main(["roll", *throw, "--data", str(own_data), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["best"]["name"] == "Enchainement"


def test_odds_count_on_the_owners_die(own_data: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["odds", "Kefla", "--data", str(own_data), "--json"]) == 0
    own = json.loads(capsys.readouterr().out)
    assert main(["odds", "Kefla", "--json"]) == 0
    standard = json.loads(capsys.readouterr().out)
    fighter = load_game_data(own_data).fighter("Kefla")
    assert own["expected_damage"] == pytest.approx(odds(fighter, die=OWN).expected_damage, abs=0.01)
    assert own["expected_damage"] != pytest.approx(standard["expected_damage"], abs=0.01)
    assert main(["odds", "--all", "--data", str(own_data), "--json"]) == 0
    own_rows = {(r["warrior"], r["form"]): r for r in json.loads(capsys.readouterr().out)}
    assert main(["odds", "--all", "--json"]) == 0
    rows = {(r["warrior"], r["form"]): r for r in json.loads(capsys.readouterr().out)}
    # no teleport on the owner's die: only its star dodges
    assert own_rows["Kefla", None]["p_dodge"] < rows["Kefla", None]["p_dodge"]


def test_advise_counts_on_the_owners_die(
    own_data: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["advise", "--warrior", "Kefla", "--dice", "sphere,kick,kick,star,strength"]
    args += ["--rerolls-made", "0", "--defender", "Cabba", "--json"]
    assert main([*args, "--data", str(own_data)]) == 0
    own = json.loads(capsys.readouterr().out)
    assert main(args) == 0
    standard = json.loads(capsys.readouterr().out)
    data = load_game_data(own_data)
    expected = Advisor(data.fighter("Kefla"), defender=data.fighter("Cabba"), die=OWN).advise(
        (Symbol.SPHERE, Symbol.KICK, Symbol.KICK, Symbol.STAR, Symbol.STRENGTH), 0
    )
    assert own["best"]["expected_damage"] == pytest.approx(expected.best.expected_damage, abs=1e-3)
    assert own["defender"]["p_dodge"] < standard["defender"]["p_dodge"]
    bad = [*args[:4], "sphere,kick,kick,star,teleport", *args[5:], "--data", str(own_data)]
    assert main(bad) == 2
    assert "no face of the die" in capsys.readouterr().err


class _StopError(Exception):
    pass


def test_the_bots_and_the_advisor_line_use_the_owners_die(own_data: Path, tmp_path: Path) -> None:
    data = load_game_data(own_data)
    game = TableGame.start(tmp_path / "j.sqlite", GameConfig(("Ann", "Bob"), Length.ROUNDS5), data)
    line = AdviceLine()
    advised: list[Die] = []

    def submit(event: GameEvent) -> GameState:
        state = game.submit(event)
        attacking = state.phase is Phase.ATTACK and state.combat is not None
        if attacking and state.combat is not None and state.combat.throws and line.update(state):
            assert line.advisor is not None
            advised.append(line.advisor.die)
            if len(advised) >= 3:
                raise _StopError
        return state

    with contextlib.suppress(_StopError):
        play_game(game.config, data, 3, submit=submit)
    thrown = [d for e in game.events() if isinstance(e, DiceThrown) for d in e.dice]
    assert thrown and set(thrown) <= set(OWN.faces)
    assert advised and all(die == OWN for die in advised)
    game.close()


def test_a_story_game_throws_the_owners_die(own_data: Path) -> None:
    data = load_game_data(own_data)
    state = engine.new_game(GameConfig(("Ann", "Bob"), kind=GameKind.STORY), data)
    thrown: list[Symbol] = []

    def submit(event: GameEvent) -> GameState:
        if isinstance(event, DiceThrown):
            thrown.extend(event.dice)
        engine.advance(state, event)
        return state

    out = play_game(state.config, data, 1, submit=submit)
    assert out.state is state and state.story is not None and state.story.over
    assert thrown and set(thrown) <= set(OWN.faces)


def test_the_synthetic_camera_throws_the_faces_it_is_given() -> None:
    faces = (Symbol.STAR, Symbol.STAR, Symbol.KICK)
    renderer = Renderer(seed=2, faces=faces)
    scene = renderer.scene(count=6, cocked=2)
    assert {d.symbol for d in scene.dice} <= set(faces)
    assert {d.second for d in scene.dice if d.cocked} <= set(faces)
    config = CameraConfig(kind=CameraSource.SYNTHETIC, width=320, height=240, dice=4, seed=5)
    source = open_source(config, faces=faces)
    assert isinstance(source, SyntheticSource)
    for _ in range(40):
        assert source.read() is not None
    shown = {d.symbol for f in source.shown for d in f.dice}
    assert shown and shown <= set(faces)


def test_the_demo_tray_throws_the_data_die() -> None:
    tray = Tray(seed=1, faces=OWN.faces)
    tray.open_source(CameraConfig(kind=CameraSource.SYNTHETIC, width=320, height=240))
    assert tray.renderer is not None and tray.renderer.faces == OWN.faces
    assert set(tray.renderer.random_faces(50)) <= set(OWN.faces)


def test_the_daemon_opens_the_synthetic_camera_with_the_data_die() -> None:
    devices = TableDevices.__new__(TableDevices)  # only the camera opener, no devices
    devices.die_faces = OWN.faces
    config = CameraConfig(kind=CameraSource.SYNTHETIC, width=320, height=240)
    source = devices._open_configured_source(config)
    assert isinstance(source, SyntheticSource)
    assert source._renderer.faces == OWN.faces
