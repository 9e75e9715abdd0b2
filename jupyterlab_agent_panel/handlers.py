"""The chunk-wire HTTP routes (docs/protocol.md §6) under ``<base_url>agent-panel/``.

The default agent's routes are ``agent-panel/<route>``; each agent named in
``AgentPanel.agents`` has the same routes under ``agent-panel/agents/<name>/``,
with its own running turns. ``GET agent-panel/agents`` lists them all.

``POST chat`` and ``POST resume`` answer with a ``text/event-stream`` of the
frames ``langstage_core.agui.iter_chunk_frames`` yields, one ``data:`` line per
frame. ``POST cancel`` stops a running turn; ``GET health`` reports the agent.
``POST agent-panel/probe`` lets the panel's "Test connection" ask the server to
try an endpoint URL itself (see ``probe.py``).

A request that cannot start a turn gets a JSON error, never a stream:
``{"message": <what was wrong>, "reason": <code>}`` with

* 400 ``bad_request``: the body is not a JSON object or a field is missing or
  of the wrong type;
* 404 ``not_found``: no agent has the name in the URL;
* 409 ``busy``: a turn is already running on that ``thread_id`` (one active turn
  per thread; the first one keeps running);
* 409 ``nothing_pending``: a ``resume`` for a thread with no interrupt waiting
  (the review was already answered, e.g. in another tab): nothing runs, so each
  decision reaches the graph once;
* 503 ``no_agent``: the configured graph could not be loaded (``health`` says why).

Unauthenticated requests get jupyter_server's 403; a server bug before the
stream starts, its 500.

Once the stream has started, the response ends with exactly one terminal frame
(:mod:`.turn_driver` keeps that rule): ``complete`` or ``error`` from core,
``cancelled`` after a cancel, or an ``error`` frame if the server itself failed
mid-turn. A client that disconnects mid-stream cancels its turn.
"""
from __future__ import annotations

import asyncio
import json
from typing import Any, Optional

from jupyter_server.base.handlers import APIHandler
from jupyter_server.utils import url_path_join
from tornado import web
from tornado.iostream import StreamClosedError

from .agent_host import AgentHost
from .context import CONTEXT_FIELDS, message_with_context
from .graph import NOTHING_PENDING
from .panel import DEFAULT_AGENT, AgentPanel
from .probe import ProbeHandler
from .turn_driver import TurnDriver, TurnEnd, TurnRequest

ROUTE_PREFIX = "agent-panel"
SETTINGS_KEY = "jupyterlab_agent_panel"
MAX_RESULT_LEN = 500


class Rejected(Exception):
    """A request refused before any turn started; becomes a JSON error reply."""

    def __init__(self, status: int, reason: str, message: str):
        super().__init__(message)
        self.status = status
        self.reason = reason
        self.message = message


def bad_request(message: str) -> Rejected:
    return Rejected(400, "bad_request", message)


def agent_url(host: AgentHost) -> str:
    """Where ``host``'s routes live, relative to the server's ``base_url``."""
    if host.name == DEFAULT_AGENT:  # no named agent may take that name
        return f"{ROUTE_PREFIX}/"
    return f"{ROUTE_PREFIX}/agents/{host.name}/"


class PanelHandler(APIHandler):
    """Shared request parsing and error replies."""

    @property
    def panel(self) -> AgentPanel:
        return self.settings[SETTINGS_KEY]

    def agent_host(self, name: Optional[str]) -> AgentHost:
        """The host of the agent named in the URL (``None``: the default agent)."""
        host = self.panel.host(name)
        if host is None:
            raise Rejected(404, "not_found", f"No agent named {name!r}")
        return host

    def json_body(self) -> dict:
        if not self.request.body.strip():
            raise bad_request("Request body is empty; expected a JSON object")
        try:
            body = json.loads(self.request.body)
        except ValueError as exc:  # bad JSON or bad UTF-8
            raise bad_request(f"Request body is not valid JSON: {exc}") from exc
        if not isinstance(body, dict):
            raise bad_request(f"Request body must be a JSON object, not {type(body).__name__}")
        return body

    def reply_rejected(self, rejected: Rejected) -> None:
        # Written directly rather than raised as HTTPError: tornado would %-format
        # the message (user-supplied thread ids, JSON errors) when logging it.
        self.log.warning("agent-panel %s: %s", self.request.path, rejected.message)
        self.set_status(rejected.status)
        self.finish(json.dumps({"message": rejected.message, "reason": rejected.reason}))


