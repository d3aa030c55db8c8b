"""``toptable data init``: an owner's own data set, a self-contained copy that checks."""

from __future__ import annotations

import json
import os
import shutil
import stat
import tomllib
from pathlib import Path

import pytest

from controller.cli.main import main
from controller.core.errors import DataError
from controller.gamedata import DEMO_DIR, RULEBOOK_DIR
from controller.gamedata.bundle import load_game_data
from controller.gamedata.datadir import check_data_dir, init_data_dir
from controller.gamedata.warriors import load_warriors


def test_init_copies_the_demo_set_with_its_rulebook_base(tmp_path: Path) -> None:
    mine = tmp_path / "mine"
    done = init_data_dir(mine)
    assert done.check.ok, done.check.problems
    names = {p.as_posix() for p in done.copied}
    assert {"warriors.toml", "board.toml", "cards.toml", "story.toml"} <= names
    assert "rulebook-warriors.toml" in names
    assert "config.toml" not in names and not (mine / "config.toml").exists()
    base = tomllib.loads((mine / "warriors.toml").read_text(encoding="utf-8"))["base"]
    assert base == "rulebook-warriors.toml"
    assert (mine / base).read_bytes() == (RULEBOOK_DIR / "warriors.toml").read_bytes()
    # The comments of the copy name its own base, not the bundled one's path.
    assert "../rulebook/" not in (mine / "warriors.toml").read_text(encoding="utf-8")
    wf = load_warriors(mine / "warriors.toml")
    assert all(Path(f).resolve().is_relative_to(mine.resolve()) for f in wf.files)
    assert sorted(wf.roster) == sorted(load_warriors(DEMO_DIR / "warriors.toml").roster)
    assert load_game_data(mine).board.spaces.keys() == load_game_data().board.spaces.keys()


def test_the_copy_is_self_contained_and_editable(tmp_path: Path) -> None:
    mine = tmp_path / "elsewhere" / "mine"
    init_data_dir(mine)
    moved = tmp_path / "moved"
    mine.rename(moved)  # nothing outside the folder is needed
    warriors = moved / "warriors.toml"
    text = warriors.read_text(encoding="utf-8")
    warriors.write_text(text.replace("invented = true", "invented = false", 1), encoding="utf-8")
    assert check_data_dir(moved).ok
    assert load_warriors(warriors).invented is False
    warriors.write_text(text.replace("dodge = 4", "dodge = 9", 1), encoding="utf-8")
    report = check_data_dir(moved)
    assert not report.ok
    assert any("dodge" in str(p) and str(warriors) in str(p) for p in report.problems)


def test_init_from_an_owners_set_and_a_chain_of_bases(tmp_path: Path) -> None:
    # An owner's set whose warriors complete a base two folders away, which
    # itself completes the bundled rulebook: both bases come along.
    shared = tmp_path / "shared"
    shared.mkdir()
    (shared / "warriors.toml").write_text(
        f'base = "{(RULEBOOK_DIR / "warriors.toml").as_posix()}"\n'
        + (DEMO_DIR / "warriors.toml").read_text(encoding="utf-8").split("invented = true", 1)[1],
        encoding="utf-8",
    )
    owner = tmp_path / "owner"
    owner.mkdir()
    (owner / "warriors.toml").write_text(
        '# mine, on top of ../shared/warriors.toml\nbase = "../shared/warriors.toml"\n'
        "invented = true\n",
        encoding="utf-8",
    )
    copy = tmp_path / "copy"
    done = init_data_dir(copy, owner)
    assert done.check.ok, done.check.problems
    assert [b for _, b in done.rebased] == ["shared-warriors.toml", "rulebook-warriors.toml"]
    assert "../shared" not in (copy / "warriors.toml").read_text(encoding="utf-8")
    files = load_warriors(copy / "warriors.toml").files
    assert [Path(f).name for f in files] == [
        "rulebook-warriors.toml",
        "shared-warriors.toml",
        "warriors.toml",
    ]
    assert "--  board.toml: absent (needed for a game)" in done.check.lines


@pytest.mark.parametrize("base", ["rulebook-v2.toml", "../elsewhere/rulebook.toml"])
def test_init_from_a_set_whose_base_is_missing_names_the_field(tmp_path: Path, base: str) -> None:
    """A base inside the set that is not there was read as the next link of the chain:
    "cannot read", naming neither the file nor the field (`data check` names both)."""
    owner = tmp_path / "owner"
    owner.mkdir()
    (owner / "warriors.toml").write_text(f'base = "{base}"\ninvented = true\n', encoding="utf-8")
    done = init_data_dir(tmp_path / "copy", owner)
    [problem] = done.check.problems
    assert (problem.field, Path(problem.file).name) == ("base", "warriors.toml")
    assert f"names '{base}', which is no file" in problem.message


