"""A served agent's durable memory: the LangGraph checkpointer its threads live in (docs/protocol.md §14).

``AgentPanel.checkpointer_url`` says where (:func:`memory_location`): SQLite
files in the Jupyter data directory by default, one per agent; a folder of its
own (``sqlite:///<folder>``); a Postgres database (``postgresql://...``), one
schema per agent; or ``memory`` for the process's memory, lost on restart.
Each agent keeps its own threads, so a thread id on one agent stays
independent of the same id on another.

An :class:`AgentMemory` is used only on its agent's worker loop. Its savers
are LangGraph's synchronous ones (``SqliteSaver``, ``PostgresSaver``) whose
async methods run inline on that loop, as LangGraph's ``InMemorySaver`` does
(:class:`InlineAsync`): with the async savers, which suspend on every read and
write, the AG-UI adapter (ag-ui-langgraph 0.0.47) sent a message's whole text
before its streamed tokens, so the answer showed twice (docs/protocol.md §14.2).
The agent's loop is its own, never the Jupyter server's, so the few
milliseconds of a write hold up only that agent.

With ``AgentPanel.prune_checkpoints`` (the default) a SQLite or Postgres saver
gets ``prune_thread``, which the turn driver calls after each turn to keep only
the checkpoints a thread's branches need (:mod:`.memory.checkpoint_pruning`).
"""
from __future__ import annotations

import hashlib
import os
import sqlite3
from dataclasses import dataclass
from typing import Any, AsyncIterator, Callable, Optional
from urllib.parse import urlsplit, urlunsplit

SETTING = "AgentPanel.checkpointer_url"
POSTGRES_HINT = 'pip install "jupyterlab_agent_panel[postgres]"'
POSTGRES_SCHEMES = ("postgresql", "postgres")
# Postgres truncates identifiers at 63 bytes; agent names may be longer.
MAX_SCHEMA_BYTES = 63
SCHEMA_PREFIX = "agent_panel_"
CONNECT_SECONDS = 10


class InlineAsync:
    """A synchronous saver's async methods, run inline on the caller's loop (see the module doc)."""

    prune_thread: Optional[Callable[[str], int]] = None  # set when the memory prunes (checkpoint_pruning)

    async def aget_tuple(self, config: Any) -> Any:
        return self.get_tuple(config)

    async def alist(self, config: Any, *, filter: Any = None, before: Any = None, limit: Any = None) -> AsyncIterator:
        for item in self.list(config, filter=filter, before=before, limit=limit):
            yield item

    async def aput(self, config: Any, checkpoint: Any, metadata: Any, new_versions: Any) -> Any:
        return self.put(config, checkpoint, metadata, new_versions)

    async def aput_writes(self, config: Any, writes: Any, task_id: str, task_path: str = "") -> None:
        self.put_writes(config, writes, task_id, task_path)

    async def adelete_thread(self, thread_id: str) -> None:
        self.delete_thread(thread_id)

    async def aget_delta_channel_history(self, *, config: Any, channels: Any) -> Any:
        return self.get_delta_channel_history(config=config, channels=channels)


class MemoryUnavailable(Exception):
    """The agent's memory cannot be opened; the message names the setting and the cause."""


@dataclass(frozen=True)
class MemoryLocation:
    """Where agents keep their threads: ``kind`` is ``sqlite``, ``postgres`` or ``memory``."""

    kind: str
    target: str = ""  # the SQLite folder, or the Postgres URL

    @property
    def shown(self) -> str:
        """The location for messages and logs, without a password."""
        if self.kind != "postgres":
            return self.target or self.kind
        parts = urlsplit(self.target)
        if parts.password is None:
            return self.target
        netloc = parts.netloc.replace(f":{parts.password}@", ":***@", 1)
        return urlunsplit(parts._replace(netloc=netloc))


def memory_location(url: str, default_folder: str) -> MemoryLocation:
    """``url`` (the setting's value) as a location; ValueError says what is wrong with it."""
    url = url.strip()
    if not url:
        return MemoryLocation("sqlite", default_folder)
    if url == "memory":
        return MemoryLocation("memory")
    scheme = url.split(":", 1)[0].lower() if ":" in url else ""
    if scheme in POSTGRES_SCHEMES:
        return MemoryLocation("postgres", url)
    if scheme == "sqlite":
        folder = urlsplit(url).path
        if not url.startswith("sqlite:///") or not folder.strip("/"):
            raise ValueError(f"{SETTING}: a SQLite location is sqlite:///<folder>, not {url!r}")
        return MemoryLocation("sqlite", os.path.expanduser(folder))
    raise ValueError(
        f"{SETTING}: expected empty (SQLite in the Jupyter data directory), 'memory', "
        f"'sqlite:///<folder>' or 'postgresql://...', not {url!r}"
    )


def schema_name(agent_name: str) -> str:
    """The agent's Postgres schema: its name, shortened with a digest when too long."""
    schema = SCHEMA_PREFIX + agent_name
    if len(schema.encode("utf-8")) <= MAX_SCHEMA_BYTES:
        return schema
    digest = hashlib.sha256(agent_name.encode("utf-8")).hexdigest()[:12]
    return f"{schema[: MAX_SCHEMA_BYTES - len(digest) - 1]}_{digest}"


