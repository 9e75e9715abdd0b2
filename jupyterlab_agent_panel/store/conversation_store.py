"""The panel's conversations, per user, in SQLite (docs/protocol.md §13).

Every call runs on the store's own thread, so the Jupyter server's event loop
never waits on the disk or on another writer's lock; each write is one
``BEGIN IMMEDIATE`` transaction (:mod:`.store.conversation_schema`). Entries are
opaque JSON objects upserted by their ``key``: the store reads nothing else of
them. They are kept as JSON text and sent back as they were stored, without
being parsed again.
"""
from __future__ import annotations

import asyncio
import json
import re
import sqlite3
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Callable, Optional

from .conversation_schema import StoreUnavailable, open_database, read_transaction, write_transaction

SUMMARY_COLUMNS = (
    "id, title, thread_id, endpoint_name, model, status, created_at, updated_at, revision,"
    " (SELECT COUNT(*) FROM entries e WHERE e.owner = c.owner AND e.conversation_id = c.id)"
)
SUMMARY_KEYS = (
    "id", "title", "threadId", "endpointName", "model", "status", "createdAt", "updatedAt", "revision", "entryCount"
)
NEWEST_FIRST = "ORDER BY updated_at DESC, created_at DESC, id"
MATCHES = (
    "(folded_contains(c.title, :plain, :escaped) OR EXISTS (SELECT 1 FROM entries e"
    " WHERE e.owner = c.owner AND e.conversation_id = c.id AND folded_contains(e.body, :plain, :escaped)))"
)
LONE_SURROGATE = re.compile("[\ud800-\udfff]")


@dataclass
class Update:
    """A checked ``PUT`` body (docs/protocol.md §13.3). ``columns`` holds the stored fields it
    sets (``thread_id``, ``endpoint_name``, ``status``, and ``title``, ``model``,
    ``transport_memory``, ``queue`` when given); the last two as parsed JSON."""

    columns: dict
    entries: list = field(default_factory=list)  # [(key, entry), ...]
    removed_keys: list = field(default_factory=list)


def json_text(value: Any) -> str:
    """``value`` as compact JSON that SQLite can store as UTF-8: a lone surrogate (which
    JSON's ``\\udxxx`` escapes can carry) is written as its escape again, so nothing is lost."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    if text.isascii():
        return text
    return LONE_SURROGATE.sub(lambda match: f"\\u{ord(match.group()):04x}", text)


def now_ms() -> int:
    return int(time.time() * 1000)


def _folded_contains(text: Optional[str], plain: str, escaped: str) -> bool:
    """Whether ``text`` holds the search text, either as typed or as it reads inside a JSON
    string (quotes, backslashes, newlines escaped). Both needles are already case-folded."""
    if text is None:
        return False
    folded = text.casefold()
    return plain in folded or escaped in folded


class ConversationStore:
    """The conversations in the SQLite file at ``path``, created on first use."""

    def __init__(self, path: str):
        self.path = path
        self._connection: Optional[sqlite3.Connection] = None
        self._closed = False
        # One thread: one connection, used by nothing else. Other processes and
        # stores on the same file are kept apart by SQLite's locks.
        self._thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="agent-panel-conversations")

    async def _run(self, work: Callable, *args: Any) -> Any:
        return await asyncio.get_running_loop().run_in_executor(self._thread, self._call, work, args)

    def _call(self, work: Callable, args: tuple) -> Any:
        if self._connection is None:
            self._connection = open_database(self.path)
            self._connection.create_function("folded_contains", 3, _folded_contains, deterministic=True)
        try:
            return work(self._connection, *args)
        except (sqlite3.IntegrityError, sqlite3.ProgrammingError):
            raise  # a bug here, not the file's state
        except sqlite3.DatabaseError as exc:  # locked past the busy timeout, disk full, corrupt...
            raise StoreUnavailable(f"The conversations database {self.path} failed: {exc}") from exc

    async def summaries(self, owner: str, query: str = "") -> list:
        """``owner``'s conversations, newest activity first; with ``query``, those whose title or
        an entry's JSON holds it, ignoring case."""
        return await self._run(_summaries, owner, query)

    async def conversation_json(self, owner: str, conversation_id: str) -> Optional[str]:
        """The whole conversation as JSON text, or ``None`` if ``owner`` has none of that id."""
        return await self._run(_conversation_json, owner, conversation_id)

    async def revision(self, owner: str, conversation_id: str) -> Optional[int]:
        """The conversation's revision (without reading its entries), or ``None`` if there is none."""
        return await self._run(_revision, owner, conversation_id)

    async def put(self, owner: str, conversation_id: str, update: Update) -> dict:
        """Apply ``update``, creating the conversation if needed: ``{"revision", "updatedAt"}``."""
        return await self._run(_put, owner, conversation_id, update)

    async def rename(self, owner: str, conversation_id: str, title: str) -> Optional[dict]:
        """The renamed conversation's summary, or ``None`` if there is none of that id."""
        return await self._run(_rename, owner, conversation_id, title)

    async def delete(self, owner: str, conversation_id: str) -> bool:
        """Delete the conversation and its entries; ``False`` if there was none of that id."""
        return await self._run(_delete, owner, conversation_id)

    def close(self) -> None:
        """Close the connection (on the store's thread) and stop the thread; once is enough."""
        if self._closed:
            return
        self._closed = True

        def close_connection() -> None:
            if self._connection is not None:
                self._connection.close()
                self._connection = None

        self._thread.submit(close_connection)
        self._thread.shutdown(wait=True)


