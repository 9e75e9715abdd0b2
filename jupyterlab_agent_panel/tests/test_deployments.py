"""LangGraph Agent Server deployments served under agent-panel/agents/<name>/ (docs/protocol.md §15),
against a real ``langgraph dev`` the module starts (``agent_server.py``).
"""
from __future__ import annotations

import json
import re
import uuid

import pytest

from agent_server import SERVED, TEAM_KEY, AgentServer
from deployment_helpers import lose_the_client, runs_on, turns_without_checkpoints, without_checkpoints
from helpers import assert_one_terminal_last, text_of
from jupyterlab_agent_panel.deployments import deployment
from jupyterlab_agent_panel.graph import NOTHING_PENDING
from jupyterlab_agent_panel.server.panel import AgentPanel
from server_process import free_port

APPROVE = [{"type": "approve"}]
DEMO_EXTRACTORS = "langstage_core.demo.tools:demo_extractors"
VANISHING_PORT = free_port()  # a deployment one test starts, and stops once the panel checked it
COMEBACK_PORT = free_port()  # a deployment one test starts, stops and starts again
RESUME_APPROVED = ("resume", {"decisions": APPROVE})
COMPLETE = {"status": "complete", "outcome": "complete"}
INTERRUPTED = {"status": "complete", "outcome": "interrupted"}


AGENT_SERVER_URL: list = []  # the module's Agent Server, for the tests that ask it directly


@pytest.fixture(scope="module")
def agent_server():
    with AgentServer() as url:
        AGENT_SERVER_URL[:] = [url]
        yield url


@pytest.fixture(scope="module")
def keyed_server():
    """A deployment with auth of its own: only TEAM_KEY gets in."""
    with AgentServer(graphs={"remembering": SERVED["remembering"]}, keyed=True) as url:
        yield url


@pytest.fixture
def agent_panel_config(agent_server, keyed_server, monkeypatch):
    monkeypatch.setenv("TEAM_AGENT_KEY", TEAM_KEY)
    keyed = {"url": keyed_server, "assistant_id": "remembering"}
    return {
        "deployments": {
            "keyed": {**keyed, "api_key_env": "TEAM_AGENT_KEY"},
            "keyed-wrong": {**keyed, "api_key": "not the team's key"},
            "keyed-none": keyed,
            "remembering": {"url": agent_server, "assistant_id": "remembering"},
            "hitl": {"url": agent_server, "assistant_id": "hitl"},
            "slow": {"url": agent_server, "assistant_id": "slow"},
            "ticking": {"url": agent_server, "assistant_id": "ticking"},
            "demo": {"url": agent_server, "assistant_id": "demo", "extractors": [DEMO_EXTRACTORS]},
            "notebook": {"url": agent_server, "assistant_id": "notebook"},
            "failing": {"url": agent_server, "assistant_id": "failing"},
            "missing": {"url": agent_server, "assistant_id": "nope"},
            "elsewhere": {"url": f"{agent_server}/not-here", "assistant_id": "remembering"},
            "down": {"url": "http://127.0.0.1:1", "assistant_id": "remembering"},
            "vanishing": {"url": f"http://127.0.0.1:{VANISHING_PORT}", "assistant_id": "remembering"},
            "comeback": {"url": f"http://127.0.0.1:{COMEBACK_PORT}", "assistant_id": "remembering"},
        },
        "agents": {
            **{f"local-{name}": SERVED[name] for name in ("remembering", "hitl", "notebook", "failing")},
            "local-demo": {"spec": SERVED["demo"], "extractors": [DEMO_EXTRACTORS]},
        },
        "load_retry_seconds": 600,
    }


@pytest.fixture
def run_turn(run_turn):
    """Turns as these tests compare them: without their checkpoints (test_deployment_forks.py)."""
    return turns_without_checkpoints(run_turn)


