"""The MCP servers' tools for the built-in agent (docs/protocol.md §16.5), through langchain-mcp-adapters.

Each server of ``AgentPanel.mcp_servers`` is a connection in the shape of
``MultiServerMCPClient`` plus our own ``"review"`` key. Their sessions open
when the agent loads, all servers at once, each with a deadline, and stay open
until it closes; a server that fails to start or answer is left out and named,
and the others still work.
"""
from __future__ import annotations

import asyncio
import logging
import re
from dataclasses import dataclass, field
from typing import Any, Mapping

TRANSPORTS = ("stdio", "streamable_http", "http", "sse", "websocket")
REVIEW_KEY = "review"
LOAD_SECONDS = 30.0
TITLE_LIMIT = 120  # characters of a tool's title; its whole description is the model's
REVIEW_DECISIONS = ["approve", "reject"]

logger = logging.getLogger(__name__)


def mcp_entry(name: Any, entry: Any) -> dict:
    """``entry`` checked: a connection dict with a known ``transport``; ValueError says what is wrong."""
    if not isinstance(name, str) or not name.strip():
        raise ValueError("a server's name must be a non-empty string")
    if not isinstance(entry, dict):
        raise ValueError(f"expected a connection such as {{'transport': 'stdio', ...}}, not {type(entry).__name__}")
    if entry.get("transport") not in TRANSPORTS:
        raise ValueError(f"'transport' must be one of {', '.join(TRANSPORTS)}, not {entry.get('transport')!r}")
    if not isinstance(entry.get(REVIEW_KEY, False), bool):
        raise ValueError("'review' must be true or false")
    return entry


@dataclass
class McpTools:
    """What the servers gave: their tools, the tools to review, and each failed server's failure."""

    tools: list = field(default_factory=list)
    reviewed: dict = field(default_factory=dict)  # tool name -> HITL InterruptOnConfig
    failures: dict = field(default_factory=dict)  # server name -> what went wrong
    titles: dict = field(default_factory=dict)  # tool name -> what it does, in words

    def notice(self) -> str:
        """The failures, for the agent's health."""
        return "; ".join(f"MCP server {name!r} is left out: {failure}" for name, failure in self.failures.items())


class McpSessions:
    """One session per server, open while the agent is (a stdio server is started once, not per call).

    Each session lives in a task of its own on the agent's loop, which enters and leaves its
    context (anyio requires both in one task); :meth:`close` ends them all.
    """

    def __init__(self) -> None:
        self._stop = asyncio.Event()
        self._tasks: list[asyncio.Task] = []

    async def open(self, servers: Mapping[str, dict], taken: set[str]) -> McpTools:
        """Every server's tools, asked all at once; ``taken`` are names the agent has already (a
        clashing tool is left out)."""
        loaded = McpTools()
        names = list(servers)
        opening = (self._session_tools(name, servers[name]) for name in names)
        answers = await asyncio.gather(*opening, return_exceptions=True)
        for name, answer in zip(names, answers, strict=True):
            if isinstance(answer, BaseException):
                loaded.failures[name] = _failure_text(answer)
                logger.warning("agent-panel: MCP server %r is left out: %s", name, loaded.failures[name])
                continue
            for tool in answer:
                if tool.name in taken:
                    loaded.failures[name] = f"its tool {tool.name!r} has the name of another tool, so it is left out"
                    continue
                taken.add(tool.name)
                loaded.tools.append(tool)
                title = tool_title(tool.description)
                if title:
                    loaded.titles[tool.name] = title
                if servers[name].get(REVIEW_KEY):
                    loaded.reviewed[tool.name] = {
                        "allowed_decisions": list(REVIEW_DECISIONS),
                        "description": f"MCP server {name!r}: {tool.description}".strip(),
                    }
        return loaded

    async def close(self) -> None:
        self._stop.set()
        if self._tasks:
            await asyncio.wait(self._tasks, timeout=LOAD_SECONDS)

    async def _session_tools(self, name: str, entry: dict) -> list:
        ready: asyncio.Future = asyncio.get_running_loop().create_future()
        task = asyncio.create_task(self._serve(name, entry, ready), name=f"agent-panel-mcp-{name}")
        self._tasks.append(task)
        try:
            return await asyncio.wait_for(asyncio.shield(ready), LOAD_SECONDS)
        except BaseException:
            task.cancel()
            raise

    async def _serve(self, name: str, entry: dict, ready: asyncio.Future) -> None:
        from langchain_mcp_adapters.client import MultiServerMCPClient
        from langchain_mcp_adapters.tools import load_mcp_tools

        connection = {key: value for key, value in entry.items() if key != REVIEW_KEY}
        try:
            async with MultiServerMCPClient({name: connection}).session(name) as session:
                ready.set_result(await load_mcp_tools(session, server_name=name))
                await self._stop.wait()
        except BaseException as exc:  # reported as this server's failure
            if not ready.done():
                ready.set_exception(exc)
            elif not isinstance(exc, asyncio.CancelledError):
                logger.warning("agent-panel: MCP server %r stopped: %s", name, _failure_text(exc))


def tool_title(description: Any) -> str:
    """A tool's description's first sentence, without its full stop, for its calls' one line."""
    if not isinstance(description, str):
        return ""
    first = re.split(r"(?<=[.!?])\s|\n", description.strip(), maxsplit=1)[0].strip()
    first = first[:-1] if first.endswith(".") else first
    return first if len(first) <= TITLE_LIMIT else first[: TITLE_LIMIT - 1] + "…"


def _failure_text(exc: BaseException) -> str:
    if isinstance(exc, asyncio.TimeoutError):
        return f"it did not answer within {LOAD_SECONDS:g} s"
    # An exception group (anyio's task groups) says little: its first leaf says what failed.
    while getattr(exc, "exceptions", None):
        exc = exc.exceptions[0]
    return f"{type(exc).__name__}: {exc}"
