"""A deployment's threads are the user's conversations (docs/protocol.md §15.5): listed, read
back and retitled through ``agent-panel/agents/<name>/threads``, against a real ``langgraph dev``.
"""
from __future__ import annotations

import getpass
import json
import uuid

import pytest
from tornado.httpclient import HTTPClientError

from agent_server import SERVED, AgentServer
from deployment_helpers import lose_the_client, turns_without_checkpoints
from helpers import text_of
from server_process import free_port

APPROVE = [{"type": "approve"}]
DEMO_EXTRACTORS = "langstage_core.demo.tools:demo_extractors"
PANEL = "jupyterlab-agent-panel"
VANISHING_PORT = free_port()  # a deployment one test stops once the panel checked it


@pytest.fixture(scope="module")
def agent_server():
    graphs = {name: SERVED[name] for name in ("remembering", "hitl", "demo", "ticking")}
    with AgentServer(graphs=graphs) as url:
        yield url


@pytest.fixture
def agent_panel_config(agent_server):
    return {
        "deployments": {
            "remembering": {"url": agent_server, "assistant_id": "remembering"},
            "hitl": {"url": agent_server, "assistant_id": "hitl"},
            "demo": {"url": agent_server, "assistant_id": "demo", "extractors": [DEMO_EXTRACTORS]},
            "ticking": {"url": agent_server, "assistant_id": "ticking"},
            "vanishing": {"url": f"http://127.0.0.1:{VANISHING_PORT}", "assistant_id": "remembering"},
        },
        "agents": {"local-remembering": SERVED["remembering"]},
    }


@pytest.fixture
def run_turn(run_turn):
    """Turns as these tests compare them: without their checkpoints (test_deployment_forks.py)."""
    return turns_without_checkpoints(run_turn)


@pytest.fixture
def sdk(agent_server):
    from langgraph_sdk import get_client

    return get_client(url=agent_server, api_key=None)


@pytest.fixture
def call(jp_fetch):
    """A thread route of agent ``agent``: ``(status, parsed JSON body or None)``, whatever the status."""

    async def request(method: str, agent: str, *path: str, body=None):
        data = None if body is None else json.dumps(body)
        try:
            response = await jp_fetch("agent-panel", "agents", agent, "threads", *path, method=method, body=data)
        except HTTPClientError as exc:
            response = exc.response
        return response.code, json.loads(response.body) if response.body else None

    return request


def new_thread() -> str:
    return str(uuid.uuid4())


def rendered(frames: list) -> dict:
    """What a turn shows: its text, tool calls, results, extractions, review and end."""
    return {
        "text": text_of(frames),
        "reasoning": "".join(f["reasoning"] for f in frames if "reasoning" in f),
        "calls": [call for f in frames for call in f.get("tool_calls", [])],
        "results": [(f["id"], f["name"], f["tool_result"], f["tool_status"]) for f in frames if "tool_result" in f],
        "extractions": [f["extraction"] for f in frames if "extraction" in f],
        "review": [f["interrupt"] for f in frames if f.get("status") == "interrupt"],
        "end": frames[-1],
    }


async def listed(call, agent: str) -> dict:
    status, body = await call("GET", agent)
    assert status == 200, body
    return {thread["thread_id"]: thread for thread in body["threads"]}


async def test_a_panel_thread_is_the_users_and_titled_by_its_first_message(run_turn, call, sdk):
    thread_id = new_thread()
    message = "Plan the week\nwith the details below"
    await run_turn("agents/remembering/chat", {"message": message, "thread_id": thread_id})

    metadata = (await sdk.threads.get(thread_id))["metadata"]
    summary = (await listed(call, "remembering"))[thread_id]

    assert {k: metadata[k] for k in ("client", "assistant", "owner", "title")} == {
        "client": PANEL,
        "assistant": "remembering",
        "owner": getpass.getuser(),  # one token for the server: who runs it
        "title": "Plan the week",
    }
    assert summary["title"] == "Plan the week"
    assert summary["status"] == "idle"
    assert 0 < summary["created_at"] <= summary["updated_at"]


async def test_the_list_holds_only_the_users_panel_threads_of_the_assistant_newest_first(run_turn, call, sdk):
    ours = [new_thread(), new_thread()]
    for thread_id in ours:
        await run_turn("agents/remembering/chat", {"message": "hello", "thread_id": thread_id})
    others = {
        "someone else's": {"client": PANEL, "assistant": "remembering", "owner": "someone-else"},
        "not the panel's": {"owner": getpass.getuser()},
        "another assistant's": {"client": PANEL, "assistant": "hitl", "owner": getpass.getuser()},
    }
    other_ids = set()
    for metadata in others.values():
        other_ids.add((await sdk.threads.create(metadata=metadata))["thread_id"])

    threads = await listed(call, "remembering")
    order = [thread_id for thread_id in threads if thread_id in ours]

    assert order == ours[::-1]
    assert other_ids.isdisjoint(threads)


@pytest.mark.parametrize(
    ("agent", "turns"),
    [
        ("demo", ["use a tool", "think about it"]),
        ("remembering", ["my name is Ada", "what is my name?"]),
    ],
)
async def test_history_reads_back_what_each_turn_showed(run_turn, call, agent, turns):
    thread_id = new_thread()
    live = []
    for message in turns:
        body = {"message": message, "thread_id": thread_id, "current_directory": "work/notes"}
        live.append(await run_turn(f"agents/{agent}/chat", body))

    status, history = await call("GET", agent, thread_id, "history")

    assert status == 200, history
    assert history["thread_id"] == thread_id
    assert history["title"] == turns[0]
    assert [turn["message"] for turn in history["turns"]] == turns  # the context block left out
    assert [rendered(turn["frames"]) for turn in history["turns"]] == [rendered(frames) for frames in live]


