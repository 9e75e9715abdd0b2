"""The chunk-wire HTTP routes (docs/protocol.md §6) under ``<base_url>agent-panel/``.

The default agent's routes are ``agent-panel/<route>``; each agent named in
``AgentPanel.agents`` has the same routes under ``agent-panel/agents/<name>/``,
with its own running turns. ``GET agent-panel/agents`` lists them all.

``POST chat`` and ``POST resume`` answer with a ``text/event-stream`` of the
frames ``langstage_core.agui.iter_chunk_frames`` yields, one ``data:`` line per
frame. ``POST cancel`` stops a running turn; ``POST join`` streams a run still
going on a thread (a deployment's, left by a reload), or answers 204 when none
is (a local agent's turn ends with its client, so it never has one); ``GET
health`` reports the agent;
``GET|PATCH|DELETE threads/<thread_id>`` read, retitle and delete its memory of
a thread, ``GET threads`` lists a deployment's threads of the user's and ``GET
threads/<thread_id>/history`` reads one back (``thread_handler.py``).
``POST agent-panel/probe`` lets the panel's "Test connection" ask the server to
try an endpoint URL itself (see ``probe.py``); ``agent-panel/conversations``
keeps the panel's conversations (``conversation_handlers.py``).

A request that cannot start a turn gets a JSON error, never a stream:
``{"message": <what was wrong>, "reason": <code>}`` with

* 400 ``bad_request``: the body is not a JSON object, is nested too deeply, a
  field is missing, of the wrong type or too long, or the decisions of a
  resume do not answer the pending review;
* 404 ``not_found``: no agent has the name in the URL;
* 409 ``busy``: a turn is already running on that ``thread_id`` (one active turn
  per thread; the first one keeps running);
* 409 ``nothing_pending``: a ``resume`` for a thread with no interrupt waiting
  (the review was already answered, e.g. in another tab): nothing runs, so each
  decision reaches the graph once;
* 409 ``stale_review``: a ``resume`` whose ``interrupt_ids`` are not the
  interrupts waiting (it answers an earlier review, or one never asked): nothing
  runs and the pending review can still be answered;
* 413 ``too_large``: the body is larger than ``AgentPanel.max_body_bytes``;
* 503 ``no_agent``: the configured graph could not be loaded, or is still
  loading after ``AgentPanel.load_timeout_seconds`` (``health`` says which),
  or (``join``) the deployment could not be asked for the thread's runs.

Unauthenticated requests, and those the server's ``Authorizer`` does not allow
(:mod:`.server.panel_handler`), get jupyter_server's 403; a server bug before the
stream starts, its 500.

Once the stream has started, the response ends with exactly one terminal frame
(:mod:`.turns.driver` keeps that rule): ``complete`` or ``error`` from core,
``cancelled`` after a cancel, or an ``error`` frame if the server itself failed
mid-turn. A client that disconnects mid-stream cancels its turn (a deployment's
run goes on there: ``join``). The graph runs
on its agent's own event loop, never on the server's (:mod:`.server.sse_turn`).
"""
from __future__ import annotations

import asyncio
import json
from typing import Any, Optional

from jupyter_server.auth.decorator import authorized
from jupyter_server.utils import url_path_join
from tornado import web
from tornado.iostream import StreamClosedError

from ..agent_host import AgentHost
from ..builtin.catalog import ModelUnavailable, UnknownModel
from ..context import CONTEXT_FIELDS, attached_images, attachments_problem, message_with_context
from ..graph import LoadedAgent
from ..json_limits import length_problem
from ..memory.checkpoints import RESUME_AT_START, THREAD_START, fork_point
from ..turns.decisions import decision_shape_problem, interrupt_ids_problem
from ..turns.driver import TurnRequest
from .conversation_handlers import conversation_routes
from .panel import DEFAULT_AGENT, AgentPanel
from .panel_handler import MAX_RESULT_LEN, SETTINGS_KEY, PanelHandler, Rejected, bad_request
from .probe import ProbeHandler, Prober
from .sse_turn import SseTurn
from .thread_handler import ThreadHandler, ThreadHistoryHandler, ThreadListHandler, ask

ROUTE_PREFIX = "agent-panel"
# How long a turn waits for the previous turn of its thread, which has sent its
# terminal frame, to close its graph's stream before it is refused as busy.
ENDING_WAIT_SECONDS = 5.0
REFUSAL_STATUS = {
    "nothing_pending": 409,
    "stale_review": 409,
    "unknown_checkpoint": 409,
    "bad_request": 400,
    "cannot_fork": 400,
}