def required_string(body: dict, key: str, missing: str) -> str:
    value = body.get(key)
    if value is not None and not isinstance(value, str):
        raise bad_request(f"{key} must be a string")
    if not value or not value.strip():
        raise bad_request(missing)
    return value


def optional_strings(body: dict, keys: tuple) -> dict:
    fields = {}
    for key in keys:
        value = body.get(key)
        if value is not None and not isinstance(value, str):
            raise bad_request(f"{key} must be a string")
        fields[key] = value
    return fields


def decision_list(body: dict) -> list:
    decisions = body.get("decisions", [])
    if not isinstance(decisions, list):
        raise bad_request("decisions must be a list")
    for index, decision in enumerate(decisions):
        if not isinstance(decision, dict) or not isinstance(decision.get("type"), str):
            raise bad_request(f"decisions[{index}] must be an object with a string 'type'")
    return decisions


class TurnHandler(PanelHandler):
    """Streams one turn as SSE; the turn is a task that cancel or a disconnect stops."""

    _turn: Optional[asyncio.Task] = None
    _client_gone = False

    async def run_turn(self, host: AgentHost, thread_id: str, message: str, resume: Any = None) -> None:
        """Stream one turn; a ``resume`` runs only if the thread has a pending interrupt."""
        loaded = await host.loaded_agent()
        if not loaded.ready:
            raise Rejected(503, "no_agent", f"Agent not loaded: {loaded.error}")
        # No await between this check and the registration: the check cannot go stale.
        if thread_id in host.turns:
            raise Rejected(409, "busy", f"A turn is already running on thread {thread_id!r}")
        self.set_header("Content-Type", "text/event-stream")
        self.set_header("Cache-Control", "no-cache")
        self.set_header("Connection", "keep-alive")
        request = TurnRequest(loaded, message, thread_id, resume, MAX_RESULT_LEN)
        self._turn = asyncio.create_task(self._stream(request))
        host.turns[thread_id] = self._turn
        try:
            await asyncio.wait({self._turn})
        finally:
            self._turn.cancel()  # no-op once done; stops the turn if this handler is cancelled
            if host.turns.get(thread_id) is self._turn:
                del host.turns[thread_id]
        if not self._turn.cancelled() and self._turn.exception() is not None:
            raise self._turn.exception()
        if self._client_gone:
            return
        try:
            self.finish(set_content_type="text/event-stream")
        except StreamClosedError:
            pass  # the client left while the turn was ending; nothing to tell it

    def on_connection_close(self) -> None:
        super().on_connection_close()
        self._client_gone = True
        if self._turn is not None:
            self._turn.cancel()

    async def _stream(self, request: TurnRequest) -> None:
        # The pending check runs inside the registered turn: while it holds the
        # thread, no other request can resume it, so two answers to one review
        # cannot both run. The headers go out once it passed, so the client sees
        # the turn start.
        driver = TurnDriver(send=self._send, end=self._end)
        if not await driver.run(request, started=self.flush):
            raise Rejected(409, "nothing_pending", NOTHING_PENDING)

    def _write(self, frame: dict) -> None:
        self.write(f"data: {json.dumps(frame)}\n\n")

    async def _send(self, frame: dict) -> None:
        self._write(frame)
        await self.flush()

    def _end(self, end: TurnEnd) -> None:
        """Write the terminal frame (``finish`` flushes it) unless the client left."""
        if isinstance(end.failure, StreamClosedError):
            self._client_gone = True
        elif end.failure is not None:
            self.log.error("agent-panel turn failed", exc_info=end.failure)
        if not self._client_gone:
            self._write(end.frame)


