"""``<agent>/threads`` (docs/protocol.md §14.3, §15.5): an agent's memory of its threads.

``GET threads/<thread_id>`` answers ``{"known": true|false}``: whether the
agent's checkpointer (or the deployment, for an Agent Server one) holds the
thread (``null`` when it cannot tell), so the panel can say when a
conversation's agent no longer remembers it. ``DELETE`` stops a turn still
running on the thread and deletes the thread: 204. All run on the agent's own
loop, where its checkpointer or its client lives.

A deployment's threads are conversations too: ``GET threads`` lists the user's,
``GET threads/<thread_id>/history`` reads one back as turns of chunk-wire
frames and ``PATCH threads/<thread_id> {"title"}`` retitles it. A local agent
lists none and has nothing to retitle (its conversations are the store's).
"""
from __future__ import annotations

import asyncio
import json
from typing import Any, Coroutine, Optional

from jupyter_server.auth.decorator import authorized
from tornado import web

from ..agent_host import AgentHost
from ..deployments.deployment import DeploymentHost
from ..graph import LoadedAgent
from ..json_limits import length_problem
from ..memory.agent_memory import CheckpointerThreads
from .conversation_update import rename_of
from .panel_handler import MAX_RESULT_LEN, PanelHandler, Rejected, bad_request

# How long a delete waits for the turn it stopped to end.
STOP_WAIT_SECONDS = 5.0


class ThreadRoute(PanelHandler):
    """What the thread routes share: the agent's threads, and a deployment asked."""

    async def target(self, agent: Optional[str], raw_thread_id: str) -> tuple:
        """The agent's host, the thread id and the agent's threads (``None``: it keeps none)."""
        problem = length_problem("thread_id", raw_thread_id)
        if problem is not None:
            raise bad_request(problem)
        host, threads = await self.threads(agent)
        return host, raw_thread_id, threads

    async def threads(self, agent: Optional[str]) -> tuple:
        """The agent's host and what keeps its threads (``None``: nothing)."""
        host = self.agent_host(agent)
        loaded = await host.loaded_agent()
        if not loaded.ready:
            raise Rejected(503, "no_agent", f"Agent not loaded: {loaded.error}")
        return host, threads_of(loaded)


class ThreadHandler(ThreadRoute):
    @web.authenticated
    @authorized("read")
    async def get(self, thread_id: str, agent: Optional[str] = None) -> None:
        try:
            host, thread_id, checkpointer = await self.target(agent, thread_id)
        except Rejected as rejected:
            self.reply_rejected(rejected)
            return
        known = None
        if checkpointer is not None:
            try:
                known = await host.on_loop(checkpointer.known(thread_id))
            except NotImplementedError:  # a checkpointer without async methods
                known = None
        self.finish(json.dumps({"known": known}))

    @web.authenticated
    @authorized("write")
    async def delete(self, thread_id: str, agent: Optional[str] = None) -> None:
        try:
            host, thread_id, checkpointer = await self.target(agent, thread_id)
            turn = host.turns.stop(thread_id)
            if turn is not None:  # its next checkpoint would bring the thread back
                await asyncio.wait({turn}, timeout=STOP_WAIT_SECONDS)
            if checkpointer is not None:
                await self.delete_from(host, checkpointer, thread_id)
        except Rejected as rejected:
            self.reply_rejected(rejected)
            return
        self.set_status(204)
        self.finish()

    @web.authenticated
    @authorized("write")
    async def patch(self, thread_id: str, agent: Optional[str] = None) -> None:
        """``{"title"}``: the deployment's thread takes the title (204); a local agent's has none."""
        try:
            title = rename_of(self.json_body())
            if isinstance(self.agent_host(agent), DeploymentHost):
                host, thread_id, deployment = await self.target(agent, thread_id)
                retitling = deployment.retitle(self.thread_owner, thread_id, title)
                if not await ask(host, deployment, retitling, "to retitle the thread"):
                    raise not_yours(deployment, thread_id)
        except Rejected as rejected:
            self.reply_rejected(rejected)
            return
        self.set_status(204)
        self.finish()

    async def delete_from(self, host: AgentHost, threads: Any, thread_id: str) -> None:
        try:
            await host.on_loop(threads.forget(thread_id))
        except NotImplementedError:
            raise Rejected(
                501, "not_supported", f"The agent's {threads.kind} cannot delete threads; it keeps this one"
            ) from None


class ThreadListHandler(ThreadRoute):
    @web.authenticated
    @authorized("read")
    async def get(self, agent: Optional[str] = None) -> None:
        """``{"threads": [{thread_id, title, created_at, updated_at, status}]}``, newest first."""
        try:
            threads = []
            if isinstance(self.agent_host(agent), DeploymentHost):  # a local agent's are the store's
                host, deployment = await self.threads(agent)
                threads = await ask(host, deployment, deployment.listed(self.thread_owner), "for your threads")
        except Rejected as rejected:
            self.reply_rejected(rejected)
            return
        self.finish(json.dumps({"threads": threads}))


class ThreadHistoryHandler(ThreadRoute):
    @web.authenticated
    @authorized("read")
    async def get(self, thread_id: str, agent: Optional[str] = None) -> None:
        """A deployment's thread: its summary and ``turns`` ``[{message, frames}]``."""
        try:
            if not isinstance(self.agent_host(agent), DeploymentHost):
                raise Rejected(404, "not_found", "A local agent's conversations are read from the store")
            host, thread_id, deployment = await self.target(agent, thread_id)
            loaded = await host.loaded_agent()
            reading = deployment.history(self.thread_owner, thread_id, loaded.extractors, MAX_RESULT_LEN)
            history = await ask(host, deployment, reading, "for the thread's history")
            if history is None:
                raise not_yours(deployment, thread_id)
        except Rejected as rejected:
            self.reply_rejected(rejected)
            return
        self.finish(json.dumps(history))


async def ask(host: AgentHost, deployment: Any, work: Coroutine, about: str) -> Any:
    """``work`` on the deployment's loop; 503 ``no_agent`` when it went away since its check."""
    try:
        return await host.on_loop(work)
    except Exception as exc:  # refused, timed out, answered 5xx...
        deployment.suspect()
        raise Rejected(503, "no_agent", f"Could not ask {deployment.kind} {about}: {exc}") from exc


def not_yours(deployment: Any, thread_id: str) -> Rejected:
    return Rejected(404, "not_found", f"{deployment.kind} has no thread {thread_id!r} of yours")


def threads_of(loaded: LoadedAgent) -> Any:
    """What keeps an agent's threads: a deployment itself, the built-in agent's or a graph's
    checkpointers, or ``None``."""
    agent = loaded.agent
    if hasattr(agent, "known") and hasattr(agent, "forget"):
        return agent
    if loaded.models is not None:
        return loaded.models.threads
    checkpointer = getattr(getattr(agent, "graph", None), "checkpointer", None)
    return CheckpointerThreads(checkpointer) if checkpointer else None
