"""What a journal records of how its game was made: the seed, the data it is played with,
and who plays it.

A journal's set-up (its ``meta`` row ``setup``) holds, beside what each game kind
stores, the seed of the game's own randomness (``seed``: the bots', the simulated
world's, the decks' shuffles) and what identifies the data the game is played with,
all written when the journal is created. A resume needs nothing else; a flag that
says otherwise is refused (:func:`refuse_contradiction`).

The data is recorded file by file (``data_files``: each file the game loads, by name,
with a hash of its content as loaded and, for a file named by its role, its path:
:mod:`controller.gamedata.sources`), compared before a resume replays anything
(:func:`refuse_changed_files`, which names each file that changed, appeared or went
missing). A journal from before that record has only ``data_fingerprint``, a hash of
every data file's bytes in its folder, compared as it always was
(:func:`refuse_other_data`); a new journal writes both, so an older toptable still
compares it its way.

A journal from before these keys has none (``None``, as a key set to null is); a key
of the wrong type is a damaged set-up (:meth:`Origin.from_setup`), never read as
absent: a seed read as absent would replay another game.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from controller.core.errors import DataProblem
from controller.core.quoting import short_repr
from controller.storage.errors import JournalCorruptError, JournalError

SEED_KEY = "seed"
PLAYED_BY_KEY = "played_by"
TABLE_PLAYER = "table"
"""Who plays a journal the service (``toptable run``) started: the players at the table."""
FINGERPRINT_KEY = "data_fingerprint"
FILES_KEY = "data_files"
DATA_SUFFIXES = (".toml", ".json")
NOT_DATA = frozenset({"config.toml"})
"""The table's own config lives beside the demo data; it is not printed material."""


class ContradictionError(JournalError, ValueError):
    """A flag or config value contradicts what the journal recorded (exit 2)."""


DataFiles = Mapping[str, Mapping[str, str]]
"""A record of the data files: name -> ``{"sha": hash}``, and ``"path"`` for a file
named by its role (:mod:`controller.gamedata.sources` makes it)."""


@dataclass(frozen=True)
class Origin:
    """The seed and data set a journal recorded (None: not recorded)."""

    seed: int | None = None
    data_fingerprint: str | None = None
    data_files: DataFiles | None = None
    played_by: str | None = None  # TABLE_PLAYER, "demo", "game play"... (None: older)

    def to_setup(self) -> dict[str, Any]:
        """The set-up keys that store it (the file record and the player only when there
        are: an older toptable reads neither)."""
        files = {FILES_KEY: self.data_files} if self.data_files is not None else {}
        player = {PLAYED_BY_KEY: self.played_by} if self.played_by is not None else {}
        return {SEED_KEY: self.seed, FINGERPRINT_KEY: self.data_fingerprint, **files, **player}

    @classmethod
    def from_setup(cls, setup: Mapping[str, Any], journal: str | Path = "journal") -> Origin:
        """The origin the set-up of ``journal`` records (a key left out or null: not recorded).

        Raises:
            JournalCorruptError: a key of another type (the message names ``journal`` and
                the key).
        """
        seed = setup.get(SEED_KEY)
        fingerprint = setup.get(FINGERPRINT_KEY)
        files = setup.get(FILES_KEY)
        player = setup.get(PLAYED_BY_KEY)
        if player is not None and not isinstance(player, str):
            raise damaged_setup(journal, PLAYED_BY_KEY, f"expected text, got {short_repr(player)}")
        if seed is not None and (not isinstance(seed, int) or isinstance(seed, bool)):
            raise damaged_setup(
                journal, SEED_KEY, f"expected a whole number, got {short_repr(seed)}"
            )
        if fingerprint is not None and not isinstance(fingerprint, str):
            raise damaged_setup(
                journal, FINGERPRINT_KEY, f"expected text, got {short_repr(fingerprint)}"
            )
        if files is not None and not _is_record(files):
            raise damaged_setup(
                journal, FILES_KEY, "expected a JSON object of file names, each "
                f'{{"sha": text}} (and a "path"), got {short_repr(files)}'
            )  # fmt: skip
        return cls(seed, fingerprint, files, player)


def refuse_others_game(journal: str | Path, origin: Origin, player: str) -> None:
    """Refuse to let ``player`` (``demo``, ``game play``) play on a game the table's
    players play: its bots played the players' game to its end, which undo could not
    take back past the first throw.

    Raises:
        ContradictionError: ``journal`` records the table as its player.
    """
    if origin.played_by == TABLE_PLAYER and player != TABLE_PLAYER:
        raise ContradictionError(
            f"{journal}: the table's own game (started by `toptable run`): `toptable "
            f"{player}` does not play it; `toptable run` resumes it, or give `toptable "
            f"{player}` another journal"
        )