async def test_a_review_still_waiting_reads_back_as_the_review_and_its_answer_resumes(run_turn, call):
    thread_id = new_thread()
    asked = await run_turn("agents/hitl/chat", {"message": "write notes", "thread_id": thread_id})

    _, waiting = await call("GET", "hitl", thread_id, "history")
    decisions = [{"type": "approve"}, {"type": "reject", "message": "not now"}]
    resumed = await run_turn("agents/hitl/resume", {"thread_id": thread_id, "decisions": decisions})
    _, answered = await call("GET", "hitl", thread_id, "history")
    threads = await listed(call, "hitl")

    assert rendered(waiting["turns"][0]["frames"]) == rendered(asked)
    assert rendered(asked)["end"] == {"status": "complete", "outcome": "interrupted"}
    assert waiting["status"] == "interrupted"
    shown = rendered(answered["turns"][0]["frames"])
    assert shown["text"] == text_of(resumed)
    assert shown["results"] == rendered(resumed)["results"]
    assert shown["review"] == []
    assert shown["end"] == {"status": "complete", "outcome": "complete"}
    assert threads[thread_id]["status"] == "idle"


async def test_a_thread_with_a_run_in_flight_reads_back_to_it_and_joining_streams_the_run(
    raw_post, run_turn, call, agent_panel
):
    thread_id = new_thread()
    await run_turn("agents/ticking/chat", {"message": "ticks=2", "thread_id": thread_id})
    await lose_the_client(raw_post, agent_panel, thread_id, "ticks=8")

    _, history = await call("GET", "ticking", thread_id, "history")
    joined = await run_turn("agents/ticking/join", {"thread_id": thread_id})
    _, after = await call("GET", "ticking", thread_id, "history")

    assert history["status"] == "busy"
    first, running = history["turns"]
    assert (first["message"], text_of(first["frames"]), first["frames"][-1]) == (
        "ticks=2",
        "tick1 tick2",
        {"status": "complete", "outcome": "complete"},
    )
    assert running == {"message": "ticks=8", "frames": []}  # the rest comes from joining the run
    assert text_of(joined) == " ".join(f"tick{n}" for n in range(1, 9))
    assert [text_of(turn["frames"]) for turn in after["turns"]] == ["tick1 tick2", text_of(joined)]


async def test_a_rename_retitles_the_thread(run_turn, call, sdk):
    thread_id = new_thread()
    await run_turn("agents/remembering/chat", {"message": "hello", "thread_id": thread_id})

    status, _ = await call("PATCH", "remembering", thread_id, body={"title": "Weekly plan"})

    assert status == 204
    assert (await listed(call, "remembering"))[thread_id]["title"] == "Weekly plan"
    assert (await sdk.threads.get(thread_id))["metadata"]["owner"] == getpass.getuser()


async def test_another_users_thread_is_neither_read_nor_retitled(call, sdk):
    metadata = {"client": PANEL, "assistant": "remembering", "owner": "someone-else", "title": "theirs"}
    thread_id = (await sdk.threads.create(metadata=metadata))["thread_id"]

    read = await call("GET", "remembering", thread_id, "history")
    renamed = await call("PATCH", "remembering", thread_id, body={"title": "mine"})
    unknown = await call("GET", "remembering", new_thread(), "history")

    assert read[0] == renamed[0] == unknown[0] == 404
    assert read[1]["reason"] == "not_found"
    assert f"no thread '{thread_id}' of yours" in read[1]["message"]
    assert (await sdk.threads.get(thread_id))["metadata"]["title"] == "theirs"


async def test_a_rename_without_a_title_is_refused(call):
    status, body = await call("PATCH", "remembering", new_thread(), body={"name": "x"})

    assert status == 400
    assert body["reason"] == "bad_request"


async def test_a_local_agent_lists_no_threads_and_reads_none_back(run_turn, call):
    thread_id = new_thread()
    await run_turn("agents/local-remembering/chat", {"message": "hello", "thread_id": thread_id})

    assert await call("GET", "local-remembering") == (200, {"threads": []})
    assert (await call("GET", "local-remembering", thread_id, "history"))[0] == 404
    assert (await call("PATCH", "local-remembering", thread_id, body={"title": "t"}))[0] == 204


async def test_a_deployment_gone_since_its_check_says_so(jp_fetch, call):
    with AgentServer(graphs={"remembering": SERVED["remembering"]}, port=VANISHING_PORT) as url:
        health = json.loads((await jp_fetch("agent-panel", "agents", "vanishing", "health")).body)
        assert health["ready"] is True

    answers = [
        await call("GET", "vanishing"),
        await call("GET", "vanishing", new_thread(), "history"),
        await call("PATCH", "vanishing", new_thread(), body={"title": "t"}),
    ]

    assert [status for status, _ in answers] == [503, 503, 503]
    assert {body["reason"] for _, body in answers} == {"no_agent"}
    messages = [body["message"] for _, body in answers]
    assert messages[0].startswith(f"Could not ask Agent Server at {url} for your threads: ")
    assert messages[1].startswith(f"Could not ask Agent Server at {url} for the thread's history: ")
    assert messages[2].startswith(f"Could not ask Agent Server at {url} to retitle the thread: ")
