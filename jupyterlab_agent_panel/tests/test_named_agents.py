"""``AgentPanel.agents``: named agents at ``agent-panel/agents/<name>/`` and their listing."""
import json
import logging

import pytest
from jupyter_server.utils import url_path_join
from tornado.httpclient import HTTPClientError
from traitlets.config import Config

from helpers import GRAPHS, assert_one_terminal_last, graph_spec, parse_sse, text_of
from jupyterlab_agent_panel.server.panel import AgentPanel, agent_entry

ECHO_SPEC = graph_spec("echo_all")
SLOW_SPEC = graph_spec("slow")
BROKEN_SPEC = "no_such_module_for_agent_panel:graph"
BROKEN_MESSAGE = (
    "Could not load agent 'no_such_module_for_agent_panel:graph': "
    "ModuleNotFoundError: No module named 'no_such_module_for_agent_panel'"
)
DEMO_SPEC = "langstage_core.demo.tools:graph"
# The built-in agent's keyless demo (docs/protocol.md §16).
SHOWCASE_SPEC = "jupyterlab_agent_panel.demo.showcase:graph"
ANSWER_ONLY = f"{GRAPHS / 'extractors.py'}:AnswerOnlyExtractor"
CANCELLED_FRAME = {"status": "cancelled", "message": "Execution cancelled by user"}
NOTEBOOK_DEMO_SPEC = "jupyterlab_agent_panel.demo.notebook_agent:graph"
NOTEBOOK_DEMO_LISTING = {  # the built-in agent, after the configured ones
    "name": "notebook-demo",
    "url": "agent-panel/agents/notebook-demo/",
    "spec": NOTEBOOK_DEMO_SPEC,
    "ready": True,
    "status": "healthy",
    "message": "Agent ready: Notebook Demo Agent",
    "agent_name": "Notebook Demo Agent",
}


async def get_json(jp_fetch, route: str) -> dict:
    return json.loads((await jp_fetch("agent-panel", route)).body)


