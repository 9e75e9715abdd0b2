"""A real MCP server over stdio for the built-in agent's tests (docs/protocol.md §16.5).

``python mcp_stdio_server.py`` serves three tools with the ``mcp`` package's
FastMCP: ``shout``, ``add`` and ``fail_always``. ``--crash`` exits before
serving, as a server that fails to start does.
"""
from __future__ import annotations

import sys

from mcp.server.fastmcp import FastMCP

CRASH_STATUS = 3

server = FastMCP("agent-panel-tests")


@server.tool()
def shout(text: str) -> str:
    """Say the text louder: upper case, with an exclamation mark."""
    return text.upper() + "!"


@server.tool()
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@server.tool()
def fail_always(text: str) -> str:
    """A tool that always fails, to test how failures are reported."""
    raise RuntimeError(f"fail_always refuses {text!r}")


if __name__ == "__main__":
    if "--crash" in sys.argv:
        print("mcp_stdio_server: crashing on purpose", file=sys.stderr)
        sys.exit(CRASH_STATUS)
    server.run("stdio")