def agent_url(host: AgentHost) -> str:
    """Where ``host``'s routes live, relative to the server's ``base_url``."""
    if host.name == DEFAULT_AGENT:  # no named agent may take that name
        return f"{ROUTE_PREFIX}/"
    return f"{ROUTE_PREFIX}/agents/{host.name}/"


def required_string(body: dict, key: str, missing: str) -> str:
    value = body.get(key)
    if value is not None and not isinstance(value, str):
        raise bad_request(f"{key} must be a string")
    if not value or not value.strip():
        raise bad_request(missing)
    return value


def thread_id_of(body: dict) -> str:
    thread_id = required_string(body, "thread_id", "thread_id is required")
    problem = length_problem("thread_id", thread_id)
    if problem is not None:
        raise bad_request(problem)
    return thread_id


def optional_strings(body: dict, keys: tuple) -> dict:
    fields = {}
    for key in keys:
        value = body.get(key)
        if value is not None and not isinstance(value, str):
            raise bad_request(f"{key} must be a string")
        fields[key] = value
    return fields


def model_of(body: dict) -> Optional[str]:
    """The turn's model (docs/protocol.md §16.3), or None to use the agent's own."""
    model = body.get("model")
    if model is None:
        return None
    if not isinstance(model, str) or not model.strip():
        raise bad_request("model must be a non-empty string ('provider:model')")
    problem = length_problem("model", model)
    if problem is not None:
        raise bad_request(problem)
    return model


async def check_model(host: AgentHost, loaded: LoadedAgent, model: Optional[str]) -> None:
    """Refuse a turn whose model cannot run, before anything runs (the thread stays as it was)."""
    if loaded.models is None:
        if model is not None:
            raise bad_request(f"Agent {host.name!r} serves its own graph: it offers no choice of model")
        return
    try:
        await loaded.models.check(model)
    except UnknownModel as exc:
        raise Rejected(400, "unknown_model", str(exc)) from None
    except ModelUnavailable as exc:
        raise Rejected(503, "model_unavailable", str(exc)) from None


def forked_at(body: dict, resume: bool = False) -> Any:
    """Where a chat or a resume forks its thread first (docs/protocol.md §5.10), None for nowhere."""
    try:
        point = fork_point(body)
    except ValueError as exc:
        raise bad_request(str(exc)) from None
    if resume and point is THREAD_START:
        raise bad_request(RESUME_AT_START)
    return point


def decision_list(body: dict) -> list:
    decisions = body.get("decisions", [])
    if not isinstance(decisions, list):
        raise bad_request("decisions must be a list")
    problem = decision_shape_problem(decisions)
    if problem is not None:
        raise bad_request(problem)
    return decisions


def answered_interrupts(body: dict) -> Optional[list]:
    """The interrupt ids a resume says it answers (docs/protocol.md §5.9), None when it names none."""
    if "interrupt_ids" not in body:
        return None
    problem = interrupt_ids_problem(body["interrupt_ids"])
    if problem is not None:
        raise bad_request(problem)
    return body["interrupt_ids"]


