"""What the built-in agent's tests share (docs/protocol.md §16): names, the MCP connection, assertions."""
from __future__ import annotations

import json
import re
import sys
import uuid
from pathlib import Path

# A key that looks real: nothing may show it, whole or masked.
KEY = "sk-test-agentpanel-0123456789abcdef"
MODEL = "openai:gpt-4.1-mini"
LOCAL = "openai:local-llama"
CLAUDE = "anthropic:claude-sonnet-4-5"
SERVED_MODELS = ("gpt-4.1-mini", "local-llama")
MCP_SERVER = Path(__file__).parent / "mcp_stdio_server.py"
INTERRUPTED = {"status": "complete", "outcome": "interrupted"}
COMPLETE = {"status": "complete", "outcome": "complete"}
PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="


def mcp_server(*args: str, review: bool = False) -> dict:
    """A connection to the tests' MCP server over stdio."""
    entry = {"transport": "stdio", "command": sys.executable, "args": [str(MCP_SERVER), *args]}
    return {**entry, "review": True} if review else entry


def new_thread() -> str:
    return f"thread-{uuid.uuid4().hex[:8]}"


def interrupts(frames: list) -> list:
    return [f["interrupt"] for f in frames if f["status"] == "interrupt"]


def usage_frames(frames: list) -> list:
    return [f for f in frames if f["status"] == "usage"]


def tool_results(request: dict) -> list:
    """The tool messages a chat-completions request carries."""
    return [message for message in request["messages"] if message["role"] == "tool"]


def assert_no_key(text: str) -> None:
    """Neither the key nor any masked form of it is in ``text``."""
    assert KEY not in text, text
    assert KEY[:8] not in text, text
    assert not re.search(r"\*{4,}", text), text


def json_body(response) -> dict:
    return json.loads(response.body)
