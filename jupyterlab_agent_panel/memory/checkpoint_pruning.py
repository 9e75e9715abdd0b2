"""Keep a thread's LangGraph checkpoints to what its branches need (docs/protocol.md §14.4).

LangGraph writes a checkpoint per step of a run, each (in SQLite) with the
thread's whole state, so a thread's memory grows with every step of every turn.
After a turn ends on the server, the thread's root-graph checkpoints are pruned to

- its oldest (the first turn's input, where the panel forks to edit the first message);
- the newest of every branch (a leaf: the end of the last turn, a review left pending);
- each one a turn started from: the end of the turn before (a message's input
  follows it), the checkpoint a fork copied, and the copy (see :func:`kept_ids`);
- each one paused on an interrupt (a review, answered or not);

with the pending writes of those. Every other checkpoint (a step inside a turn)
is deleted with its writes, and each kept one gets the nearest kept ancestor as
its parent, so the thread's history lists the kept ones in order. A kept
checkpoint loads alone: SQLite stores each whole, and in Postgres the channel
blobs any kept checkpoint names are kept. A thread whose state uses LangGraph's
``DeltaChannel`` (a checkpoint then needs its ancestors' writes) is left whole,
and so are subgraph namespaces.

The pruning is a few SQL statements in one transaction, scheduled after the
turn's end is on its way: on the agent's loop for SQLite, where its saver runs
inline (:mod:`.memory.agent_memory`), in a thread for Postgres (:class:`Pruner`). A failure
is logged, never the turn's.
"""
from __future__ import annotations

import asyncio
import logging
import threading
from contextlib import closing
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Optional

logger = logging.getLogger(__name__)

INTERRUPT = "__interrupt__"
# A checkpoint with a child of these sources is where a turn started: the end of
# the previous one (a message's input) or the checkpoint a fork copied.
STARTING_SOURCES = frozenset({"input", "update", "fork"})
# A fork's copy is where its turn starts (a resume fork too).
COPY_SOURCES = frozenset({"update", "fork"})

_scheduled: set = set()  # prunes not yet run, referenced until done (asyncio keeps only weak references)


@dataclass(frozen=True)
class Row:
    """What pruning reads of one checkpoint: no state, only its place in the thread."""

    checkpoint_id: str
    parent_id: Optional[str]
    source: Optional[str]
    step: Optional[int]


def kept_ids(rows: list, interrupted: set) -> set:
    """The checkpoints of one thread (``rows``) that stay; ``interrupted``: those with an interrupt write.

    A child whose step is not its parent's plus one was rewired by an earlier
    prune, so its parent was kept then and stays: each prune keeps what the last
    one kept. A missing step keeps the parent, to be safe (a row whose metadata was
    not read is one an earlier prune kept, and :func:`plan` keeps it).
    """
    steps = {row.checkpoint_id: row.step for row in rows}
    kept = set(interrupted) & steps.keys()
    parents: set = set()
    for row in rows:
        if row.parent_id not in steps:
            kept.add(row.checkpoint_id)  # the oldest (or one whose parent is gone: nothing to rewire it to)
            continue
        parents.add(row.parent_id)
        parent_step = steps[row.parent_id]
        if row.source in COPY_SOURCES:
            kept.add(row.checkpoint_id)
        if row.source in STARTING_SOURCES or None in (row.step, parent_step) or row.step != parent_step + 1:
            kept.add(row.parent_id)
    return kept | (steps.keys() - parents)  # the leaves: the newest of each branch


def plan(rows: list, interrupted: set, settled: set) -> tuple:
    """``(deleted ids, {kept id: its new parent})``: what to delete (never one of ``settled``,
    those an earlier prune kept), and the kept checkpoints whose parent is deleted, each with
    its nearest kept ancestor."""
    kept = kept_ids(rows, interrupted) | settled
    parent_of = {row.checkpoint_id: row.parent_id for row in rows}
    deleted = [row.checkpoint_id for row in rows if row.checkpoint_id not in kept]
    rewired = {}
    for checkpoint_id in kept:
        parent = parent_of[checkpoint_id]
        if parent is None or parent in kept or parent not in parent_of:
            continue
        while parent is not None and parent not in kept:
            parent = parent_of.get(parent)
        rewired[checkpoint_id] = parent
    return deleted, rewired


