"""The conversations database: opening it, its schema and its migrations (docs/protocol.md §13.5).

The schema's version is SQLite's ``PRAGMA user_version``. ``MIGRATIONS[n]``
takes a database from version ``n`` to ``n + 1``; a new schema is a new
function appended there, never an edit of an old one, so a database written by
any earlier release is brought up to date step by step on open. A database
whose version is newer than the last step was written by a newer release: it
is refused and left exactly as it is.
"""
from __future__ import annotations

import contextlib
import os
import sqlite3
import time
from typing import Callable, Iterator

BUSY_TIMEOUT_SECONDS = 30.0
WAL_RETRY_SECONDS = 0.02


class StoreUnavailable(Exception):
    """The database cannot be opened or written (a newer schema, not SQLite, a full disk...)."""


def _create_tables(connection: sqlite3.Connection) -> None:
    """Version 1: conversations, and their entries in the order of first insertion."""
    connection.execute(
        """CREATE TABLE conversations (
            owner TEXT NOT NULL,
            id TEXT NOT NULL,
            title TEXT NOT NULL DEFAULT '',
            thread_id TEXT NOT NULL,
            endpoint_name TEXT,
            status TEXT NOT NULL,
            created_at INTEGER NOT NULL,
            updated_at INTEGER NOT NULL,
            revision INTEGER NOT NULL,
            transport_memory TEXT,
            queue TEXT NOT NULL DEFAULT '[]',
            next_position INTEGER NOT NULL DEFAULT 0,
            PRIMARY KEY (owner, id)
        )"""
    )
    connection.execute("CREATE INDEX conversations_by_activity ON conversations (owner, updated_at)")
    connection.execute(
        """CREATE TABLE entries (
            owner TEXT NOT NULL,
            conversation_id TEXT NOT NULL,
            key TEXT NOT NULL,
            position INTEGER NOT NULL,
            body TEXT NOT NULL,
            PRIMARY KEY (owner, conversation_id, key)
        )"""
    )
    connection.execute("CREATE INDEX entries_in_order ON entries (owner, conversation_id, position)")


def _add_model(connection: sqlite3.Connection) -> None:
    """Version 2: the model a conversation chose (docs/protocol.md §16.3); NULL, its endpoint's default."""
    connection.execute("ALTER TABLE conversations ADD COLUMN model TEXT")


MIGRATIONS: list[Callable[[sqlite3.Connection], None]] = [_create_tables, _add_model]
SCHEMA_VERSION = len(MIGRATIONS)


@contextlib.contextmanager
def write_transaction(connection: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """One ``BEGIN IMMEDIATE`` transaction: it takes the write lock at once (waiting up to the
    busy timeout for another writer), so two writers never interleave a read and a write."""
    connection.execute("BEGIN IMMEDIATE")
    try:
        yield connection
    except BaseException:
        connection.execute("ROLLBACK")
        raise
    connection.execute("COMMIT")


@contextlib.contextmanager
def read_transaction(connection: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """Several reads from one snapshot of the database."""
    connection.execute("BEGIN")
    try:
        yield connection
    finally:
        connection.execute("COMMIT")


def schema_version(connection: sqlite3.Connection) -> int:
    return connection.execute("PRAGMA user_version").fetchone()[0]


def open_database(path: str) -> sqlite3.Connection:
    """A connection to the database at ``path``, created (with its folder) and migrated as needed.

    Raises :class:`StoreUnavailable` naming the file when it cannot be used; a file of a
    newer schema is not written to.
    """
    try:
        os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
        # isolation_level=None: the transactions are the explicit ones above.
        connection = sqlite3.connect(path, timeout=BUSY_TIMEOUT_SECONDS, isolation_level=None, check_same_thread=False)
    except (OSError, sqlite3.Error) as exc:
        raise StoreUnavailable(f"The conversations database {path} cannot be opened: {exc}") from exc
    try:
        _check_version(connection, path)  # before anything that could write to it
        _use_wal(connection)
        # In WAL mode NORMAL survives a crash of the server; only a power cut may lose the last write.
        connection.execute("PRAGMA synchronous=NORMAL")
        with write_transaction(connection):
            _migrate(connection, path)  # again under the write lock: another process may have done it
    except sqlite3.Error as exc:
        connection.close()
        raise StoreUnavailable(f"The conversations database {path} cannot be used: {exc}") from exc
    except StoreUnavailable:
        connection.close()
        raise
    return connection


def _use_wal(connection: sqlite3.Connection) -> None:
    """Switch the file to WAL, waiting for another connection that holds it.

    SQLite answers a journal-mode change "database is locked" at once, without
    its busy timeout, while another connection (a second server opening the
    same new file) reads or migrates it; so wait here, up to that timeout.
    """
    deadline = time.monotonic() + BUSY_TIMEOUT_SECONDS
    while True:
        try:
            connection.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or time.monotonic() > deadline:
                raise
            time.sleep(WAL_RETRY_SECONDS)


def _check_version(connection: sqlite3.Connection, path: str) -> int:
    version = schema_version(connection)
    if version > SCHEMA_VERSION:
        raise StoreUnavailable(
            f"The conversations database {path} has schema version {version}, written by a newer "
            f"jupyterlab-agent-panel; this one knows versions up to {SCHEMA_VERSION}. It was left "
            "unchanged: upgrade jupyterlab-agent-panel, or set AgentPanel.conversations_db to another file."
        )
    return version


def _migrate(connection: sqlite3.Connection, path: str) -> None:
    version = _check_version(connection, path)
    for step in MIGRATIONS[version:]:
        step(connection)
    if version != SCHEMA_VERSION:
        connection.execute(f"PRAGMA user_version = {SCHEMA_VERSION:d}")
