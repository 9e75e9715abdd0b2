"""A real Jupyter server with the extension enabled, plus SSE helpers, and a real kernel.

Each test gets a fresh server (pytest-jupyter's ``jp_serverapp``), so the agent
is loaded anew per test. A module picks its graph by overriding
``agent_panel_config`` (the ``AgentPanel`` config section); the default is empty,
which serves the keyless demo tools agent. ``kernel`` is one ipykernel per
module with the comm helper loaded.
"""
from __future__ import annotations

import asyncio
import json
from typing import Optional

import pytest
from jupyter_server.utils import url_path_join
from tornado.httpclient import HTTPClientError
from traitlets.config import Config

from builtin_helpers import KEY, SERVED_MODELS
from helpers import RawResponse, parse_sse
from jupyterlab_agent_panel.graph import pending_interrupts
from kernel_comm_client import KernelUnderTest, PanelComm
from scripted_openai import ScriptedOpenAI, notebook_script

pytest_plugins = ["pytest_jupyter.jupyter_server"]

@pytest.fixture(autouse=True)
def _no_spec_env(monkeypatch):
    # A spec in the developer's environment must not change what the tests serve.
    monkeypatch.delenv("LANGSTAGE_AGENT_SPEC", raising=False)


@pytest.fixture
def agent_panel_config() -> dict:
    return {}


@pytest.fixture
def openai_server():
    """A scripted OpenAI-compatible server (the notebook script) that wants ``KEY``."""
    with ScriptedOpenAI(SERVED_MODELS, api_key=KEY, responder=notebook_script) as server:
        yield server


@pytest.fixture
def model_env(monkeypatch, openai_server):
    """The variables a user sets for the built-in agent's model: the key and the OpenAI-compatible server."""
    monkeypatch.setenv("OPENAI_BASE_URL", openai_server.base_url)
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    for name in ("ANTHROPIC_API_KEY", "AGENT_PANEL_MODEL", "OPENAI_API_BASE"):
        monkeypatch.delenv(name, raising=False)
    return openai_server


@pytest.fixture
def jp_server_config(agent_panel_config):
    return Config(
        {
            "ServerApp": {"jpserver_extensions": {"jupyterlab_agent_panel": True}},
            "AgentPanel": agent_panel_config,
        }
    )


@pytest.fixture
def jp_serverapp(jp_serverapp):
    """pytest-jupyter's server; its agents' event loops are stopped at teardown."""
    yield jp_serverapp
    jp_serverapp.web_app.settings["jupyterlab_agent_panel"].close()


@pytest.fixture
def agent_panel(jp_serverapp):
    """The extension's process-wide ``AgentPanel`` (the agents' hosts)."""
    return jp_serverapp.web_app.settings["jupyterlab_agent_panel"]


@pytest.fixture
def default_agent(agent_panel):
    """The default agent's host (its loaded agent and running turns)."""
    return agent_panel.default


@pytest.fixture
def pending_of(agent_panel):
    """The interrupts a thread of an agent (default: the default one) waits on, read from its
    checkpoint on the agent's own loop."""

    async def read(thread_id: str, agent: Optional[str] = None) -> list:
        host = agent_panel.host(agent)
        loaded = await host.loaded_agent()
        return await host.on_loop(pending_interrupts(loaded.turn_agent().agent, thread_id))

    return read


@pytest.fixture
def pending_ids(pending_of):
    """The ids of the interrupts a thread of an agent waits on (``pending_of``)."""

    async def read(thread_id: str, agent: Optional[str] = None) -> list:
        return [interrupt.id for interrupt in await pending_of(thread_id, agent)]

    return read


@pytest.fixture
def post_json(jp_fetch):
    """POST a JSON body to a route; returns the response, whatever its status."""

    async def post(route: str, body, **kwargs):
        data = body if isinstance(body, (str, bytes)) else json.dumps(body)
        try:
            return await jp_fetch("agent-panel", route, method="POST", body=data, **kwargs)
        except HTTPClientError as exc:
            return exc.response

    return post