class AgentMemory:
    """One agent's checkpointer, opened on first use and closed with the agent."""

    def __init__(self, location: Optional[MemoryLocation], agent_name: str, problem: str = "", prune: bool = True):
        self.location = location
        self.agent_name = agent_name
        self._problem = problem  # why the setting could not be read
        self.prune = prune  # AgentPanel.prune_checkpoints: SQLite and Postgres threads are pruned after each turn
        self._saver: Any = None
        self._resource: Any = None  # the SQLite connection or the Postgres pool

    @property
    def sqlite_path(self) -> Optional[str]:
        if self.location is None or self.location.kind != "sqlite":
            return None
        return os.path.join(self.location.target, f"{self.agent_name}.sqlite")

    async def open(self) -> Any:
        """The checkpointer, opened (and its tables created) the first time."""
        return self.open_now()

    def open_now(self) -> Any:
        """:meth:`open` for a caller already on the agent's loop, where the checkpointer is used."""
        if self._saver is not None:
            return self._saver
        if self.location is None:
            raise MemoryUnavailable(self._problem)
        try:
            if self.location.kind == "memory":
                from langgraph.checkpoint.memory import InMemorySaver

                self._saver = InMemorySaver()
            elif self.location.kind == "sqlite":
                self._open_sqlite()
            else:
                self._open_postgres()
        except MemoryUnavailable:
            raise
        except Exception as exc:  # any cause is reported with the location
            self.close_now()
            raise MemoryUnavailable(
                f"Could not open the agent memory at {self._shown_target()} ({SETTING}): {type(exc).__name__}: {exc}"
            ) from exc
        return self._saver

    async def close(self) -> None:
        """Close the connection or pool; the memory can be opened again."""
        self.close_now()

    def close_now(self) -> None:
        resource, self._resource, self._saver = self._resource, None, None
        if resource is not None:
            resource.close()

    def _pruning(self, saver: Any) -> Any:
        if self.prune:
            from .checkpoint_pruning import pruner

            saver.prune_thread = pruner(saver)
        return saver

    def _shown_target(self) -> str:
        return self.sqlite_path or self.location.shown

    def _open_sqlite(self) -> None:
        from langgraph.checkpoint.sqlite import SqliteSaver

        class InlineSqliteSaver(InlineAsync, SqliteSaver):
            pass

        path = self.sqlite_path
        os.makedirs(os.path.dirname(path), exist_ok=True)
        self._resource = sqlite3.connect(path, timeout=30)
        self._resource.execute("PRAGMA synchronous=NORMAL")  # with WAL (setup): a crash loses nothing committed
        saver = InlineSqliteSaver(self._resource)
        saver.setup()
        self._saver = self._pruning(saver)

    def _open_postgres(self) -> None:
        try:
            from langgraph.checkpoint.postgres import PostgresSaver
            from psycopg import Connection, sql
            from psycopg.rows import dict_row
            from psycopg_pool import ConnectionPool
        except ImportError as exc:
            raise MemoryUnavailable(
                f"{SETTING} names Postgres ({self.location.shown}) but its packages are not "
                f"installed ({exc}); run: {POSTGRES_HINT}"
            ) from exc

        class InlinePostgresSaver(InlineAsync, PostgresSaver):
            pass

        schema = sql.Identifier(schema_name(self.agent_name))
        target = self.location.target
        with Connection.connect(target, autocommit=True, connect_timeout=CONNECT_SECONDS) as connection:
            connection.execute(sql.SQL("CREATE SCHEMA IF NOT EXISTS {}").format(schema))

        def use_schema(connection: Any) -> None:
            connection.execute(sql.SQL("SET search_path TO {}").format(schema))

        # What the saver needs of its connections (langgraph-checkpoint-postgres' README).
        kwargs = {"autocommit": True, "prepare_threshold": 0, "row_factory": dict_row}
        self._resource = ConnectionPool(
            target, min_size=1, max_size=4, kwargs=kwargs, configure=use_schema, open=False
        )
        self._resource.open(wait=True, timeout=CONNECT_SECONDS)
        saver = InlinePostgresSaver(self._resource)
        saver.setup()
        self._saver = self._pruning(saver)


class CheckpointerThreads:
    """A local agent's threads: its checkpointer's. The built-in agent has two
    (docs/protocol.md §14.1), the second opened on first use: ``more`` gives it, on the agent's loop."""

    def __init__(self, checkpointer: Any, more: Optional[Callable[[], Any]] = None):
        self.checkpointer = checkpointer
        self._more = more
        self.kind = f"checkpointer ({type(checkpointer).__name__})"

    def _checkpointers(self) -> list:
        return [self.checkpointer, *([self._more()] if self._more else [])]

    async def known(self, thread_id: str) -> bool:
        config = {"configurable": {"thread_id": thread_id, "checkpoint_ns": ""}}
        for checkpointer in self._checkpointers():
            if await checkpointer.aget_tuple(config) is not None:
                return True
        return False

    async def forget(self, thread_id: str) -> None:
        for checkpointer in self._checkpointers():
            await checkpointer.adelete_thread(thread_id)
