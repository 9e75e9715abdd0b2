"""Pruning a thread's checkpoints after each turn (docs/protocol.md §14.4), SQLite and Postgres.

Real turns over the real routes on a real graph (``graphs/remembering_tools.py``:
each message is noted by a tool, then answered with every message the thread
remembers), the server's real memory (a SQLite folder, or a Postgres the tests
start), read back through LangGraph and the database itself. A thread keeps its
oldest checkpoint, each turn's start and end and the newest of each branch; forks
at a kept checkpoint answer with that memory and a review left behind resumes.
"""
from __future__ import annotations

import json
import logging
import sqlite3
import uuid

import pytest

from helpers import assert_one_terminal_last, graph_spec, text_of
from jupyterlab_agent_panel.graph import load_agent
from jupyterlab_agent_panel.memory.agent_memory import AgentMemory, memory_location, schema_name
from jupyterlab_agent_panel.memory.checkpoint_pruning import settled
from jupyterlab_agent_panel.memory.checkpoints import fork, fork_problem
from postgres_server import PostgresServer

AGENT = "tools"
COMPLETE = {"status": "complete", "outcome": "complete"}
INTERRUPTED = {"status": "complete", "outcome": "interrupted"}
APPROVE = [{"type": "approve"}]
# A turn of remembering_tools: its input, the input applied, the model asking for the tool, the tool, the answer.
CHECKPOINTS_PER_TURN = 5
MESSAGES_PER_TURN = 4  # the message, the tool call, its result, the answer


def new_thread() -> str:
    return f"thread-{uuid.uuid4().hex[:8]}"


def config(thread_id: str, checkpoint_id=None) -> dict:
    configurable = {"thread_id": thread_id, "checkpoint_ns": ""}
    if checkpoint_id is not None:
        configurable["checkpoint_id"] = checkpoint_id
    return {"configurable": configurable}


@pytest.fixture(scope="module")
def postgres_url():
    with PostgresServer() as url:
        yield url


@pytest.fixture(params=["sqlite", "postgres"])
def backend(request) -> str:
    return request.param


@pytest.fixture
def prune() -> bool:
    return True


@pytest.fixture
def memory_url(backend, tmp_path, request) -> str:
    return request.getfixturevalue("postgres_url") if backend == "postgres" else f"sqlite:///{tmp_path / 'memory'}"


@pytest.fixture
def agent_panel_config(memory_url, prune):
    agents = {AGENT: graph_spec("remembering_tools")}
    return {"agents": agents, "checkpointer_url": memory_url, "prune_checkpoints": prune}


class Database:
    """The agent's checkpoint tables, read directly (SQLite file or Postgres schema)."""

    def __init__(self, backend: str, url: str, tmp_path):
        self.backend = backend
        self.url = url
        self.path = tmp_path / "memory" / f"{AGENT}.sqlite"

    def rows(self, query: str, *params) -> list:
        if self.backend == "sqlite":
            with sqlite3.connect(self.path) as database:
                return database.execute(query, params).fetchall()
        import psycopg

        with psycopg.connect(self.url) as connection:
            connection.execute(f'SET search_path TO "{schema_name(AGENT)}"')
            return connection.execute(query.replace("?", "%s"), params).fetchall()

    def checkpoint_ids(self, thread_id: str) -> set:
        return {r[0] for r in self.rows("SELECT checkpoint_id FROM checkpoints WHERE thread_id = ?", thread_id)}

    def written_ids(self, thread_id: str) -> set:
        table = "writes" if self.backend == "sqlite" else "checkpoint_writes"
        return {r[0] for r in self.rows(f"SELECT DISTINCT checkpoint_id FROM {table} WHERE thread_id = ?", thread_id)}

    def unnamed_blobs(self, thread_id: str) -> int:
        """Postgres: the blobs of the thread no checkpoint names (SQLite keeps values in the checkpoint)."""
        if self.backend == "sqlite":
            return 0
        query = """SELECT COUNT(*) FROM checkpoint_blobs b WHERE b.thread_id = ? AND NOT EXISTS (
            SELECT 1 FROM checkpoints c WHERE c.thread_id = b.thread_id AND c.checkpoint_ns = b.checkpoint_ns
            AND c.checkpoint -> 'channel_versions' ->> b.channel = b.version)"""
        return self.rows(query, thread_id)[0][0]

    def break_metadata(self, thread_id: str, checkpoint_id: str) -> None:
        """Make a checkpoint's metadata one pruning cannot read (not JSON; a step that is no number)."""
        if self.backend == "sqlite":
            with sqlite3.connect(self.path) as database:
                database.execute(
                    "UPDATE checkpoints SET metadata = ? WHERE thread_id = ? AND checkpoint_id = ?",
                    (b"{not json", thread_id, checkpoint_id),
                )
            return
        import psycopg

        with psycopg.connect(self.url, autocommit=True) as connection:
            connection.execute(
                f'UPDATE "{schema_name(AGENT)}".checkpoints SET metadata = %s::jsonb WHERE thread_id = %s '
                "AND checkpoint_id = %s",
                (json.dumps({"step": "not a number"}), thread_id, checkpoint_id),
            )


