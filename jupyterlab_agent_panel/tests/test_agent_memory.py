"""Durable agent memory (docs/protocol.md §14): each served agent's threads in a real checkpointer.

A restart is a new ``jupyter server`` process on the same files: the thread's
memory and a pending review are still there, and the review resumes once.
The thread routes tell whether the agent remembers a thread and delete it. The Postgres option runs against a
real Postgres the tests start (``postgres_server.py``).
"""
from __future__ import annotations

import json
import sqlite3
import uuid
from pathlib import Path

import pytest
from tornado.httpclient import HTTPClientError

from helpers import assert_one_terminal_last, graph_spec, text_of
from jupyterlab_agent_panel.graph import NOTHING_PENDING, load_agent
from jupyterlab_agent_panel.memory.agent_memory import AgentMemory, MemoryLocation, memory_location, schema_name
from postgres_server import PostgresServer
from server_process import JupyterServerProcess

REMEMBERING = graph_spec("remembering")
HITL_SPEC = f"{Path(__file__).resolve().parents[2] / 'ui-tests' / 'graphs' / 'hitl.py'}:graph"
APPROVE = [{"type": "approve"}]
RESUMED = "Resumed. Your decision was: {'decisions': [{'type': 'approve'}]}."
SERVED = [f"--AgentPanel.agents=remembering={REMEMBERING}"]


def new_thread() -> str:
    return f"thread-{uuid.uuid4().hex[:8]}"


def checkpoint_count(path, thread_id: str) -> int:
    with sqlite3.connect(path) as database:
        return database.execute("SELECT COUNT(*) FROM checkpoints WHERE thread_id = ?", (thread_id,)).fetchone()[0]


async def say(server, message: str, thread_id: str) -> str:
    frames = await server.turn("agents/remembering/chat", {"message": message, "thread_id": thread_id})
    assert assert_one_terminal_last(frames) == {"status": "complete", "outcome": "complete"}
    return text_of(frames)


class TestARestart:
    async def test_the_agent_remembers_and_the_pending_review_resumes_once(self, tmp_path):
        data_dir = tmp_path / "data"
        remembered, reviewed = new_thread(), new_thread()
        async with JupyterServerProcess(tmp_path, *SERVED, data_dir=data_dir, log_name="before") as server:
            assert await say(server, "my name is Ada", remembered) == "I remember: my name is Ada"
            asked = await server.turn("chat", {"message": "ask me a question", "thread_id": reviewed})
            assert asked[-1] == {"status": "complete", "outcome": "interrupted"}

        memory = data_dir / "agent_panel" / "memory"
        assert sorted(path.name for path in memory.glob("*.sqlite")) == ["default.sqlite", "remembering.sqlite"]
        async with JupyterServerProcess(tmp_path, *SERVED, data_dir=data_dir, log_name="after") as server:
            assert await say(server, "what is my name?", remembered) == "I remember: my name is Ada | what is my name?"
            resumed = await server.turn("resume", {"thread_id": reviewed, "decisions": APPROVE})
            again_code, again = await server.request("POST", "resume", {"thread_id": reviewed, "decisions": APPROVE})

        assert text_of(resumed) == RESUMED
        assert assert_one_terminal_last(resumed) == {"status": "complete", "outcome": "complete"}
        assert (again_code, json.loads(again)) == (409, {"message": NOTHING_PENDING, "reason": "nothing_pending"})

    async def test_in_process_memory_is_forgotten(self, tmp_path):
        data_dir = tmp_path / "data"
        thread_id = new_thread()
        options = [*SERVED, "--AgentPanel.checkpointer_url=memory"]
        for log_name in ("before", "after"):
            async with JupyterServerProcess(tmp_path, *options, data_dir=data_dir, log_name=log_name) as server:
                assert await say(server, "hello", thread_id) == "I remember: hello"
                assert await say(server, "again", thread_id) == "I remember: hello | again"
        assert not (data_dir / "agent_panel" / "memory").exists()