class TurnHandler(PanelHandler):
    """Streams one turn as SSE; the turn is a task that cancel or a disconnect stops."""

    _turn: Optional[asyncio.Task] = None
    _sse: Optional[SseTurn] = None
    _client_gone = False

    async def run_turn(
        self,
        host: AgentHost,
        thread_id: str,
        message: str,
        resume: Any = None,
        join_run: Optional[str] = None,
        model: Optional[str] = None,
        images: tuple = (),
        answers: Optional[list] = None,
        fork_from: Any = None,
    ) -> None:
        """Stream one turn; a ``resume`` runs only if it answers the thread's pending interrupt;
        ``join_run``: stream that run, in flight on the thread, instead; ``model``: the built-in
        agent's model for it."""
        loaded = await host.loaded_agent()
        if not loaded.ready:
            raise Rejected(503, "no_agent", f"Agent not loaded: {loaded.error}")
        await check_model(host, loaded, model)
        if host.turns.is_ending(thread_id):
            # The client saw the previous turn end and sent the next one (a queued
            # message) while that turn's graph stream was still closing.
            await asyncio.wait({host.turns[thread_id]}, timeout=ENDING_WAIT_SECONDS)
        # No await between this check and the claim: the check cannot go stale.
        if thread_id in host.turns:
            raise Rejected(409, "busy", f"A turn is already running on thread {thread_id!r}")
        self.set_header("Content-Type", "text/event-stream")
        self.set_header("Cache-Control", "no-cache")
        self.set_header("Connection", "keep-alive")
        request = TurnRequest(
            loaded,
            message,
            thread_id,
            resume,
            MAX_RESULT_LEN,
            join_run,
            self.thread_owner,
            model,
            images,
            answers,
            fork_from,
        )
        self._sse = SseTurn(self, host.worker, on_end=lambda: host.turns.ending(thread_id))
        self._turn = asyncio.create_task(self._sse.run(request))
        host.turns.claim(thread_id, self._turn)
        try:
            await asyncio.wait({self._turn})
        finally:
            self._turn.cancel()  # no-op once done; stops the turn if this handler is cancelled
            host.turns.finish(thread_id, self._turn)
        # The refusal check runs inside the registered turn: while it holds the
        # thread, no other request can resume it, so two answers to one review
        # cannot both run. The headers go out once it passed.
        refusal = None if self._turn.cancelled() else self._turn.result()  # raises what the turn raised
        if refusal is not None:
            raise Rejected(REFUSAL_STATUS[refusal.reason], refusal.reason, refusal.message)
        if self._client_gone or self._sse.client_gone:
            return
        try:
            self.finish(set_content_type="text/event-stream")
        except StreamClosedError:
            pass  # the client left while the turn was ending; nothing to tell it

    def on_connection_close(self) -> None:
        super().on_connection_close()
        self._client_gone = True
        if self._sse is not None:
            self._sse.client_gone = True
        if self._turn is not None:
            self._turn.cancel()


class ChatHandler(TurnHandler):
    @web.authenticated
    @authorized("execute")
    async def post(self, agent: Optional[str] = None) -> None:
        """``{message, thread_id, current_directory?, focused_widget?, selected_text?,
        selection_metadata?, attachments?, model?, checkpoint_id?}`` → SSE; the context fields go into
        the message text (images go to a model that reads them); ``checkpoint_id`` forks the thread
        there first. 409 while another turn runs on ``thread_id``."""
        try:
            host = self.agent_host(agent)
            body = self.json_body()
            message = required_string(body, "message", "Message is required")
            thread_id = thread_id_of(body)
            context = optional_strings(body, CONTEXT_FIELDS)
            problem = attachments_problem(body.get("attachments"))
            if problem is not None:
                raise bad_request(problem)
            context["attachments"] = body.get("attachments")
            text = message_with_context(message, context)
            model = model_of(body)
            images = attached_images(context["attachments"])
            await self.run_turn(host, thread_id, text, model=model, images=images, fork_from=forked_at(body))
        except Rejected as rejected:
            self.reply_rejected(rejected)


class ResumeHandler(TurnHandler):
    @web.authenticated
    @authorized("execute")
    async def post(self, agent: Optional[str] = None) -> None:
        """``{thread_id, decisions, interrupt_ids?, model?, checkpoint_id?}`` → SSE; resumes with
        ``{"decisions": decisions}`` (``decisions`` defaults to ``[]``), at ``checkpoint_id`` when
        given (the branch whose review it answers). 409 ``busy`` while another turn runs on
        ``thread_id``, 409 ``nothing_pending`` when no interrupt waits on it, 409 ``stale_review``
        when ``interrupt_ids`` are not the ones waiting, 400 when the decisions do not answer it
        (the review stays pending)."""
        try:
            host = self.agent_host(agent)
            body = self.json_body()
            thread_id = thread_id_of(body)
            decisions = decision_list(body)
            resume = {"decisions": decisions}
            answers = answered_interrupts(body)
            fork_from = forked_at(body, resume=True)
            await self.run_turn(
                host, thread_id, "", resume=resume, model=model_of(body), answers=answers, fork_from=fork_from
            )
        except Rejected as rejected:
            self.reply_rejected(rejected)