@pytest.fixture
def database(backend, memory_url, tmp_path) -> Database:
    return Database(backend, memory_url, tmp_path)


@pytest.fixture
def host(agent_panel):
    return agent_panel.host(AGENT)


@pytest.fixture
def in_agent(host):
    """``await in_agent(use)``: ``use(agent)``'s coroutine run on the agent's loop, where its memory is used."""

    async def run(use):
        agent = (await host.loaded_agent()).agent
        return await host.on_loop(use(agent))

    return run


@pytest.fixture
def say(run_turn, host):
    """A chat turn, once its thread is pruned: ``(checkpoint it started from, answer, terminal frame)``."""

    async def send(message: str, thread_id: str, **fields) -> tuple:
        frames = await run_turn(f"agents/{AGENT}/chat", {"message": message, "thread_id": thread_id, **fields})
        await host.on_loop(settled())
        return frames[0].get("checkpoint_id"), text_of(frames), assert_one_terminal_last(frames)

    return send


async def _snapshots(agent, thread_id: str) -> list:
    return [s async for s in agent.graph.aget_state_history(config(thread_id))]


@pytest.fixture
def history(in_agent):
    """The thread's checkpoints as LangGraph lists them, oldest first, each loaded: ``(id, parent id,
    step, source, number of messages)``."""

    async def read(thread_id: str) -> list:
        listed = await in_agent(lambda agent: _snapshots(agent, thread_id))
        return [
            (
                s.config["configurable"]["checkpoint_id"],
                s.parent_config["configurable"]["checkpoint_id"] if s.parent_config else None,
                s.metadata["step"],
                s.metadata["source"],
                len(s.values.get("messages", [])),
            )
            for s in reversed(listed)
        ]

    return read


@pytest.fixture
def state(in_agent):
    async def read(thread_id: str, checkpoint_id=None):
        return await in_agent(lambda agent: agent.graph.aget_state(config(thread_id, checkpoint_id)))

    return read


async def forget_the_last_prunes(agent) -> None:
    """As after a restart: the next prune of each thread reads all of it."""
    agent.graph.checkpointer.prune_thread.seen.clear()


def prune_afresh(thread_id: str):
    """Prune the thread reading all of it, as the first prune after a restart does: how many went."""

    async def prune(agent) -> int:
        await forget_the_last_prunes(agent)
        return agent.graph.checkpointer.prune_thread(thread_id)

    return prune


