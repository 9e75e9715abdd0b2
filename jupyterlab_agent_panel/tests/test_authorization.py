"""The server's ``Authorizer`` decides who may use each route (docs/protocol.md §6.3).

Every route asks for the resource ``agent_panel``: ``execute`` for chat,
resume, cancel and probe (they run the agent's code or use the server's
network position), ``read`` for health, the agent list and reading
conversations, ``write`` for saving, renaming and deleting them.
"""
import json

import pytest
from jupyter_server.auth.authorizer import Authorizer
from tornado.httpclient import HTTPClientError
from traitlets.config import Config

from helpers import graph_spec

ECHO_SPEC = graph_spec("echo_all")
ROUTES = [
    ("POST", "chat", {"message": "hi", "thread_id": "t"}, "execute"),
    ("POST", "resume", {"thread_id": "t", "decisions": [{"type": "approve"}]}, "execute"),
    ("POST", "cancel", {"thread_id": "t"}, "execute"),
    ("GET", "health", None, "read"),
]
SAVE = {"threadId": "t", "endpointName": None, "status": "idle"}
# The conversation routes (docs/protocol.md §13): reading asks for read, changing for write.
CONVERSATION_ROUTES = [
    ("GET", ("conversations",), None, "read", 200),
    ("GET", ("conversations", "c"), None, "read", 404),
    ("PUT", ("conversations", "c"), SAVE, "write", 403),
    ("PATCH", ("conversations", "c"), {"title": "t"}, "write", 403),
    ("DELETE", ("conversations", "c"), None, "write", 403),
]
ASKED = []  # (action, resource) of every authorization the routes asked for


class ReadOnly(Authorizer):
    """jupyter_server's documented read-only example: no write, no execute."""

    def is_authorized(self, handler, user, action, resource):
        ASKED.append((action, resource))
        return action == "read"


class NoAgentPanel(Authorizer):
    """Everything but this extension's resource."""

    def is_authorized(self, handler, user, action, resource):
        return resource != "agent_panel"


def server_config(authorizer: type) -> Config:
    return Config(
        {
            "ServerApp": {"jpserver_extensions": {"jupyterlab_agent_panel": True}, "authorizer_class": authorizer},
            "AgentPanel": {"agents": {"echo": ECHO_SPEC}},
        }
    )


async def fetch(jp_fetch, method: str, *parts: str, body=None):
    try:
        return await jp_fetch(*parts, method=method, body=None if body is None else json.dumps(body))
    except HTTPClientError as exc:
        return exc.response


class TestReadOnlyAuthorizer:
    @pytest.fixture
    def jp_server_config(self):
        ASKED.clear()
        return server_config(ReadOnly)

    async def test_jupyters_own_mutating_routes_are_refused(self, jp_fetch):
        response = await fetch(jp_fetch, "POST", "api", "kernels", body={})

        assert response.code == 403

    @pytest.mark.parametrize("prefix", [(), ("agents", "echo")])
    @pytest.mark.parametrize(("method", "route", "body", "action"), ROUTES)
    async def test_each_route_asks_for_its_action_on_agent_panel(self, jp_fetch, prefix, method, route, body, action):
        response = await fetch(jp_fetch, method, "agent-panel", *prefix, route, body=body)

        assert response.code == (200 if action == "read" else 403), response.body
        assert ASKED[-1] == (action, "agent_panel")

    async def test_the_probe_is_refused(self, jp_fetch, jp_serverapp):
        url = f"http://127.0.0.1:{jp_serverapp.port}/"

        response = await fetch(jp_fetch, "POST", "agent-panel", "probe", body={"url": url})

        assert response.code == 403
        assert ASKED[-1] == ("execute", "agent_panel")

    @pytest.mark.parametrize(("method", "path", "body", "action", "status"), CONVERSATION_ROUTES)
    async def test_conversations_can_be_read_but_not_changed(self, jp_fetch, method, path, body, action, status):
        response = await fetch(jp_fetch, method, "agent-panel", *path, body=body)

        assert response.code == status, response.body
        assert ASKED[-1] == (action, "agent_panel")

    async def test_the_agent_list_is_readable(self, jp_fetch):
        response = await fetch(jp_fetch, "GET", "agent-panel", "agents")

        assert response.code == 200
        assert [agent["name"] for agent in json.loads(response.body)["agents"]] == ["default", "echo", "notebook-demo"]
        assert ASKED[-1] == ("read", "agent_panel")


class TestAuthorizerWithoutAgentPanel:
    @pytest.fixture
    def jp_server_config(self):
        return server_config(NoAgentPanel)

    async def test_only_the_agent_panel_routes_are_refused(self, jp_fetch):
        assert (await fetch(jp_fetch, "GET", "api", "status")).code == 200
        assert (await fetch(jp_fetch, "POST", "api", "kernels", body={})).code in (200, 201)
        for method, route, body, _ in ROUTES:
            assert (await fetch(jp_fetch, method, "agent-panel", route, body=body)).code == 403, route
        assert (await fetch(jp_fetch, "GET", "agent-panel", "agents")).code == 403

    @pytest.mark.parametrize(("method", "path", "body", "action", "status"), CONVERSATION_ROUTES)
    async def test_the_conversation_routes_are_refused(self, jp_fetch, method, path, body, action, status):
        assert (await fetch(jp_fetch, method, "agent-panel", *path, body=body)).code == 403