class JoinHandler(TurnHandler):
    @web.authenticated
    @authorized("execute")
    async def post(self, agent: Optional[str] = None) -> None:
        """``{thread_id}`` → SSE: the run in flight on the thread, from its start, to its end.
        204 when none is (the usual answer, so not logged as a refusal); 409 ``busy`` while a
        turn streams on ``thread_id``."""
        try:
            host = self.agent_host(agent)
            thread_id = thread_id_of(self.json_body())
            loaded = await host.loaded_agent()
            run_id = None
            if loaded.ready and loaded.join is not None:
                run_id = await ask(host, loaded.agent, loaded.agent.run_in_flight(thread_id), "for the thread's runs")
            if run_id is None:
                self.set_status(204)
                self.finish()
                return
            await self.run_turn(host, thread_id, "", join_run=run_id)
        except Rejected as rejected:
            self.reply_rejected(rejected)


class CancelHandler(PanelHandler):
    @web.authenticated
    @authorized("execute")
    async def post(self, agent: Optional[str] = None) -> None:
        """``{thread_id}`` → cancels that thread's running turn task, if any."""
        try:
            host = self.agent_host(agent)
            thread_id = thread_id_of(self.json_body())
        except Rejected as rejected:
            self.reply_rejected(rejected)
            return
        if thread_id not in host.turns:
            reply = {"status": "not_found", "message": "No active execution found for this thread"}
        else:
            host.stop_requested(thread_id)
            host.turns.stop(thread_id)
            reply = {"status": "success", "message": "Cancellation requested"}
        self.finish(json.dumps(reply))


class HealthHandler(PanelHandler):
    @web.authenticated
    @authorized("read")
    async def get(self, agent: Optional[str] = None) -> None:
        """The agent's health (docs/protocol.md §6.1); loads the agent on first call."""
        try:
            host = self.agent_host(agent)
        except Rejected as rejected:
            self.reply_rejected(rejected)
            return
        self.finish(json.dumps(await host.health()))


class ModelsHandler(PanelHandler):
    @web.authenticated
    @authorized("read")
    async def get(self, agent: Optional[str] = None) -> None:
        """The models the agent offers (docs/protocol.md §16.3); none but the built-in agent's."""
        try:
            host = self.agent_host(agent)
        except Rejected as rejected:
            self.reply_rejected(rejected)
            return
        self.finish(json.dumps(await host.model_offers()))


class AgentListHandler(PanelHandler):
    @web.authenticated
    @authorized("read")
    async def get(self) -> None:
        """``{"agents": [{name, url, spec, ready, status, message, agent_name?}, ...]}``,
        the default agent first. Loads every agent not loaded yet, all at once, so
        ``ready`` is the truth, not a guess, within one load timeout."""
        hosts = self.panel.hosts
        answers = await asyncio.gather(*(host.health() for host in hosts))
        agents = []
        for host, health in zip(hosts, answers, strict=True):
            entry = {"name": host.name, "url": agent_url(host)}
            entry.update((key, health[key]) for key in ("spec", "ready", "status", "message"))
            if "agent_name" in health:
                entry["agent_name"] = health["agent_name"]
            agents.append(entry)
        self.finish(json.dumps({"agents": agents}))


def setup_handlers(server_app) -> None:
    """Create the process-wide ``AgentPanel`` and the prober, and register the routes."""
    web_app = server_app.web_app
    web_app.settings[SETTINGS_KEY] = AgentPanel(parent=server_app, base_dir=server_app.root_dir)
    web_app.settings[Prober.SETTINGS_KEY] = Prober()
    prefix = url_path_join(web_app.settings["base_url"], ROUTE_PREFIX)
    # Any name reaches the handlers, which answer an unknown one with a JSON 404.
    named_prefix = url_path_join(prefix, "agents", r"(?P<agent>[^/]+)")
    routes = {
        "chat": ChatHandler,
        "resume": ResumeHandler,
        "cancel": CancelHandler,
        "join": JoinHandler,
        "health": HealthHandler,
        "models": ModelsHandler,
        "threads/?": ThreadListHandler,
        r"threads/(?P<thread_id>[^/]+)": ThreadHandler,
        r"threads/(?P<thread_id>[^/]+)/history": ThreadHistoryHandler,
    }
    handlers = [
        (url_path_join(prefix, "agents") + "/?", AgentListHandler),
        (url_path_join(prefix, "probe"), ProbeHandler),
        *conversation_routes(prefix),
    ]
    for name, handler in routes.items():
        handlers.append((url_path_join(prefix, name), handler))
        handlers.append((url_path_join(named_prefix, name), handler))
    web_app.add_handlers(".*$", handlers)