async def test_turns_with_tools_keep_only_their_boundaries(say, history, database, in_agent):
    thread = new_thread()
    starts = []
    for number, message in enumerate(["one", "two", "three", "four"], start=1):
        start, answer, end = await say(message, thread)
        assert (answer, end) == ("I remember: " + " | ".join(["one", "two", "three", "four"][:number]), COMPLETE)
        starts.append(start)

    kept = await history(thread)
    ids = [row[0] for row in kept]
    # The oldest (the first turn's input, before any step), then each turn's end: the next one's start.
    assert starts[0] is None and ids[1:4] == starts[1:]
    assert kept[0][1:4] == (None, -1, "input")
    assert [row[1] for row in kept[1:]] == ids[:-1]  # each one's parent is the one kept before it
    assert [row[4] for row in kept] == [0, 4, 8, 12, 16]  # every kept checkpoint loads whole
    assert database.checkpoint_ids(thread) == set(ids)
    assert database.written_ids(thread) <= set(ids)
    assert database.unnamed_blobs(thread) == 0
    assert await in_agent(lambda agent: fork_problem(agent, thread, ids[0])) is None  # the panel forks there

    assert await in_agent(prune_afresh(thread)) == 0  # what a prune keeps, the next one keeps


class TestWithoutPruning:
    @pytest.fixture
    def prune(self):
        return False

    async def test_every_step_stays(self, say, history, database):
        thread = new_thread()
        for message in ("one", "two"):
            await say(message, thread)

        kept = await history(thread)
        assert len(kept) == len(database.checkpoint_ids(thread)) == 2 * CHECKPOINTS_PER_TURN
        assert [row[4] for row in kept][-1] == 2 * MESSAGES_PER_TURN


async def test_a_fork_at_an_earlier_turn_after_pruning_answers_with_that_memory(say, history, database, state):
    thread = new_thread()
    starts = [(await say(message, thread))[0] for message in ("one", "two", "three", "four")]
    left_behind = (await state(thread)).config["configurable"]["checkpoint_id"]

    forked_from, answer, _ = await say("THREE", thread, checkpoint_id=starts[2])
    _, after, _ = await say("and on", thread)
    _, old_branch, _ = await say("FOUR", thread, checkpoint_id=starts[3])
    _, first_again, _ = await say("TWO", thread, checkpoint_id=starts[1])

    assert answer == "I remember: one | two | THREE"
    assert after == "I remember: one | two | THREE | and on"
    assert old_branch == "I remember: one | two | three | FOUR"
    assert first_again == "I remember: one | TWO"
    kept = {row[0]: row for row in await history(thread)}
    assert {*starts[1:], forked_from, left_behind} <= kept.keys()
    assert kept[left_behind][4] == 4 * MESSAGES_PER_TURN  # the branch left behind, whole
    # Each branch: its fork's copy, then its turns' ends; nothing of the steps inside a turn.
    assert len(kept) == 1 + 4 + 3 + 2 + 2  # the oldest, 4 ends, then a copy and its ends per fork
    assert database.checkpoint_ids(thread) == kept.keys()
    assert database.unnamed_blobs(thread) == 0


async def test_a_pending_review_resumes_after_pruning(say, history, run_turn, host, state, in_agent):
    thread = new_thread()
    await say("one", thread)
    _, _, paused = await say("review two", thread)
    waiting = await state(thread)
    await in_agent(forget_the_last_prunes)  # the prune after the answer reads the review afresh

    resumed = await run_turn(f"agents/{AGENT}/resume", {"thread_id": thread, "decisions": APPROVE})
    await host.on_loop(settled())

    assert paused == INTERRUPTED
    assert waiting.interrupts and waiting.next == ("tools",)
    assert (text_of(resumed), assert_one_terminal_last(resumed)) == ("I remember: one | review two", COMPLETE)
    kept = await history(thread)
    # The review's checkpoint stays, between the turn that paused and the answer.
    assert [row[0] for row in kept][-2] == waiting.config["configurable"]["checkpoint_id"]
    assert [row[4] for row in kept] == [0, 4, 6, 8]
    assert await in_agent(prune_afresh(thread)) == 0