class TestNamedAgents:
    @pytest.fixture
    def agent_panel_config(self):
        return {
            "agents": {
                "echo": ECHO_SPEC,
                "broken": BROKEN_SPEC,
                "tools": {"spec": DEMO_SPEC, "extractors": [ANSWER_ONLY]},
                "bad name": ECHO_SPEC,  # left out: not a valid name
            }
        }

    async def test_a_named_agent_streams_its_graph(self, post_json):
        response = await post_json("agents/echo/chat", {"message": "hi", "thread_id": "t"})

        assert response.code == 200
        assert response.headers["Content-Type"] == "text/event-stream"
        frames = parse_sse(response.body.decode("utf-8"))
        assert text_of(frames) == "echo: hi"
        assert assert_one_terminal_last(frames) == {"status": "complete", "outcome": "complete"}

    async def test_a_named_agent_reports_its_health(self, jp_fetch):
        assert await get_json(jp_fetch, "agents/echo/health") == {
            "status": "healthy",
            "agent_loaded": True,
            "ready": True,
            "message": "Agent ready: Echo All",
            "spec": ECHO_SPEC,
            "agent_name": "Echo All",
        }

    async def test_each_agent_has_its_own_extractors(self, run_turn):
        named = await run_turn("agents/tools/chat", {"message": "use a tool", "thread_id": "t"})
        default = await run_turn("chat", {"message": "use a tool", "thread_id": "t"})

        assert [f["extraction"]["extracted_type"] for f in named if "extraction" in f] == ["answer_only"]
        assert [f["extraction"]["extracted_type"] for f in default if "extraction" in f] == ["demo_fact"]

    @pytest.mark.parametrize("route", ["agents", "agents/"])
    async def test_the_listing_has_the_default_first_then_the_valid_named_agents(self, jp_fetch, route):
        assert await get_json(jp_fetch, route) == {
            "agents": [
                {
                    "name": "default",
                    "url": "agent-panel/",
                    "spec": SHOWCASE_SPEC,
                    "ready": True,
                    "status": "healthy",
                    # The built-in agent with no model configured (docs/protocol.md §16).
                    "message": "Keyless demo agent ready: no model is configured (AgentPanel.model)",
                    "agent_name": "Tool Demo Agent",
                },
                {
                    "name": "echo",
                    "url": "agent-panel/agents/echo/",
                    "spec": ECHO_SPEC,
                    "ready": True,
                    "status": "healthy",
                    "message": "Agent ready: Echo All",
                    "agent_name": "Echo All",
                },
                {
                    "name": "broken",
                    "url": "agent-panel/agents/broken/",
                    "spec": BROKEN_SPEC,
                    "ready": False,
                    "status": "agent_not_loaded",
                    "message": BROKEN_MESSAGE,
                },
                {
                    "name": "tools",
                    "url": "agent-panel/agents/tools/",
                    "spec": DEMO_SPEC,
                    "ready": True,
                    "status": "healthy",
                    "message": "Agent ready: Tool Demo Agent",
                    "agent_name": "Tool Demo Agent",
                },
                NOTEBOOK_DEMO_LISTING,
            ]
        }

    async def test_a_broken_agent_leaves_the_others_serving(self, jp_fetch, post_json, run_turn):
        health = await get_json(jp_fetch, "agents/broken/health")
        chat = await post_json("agents/broken/chat", {"message": "hi", "thread_id": "t"})

        assert (health["status"], health["ready"], health["message"]) == ("agent_not_loaded", False, BROKEN_MESSAGE)
        assert chat.code == 503
        assert json.loads(chat.body) == {"message": f"Agent not loaded: {BROKEN_MESSAGE}", "reason": "no_agent"}
        assert (await get_json(jp_fetch, "health"))["ready"] is True
        assert text_of(await run_turn("chat", {"message": "hello", "thread_id": "t"})) == "(demo agent) You said: hello"
        assert text_of(await run_turn("agents/echo/chat", {"message": "hello", "thread_id": "t"})) == "echo: hello"

    async def test_a_named_agent_is_loaded_once(self, run_turn, agent_panel):
        loaded = await agent_panel.host("echo").loaded_agent()

        await run_turn("agents/echo/chat", {"message": "hi", "thread_id": "t"})

        assert await agent_panel.host("echo").loaded_agent() is loaded

    @pytest.mark.parametrize("name", ["nope", "bad name"])  # "bad name" was left out
    @pytest.mark.parametrize(
        ("method", "route", "body"),
        [
            ("GET", "health", None),
            ("POST", "chat", {"message": "hi", "thread_id": "t"}),
            ("POST", "resume", {"thread_id": "t", "decisions": []}),
            ("POST", "cancel", {"thread_id": "t"}),
        ],
    )
    async def test_an_unknown_name_gets_404(self, jp_fetch, name, method, route, body):
        with pytest.raises(HTTPClientError) as caught:
            await jp_fetch(
                "agent-panel",
                "agents",
                name,
                route,
                method=method,
                body=None if body is None else json.dumps(body),
            )

        response = caught.value.response
        assert response.code == 404
        assert response.headers["Content-Type"] == "application/json"
        assert json.loads(response.body) == {"message": f"No agent named {name!r}", "reason": "not_found"}

    @pytest.mark.parametrize("route", ["agents", "agents/nope/health", "agents/echo/health"])
    async def test_requests_without_credentials_get_403(self, http_server_client, jp_base_url, route):
        with pytest.raises(HTTPClientError) as caught:
            await http_server_client.fetch(url_path_join(jp_base_url, "agent-panel", route), follow_redirects=False)

        assert caught.value.code == 403