def comparable(frames: list) -> list:
    """Frames without what differs between two runs of one graph: message ids, timings,
    interrupt ids (a checkpoint's, docs/protocol.md §5.9) left out (run_turn left out the checkpoints),
    tool call ids a graph mints per run (``call_<hex>``) numbered in order of appearance."""
    dropped = ("message_id", "duration_ms", "interrupt_ids")
    kept = [{k: v for k, v in f.items() if k not in dropped} for f in frames]
    minted: dict = {}
    text = re.sub(r"call_[0-9a-f]{8,}", lambda m: minted.setdefault(m.group(), f"call_{len(minted)}"), json.dumps(kept))
    return json.loads(text)


async def both(run_turn, graph: str, turns: list) -> tuple:
    """The frames of ``turns`` ((route, body) pairs) on the deployment and on the same graph served locally."""
    deployed, local = [], []
    for agent, frames in ((graph, deployed), (f"local-{graph}", local)):
        thread_id = new_thread()
        for route, body in turns:
            frames.append(await run_turn(f"agents/{agent}/{route}", {**body, "thread_id": thread_id}))
    return deployed, local


def new_thread() -> str:
    return str(uuid.uuid4())  # the Agent Server's thread ids are UUIDs, as the panel's are


async def health(jp_fetch, name: str) -> dict:
    return json.loads((await jp_fetch("agent-panel", "agents", name, "health")).body)


async def test_a_deployment_is_listed_and_healthy(jp_fetch, agent_server):
    listing = json.loads((await jp_fetch("agent-panel", "agents")).body)["agents"]
    deployed = next(agent for agent in listing if agent["name"] == "remembering")

    assert (deployed["ready"], deployed["status"]) == (True, "healthy")
    assert deployed["url"] == "agent-panel/agents/remembering/"
    assert deployed["spec"] == f"remembering at {agent_server}"
    assert (await health(jp_fetch, "remembering"))["agent_name"] == "Remembering"


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("missing", "The Agent Server at {url} has no assistant or graph 'nope'"),
        ("elsewhere", "{url}/not-here answered 404: it is not a LangGraph Agent Server"),
        ("down", "The Agent Server at http://127.0.0.1:1 is unreachable: ConnectError"),
    ],
)
async def test_health_says_what_is_wrong(jp_fetch, agent_server, name, message):
    answer = await health(jp_fetch, name)
    assert (answer["status"], answer["ready"]) == ("agent_not_loaded", False)
    assert answer["message"].startswith(message.format(url=agent_server)), answer["message"]


@pytest.mark.parametrize("name", ["keyed-wrong", "keyed-none"])
async def test_health_says_the_deployment_refused_the_key(jp_fetch, keyed_server, name):
    answer = await health(jp_fetch, name)
    assert (answer["status"], answer["ready"]) == ("agent_not_loaded", False)
    assert answer["message"] == (
        f"The Agent Server at {keyed_server} refused the key (401): check api_key / api_key_env"
    )


async def test_the_configured_key_opens_a_keyed_deployment_for_checks_and_runs(jp_fetch, run_turn):
    assert (await health(jp_fetch, "keyed"))["ready"] is True
    frames = await run_turn("agents/keyed/chat", {"message": "my name is Ada", "thread_id": new_thread()})

    assert text_of(frames) == "I remember: my name is Ada"
    assert assert_one_terminal_last(frames) == COMPLETE


async def test_a_turn_streams_and_the_thread_remembers(run_turn):
    thread_id = new_thread()
    first = await run_turn("agents/remembering/chat", {"message": "my name is Ada", "thread_id": thread_id})
    second = await run_turn("agents/remembering/chat", {"message": "what is my name?", "thread_id": thread_id})

    assert [f["chunk"] for f in first if "chunk" in f] == ["I remember: my name is Ada"]
    assert first[0]["node"] == "answer"
    assert assert_one_terminal_last(first) == COMPLETE
    assert text_of(second) == "I remember: my name is Ada | what is my name?"


