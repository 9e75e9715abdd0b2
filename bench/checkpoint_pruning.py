"""Disk used by one thread of a served agent, with and without pruning its checkpoints (docs/protocol.md §14.4).

Runs ``--turns`` turns (default 100) on one thread of ``tests/graphs/remembering_tools.py``
(each turn calls a tool: the model's step, the tool's, the answer) through the
server's own turn driver (``TurnDriver``, which prunes after each turn) on the
server's memory (``AgentMemory``), once per checkpointer and per
``AgentPanel.prune_checkpoints``:

- **SQLite**: the agent's file after ``PRAGMA wal_checkpoint(TRUNCATE)`` and
  ``VACUUM`` (pruning frees pages SQLite reuses; ``VACUUM`` gives them back, so
  the file shows what is kept), less the size of the empty database;
- **Postgres** (a private server from ``tests/postgres_server.py``, 127.0.0.1,
  stopped at the end): ``pg_total_relation_size`` of ``checkpoints``,
  ``checkpoint_blobs`` and ``checkpoint_writes`` (with their indexes and TOAST)
  after ``VACUUM FULL``, less their size when empty.

Prints the bytes per thread before (no pruning) and after, the ratio, the
checkpoints kept and how long a prune took (median and max).

    .venv/bin/python bench/checkpoint_pruning.py [--turns 100]
"""
from __future__ import annotations

import argparse
import asyncio
import sqlite3
import statistics
import sys
import tempfile
import time
from pathlib import Path

TESTS_DIR = Path(__file__).resolve().parents[1] / "jupyterlab_agent_panel" / "tests"
sys.path[:0] = [str(TESTS_DIR)]

from helpers import graph_spec  # noqa: E402
from jupyterlab_agent_panel.graph import load_agent  # noqa: E402
from jupyterlab_agent_panel.memory import checkpoint_pruning  # noqa: E402
from jupyterlab_agent_panel.memory.agent_memory import AgentMemory, MemoryLocation, schema_name  # noqa: E402
from jupyterlab_agent_panel.turns.driver import TurnDriver, TurnRequest  # noqa: E402
from postgres_server import PostgresServer  # noqa: E402

TABLES = ("checkpoints", "checkpoint_blobs", "checkpoint_writes")
THREAD = "bench-thread"


def timed(prune):
    """``prune`` that records how long each call took, in ms."""
    took: list = []

    def call(thread_id: str) -> int:
        started = time.perf_counter()
        try:
            return prune(thread_id)
        finally:
            took.append((time.perf_counter() - started) * 1000)

    call.off_loop = prune.off_loop  # where the server runs it: Postgres' in a thread
    return call, took


async def run_turns(memory: AgentMemory, turns: int) -> list:
    """``turns`` turns on one thread through the turn driver; the prune times, in ms."""
    saver = await memory.open()
    loaded = load_agent(graph_spec("remembering_tools"), checkpointer=saver)
    took: list = []
    if saver.prune_thread is not None:
        saver.prune_thread, took = timed(saver.prune_thread)
    for number in range(turns):
        ends: list = []

        async def send(frame: dict) -> None:
            pass

        request = TurnRequest(loaded, f"message {number}", THREAD)
        await TurnDriver(send=send, end=ends.append).run(request)
        assert ends and ends[0].frame == {"status": "complete", "outcome": "complete"}, ends
        await checkpoint_pruning.settled()
    return took


def sqlite_bytes(path: Path) -> int:
    with sqlite3.connect(path) as database:
        database.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        database.execute("VACUUM")
    return path.stat().st_size


def sqlite_checkpoints(path: Path) -> int:
    with sqlite3.connect(path) as database:
        return database.execute("SELECT COUNT(*) FROM checkpoints").fetchone()[0]


async def sqlite_case(prune: bool, turns: int) -> dict:
    with tempfile.TemporaryDirectory(prefix="agent-panel-prune-") as folder:
        memory = AgentMemory(MemoryLocation("sqlite", folder), "bench", prune=prune)
        await memory.open()
        empty = sqlite_bytes(Path(memory.sqlite_path))
        took = await run_turns(memory, turns)
        await memory.close()
        path = Path(memory.sqlite_path)
        return {"bytes": sqlite_bytes(path) - empty, "checkpoints": sqlite_checkpoints(path), "took": took}


def postgres_figures(url: str, agent: str) -> tuple:
    """``(bytes of the checkpoint tables after VACUUM FULL, checkpoints)`` of ``agent``'s schema."""
    import psycopg

    schema = schema_name(agent)
    with psycopg.connect(url, autocommit=True) as connection:
        for table in TABLES:
            connection.execute(f'VACUUM FULL "{schema}"."{table}"')
        size = sum(
            connection.execute("SELECT pg_total_relation_size(%s)", (f'"{schema}"."{table}"',)).fetchone()[0]
            for table in TABLES
        )
        count = connection.execute(f'SELECT COUNT(*) FROM "{schema}".checkpoints').fetchone()[0]
    return size, count


async def postgres_case(url: str, prune: bool, turns: int) -> dict:
    agent = f"bench_{'pruned' if prune else 'whole'}"
    memory = AgentMemory(MemoryLocation("postgres", url), agent, prune=prune)
    await memory.open()
    empty, _ = postgres_figures(url, agent)
    took = await run_turns(memory, turns)
    await memory.close()
    size, count = postgres_figures(url, agent)
    return {"bytes": size - empty, "checkpoints": count, "took": took}


def row(name: str, before: dict, after: dict) -> str:
    took = after["took"]
    prune = f"{statistics.median(took):.2f} ms (max {max(took):.2f})"
    return (
        f"| {name} | {before['bytes']:,} ({before['checkpoints']}) | {after['bytes']:,} ({after['checkpoints']}) "
        f"| {before['bytes'] / after['bytes']:.1f}× | {prune} |"
    )


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=100)
    args = parser.parse_args()
    sqlite = {prune: await sqlite_case(prune, args.turns) for prune in (False, True)}
    with PostgresServer() as url:
        postgres = {prune: await postgres_case(url, prune, args.turns) for prune in (False, True)}
    print(f"One thread after {args.turns} turns, each calling a tool: bytes on disk (checkpoints kept)")
    print("| memory | no pruning | pruned | ratio | one prune, median |")
    print("| ------ | ---------- | ------ | ----- | ----------------- |")
    print(row("SQLite", sqlite[False], sqlite[True]))
    print(row("Postgres", postgres[False], postgres[True]))


if __name__ == "__main__":
    asyncio.run(main())
