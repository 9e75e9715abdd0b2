"""``GET|DELETE <agent>/threads/<thread_id>`` (docs/protocol.md §14.3): an agent's memory of one thread.

``GET`` answers ``{"known": true|false}``: whether the agent's checkpointer
(or the deployment, for an Agent Server one) holds the thread (``null`` when it
cannot tell), so the panel can say when a conversation's agent no longer
remembers it. ``DELETE`` stops a turn still running on the thread and deletes
the thread: 204. Both run on the agent's own loop, where its checkpointer or
its client lives.
"""
from __future__ import annotations

import asyncio
import json
from typing import Any, Optional

from jupyter_server.auth.decorator import authorized
from tornado import web

from .agent_host import AgentHost
from .json_limits import length_problem
from .panel_handler import PanelHandler, Rejected, bad_request

# How long a delete waits for the turn it stopped to end.
STOP_WAIT_SECONDS = 5.0


class ThreadHandler(PanelHandler):
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
            turn = host.turns.get(thread_id)
            if turn is not None:  # its next checkpoint would bring the thread back
                turn.cancel()
                await asyncio.wait({turn}, timeout=STOP_WAIT_SECONDS)
            if checkpointer is not None:
                await self.delete_from(host, checkpointer, thread_id)
        except Rejected as rejected:
            self.reply_rejected(rejected)
            return
        self.set_status(204)
        self.finish()

    async def target(self, agent: Optional[str], raw_thread_id: str) -> tuple:
        """The agent's host, the thread id and the agent's threads (``None``: it keeps none)."""
        host = self.agent_host(agent)
        problem = length_problem("thread_id", raw_thread_id)
        if problem is not None:
            raise bad_request(problem)
        loaded = await host.loaded_agent()
        if not loaded.ready:
            raise Rejected(503, "no_agent", f"Agent not loaded: {loaded.error}")
        return host, raw_thread_id, threads_of(loaded.agent)

    async def delete_from(self, host: AgentHost, threads: Any, thread_id: str) -> None:
        try:
            await host.on_loop(threads.forget(thread_id))
        except NotImplementedError:
            raise Rejected(
                501, "not_supported", f"The agent's {threads.kind} cannot delete threads; it keeps this one"
            ) from None


class CheckpointerThreads:
    """A local graph's threads: its checkpointer's."""

    def __init__(self, checkpointer: Any):
        self.checkpointer = checkpointer
        self.kind = f"checkpointer ({type(checkpointer).__name__})"

    async def known(self, thread_id: str) -> bool:
        config = {"configurable": {"thread_id": thread_id, "checkpoint_ns": ""}}
        return await self.checkpointer.aget_tuple(config) is not None

    async def forget(self, thread_id: str) -> None:
        await self.checkpointer.adelete_thread(thread_id)


def threads_of(agent: Any) -> Any:
    """What keeps ``agent``'s threads: a deployment itself, a graph its checkpointer, or ``None``."""
    if hasattr(agent, "known") and hasattr(agent, "forget"):
        return agent
    checkpointer = getattr(getattr(agent, "graph", None), "checkpointer", None)
    return CheckpointerThreads(checkpointer) if checkpointer else None