async def test_a_review_is_answered_once_and_resumes_the_run(run_turn, post_json):
    thread_id = new_thread()
    asked = await run_turn("agents/remembering/chat", {"message": "review the notes", "thread_id": thread_id})
    # The interrupt's id, as the Agent Server's thread state has it (docs/protocol.md §5.9).
    assert asked[0].pop("interrupt_ids") == [await interrupt_id_of(thread_id)]
    resumed = await run_turn("agents/remembering/resume", {"thread_id": thread_id, "decisions": APPROVE})
    again = await post_json("agents/remembering/resume", {"thread_id": thread_id, "decisions": APPROVE})

    assert asked == [
        {
            "status": "interrupt",
            "interrupt": {
                "action_requests": [
                    {"name": "publish", "args": {"what": "the notes"}, "description": "Publish the notes?"}
                ],
                "review_configs": [{"action_name": "publish", "allowed_decisions": ["approve", "reject"]}],
                "allowed_decisions": ["reject", "approve"],  # core's order, as for a local graph
            },
        },
        INTERRUPTED,
    ]
    assert text_of(resumed) == "Decision: approve. I remember: review the notes"
    assert assert_one_terminal_last(resumed) == COMPLETE
    assert again.code == 409
    assert json.loads(again.body) == {"message": NOTHING_PENDING, "reason": "nothing_pending"}


async def interrupt_id_of(thread_id: str) -> str:
    """The id of the one interrupt the deployment's thread waits on, read from the Agent Server."""
    from langgraph.pregel.remote import RemoteGraph
    from langgraph_sdk import get_client

    remote = RemoteGraph("remembering", client=get_client(url=AGENT_SERVER_URL[0]))
    [interrupt] = (await remote.aget_state({"configurable": {"thread_id": thread_id}})).interrupts
    return interrupt.id


async def test_a_replayed_resume_is_refused_on_a_deployment_too(run_turn, post_json):
    """Issue 34 item 4: the deployment's interrupt frames carry their ids, so a resume names the
    review it answers, and an earlier review's answer sent again is refused (stale_review)."""
    thread_id = new_thread()

    def ask() -> dict:
        return {"message": "review the notes", "thread_id": thread_id}

    [first] = (await run_turn("agents/remembering/chat", ask()))[0]["interrupt_ids"]
    replayed = {"thread_id": thread_id, "decisions": APPROVE, "interrupt_ids": [first]}
    assert assert_one_terminal_last(await run_turn("agents/remembering/resume", replayed)) == COMPLETE
    [second] = (await run_turn("agents/remembering/chat", ask()))[0]["interrupt_ids"]
    assert second != first

    refused = await post_json("agents/remembering/resume", replayed)
    assert refused.code == 409
    assert json.loads(refused.body)["reason"] == "stale_review"
    answer = {**replayed, "interrupt_ids": [second]}
    resumed = await run_turn("agents/remembering/resume", answer)
    assert text_of(resumed).startswith("Decision: approve.")


async def test_tool_calls_and_results_of_langchain_hitl(run_turn):
    thread_id = new_thread()
    asked = await run_turn("agents/hitl/chat", {"message": "write notes", "thread_id": thread_id})
    decisions = [{"type": "approve"}, {"type": "reject", "message": "not now"}]
    resumed = await run_turn("agents/hitl/resume", {"thread_id": thread_id, "decisions": decisions})

    assert [f["tool_calls"] for f in asked if "tool_calls" in f] == [
        [{"name": "write_file", "args": {"path": "notes.md", "content": "Draft notes"}, "id": "call_write_file"}],
        [{"name": "execute", "args": {"command": "rm -rf build"}, "id": "call_execute"}],
    ]
    assert asked[-2]["interrupt"]["review_configs"][1] == {
        "action_name": "execute",
        "allowed_decisions": ["approve", "reject"],
    }
    results = {f["id"]: (f["name"], f["tool_result"], f["tool_status"]) for f in resumed if "tool_result" in f}
    assert results == {
        "call_execute": ("execute", "User rejected the tool call for `execute` with reason: not now", "error"),
        "call_write_file": ("write_file", "wrote 11 chars to notes.md", "success"),
    }
    assert len([f for f in resumed if "chunk" in f]) > 5  # token by token
    assert text_of(resumed) == (
        "Tool results:\n- write_file: wrote 11 chars to notes.md\n"
        "- execute: User rejected the tool call for `execute` with reason: not now"
    )


