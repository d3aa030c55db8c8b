"""How the game a journal holds differs from the one the config sets up now.

A table's start (:mod:`controller.daemon.journals`) and ``config check``
(:mod:`controller.daemon.held_problem`) both say it the same way: a clause after the
journal's path (``holds a ... game, but ...``) naming what to change; None when it is
that game.
"""

from __future__ import annotations

from collections.abc import Sequence

from controller.config import Config
from controller.core.kinds import GameKind
from controller.game.state import GameConfig, Length
from controller.rules.variants import Variants
from controller.table.settings import PLAYER_NAMES


def other_game(kept: GameConfig, config: Config) -> str | None:
    """How the dice game ``kept`` (a journal's) is not the one ``config`` sets up, as a
    clause after the journal's path (``holds a ... game, but ...``); None: it is that game."""
    t = config.table
    length = Length(t.length.value)
    variants = Variants.from_names(t.variants)
    source = config.source or "the config"
    if kept.kind is not t.mode:
        return other_kind(kept.kind, config)
    if (len(kept.players), kept.length, kept.variants) != (t.players, length, variants):
        return (
            f"holds a game of {_setup(len(kept.players), kept.length, kept.variants)}, but "
            f"{source} sets up {_setup(t.players, length, variants)}: "
            "move the journal away to start a new game, or set [table] to match"
        )
    return other_names(kept.players, config)


def configured_names(config: Config) -> tuple[str, ...]:
    """The players ``[events] players`` names (empty: it names none)."""
    return config.events.names if config.events is not None and config.events.people else ()


def other_names(kept: Sequence[str], config: Config) -> str | None:
    """How the players of a journal's game (``kept``) are not those ``[events] players``
    names, as a clause after the journal's path; None: it names none, or those."""
    names = configured_names(config)
    if not names or tuple(names) == tuple(kept):
        return None
    # review 102: ignored without a word, the scoreboard counted the game to no one named
    return (
        f"holds a game of {', '.join(kept)}, but {config.source or 'the config'}'s [events] "
        f"players names {', '.join(names)}: names are a new game's; set them back for this "
        "game, or move the journal away to start a new one"
    )


def other_kind(kind: GameKind, config: Config) -> str:
    return (
        f"holds a {kind.value} game, but {config.source or 'the config'} sets "
        f'[table] mode = "{config.table.mode.value}": move the journal away to start a '
        "new game, or set [table] mode to match"
    )


def _setup(players: int, length: Length, variants: Variants) -> str:
    extra = f", variants {', '.join(variants.enabled())}" if variants.enabled() else ""
    return f"{players} players ({length.value}{extra})"


def other_companion_game(held: GameKind, count: int, kind: GameKind, players: int) -> str | None:
    """How the companion game a journal holds (``held``, of ``count`` players) is not the
    one set up (``kind`` for ``players``), as a clause after the journal's path (``holds
    a ... game, but ...``); None: it is that game."""
    if held is kind and count == players:
        return None
    return (
        f"holds a {held.value} game of {count} players, but the config sets up {kind.value} "
        f"for {players}: move the journal away to start a new game, or set [table] to match"
    )


def player_names(config: Config) -> tuple[str, ...]:
    """The names of a new game's players: those ``[events] players`` gives (as many as
    ``[table] players``, the config checks), else Player 1..N."""
    return configured_names(config) or PLAYER_NAMES[: config.table.players]