class TestTheThreadRoutes:
    @pytest.fixture
    def agent_panel_config(self, tmp_path):
        kept = f"sqlite:///{tmp_path / 'kept'}"
        return {"agent_spec": REMEMBERING, "agents": {"slow": graph_spec("slow")}, "checkpointer_url": kept}

    @pytest.fixture
    def thread_route(self, jp_fetch):
        async def call(method: str, route: str):
            try:
                response = await jp_fetch("agent-panel", *route.split("/"), method=method)
            except HTTPClientError as exc:
                response = exc.response
            return response.code, json.loads(response.body) if response.body else None

        return call

    async def test_tell_whether_the_agent_remembers_and_delete_the_thread(self, run_turn, thread_route, tmp_path):
        thread_id, other = new_thread(), new_thread()
        assert await thread_route("GET", f"threads/{thread_id}") == (200, {"known": False})
        for thread in (thread_id, other):
            await run_turn("chat", {"message": "remember me", "thread_id": thread})
        path = tmp_path / "kept" / "default.sqlite"
        assert await thread_route("GET", f"threads/{thread_id}") == (200, {"known": True})

        assert await thread_route("DELETE", f"threads/{thread_id}") == (204, None)

        assert await thread_route("GET", f"threads/{thread_id}") == (200, {"known": False})
        assert (checkpoint_count(path, thread_id), checkpoint_count(path, other) > 0) == (0, True)
        after = await run_turn("chat", {"message": "who am I?", "thread_id": thread_id})
        assert text_of(after) == "I remember: who am I?"
        assert await thread_route("DELETE", f"threads/{thread_id}") == (204, None)
        assert await thread_route("DELETE", f"threads/{thread_id}") == (204, None)  # deleting twice is fine

    async def test_a_delete_stops_the_turn_still_running_on_the_thread(self, open_stream, thread_route, agent_panel):
        stream = open_stream("agents/slow/chat", {"message": "go", "thread_id": "t-running"})
        assert "chunk" in await stream.next_frame()

        assert await thread_route("DELETE", "agents/slow/threads/t-running") == (204, None)

        assert (await stream.rest())[-1]["status"] == "cancelled"
        assert agent_panel.host("slow").turns == {}
        assert await thread_route("GET", "agents/slow/threads/t-running") == (200, {"known": False})

    async def test_refuse_an_unknown_agent_and_a_too_long_thread_id(self, thread_route):
        code, unknown = await thread_route("DELETE", "agents/nope/threads/t")
        long_code, too_long = await thread_route("GET", "threads/" + "t" * 2000)
        assert (code, unknown) == (404, {"message": "No agent named 'nope'", "reason": "not_found"})
        assert long_code == 400 and too_long["reason"] == "bad_request" and "thread_id" in too_long["message"]


class TestTheDefaultPlace:
    async def test_is_one_file_per_agent_in_the_jupyter_data_directory(self, run_turn, jp_data_dir):
        await run_turn("chat", {"message": "hello", "thread_id": "t"})
        assert checkpoint_count(jp_data_dir / "agent_panel" / "memory" / "default.sqlite", "t") > 0


class TestAnInvalidSetting:
    @pytest.fixture
    def agent_panel_config(self):
        return {"checkpointer_url": "mysql://db/agents"}

    async def test_is_reported_by_health_and_refuses_turns(self, jp_fetch, post_json):
        health = json.loads((await jp_fetch("agent-panel", "health")).body)
        chat = await post_json("chat", {"message": "hello", "thread_id": "t"})

        assert (health["status"], health["ready"]) == ("agent_not_loaded", False)
        assert health["message"] == (
            "AgentPanel.checkpointer_url: expected empty (SQLite in the Jupyter data directory), 'memory', "
            "'sqlite:///<folder>' or 'postgresql://...', not 'mysql://db/agents'"
        )
        assert chat.code == 503
        assert json.loads(chat.body)["message"] == f"Agent not loaded: {health['message']}"


class TestUnreachablePostgres:
    @pytest.fixture
    def agent_panel_config(self):
        return {"checkpointer_url": "postgresql://nobody:secret@127.0.0.1:1/agents", "load_retry_seconds": 600}

    async def test_names_the_setting_and_hides_the_password(self, jp_fetch):
        message = json.loads((await jp_fetch("agent-panel", "health")).body)["message"]
        assert message.startswith(
            "Could not open the agent memory at postgresql://nobody:***@127.0.0.1:1/agents "
            "(AgentPanel.checkpointer_url): OperationalError: "
        ), message
        assert "secret" not in message


@pytest.mark.parametrize(
    ("url", "location"),
    [
        ("", MemoryLocation("sqlite", "/data/memory")),
        ("  memory ", MemoryLocation("memory")),
        ("sqlite:///srv/agents", MemoryLocation("sqlite", "/srv/agents")),
        ("postgresql://u:p@h/db", MemoryLocation("postgres", "postgresql://u:p@h/db")),
        ("postgres://h/db", MemoryLocation("postgres", "postgres://h/db")),
    ],
)
def test_the_setting_names_a_location(url, location):
    assert memory_location(url, "/data/memory") == location