async def test_stop_cancels_the_run_on_the_deployment(open_stream, post_json, agent_panel, agent_server):
    from langgraph_sdk import get_client

    thread_id = new_thread()
    stream = open_stream("agents/slow/chat", {"message": "go", "thread_id": thread_id})
    assert (await stream.next_frame(timeout=30))["chunk"] == "started"

    reply = await post_json("agents/slow/cancel", {"thread_id": thread_id})
    rest = await stream.rest(timeout=30)

    assert json.loads(reply.body)["status"] == "success"
    assert rest == [{"status": "cancelled", "message": "Execution cancelled by user"}]
    client = get_client(url=agent_server, api_key=None)
    runs = await client.runs.list(thread_id)
    assert [run["status"] for run in runs] == ["interrupted"]
    assert agent_panel.host("slow").turns == {}


async def test_a_lost_client_leaves_the_run_going_and_join_streams_it_from_its_start(
    raw_post, run_turn, agent_panel, agent_server
):
    thread_id = new_thread()
    await lose_the_client(raw_post, agent_panel, thread_id, "ticks=12")

    assert await runs_on(agent_server, thread_id) == ["running"]
    joined = await run_turn("agents/ticking/join", {"thread_id": thread_id})

    assert text_of(joined) == " ".join(f"tick{n}" for n in range(1, 13))
    assert assert_one_terminal_last(joined) == COMPLETE
    assert await runs_on(agent_server, thread_id) == ["success"]


async def test_stop_on_a_joined_run_cancels_it_on_the_deployment(
    raw_post, open_stream, post_json, agent_panel, agent_server
):
    thread_id = new_thread()
    await lose_the_client(raw_post, agent_panel, thread_id, "go")
    joined = open_stream("agents/ticking/join", {"thread_id": thread_id})
    assert (await joined.next_frame(timeout=30))["chunk"].startswith("tick1")

    reply = await post_json("agents/ticking/cancel", {"thread_id": thread_id})
    rest = await joined.rest(timeout=30)

    assert json.loads(reply.body)["status"] == "success"
    assert rest[-1] == {"status": "cancelled", "message": "Execution cancelled by user"}
    assert await runs_on(agent_server, thread_id) == ["interrupted"]


@pytest.mark.parametrize("agent", ["remembering", "local-remembering"])
async def test_join_without_a_run_in_flight_says_so(run_turn, post_json, agent):
    thread_id = new_thread()
    await run_turn(f"agents/{agent}/chat", {"message": "hi", "thread_id": thread_id})

    reply = await post_json(f"agents/{agent}/join", {"thread_id": thread_id})

    assert reply.code == 204
    assert reply.body == b""


async def test_join_on_a_deployment_gone_since_its_check_says_so(jp_fetch, post_json):
    with AgentServer(graphs={"remembering": SERVED["remembering"]}, port=VANISHING_PORT) as url:
        assert (await health(jp_fetch, "vanishing"))["ready"] is True

    reply = await post_json("agents/vanishing/join", {"thread_id": new_thread()})

    assert reply.code == 503
    answer = json.loads(reply.body)
    assert answer["reason"] == "no_agent"
    assert answer["message"].startswith(f"Could not ask Agent Server at {url} for the thread's runs: ")