def _summary(row: tuple) -> dict:
    return dict(zip(SUMMARY_KEYS, row, strict=True))


def _summaries(connection: sqlite3.Connection, owner: str, query: str) -> list:
    if not query:
        sql = f"SELECT {SUMMARY_COLUMNS} FROM conversations c WHERE owner = :owner {NEWEST_FIRST}"
        return [_summary(row) for row in connection.execute(sql, {"owner": owner})]
    plain = query.casefold()
    escaped = json_text(query)[1:-1].casefold()
    sql = f"SELECT {SUMMARY_COLUMNS} FROM conversations c WHERE owner = :owner AND {MATCHES} {NEWEST_FIRST}"
    rows = connection.execute(sql, {"owner": owner, "plain": plain, "escaped": escaped})
    return [_summary(row) for row in rows]


def _select_summary(connection: sqlite3.Connection, owner: str, conversation_id: str) -> Optional[dict]:
    sql = f"SELECT {SUMMARY_COLUMNS} FROM conversations c WHERE owner = ? AND id = ?"
    row = connection.execute(sql, (owner, conversation_id)).fetchone()
    return None if row is None else _summary(row)


def _revision(connection: sqlite3.Connection, owner: str, conversation_id: str) -> Optional[int]:
    sql = "SELECT revision FROM conversations WHERE owner = ? AND id = ?"
    row = connection.execute(sql, (owner, conversation_id)).fetchone()
    return None if row is None else row[0]


def _conversation_json(connection: sqlite3.Connection, owner: str, conversation_id: str) -> Optional[str]:
    with read_transaction(connection):
        summary = _select_summary(connection, owner, conversation_id)
        if summary is None:
            return None
        memory, queue = connection.execute(
            "SELECT transport_memory, queue FROM conversations WHERE owner = ? AND id = ?", (owner, conversation_id)
        ).fetchone()
        bodies = connection.execute(
            "SELECT body FROM entries WHERE owner = ? AND conversation_id = ? ORDER BY position",
            (owner, conversation_id),
        )
        entries = ",".join(body for (body,) in bodies)
    # The stored JSON goes out as it is: a 10 MB entry is not parsed to be sent.
    head = json.dumps(summary)[:-1]
    return f'{head}, "transportMemory": {memory or "null"}, "queue": {queue}, "entries": [{entries}]}}'


def _put(connection: sqlite3.Connection, owner: str, conversation_id: str, update: Update) -> dict:
    columns = dict(update.columns)
    for name in ("transport_memory", "queue"):
        if name in columns and columns[name] is not None:
            columns[name] = json_text(columns[name])
    entries = [(owner, conversation_id, key, json_text(entry)) for key, entry in update.entries]
    now = now_ms()
    with write_transaction(connection):
        row = connection.execute(
            "SELECT revision, updated_at, next_position FROM conversations WHERE owner = ? AND id = ?",
            (owner, conversation_id),
        ).fetchone()
        if row is None:
            connection.execute(
                "INSERT INTO conversations (owner, id, thread_id, status, created_at, updated_at, revision)"
                " VALUES (?, ?, '', 'idle', ?, ?, 0)",
                (owner, conversation_id, now, now),
            )
            row = (0, now, 0)
        revision, updated_at, next_position = row[0] + 1, max(now, row[1]), row[2]
        connection.executemany(
            "DELETE FROM entries WHERE owner = ? AND conversation_id = ? AND key = ?",
            [(owner, conversation_id, key) for key in update.removed_keys],
        )
        # A new key takes the next position; a known one keeps its place and gets the new body.
        connection.executemany(
            "INSERT INTO entries (owner, conversation_id, key, body, position) VALUES (?, ?, ?, ?, ?)"
            " ON CONFLICT (owner, conversation_id, key) DO UPDATE SET body = excluded.body",
            [(*entry, next_position + index) for index, entry in enumerate(entries)],
        )
        columns.update(revision=revision, updated_at=updated_at, next_position=next_position + len(entries))
        assignments = ", ".join(f"{name} = :{name}" for name in columns)  # names from Update, not the client
        connection.execute(
            f"UPDATE conversations SET {assignments} WHERE owner = :owner AND id = :id",
            {**columns, "owner": owner, "id": conversation_id},
        )
    return {"revision": revision, "updatedAt": updated_at}


def _rename(connection: sqlite3.Connection, owner: str, conversation_id: str, title: str) -> Optional[dict]:
    with write_transaction(connection):
        changed = connection.execute(
            # Not activity: a renamed conversation keeps its place in the list.
            "UPDATE conversations SET title = ?, revision = revision + 1 WHERE owner = ? AND id = ?",
            (title, owner, conversation_id),
        ).rowcount
        return _select_summary(connection, owner, conversation_id) if changed else None


def _delete(connection: sqlite3.Connection, owner: str, conversation_id: str) -> bool:
    with write_transaction(connection):
        connection.execute("DELETE FROM entries WHERE owner = ? AND conversation_id = ?", (owner, conversation_id))
        deleted = connection.execute(
            "DELETE FROM conversations WHERE owner = ? AND id = ?", (owner, conversation_id)
        ).rowcount
    return deleted > 0