def test_init_refuses_a_non_empty_directory(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("mine", encoding="utf-8")
    with pytest.raises(DataError, match="already exists and is not empty"):
        init_data_dir(tmp_path)
    assert [p.name for p in tmp_path.iterdir()] == ["notes.txt"]
    empty = tmp_path / "empty"
    empty.mkdir()
    assert init_data_dir(empty).check.ok  # an empty directory is fine
    with pytest.raises(DataError, match="not a data directory"):
        init_data_dir(tmp_path / "new", tmp_path)
    with pytest.raises(DataError, match="inside"):
        init_data_dir(empty / "sub", empty)


def test_data_init_command(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    mine = tmp_path / "mine"
    assert main(["data", "init", str(mine)]) == 0
    out = capsys.readouterr().out
    assert 'warriors.toml: base = "rulebook-warriors.toml" (copied beside it)' in out
    assert "ok  story.toml: 13 squares (INVENTED)" in out
    assert f"{mine}: all data valid" in out
    assert main(["data", "check", str(mine)]) == 0
    capsys.readouterr()
    assert main(["data", "init", str(mine)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [
        f"toptable: error: {mine}: already exists and is not empty; name a new directory"
    ]


def test_init_refuses_a_link_that_loops_and_leaves_nothing(tmp_path: Path) -> None:
    source = tmp_path / "mine"
    init_data_dir(source)
    (source / "loop").symlink_to(source)  # copied as a folder, it would hold itself
    with pytest.raises(DataError) as err:
        init_data_dir(tmp_path / "copy", source)
    assert str(err.value) == (
        f"{source / 'loop'}: a link back to {source.resolve()}, which holds it: its copy would "
        "never end (remove the link)"
    )
    assert sorted(p.name for p in tmp_path.iterdir()) == ["mine"]


@pytest.mark.parametrize("base", ["", "   ", "../rulebook/warriors.toml\u0000"])
def test_a_base_that_names_no_file_is_named(tmp_path: Path, base: str) -> None:
    mine = tmp_path / "mine"
    init_data_dir(mine)
    warriors = mine / "warriors.toml"
    text = warriors.read_text(encoding="utf-8")
    line = next(t for t in text.splitlines() if t.startswith("base"))
    warriors.write_text(text.replace(line, f"base = {json.dumps(base)}"), encoding="utf-8")
    check = check_data_dir(mine)
    assert [str(p) for p in check.problems] == [
        f"{warriors}: field 'base': expected a path relative to this file"
    ]


def test_a_base_the_copy_cannot_rewrite_is_named_and_nothing_is_left(tmp_path: Path) -> None:
    # a triple-quoted base is valid TOML; rewritten as one quoted pair it made the copy
    # "not valid TOML"
    shutil.copytree(DEMO_DIR.parent, tmp_path / "data")
    source = tmp_path / "data" / DEMO_DIR.name
    warriors = source / "warriors.toml"
    text = warriors.read_text(encoding="utf-8")
    line = next(t for t in text.splitlines() if t.startswith("base"))
    warriors.write_text(text.replace(line, 'base = """../rulebook/warriors.toml"""'), "utf-8")
    assert check_data_dir(source).ok  # as it is, it reads
    with pytest.raises(DataError) as err:
        init_data_dir(tmp_path / "copy", source)
    assert str(err.value) == (
        f"{warriors}: field 'base': cannot rewrite: expected a line base = \"...\" (one quoted "
        "path)"
    )
    assert sorted(p.name for p in tmp_path.iterdir()) == ["data"]


def test_a_data_file_that_is_a_broken_link_is_named_not_called_absent(tmp_path: Path) -> None:
    """Review 94: a board.toml linking to itself and a story.toml linking to nothing were
    said "absent", and the check passed."""
    data = tmp_path / "data"
    init_data_dir(data)
    (data / "board.toml").unlink()
    (data / "board.toml").symlink_to("board.toml")
    (data / "story.toml").unlink()
    (data / "story.toml").symlink_to(tmp_path / "gone" / "story.toml")
    report = check_data_dir(data)
    assert [str(p) for p in report.problems] == [
        f"{data / 'board.toml'}: a symbolic link that loops back on itself: point it at the "
        "file, or remove it",
        f"{data / 'story.toml'}: a symbolic link to {tmp_path / 'gone' / 'story.toml'}, which "
        "does not exist: point it at the file, or remove it",
    ]
    assert len(report.for_a_game()) == 2  # not said again as missing


def test_a_new_data_folder_is_made_as_mkdir_makes_one(tmp_path: Path) -> None:
    """mkdtemp's 0700 stayed on the folder: made by root in /etc/toptable, the service's
    own user could not read it (review 107)."""
    mask = os.umask(0o022)
    try:
        init_data_dir(tmp_path / "data")
    finally:
        os.umask(mask)
    assert stat.S_IMODE((tmp_path / "data").stat().st_mode) == 0o755
