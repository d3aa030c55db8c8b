"""A log's rows as stored: its two tables, each row's JSON payload and hash chain, and the
kind of the marker row an undo appends (:mod:`controller.storage.chained_log` keeps them)."""

from __future__ import annotations

import hashlib
import json
import sqlite3
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

UNDO_KIND = "undo"


@dataclass(frozen=True)
class ChainedRow:
    """One row as stored."""

    seq: int
    kind: str
    payload: str
    undoes: int | None
    chain: str


def create_layout(conn: sqlite3.Connection) -> None:
    """Make a log's two tables in an empty database."""
    conn.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
    conn.execute(
        "CREATE TABLE events (seq INTEGER PRIMARY KEY, kind TEXT NOT NULL, "
        "payload TEXT NOT NULL, undoes INTEGER, chain TEXT NOT NULL)"
    )


def encode_payload(data: Mapping[str, Any]) -> str:
    """A row's payload: ``data`` as compact JSON."""
    return json.dumps(data, separators=(",", ":"))


def chain_hash(prev: str, seq: int, kind: str, payload: str, undoes: int | None) -> str:
    """A row's ``chain``: its fields hashed with the previous row's chain (or the seed)."""
    h = hashlib.blake2b(digest_size=12)
    h.update(f"{prev}|{seq}|{kind}|{undoes}|{payload}".encode())
    return h.hexdigest()