def _is_record(files: object) -> bool:
    return isinstance(files, dict) and all(
        isinstance(entry, dict)
        and isinstance(entry.get("sha"), str)
        and set(entry) <= {"sha", "path"}
        and isinstance(entry.get("path", ""), str)
        for entry in files.values()
    )


def damaged_setup(journal: str | Path, key: str, message: str) -> JournalCorruptError:
    """The error of a key of the set-up of ``journal`` that does not read (``message``:
    what was expected, and got)."""
    return JournalCorruptError(str(DataProblem(str(journal), "the journal's set-up", key, message)))


def data_fingerprint(directory: Path) -> str:
    """A short hash of the data set in ``directory``: every ``.toml``/``.json`` file under
    it but the table's config, by relative path and content.

    Raises:
        OSError: a file cannot be read.
    """
    h = hashlib.blake2b(digest_size=8)
    for path in sorted(p for p in directory.rglob("*") if p.is_file()):
        if path.suffix not in DATA_SUFFIXES or path.name in NOT_DATA:
            continue
        h.update(path.relative_to(directory).as_posix().encode())
        h.update(b"\0")
        h.update(path.read_bytes())
        h.update(b"\0")
    return h.hexdigest()


def listed(names: tuple[str, ...]) -> str:
    """Names (of variants, of players) as a contradiction shows them."""
    return ", ".join(names) or "(none)"


def refuse_contradiction(journal: Path, flag: str, given: object, kept: object) -> None:
    """Refuse ``flag`` = ``given`` when the journal at ``journal`` recorded ``kept``.

    Nothing is refused when either is None (not given, or not recorded).

    Raises:
        ContradictionError: both are known and differ (the message names both).
    """
    if given is None or kept is None or given == kept:
        return
    raise ContradictionError(
        f"{journal}: {flag} {given} contradicts the journal's {kept} "
        f"(leave {flag} out to resume the journal's game, or start a new game at another path)"
    )


def refuse_other_data(journal: Path, flag: str, directory: Path, kept: str | None) -> None:
    """Refuse the data set in ``directory`` (named by ``flag``) when the journal recorded
    another one's fingerprint ``kept`` (None: not recorded, nothing refused).

    Raises:
        ContradictionError: the fingerprints differ (the message names both).
        OSError: a data file cannot be read.
    """
    if kept is None:
        return
    given = data_fingerprint(directory)
    if given != kept:
        raise ContradictionError(
            f"{journal}: {flag} {directory} (data set {given}) contradicts the journal's "
            f"data set {kept} (resume with the data the game was played with)"
        )


def refuse_changed_files(
    journal: Path, flag: str, directory: Path, kept: DataFiles, given: DataFiles
) -> None:
    """Refuse the data in ``directory`` (named by ``flag``), whose files are ``given``,
    when the journal recorded other files ``kept`` (:mod:`controller.gamedata.sources`).

    Raises:
        ContradictionError: a file changed, appeared or went missing (the message names
            each, and what to do).
    """
    changed = [n for n in kept if n in given and kept[n].get("sha") != given[n].get("sha")]
    gone = [n for n in kept if n not in given]
    new = [n for n in given if n not in kept]
    said = [
        *(f"{_shown(n, given[n])} changed" for n in changed),
        *(f"{_shown(n, kept[n])} went missing" for n in gone),
        *(f"{_shown(n, given[n])} appeared" for n in new),
    ]
    if not said:
        return
    raise ContradictionError(
        f"{journal}: {flag} {directory} is not the data the game was played with: "
        f"{', '.join(said)} (resume with the data the game was played with: "
        f"{_what_to_do(flag, [*changed, *gone, *new])})"
    )


def _shown(name: str, entry: Mapping[str, str]) -> str:
    """A file as a message names it: by its name, by its path in the data folder, or by
    its role and whole path (a file outside the folder)."""
    path = entry.get("path")
    if path is None:
        return name
    return f"{name} {path}" if Path(path).is_absolute() else path


def _what_to_do(flag: str, names: Sequence[str]) -> str:
    one = len(names) == 1
    where = "--data" + (" and --board" if "board layout" in names else "")
    if flag.startswith("["):  # the table's config named it
        layout = " and [board] layout" if "board layout" in names else ""
        where = f"[table] data_dir{layout}"
    return (
        f"restore {'it as it was' if one else 'them as they were'} when the game began, "
        f"or name that data with {where}"
    )