# Pruning reads the root graph's checkpoints (subgraphs' namespaces stay whole):
# every one's id and parent, and the metadata of those not seen by the last prune
# and of their parents. A DeltaChannel leaves update counters in the metadata
# (LangGraph.js marks its threads with delta_writes_versioned); then a checkpoint
# reads its ancestors' writes, and the thread stays whole.
SQLITE_THREAD = "thread_id = ? AND checkpoint_ns = ''"
SQLITE_LINKS = f"SELECT checkpoint_id, parent_checkpoint_id FROM checkpoints WHERE {SQLITE_THREAD}"
SQLITE_METADATA = f"""
SELECT json_extract(m, '$.source'), json_extract(m, '$.step'),
    json_type(m, '$.counters_since_delta_snapshot') IS NOT NULL OR json_type(m, '$.delta_writes_versioned') IS NOT NULL
FROM (SELECT CAST(metadata AS TEXT) AS m FROM checkpoints WHERE {SQLITE_THREAD} AND checkpoint_id = ?)
"""
SQLITE_INTERRUPTED = f"SELECT DISTINCT checkpoint_id FROM writes WHERE {SQLITE_THREAD} AND channel = ?"
SQLITE_DELETE = (
    f"DELETE FROM writes WHERE {SQLITE_THREAD} AND checkpoint_id = ?",
    f"DELETE FROM checkpoints WHERE {SQLITE_THREAD} AND checkpoint_id = ?",
)
SQLITE_REWIRE = f"UPDATE checkpoints SET parent_checkpoint_id = ? WHERE {SQLITE_THREAD} AND checkpoint_id = ?"

POSTGRES_THREAD = "thread_id = %s AND checkpoint_ns = ''"
POSTGRES_LINKS = f"SELECT checkpoint_id, parent_checkpoint_id FROM checkpoints WHERE {POSTGRES_THREAD}"
# Postgres also reads a checkpoint from before LangGraph's format 4 with its
# parent's writes: such a thread stays whole too.
POSTGRES_METADATA = f"""
SELECT checkpoint_id, metadata ->> 'source' AS source, (metadata ->> 'step')::int AS step,
    jsonb_exists(metadata, 'counters_since_delta_snapshot') OR jsonb_exists(metadata, 'delta_writes_versioned')
    OR COALESCE((checkpoint ->> 'v')::int, 0) < 4 AS whole
FROM checkpoints WHERE {POSTGRES_THREAD} AND checkpoint_id = ANY(%s)
"""
POSTGRES_INTERRUPTED = f"SELECT DISTINCT checkpoint_id FROM checkpoint_writes WHERE {POSTGRES_THREAD} AND channel = %s"
POSTGRES_DELETE_WRITES = f"DELETE FROM checkpoint_writes WHERE {POSTGRES_THREAD} AND checkpoint_id = ANY(%s)"
POSTGRES_DELETE = f"""
DELETE FROM checkpoints WHERE {POSTGRES_THREAD} AND checkpoint_id = ANY(%s)
RETURNING checkpoint -> 'channel_versions' AS versions
"""
POSTGRES_REWIRE = f"UPDATE checkpoints SET parent_checkpoint_id = %s WHERE {POSTGRES_THREAD} AND checkpoint_id = %s"
# The blobs the kept checkpoints name (a blob is a channel's value at one version,
# written by the checkpoint that changed it, maybe one now deleted).
POSTGRES_REFERENCED = """
SELECT DISTINCT v.key AS channel, v.value AS version
FROM checkpoints c CROSS JOIN LATERAL jsonb_each_text(c.checkpoint -> 'channel_versions') AS v
WHERE c.thread_id = %s AND c.checkpoint_ns = ''
"""
POSTGRES_DELETE_BLOBS = f"DELETE FROM checkpoint_blobs WHERE {POSTGRES_THREAD} AND channel = %s AND version = ANY(%s)"