async def test_health_follows_a_deployment_that_stops_and_comes_back(jp_fetch, run_turn, monkeypatch):
    """Issue 34 item 5: a turn that cannot reach the deployment has health ask it again at once
    (the answer to GET /ok is otherwise kept RECHECK_SECONDS, here an hour), a deployment that
    fails is asked again at every check, and a kept answer is asked again once it is old."""
    monkeypatch.setattr(deployment, "RECHECK_SECONDS", 3600.0)
    unreachable = f"The Agent Server at http://127.0.0.1:{COMEBACK_PORT} is unreachable: ConnectError"
    with AgentServer(graphs={"remembering": SERVED["remembering"]}, port=COMEBACK_PORT):
        assert (await health(jp_fetch, "comeback"))["ready"] is True

    frames = await run_turn("agents/comeback/chat", {"message": "my name is Ada", "thread_id": new_thread()})
    terminal = assert_one_terminal_last(frames)
    assert terminal["status"] == "error" and "ConnectError" in terminal["error"], terminal
    answer = await health(jp_fetch, "comeback")
    assert (answer["status"], answer["ready"]) == ("unreachable", False)
    assert answer["message"].startswith(unreachable), answer["message"]
    listed = json.loads((await jp_fetch("agent-panel", "agents")).body)["agents"]
    assert next(a for a in listed if a["name"] == "comeback")["status"] == "unreachable"

    with AgentServer(graphs={"remembering": SERVED["remembering"]}, port=COMEBACK_PORT):
        assert (await health(jp_fetch, "comeback"))["status"] == "healthy"
        frames = await run_turn("agents/comeback/chat", {"message": "my name is Ada", "thread_id": new_thread()})
        assert text_of(frames) == "I remember: my name is Ada"
        monkeypatch.setattr(deployment, "RECHECK_SECONDS", 0.0)

    answer = await health(jp_fetch, "comeback")
    assert (answer["status"], answer["ready"]) == ("unreachable", False)
    assert answer["message"].startswith(unreachable), answer["message"]


def test_an_invalid_entry_is_left_out_and_says_why(caplog):
    panel = AgentPanel(
        deployments={
            "ok": {"url": "http://127.0.0.1:9", "assistant_id": "a"},
            "no-url": {"assistant_id": "a"},
            "typo": {"url": "http://h", "assistant": "a"},
            "bad name!": {"url": "http://h", "assistant_id": "a"},
        }
    )
    try:
        assert sorted(panel.deployments) == ["ok"]
        logged = caplog.text
        assert "left out 'no-url': 'url' must be the deployment's http:// or https:// URL" in logged
        assert "left out 'typo': unknown keys ['assistant']" in logged
        assert "left out 'bad name!': a name may only contain" in logged
    finally:
        panel.close()


@pytest.mark.parametrize(
    ("graph", "turns"),
    [
        ("remembering", [("chat", {"message": "hi"}), ("chat", {"message": "review it"}), RESUME_APPROVED]),
        ("hitl", [("chat", {"message": "write notes"}), ("resume", {"decisions": [*APPROVE, {"type": "reject"}]})]),
        ("demo", [("chat", {"message": "use a tool"}), ("chat", {"message": "think about it"})]),
        # The graph's own exception, not "unknown error" (issue 34 item 5).
        ("failing", [("chat", {"message": "hi"})]),
    ],
)
async def test_a_deployment_streams_the_frames_the_same_graph_streams_locally(run_turn, graph, turns):
    deployed, local = await both(run_turn, graph, turns)
    assert [comparable(frames) for frames in deployed] == [comparable(frames) for frames in local]


async def test_the_thread_routes_ask_and_delete_the_deployments_thread(run_turn, jp_fetch, agent_server):
    from langgraph_sdk import get_client
    from langgraph_sdk.errors import NotFoundError

    thread_id = new_thread()

    async def known() -> dict:
        return json.loads((await jp_fetch("agent-panel", "agents", "remembering", "threads", thread_id)).body)

    assert await known() == {"known": False}
    await run_turn("agents/remembering/chat", {"message": "hi", "thread_id": thread_id})
    client = get_client(url=agent_server, api_key=None)
    thread = await client.threads.get(thread_id)
    assert thread["metadata"]["client"] == "jupyterlab-agent-panel"
    assert await known() == {"known": True}

    deleted = await jp_fetch("agent-panel", "agents", "remembering", "threads", thread_id, method="DELETE")

    assert deleted.code == 204
    assert await known() == {"known": False}
    with pytest.raises(NotFoundError):
        await client.threads.get(thread_id)


