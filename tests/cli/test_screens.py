"""``toptable screens``: every screen as PNG; references only on purpose."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from PIL import Image

from controller.cli import screens as cli_screens
from controller.cli.flags import FlagError
from controller.cli.main import _Parser
from controller.core.errors import DataError
from hardware.displays.view_json import EXAMPLE_STATE
from tests.cli_runner import cli_runner
from tests.paths import SCREEN_REFERENCES as REFERENCE_DIR

pytestmark = [
    pytest.mark.timeout(60),
    # luma.oled's drivers call Image.getdata(), deprecated in Pillow 13: luma's, not ours
    pytest.mark.filterwarnings("ignore:Image.Image.getdata is deprecated:DeprecationWarning"),
]


def _run(*argv: str) -> int:
    parser = _Parser(prog="toptable")
    cli_screens.register(parser.add_subparsers(parser_class=_Parser))
    args = parser.parse_args(list(argv))
    code: int = args.func(args)
    return code


def test_screens_writes_every_screen(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert _run("screens", "--state", str(EXAMPLE_STATE), "--out", str(tmp_path)) == 0
    names = {p.name for p in tmp_path.iterdir()}
    for screen in ("turn", "combat", "options", "teams", "prompt", "errors", "seat-0"):
        assert f"{screen}_128x64.png" in names and f"{screen}_128x32@4x.png" in names
    assert Image.open(tmp_path / "combat_128x64.png").size == (128, 64)
    assert Image.open(tmp_path / "combat_128x64@4x.png").size == (512, 256)
    for mode in ("dbs-tournament", "dbz-tcg", "challengers"):  # the README's companion row
        assert Image.open(tmp_path / f"companion-{mode}.png").size == ((128 * 2 + 4) * 4, 64 * 4)
    assert f"wrote {len(names)} PNGs" in capsys.readouterr().out


def test_screens_without_out_is_a_usage_error() -> None:
    with pytest.raises(FlagError, match="screens render needs --out DIR"):
        _run("screens")


def test_bad_state_names_the_field(tmp_path: Path) -> None:
    state = json.loads(EXAMPLE_STATE.read_text(encoding="utf-8"))
    state["combat"]["speed"] = "warp"
    path = tmp_path / "state.json"
    path.write_text(json.dumps(state), encoding="utf-8")
    with pytest.raises(
        DataError, match=r"state.json: combat: field 'speed': expected one of .*, got 'warp'"
    ):
        _run("screens", "--state", str(path), "--out", str(tmp_path / "out"))


def test_a_fuzzed_state_is_a_one_line_short_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # a key holding a newline broke the error's one line; a 10,000-item list in a number's
    # place was shown whole (and 10,000 unknown keys were 10,000 lines)
    run = cli_runner(monkeypatch, capsys, "controller.cli.screens")
    path = tmp_path / "state.json"
    out = str(tmp_path / "out")
    state = json.loads(EXAMPLE_STATE.read_text(encoding="utf-8"))
    state["zz\nINJ"] = 1
    path.write_text(json.dumps(state), encoding="utf-8")
    code, _, err = run("screens", "--state", str(path), "--out", out)
    assert (code, err.count("\n")) == (2, 1)
    assert err.startswith(f"toptable: error: {path}: field 'zz\\nINJ': unknown key; expected")
    del state["zz\nINJ"]
    state["turn"] = list(range(10_000))
    path.write_text(json.dumps(state), encoding="utf-8")
    code, _, err = run("screens", "--state", str(path), "--out", out)
    assert (code, err) == (
        2,
        f"toptable: error: {path}: field 'turn': expected a whole number 1..9999, "
        "got [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, ... (10000 items)]\n",
    )
    state["turn"] = 1
    state["combat"] |= {f"k{i}": i for i in range(10_000)}
    path.write_text(json.dumps(state), encoding="utf-8")
    code, _, err = run("screens", "--state", str(path), "--out", out)
    assert code == 2 and err.count("\n") == 7 and len(err) < 2_000
    assert err.startswith("toptable: error: 6 problems:\n")
    assert err.split("\n")[-2].startswith(f"  {path}: combat: 9995 more unknown keys; expected")


def test_references_go_where_asked(tmp_path: Path) -> None:
    assert _run("screens", "references", "--out", str(tmp_path)) == 0
    made = sorted(p.name for p in tmp_path.iterdir())
    assert made == sorted(p.name for p in REFERENCE_DIR.glob("*.png"))
    for name in made:  # the committed references are what the code draws now
        assert (tmp_path / name).read_bytes() == (REFERENCE_DIR / name).read_bytes()


def test_play_a_fight_into_a_gif(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    gif = tmp_path / "fight.gif"
    assert _run("screens", "play", "--out", str(gif), "--seconds", "4") == 0
    # the clock screen changes once a simulated second: 4 frames, not 16 ticks
    assert "played 4 simulated seconds on gifanim: 4 frames pushed" in capsys.readouterr().out
    with Image.open(gif) as anim:
        assert anim.size == (128, 64) and getattr(anim, "n_frames", 1) == 4


def test_play_writes_no_gif_over_another_file_nor_into_nowhere(tmp_path: Path) -> None:
    """A GIF was written over any file --out named (notes.txt), and one asked in a folder,
    or as frames in a file, was lost at the emulator's close (or a FileExistsError)."""
    notes = tmp_path / "notes.txt"
    notes.write_text("mine\n", encoding="utf-8")
    cases = [
        ("gifanim", notes, f"argument --out: {notes}: expected a file named .gif"),
        ("gifanim", tmp_path, f"argument --out: {tmp_path} is a folder; expected a .gif file "
         "(or --emulator capture for PNG frames in a folder)"),
        ("capture", notes, f"argument --out: {notes} is a file; capture writes PNG frames to a "
         "folder"),
    ]  # fmt: skip
    for emulator, out, said in cases:
        with pytest.raises(FlagError) as err:
            _run("screens", "play", "--emulator", emulator, "--out", str(out), "--seconds", "1")
        assert str(err.value) == said
    assert notes.read_text(encoding="utf-8") == "mine\n"
    gif = tmp_path / "new" / "fight.GIF"  # its folder made, as for capture
    assert _run("screens", "play", "--out", str(gif), "--seconds", "1") == 0
    assert gif.is_file()
