"""The MCP servers' tools for the built-in agent (docs/protocol.md §16.5), through langchain-mcp-adapters.

Each server of ``AgentPanel.mcp_servers`` is a connection in the shape of
``MultiServerMCPClient`` plus our own ``"review"`` key. Its tools are loaded
when the agent loads, one server at a time with a deadline, so a server that
fails to start or answer is left out and named, and the others still work.
"""
from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass, field
from typing import Any, Mapping

TRANSPORTS = ("stdio", "streamable_http", "http", "sse", "websocket")
REVIEW_KEY = "review"
LOAD_SECONDS = 30.0
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

    def notice(self) -> str:
        """The failures, for the agent's health."""
        return "; ".join(f"MCP server {name!r} is left out: {failure}" for name, failure in self.failures.items())


async def load_mcp_tools(servers: Mapping[str, dict], taken: set[str]) -> McpTools:
    """Every server's tools; ``taken`` are names the agent has already (a clashing tool is left out)."""
    loaded = McpTools()
    if not servers:
        return loaded
    from langchain_mcp_adapters.client import MultiServerMCPClient

    for name, entry in servers.items():
        connection = {key: value for key, value in entry.items() if key != REVIEW_KEY}
        client = MultiServerMCPClient({name: connection})
        try:
            tools = await asyncio.wait_for(client.get_tools(server_name=name), LOAD_SECONDS)
        except Exception as exc:  # noqa: BLE001 - any failure leaves this server out, not the agent
            loaded.failures[name] = _failure_text(exc)
            logger.warning("agent-panel: MCP server %r is left out: %s", name, loaded.failures[name])
            continue
        for tool in tools:
            if tool.name in taken:
                loaded.failures[name] = f"its tool {tool.name!r} has the name of another tool, so it is left out"
                continue
            taken.add(tool.name)
            loaded.tools.append(tool)
            if entry.get(REVIEW_KEY):
                loaded.reviewed[tool.name] = {
                    "allowed_decisions": list(REVIEW_DECISIONS),
                    "description": f"MCP server {name!r}: {tool.description}".strip(),
                }
    return loaded


def _failure_text(exc: BaseException) -> str:
    if isinstance(exc, asyncio.TimeoutError):
        return f"it did not answer within {LOAD_SECONDS:g} s"
    # An exception group (anyio's task groups) says little: its first leaf says what failed.
    while getattr(exc, "exceptions", None):
        exc = exc.exceptions[0]
    return f"{type(exc).__name__}: {exc}"