@pytest.fixture
def conversations(jp_fetch):
    """Call a conversation route: ``(status, parsed JSON body or None)``, whatever the status."""

    async def call(method: str, *path: str, body=None, **kwargs):
        data = body if body is None or isinstance(body, (str, bytes)) else json.dumps(body)
        try:
            response = await jp_fetch("agent-panel", "conversations", *path, method=method, body=data, **kwargs)
        except HTTPClientError as exc:
            response = exc.response
        return response.code, json.loads(response.body) if response.body else None

    return call


@pytest.fixture
def run_turn(post_json):
    """POST chat/resume and return the parsed frames of a 200 SSE response."""

    async def run(route: str, body: dict, end_checkpoint: bool = False) -> list:
        response = await post_json(route, body)
        assert response.code == 200, response.body
        return parse_sse(response.body.decode("utf-8"), end_checkpoint)

    return run


class FrameStream:
    """A chat/resume request read frame by frame while it streams."""

    def __init__(self):
        self.frames: asyncio.Queue = asyncio.Queue()
        self._buffer = b""
        self.response = None

    def feed(self, data: bytes) -> None:
        self._buffer += data
        while b"\n\n" in self._buffer:
            event, self._buffer = self._buffer.split(b"\n\n", 1)
            self.frames.put_nowait(json.loads(event.decode("utf-8")[len("data: "):]))

    async def next_frame(self, timeout: float = 10) -> dict:
        return await asyncio.wait_for(self.frames.get(), timeout)

    async def rest(self, timeout: float = 10) -> list:
        """All remaining frames, once the response has ended."""
        await asyncio.wait_for(self.response, timeout)
        frames = []
        while not self.frames.empty():
            frames.append(self.frames.get_nowait())
        assert self._buffer == b"", self._buffer
        return frames


@pytest.fixture
def open_stream(jp_fetch):
    """Start a chat/resume request without waiting for it to end."""

    def start(route: str, body: dict) -> FrameStream:
        stream = FrameStream()
        stream.response = asyncio.ensure_future(
            jp_fetch(
                "agent-panel",
                route,
                method="POST",
                body=json.dumps(body),
                streaming_callback=stream.feed,
            )
        )
        return stream

    return start


@pytest.fixture
def raw_post(jp_serverapp, http_server, jp_http_port, jp_base_url):
    """POST over a plain socket (HTTP/1.1, persistent); closed at teardown."""
    opened = []

    async def post(route: str, body: dict) -> RawResponse:
        reader, writer = await asyncio.open_connection("127.0.0.1", jp_http_port)
        path = url_path_join(jp_base_url, "agent-panel", route)
        data = json.dumps(body).encode("utf-8")
        head = (
            f"POST {path} HTTP/1.1\r\n"
            f"Host: 127.0.0.1:{jp_http_port}\r\n"
            f"Authorization: token {jp_serverapp.identity_provider.token}\r\n"
            "Content-Type: application/json\r\n"
            f"Content-Length: {len(data)}\r\n\r\n"
        )
        writer.write(head.encode("latin-1") + data)
        await writer.drain()
        response = RawResponse(reader, writer)
        opened.append(response)
        await response.read_head()
        return response

    yield post
    for response in opened:
        response.close()


@pytest.fixture(scope="module")
def kernel():
    """A kernel of the module's own, after ``%load_ext jupyterlab_agent_panel``."""
    kernel = KernelUnderTest()
    try:
        assert kernel.execute("%load_ext jupyterlab_agent_panel").ok
        yield kernel
    finally:
        kernel.shutdown()


@pytest.fixture(scope="module")
def panel(kernel):
    """The module's kernel serving the demo graph and the panel's open comm."""
    comm = PanelComm(kernel)
    comm.open()
    comm.wait(lambda d: d.get("type") == "hello")
    yield comm