@pytest.mark.parametrize("url", ["sqlite://relative", "sqlite:///", "redis://h", "/a/folder"])
def test_a_setting_of_no_known_kind_says_what_is_expected(url):
    with pytest.raises(ValueError) as raised:
        memory_location(url, "/data/memory")
    assert str(raised.value).startswith("AgentPanel.checkpointer_url: ")
    assert str(raised.value).endswith(repr(url))


def test_a_long_agent_name_gets_a_schema_postgres_keeps_whole():
    long_name = "a" * 128
    assert schema_name("research") == "agent_panel_research"
    assert len(schema_name(long_name)) == 63
    assert schema_name(long_name) != schema_name("a" * 127 + "b")


async def test_a_graph_with_its_own_checkpointer_keeps_it(tmp_path):
    from langgraph.checkpoint.memory import InMemorySaver
    from langgraph.graph import START, MessagesState, StateGraph

    builder = StateGraph(MessagesState)
    builder.add_node("noop", lambda state: {})
    builder.add_edge(START, "noop")
    own = InMemorySaver()
    graph = builder.compile(checkpointer=own)
    memory = AgentMemory(MemoryLocation("sqlite", str(tmp_path)), "mine")
    loaded = load_agent(graph, checkpointer=await memory.open())
    try:
        assert loaded.agent.graph.checkpointer is own
    finally:
        await memory.close()


@pytest.fixture(scope="module")
def postgres_url():
    with PostgresServer() as url:
        yield url


class TestPostgres:
    async def test_threads_survive_a_restart_and_deleting_forgets_one(self, tmp_path, postgres_url):
        import psycopg

        options = [*SERVED, f"--AgentPanel.checkpointer_url={postgres_url}"]
        kept, deleted = new_thread(), new_thread()
        async with JupyterServerProcess(tmp_path, *options, data_dir=tmp_path / "data", log_name="before") as server:
            for thread_id in (kept, deleted):
                assert await say(server, "first", thread_id) == "I remember: first"
            asked = await server.turn("chat", {"message": "ask me a question", "thread_id": kept})
            assert asked[-1] == {"status": "complete", "outcome": "interrupted"}

        async with JupyterServerProcess(tmp_path, *options, data_dir=tmp_path / "data", log_name="after") as server:
            assert await say(server, "second", kept) == "I remember: first | second"
            resumed = await server.turn("resume", {"thread_id": kept, "decisions": APPROVE})
            assert await server.fetch("GET", f"agents/remembering/threads/{deleted}") == {"known": True}
            await server.fetch("DELETE", f"agents/remembering/threads/{deleted}")
            after = await say(server, "third", deleted)

        assert text_of(resumed) == RESUMED
        assert after == "I remember: third"
        with psycopg.connect(postgres_url) as connection:
            schemas = connection.execute(
                "SELECT table_schema FROM information_schema.tables WHERE table_name = 'checkpoints' ORDER BY 1"
            ).fetchall()
        # Each agent in its own schema: "kept" is one thread id on two agents, two threads.
        assert schemas == [("agent_panel_default",), ("agent_panel_remembering",)]
        assert not (tmp_path / "data" / "agent_panel" / "memory").exists()



async def test_a_resumed_review_streams_its_answer_once_with_the_durable_memory(tmp_path):
    """With LangGraph's async SQLite saver the adapter sent the answer whole, then token by token,
    in 4 of 60 resumes (40 of 60 under "async" durability); the inline saver keeps the order."""
    from langstage_core.agui import iter_chunk_frames

    memory = AgentMemory(MemoryLocation("sqlite", str(tmp_path)), "hitl")
    agent = load_agent(HITL_SPEC, checkpointer=await memory.open()).agent
    decisions = {"decisions": [{"type": "approve"}, {"type": "reject", "message": "not now"}]}
    answers = []
    try:
        for _ in range(60):
            thread_id = new_thread()
            async for _frame in iter_chunk_frames(agent, "write notes", thread_id):
                pass
            frames = [frame async for frame in iter_chunk_frames(agent, "", thread_id, resume=decisions)]
            answers.append(text_of(frames))
    finally:
        await memory.close()
    assert {answer.count("Tool results:") for answer in answers} == {1}
