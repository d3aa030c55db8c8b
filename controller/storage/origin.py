"""What a journal records of how its game was made: the seed and the data set's fingerprint.

A journal's set-up (its ``meta`` row ``setup``) holds, beside what each game kind
stores, the seed of the game's own randomness (``seed``: the bots', the simulated
world's, the decks' shuffles) and a fingerprint of the data set it is played with
(``data_fingerprint``), both written when the journal is created. A resume needs
nothing else; a flag that says otherwise is refused (:func:`refuse_contradiction`).

A journal from before these keys has neither (both ``None``, as a key set to null is);
a key of the wrong type is a damaged set-up (:meth:`Origin.from_setup`), never read as
absent: a seed read as absent would replay another game.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from controller.core.errors import DataProblem
from controller.core.quoting import short_repr
from controller.storage.errors import JournalCorruptError, JournalError

SEED_KEY = "seed"
FINGERPRINT_KEY = "data_fingerprint"
DATA_SUFFIXES = (".toml", ".json")
NOT_DATA = frozenset({"config.toml"})
"""The table's own config lives beside the demo data; it is not printed material."""


class ContradictionError(JournalError, ValueError):
    """A flag or config value contradicts what the journal recorded (exit 2)."""


@dataclass(frozen=True)
class Origin:
    """The seed and data-set fingerprint a journal recorded (None: not recorded)."""

    seed: int | None = None
    data_fingerprint: str | None = None

    def to_setup(self) -> dict[str, Any]:
        """The set-up keys that store it."""
        return {SEED_KEY: self.seed, FINGERPRINT_KEY: self.data_fingerprint}

    @classmethod
    def from_setup(cls, setup: Mapping[str, Any], journal: str | Path = "journal") -> Origin:
        """The origin the set-up of ``journal`` records (a key left out or null: not recorded).

        Raises:
            JournalCorruptError: a key of another type (the message names ``journal`` and
                the key).
        """
        seed = setup.get(SEED_KEY)
        fingerprint = setup.get(FINGERPRINT_KEY)
        if seed is not None and (not isinstance(seed, int) or isinstance(seed, bool)):
            raise damaged_setup(
                journal, SEED_KEY, f"expected a whole number, got {short_repr(seed)}"
            )
        if fingerprint is not None and not isinstance(fingerprint, str):
            raise damaged_setup(
                journal, FINGERPRINT_KEY, f"expected text, got {short_repr(fingerprint)}"
            )
        return cls(seed, fingerprint)


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