@pytest.mark.parametrize(
    ("entry", "sent"),
    [({}, None), ({"api_key_env": "TEAM_AGENT_KEY"}, "team-key"), ({"api_key": "literal"}, "literal")],
)
async def test_only_the_configured_key_is_sent(agent_server, monkeypatch, entry, sent):
    from jupyterlab_agent_panel.deployments.deployment import connect, deployment_entry

    monkeypatch.setenv("LANGSMITH_API_KEY", "a key for LangSmith, not for this deployment")
    monkeypatch.setenv("TEAM_AGENT_KEY", "team-key")
    spec = deployment_entry({"url": agent_server, "assistant_id": "remembering", **entry})["spec"]
    loaded = await connect(spec, [])
    try:
        assert loaded.ready, loaded.error
        assert loaded.agent.client.http.client.headers.get("x-api-key") == sent
    finally:
        await loaded.agent.client.aclose()


async def test_the_notebook_tools_work_on_a_deployment_as_on_a_local_graph(run_turn):
    """The notebook demo adds a cell and runs it, the test playing the panel (notebook_panel.py)."""
    from notebook_panel import analysis_panel

    turns = {}
    for agent in ("notebook", "local-notebook"):
        panel, thread_id = analysis_panel(), new_thread()
        route = f"agents/{agent}/"
        frames = [await run_turn(f"{route}chat", {"message": "add a cell that prints hello", "thread_id": thread_id})]
        while frames[-1][-1] == INTERRUPTED:
            [pending] = [f["interrupt"] for f in frames[-1] if f["status"] == "interrupt"]
            decisions = panel.decisions(pending)
            frames.append(await run_turn(f"{route}resume", {"thread_id": thread_id, "decisions": decisions}))
        turns[agent] = frames

    assert len(turns["notebook"]) == 3  # insert_cell, run_cell, the answer
    assert "hello" in text_of(turns["notebook"][-1])
    assert [comparable(f) for f in turns["notebook"]] == [comparable(f) for f in turns["local-notebook"]]





async def test_a_chat_sent_while_a_left_over_run_goes_on_runs_after_it(
    raw_post, open_stream, agent_panel, agent_server
):
    """Before the panel joined the run a reload left: the deployment queues the new run, nothing is lost."""
    thread_id = new_thread()
    await lose_the_client(raw_post, agent_panel, thread_id, "ticks=6")
    assert await runs_on(agent_server, thread_id) == ["running"]

    answer = await open_stream("agents/ticking/chat", {"message": "ticks=2", "thread_id": thread_id}).rest(timeout=60)

    assert text_of(answer) == "tick1 tick2"
    assert without_checkpoints([assert_one_terminal_last(answer)]) == [COMPLETE]
    assert await runs_on(agent_server, thread_id) == ["success", "success"]
    # It started where the run before it ended (docs/protocol.md §15.6), not where the thread was when sent.
    before = await said_at(agent_server, thread_id, answer[0]["checkpoint_id"])
    assert before == ["ticks=6", "tick1 tick2 tick3 tick4 tick5 tick6"]


async def said_at(agent_server: str, thread_id: str, checkpoint_id: str) -> list:
    """The messages of the thread at ``checkpoint_id``, as the Agent Server has them."""
    from langgraph_sdk import get_client

    client = get_client(url=agent_server, api_key=None)
    state = await client.threads.get_state(thread_id, checkpoint={"checkpoint_id": checkpoint_id})
    await client.aclose()
    return [message["content"] for message in state["values"]["messages"]]