class TestTurnsArePerAgent:
    @pytest.fixture
    def agent_panel_config(self):
        return {"agent_spec": SLOW_SPEC, "agents": {"slow": SLOW_SPEC}}

    @staticmethod
    async def started(open_stream, route: str, thread_id: str):
        stream = open_stream(route, {"message": "go", "thread_id": thread_id})
        first = await stream.next_frame()
        assert first.get("chunk") == "started"
        return stream

    async def test_one_thread_id_on_two_agents_is_two_turns(self, open_stream, post_json, agent_panel):
        default = await self.started(open_stream, "chat", "t")
        named = await self.started(open_stream, "agents/slow/chat", "t")

        busy = await post_json("agents/slow/chat", {"message": "again", "thread_id": "t"})
        assert busy.code == 409
        assert json.loads(busy.body) == {"message": "A turn is already running on thread 't'", "reason": "busy"}

        cancel = await post_json("agents/slow/cancel", {"thread_id": "t"})
        assert json.loads(cancel.body)["status"] == "success"
        assert await named.rest() == [CANCELLED_FRAME]
        assert agent_panel.host("slow").turns == {}
        assert not agent_panel.default.turns["t"].done()

        again = await post_json("agents/slow/cancel", {"thread_id": "t"})
        assert json.loads(again.body)["status"] == "not_found"  # the default's turn is not the named one's
        await post_json("cancel", {"thread_id": "t"})
        assert await default.rest() == [CANCELLED_FRAME]


@pytest.mark.parametrize(
    ("name", "entry", "problem"),
    [
        ("bad name", ECHO_SPEC, "a name may only contain letters, digits, '_', '.' and '-'"),
        ("a/b", ECHO_SPEC, "a name may only contain letters, digits, '_', '.' and '-'"),
        ("", ECHO_SPEC, "a name may only contain letters, digits, '_', '.' and '-'"),
        ("..", ECHO_SPEC, "'.' and '..' cannot be a URL path segment"),
        ("default", ECHO_SPEC, "the name 'default' is reserved for the agent at agent-panel/ (AgentPanel.agent_spec)"),
        (
            "n",
            5,
            "expected a spec string ('module:attr' or 'file.py:attr') or "
            "{'spec': ..., 'extractors': [...]}, not int",
        ),
        (
            "n",
            {"spec": ECHO_SPEC, "extractor": []},
            "unknown keys ['extractor']; expected 'spec' and optionally 'extractors'",
        ),
        ("n", "  ", "'spec' must be a non-empty string ('module:attr' or 'file.py:attr')"),
        ("n", {"extractors": []}, "'spec' must be a non-empty string ('module:attr' or 'file.py:attr')"),
        (
            "n",
            {"spec": ECHO_SPEC, "extractors": ANSWER_ONLY},
            "'extractors' must be a list of 'module:attr' / 'file.py:attr' strings",
        ),
    ],
)
def test_an_invalid_entry_is_rejected_naming_the_problem(name, entry, problem):
    with pytest.raises(ValueError) as caught:
        agent_entry(name, entry)

    assert str(caught.value) == problem


@pytest.mark.parametrize(
    ("entry", "normalised"),
    [
        (ECHO_SPEC, {"spec": ECHO_SPEC, "extractors": []}),
        ({"spec": ECHO_SPEC}, {"spec": ECHO_SPEC, "extractors": []}),
        ({"spec": ECHO_SPEC, "extractors": [ANSWER_ONLY]}, {"spec": ECHO_SPEC, "extractors": [ANSWER_ONLY]}),
    ],
)
def test_a_valid_entry_is_normalised(entry, normalised):
    assert agent_entry("My_agent-1.0", entry) == normalised


def test_invalid_entries_are_logged_and_left_out(caplog):
    log = logging.getLogger("test-agent-panel")
    config = Config({"AgentPanel": {"agents": {"echo": ECHO_SPEC, "bad name": ECHO_SPEC, "n": 5}}})

    with caplog.at_level(logging.ERROR, logger=log.name):
        panel = AgentPanel(config=config, log=log)

    assert list(panel.named) == ["echo", "notebook-demo"]
    assert [host.name for host in panel.hosts] == ["default", "echo", "notebook-demo"]
    assert panel.host("bad name") is None
    assert [record.getMessage() for record in caplog.records] == [
        "AgentPanel.agents: left out agent 'bad name': a name may only contain letters, digits, '_', '.' and '-'",
        "AgentPanel.agents: left out agent 'n': expected a spec string ('module:attr' or 'file.py:attr') "
        "or {'spec': ..., 'extractors': [...]}, not int",
    ]