class SqliteThreads:
    """A ``SqliteSaver``'s tables, in one transaction under the saver's lock (``cur``)."""

    def __init__(self, cur: Any):
        self.cur = cur

    def links(self, thread_id: str) -> list:
        return self.cur.execute(SQLITE_LINKS, (thread_id,)).fetchall()

    def metadata(self, thread_id: str, ids: set) -> dict:
        # One lookup by key each: the metadata column comes after the checkpoint's
        # whole state in a row, so reading it reads the state too.
        return {i: self.cur.execute(SQLITE_METADATA, (thread_id, i)).fetchone() for i in ids}

    def interrupted(self, thread_id: str) -> set:
        return {row[0] for row in self.cur.execute(SQLITE_INTERRUPTED, (thread_id, INTERRUPT))}

    def delete(self, thread_id: str, deleted: list, rewired: dict) -> None:
        for statement in SQLITE_DELETE:
            self.cur.executemany(statement, [(thread_id, checkpoint_id) for checkpoint_id in deleted])
        self.cur.executemany(SQLITE_REWIRE, [(parent, thread_id, child) for child, parent in rewired.items()])


class PostgresThreads:
    """A ``PostgresSaver``'s tables, in one transaction (``cur``, rows as dicts)."""

    def __init__(self, cur: Any):
        self.cur = cur

    def links(self, thread_id: str) -> list:
        return [(r["checkpoint_id"], r["parent_checkpoint_id"]) for r in self.cur.execute(POSTGRES_LINKS, (thread_id,))]

    def metadata(self, thread_id: str, ids: set) -> dict:
        rows = self.cur.execute(POSTGRES_METADATA, (thread_id, list(ids)))
        return {r["checkpoint_id"]: (r["source"], r["step"], r["whole"]) for r in rows}

    def interrupted(self, thread_id: str) -> set:
        return {r["checkpoint_id"] for r in self.cur.execute(POSTGRES_INTERRUPTED, (thread_id, INTERRUPT))}

    def delete(self, thread_id: str, deleted: list, rewired: dict) -> None:
        if not deleted:
            return
        self.cur.execute(POSTGRES_DELETE_WRITES, (thread_id, deleted))
        freed = {
            (channel, str(version))
            for r in self.cur.execute(POSTGRES_DELETE, (thread_id, deleted))
            for channel, version in r["versions"].items()
        }
        self.cur.executemany(POSTGRES_REWIRE, [(parent, thread_id, child) for child, parent in rewired.items()])
        referenced = {(r["channel"], r["version"]) for r in self.cur.execute(POSTGRES_REFERENCED, (thread_id,))}
        for channel, versions in _by_channel(freed - referenced).items():
            self.cur.execute(POSTGRES_DELETE_BLOBS, (thread_id, channel, versions))


def _by_channel(blobs: Iterable) -> dict:
    grouped: dict = {}
    for channel, version in blobs:
        grouped.setdefault(channel, []).append(version)
    return grouped


def prune_thread(tables: Any, thread_id: str, seen: Optional[tuple]) -> Optional[tuple]:
    """Prune ``thread_id`` in ``tables``: ``(checkpoints deleted, what it saw)``, or None when the
    thread stays whole. ``seen``, what the last prune of the thread saw: the newest checkpoint,
    and the leaves. What it kept stays, but for its leaves (one may be a step of a turn that had
    begun): only those and newer checkpoints (with their parents) are read again."""
    links = tables.links(thread_id)
    newest, leaves = seen or (None, frozenset())
    fresh = {i for i, _ in links if newest is None or i > newest or i in leaves}
    metadata = tables.metadata(thread_id, fresh | {parent for i, parent in links if i in fresh and parent})
    if any(m is None or m[2] for m in metadata.values()):
        return None  # a DeltaChannel's thread (or a checkpoint gone meanwhile)
    rows = [Row(i, parent, *(metadata[i][:2] if i in metadata else (None, None))) for i, parent in links]
    ids = {i for i, _ in links}
    deleted, rewired = plan(rows, tables.interrupted(thread_id), ids - fresh)
    tables.delete(thread_id, deleted, rewired)
    # A deleted checkpoint's kept descendants now have its kept ancestor as parent: the leaves are the same.
    return len(deleted), (max(ids, default=newest), frozenset(ids - {parent for _, parent in links}))