class ChatHandler(TurnHandler):
    @web.authenticated
    async def post(self, agent: Optional[str] = None) -> None:
        """``{message, thread_id, current_directory?, focused_widget?, selected_text?,
        selection_metadata?}`` → SSE; the context fields go into the message text.
        409 while another turn runs on ``thread_id``."""
        try:
            host = self.agent_host(agent)
            body = self.json_body()
            message = required_string(body, "message", "Message is required")
            thread_id = required_string(body, "thread_id", "thread_id is required")
            context = optional_strings(body, CONTEXT_FIELDS)
            await self.run_turn(host, thread_id, message_with_context(message, context))
        except Rejected as rejected:
            self.reply_rejected(rejected)


class ResumeHandler(TurnHandler):
    @web.authenticated
    async def post(self, agent: Optional[str] = None) -> None:
        """``{thread_id, decisions}`` → SSE; resumes with ``{"decisions": decisions}``
        (``decisions`` defaults to ``[]``). 409 ``busy`` while another turn runs on
        ``thread_id``, 409 ``nothing_pending`` when no interrupt waits on it."""
        try:
            host = self.agent_host(agent)
            body = self.json_body()
            thread_id = required_string(body, "thread_id", "thread_id is required")
            decisions = decision_list(body)
            await self.run_turn(host, thread_id, "", resume={"decisions": decisions})
        except Rejected as rejected:
            self.reply_rejected(rejected)


class CancelHandler(PanelHandler):
    @web.authenticated
    async def post(self, agent: Optional[str] = None) -> None:
        """``{thread_id}`` → cancels that thread's running turn task, if any."""
        try:
            host = self.agent_host(agent)
            thread_id = required_string(self.json_body(), "thread_id", "thread_id is required")
        except Rejected as rejected:
            self.reply_rejected(rejected)
            return
        turn = host.turns.get(thread_id)
        if turn is None:
            reply = {"status": "not_found", "message": "No active execution found for this thread"}
        else:
            turn.cancel()
            reply = {"status": "success", "message": "Cancellation requested"}
        self.finish(json.dumps(reply))


class HealthHandler(PanelHandler):
    @web.authenticated
    async def get(self, agent: Optional[str] = None) -> None:
        """The agent's health (docs/protocol.md §6.1); loads the agent on first call."""
        try:
            host = self.agent_host(agent)
        except Rejected as rejected:
            self.reply_rejected(rejected)
            return
        loaded = await host.loaded_agent()
        self.finish(json.dumps(loaded.health()))


class AgentListHandler(PanelHandler):
    @web.authenticated
    async def get(self) -> None:
        """``{"agents": [{name, url, spec, ready, status, message, agent_name?}, ...]}``,
        the default agent first. Loads every agent not loaded yet, so ``ready`` is
        the truth, not a guess."""
        agents = []
        for host in self.panel.hosts:
            health = (await host.loaded_agent()).health()
            entry = {"name": host.name, "url": agent_url(host)}
            entry.update((key, health[key]) for key in ("spec", "ready", "status", "message"))
            if "agent_name" in health:
                entry["agent_name"] = health["agent_name"]
            agents.append(entry)
        self.finish(json.dumps({"agents": agents}))


def setup_handlers(server_app) -> None:
    """Create the process-wide ``AgentPanel`` and register the routes."""
    web_app = server_app.web_app
    web_app.settings[SETTINGS_KEY] = AgentPanel(parent=server_app, base_dir=server_app.root_dir)
    prefix = url_path_join(web_app.settings["base_url"], ROUTE_PREFIX)
    # Any name reaches the handlers, which answer an unknown one with a JSON 404.
    named_prefix = url_path_join(prefix, "agents", r"(?P<agent>[^/]+)")
    routes = {"chat": ChatHandler, "resume": ResumeHandler, "cancel": CancelHandler, "health": HealthHandler}
    handlers = [
        (url_path_join(prefix, "agents") + "/?", AgentListHandler),
        (url_path_join(prefix, "probe"), ProbeHandler),
    ]
    for name, handler in routes.items():
        handlers.append((url_path_join(prefix, name), handler))
        handlers.append((url_path_join(named_prefix, name), handler))
    web_app.add_handlers(".*$", handlers)