async def test_a_review_left_behind_by_a_fork_still_resumes_after_switching_back(say, in_agent, state, database):
    from langstage_core.agui import iter_chunk_frames

    thread = new_thread()
    await say("one", thread)
    before_review, _, paused = await say("review two", thread)
    review = (await state(thread)).config["configurable"]["checkpoint_id"]
    _, answer, _ = await say("two", thread, checkpoint_id=before_review)
    _, later, _ = await say("three", thread)

    left = await state(thread, review)

    async def switch_back_and_answer(agent) -> list:
        # What a resume fork does (docs/protocol.md §5.10): copy the review's checkpoint, then answer it.
        await fork(agent, thread, review)
        return [frame async for frame in iter_chunk_frames(agent, "", thread, resume={"decisions": APPROVE})]

    resumed = await in_agent(switch_back_and_answer)

    assert (paused, answer, later) == (INTERRUPTED, "I remember: one | two", "I remember: one | two | three")
    assert [i.value for i in left.interrupts] == [{"question": "Note 'review two'?"}]
    assert len(left.values["messages"]) == MESSAGES_PER_TURN + 2
    assert text_of(resumed) == "I remember: one | review two"
    assert review in database.checkpoint_ids(thread)


async def test_a_failed_prune_only_logs_a_warning(say, database, history, caplog, in_agent):
    thread = new_thread()
    await say("one", thread)
    database.break_metadata(thread, (await history(thread))[0][0])  # pruning cannot read the oldest's

    await in_agent(forget_the_last_prunes)  # the next prune reads the oldest again

    with caplog.at_level(logging.WARNING, logger="jupyterlab_agent_panel.memory.checkpoint_pruning"):
        _, answer, end = await say("two", thread)

    assert (answer, end) == ("I remember: one | two", COMPLETE)
    assert [r.getMessage() for r in caplog.records if r.name.endswith("checkpoint_pruning")] == [
        f"agent-panel: could not prune the checkpoints of thread {thread!r}"
    ]
    assert len(database.checkpoint_ids(thread)) == 2 + CHECKPOINTS_PER_TURN  # nothing deleted


async def test_a_thread_whose_state_uses_a_delta_channel_is_left_whole(memory_url, tmp_path, backend):
    """A DeltaChannel stores writes, not values: a checkpoint reads its ancestors' writes back."""
    memory = AgentMemory(memory_location(memory_url, str(tmp_path / "memory")), f"delta_{backend}")
    saver = await memory.open()
    try:
        graph = load_agent(graph_spec("delta_notes"), checkpointer=saver).agent.graph
        thread = new_thread()
        for message in ("one", "two"):
            await graph.ainvoke({"said": [message]}, config(thread))
        count = len([c async for c in saver.alist(config(thread))])

        deleted = saver.prune_thread(thread)

        assert (deleted, len([c async for c in saver.alist(config(thread))])) == (0, count)
        assert (await graph.aget_state(config(thread))).values["said"] == [
            "one", "noted one", "answer 2", "two", "noted two", "answer 5"
        ]
    finally:
        await memory.close()


async def test_a_step_of_a_turn_begun_before_the_prune_goes_at_the_next_one(memory_url, tmp_path, backend):
    """A prune may run while the thread's next turn has begun: the step it then kept as the
    newest goes once the turn has ended."""
    from langchain_core.messages import HumanMessage

    memory = AgentMemory(memory_location(memory_url, str(tmp_path / "memory")), f"begun_{backend}")
    saver = await memory.open()
    try:
        graph = load_agent(graph_spec("remembering_tools"), checkpointer=saver).agent.graph
        thread = new_thread()
        await graph.ainvoke({"messages": [HumanMessage("one")]}, config(thread))
        saver.prune_thread(thread)
        # The next turn's first steps: stopped before the tool runs, as a prune sees a turn running.
        await graph.ainvoke({"messages": [HumanMessage("two")]}, config(thread), interrupt_before=["tools"])
        begun = len([c async for c in saver.alist(config(thread))])
        saver.prune_thread(thread)
        kept_meanwhile = len([c async for c in saver.alist(config(thread))])
        await graph.ainvoke(None, config(thread))  # the turn goes on to its end

        saver.prune_thread(thread)

        history = [c async for c in saver.alist(config(thread))]
        assert (begun, kept_meanwhile, len(history)) == (5, 3, 3)  # at the end: the oldest, each turn's end
        assert (await graph.aget_state(config(thread))).values["messages"][-1].content == "I remember: one | two"
    finally:
        await memory.close()
