"""A real MCP server over stdio for the built-in agent's tests (docs/protocol.md §16.5).

``python mcp_stdio_server.py`` serves three tools with the ``mcp`` package's
FastMCP: ``shout``, ``add`` and ``fail_always``. ``--crash`` exits with status 3
before serving, as a server that fails to start does, so the tests can check
that a broken MCP server is reported. ``test_scripted_servers.py`` checks it
with the real client (``langchain-mcp-adapters``).
"""
from __future__ import annotations

import sys

CRASH_STATUS = 3

if __name__ == "__main__" and "--crash" in sys.argv:
    # Before importing mcp (2 s here): a server that cannot start fails at once.
    print("mcp_stdio_server: crashing on purpose", file=sys.stderr)
    sys.exit(CRASH_STATUS)

from mcp.server.fastmcp import FastMCP  # noqa: E402

# WARNING: no "Processing request" line on the client's stderr for every call.
server = FastMCP("agent-panel-tests", log_level="WARNING")


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
    server.run("stdio")