class Pruner:
    """``prune_thread`` of a saver (:mod:`.memory.agent_memory`): prunes a thread, returns how many checkpoints
    went. Remembers what each thread's last prune saw (:func:`prune_thread`; in this process:
    after a restart, a thread's first prune reads it all).

    SQLite's prune runs where it is called, the agent's loop: the saver's connection is used
    only there, and the prune takes about a millisecond. Postgres' (several round trips) runs in
    a thread of its own (``off_loop``) on a connection of the saver's pool, one at a time: what a
    turn saves meanwhile is newer than what it read, so it neither deletes it nor a value it names.
    """

    def __init__(self, saver: Any, postgres: bool):
        self.saver = saver
        self.postgres = postgres
        self.off_loop = postgres
        self.seen: dict = {}
        self._one_at_a_time = threading.Lock()

    def __call__(self, thread_id: str) -> int:
        run = self._postgres if self.postgres else self._sqlite
        with self._one_at_a_time:
            pruned = run(thread_id, self.seen.get(thread_id))
            if pruned is None:
                return 0
            deleted, self.seen[thread_id] = pruned
        return deleted

    def _sqlite(self, thread_id: str, seen: Optional[tuple]) -> Optional[tuple]:
        connection = self.saver.conn
        with self.saver.lock, closing(connection.cursor()) as cur:
            cur.execute("BEGIN IMMEDIATE")  # no other writer between the reads and the deletes
            try:
                pruned = prune_thread(SqliteThreads(cur), thread_id, seen)
            except BaseException:
                connection.rollback()
                raise
            connection.commit()
        return pruned

    def _postgres(self, thread_id: str, seen: Optional[tuple]) -> Optional[tuple]:
        with self.saver.conn.connection() as connection, connection.transaction():
            return prune_thread(PostgresThreads(connection.cursor()), thread_id, seen)


def pruner(saver: Any) -> Optional[Pruner]:
    """The :class:`Pruner` of ``saver`` (LangGraph's SQLite or Postgres saver), None for another."""
    from langgraph.checkpoint.sqlite import SqliteSaver

    if isinstance(saver, SqliteSaver):
        return Pruner(saver, postgres=False)
    try:
        from langgraph.checkpoint.postgres import PostgresSaver
    except ImportError:  # the Postgres extra is not installed: no saver of it either
        return None
    return Pruner(saver, postgres=True) if isinstance(saver, PostgresSaver) else None


def prune_after_turn(request: Any) -> None:
    """Prune the thread of a turn that ran (a ``TurnRequest``) once its end is on its way, if
    its agent's checkpointer is the server's memory with pruning on (``prune_thread``, :mod:`.memory.agent_memory`)."""
    thread_id = getattr(request, "thread_id", None)
    try:
        prune = _prune_of(request)
        if prune is None:
            return
        task = asyncio.get_running_loop().create_task(_prune(prune, thread_id))
    except Exception:  # pruning never fails a turn
        logger.warning("agent-panel: could not schedule pruning thread %r", thread_id, exc_info=True)
        return
    _scheduled.add(task)
    task.add_done_callback(_scheduled.discard)


def _prune_of(request: Any) -> Optional[Callable[[str], int]]:
    """The turn's memory's ``prune_thread``; None for a deployment's thread (the Agent Server
    keeps it), a graph's own checkpointer, or a request that names no agent's thread."""
    if getattr(request, "join_run", None) is not None or not hasattr(request, "turn_agent"):
        return None
    if getattr(request.loaded, "stream", None) is not None:
        return None
    graph = getattr(request.turn_agent().agent, "graph", None)
    return getattr(getattr(graph, "checkpointer", None), "prune_thread", None)


async def _prune(prune: Callable[[str], int], thread_id: str) -> None:
    await asyncio.sleep(0)  # after the turn's own task ends, so its response is not held up
    try:
        deleted = await asyncio.to_thread(prune, thread_id) if getattr(prune, "off_loop", False) else prune(thread_id)
    except Exception:  # the thread only keeps more than it needs until the next turn
        logger.warning("agent-panel: could not prune the checkpoints of thread %r", thread_id, exc_info=True)
        return
    logger.debug("agent-panel: pruned %d checkpoints of thread %r", deleted, thread_id)


async def settled() -> None:
    """Wait for the prunes scheduled on this loop (tests and the bench read the database after)."""
    loop = asyncio.get_running_loop()
    await asyncio.gather(*[task for task in list(_scheduled) if task.get_loop() is loop])
