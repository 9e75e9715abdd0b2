"""Assertions and parsers shared by the server-extension tests."""
from __future__ import annotations

import json
from pathlib import Path

GRAPHS = Path(__file__).parent / "graphs"
TERMINAL_STATUSES = {"complete", "error", "cancelled"}

# What the panel sends besides a cell (src/context/capped-text.ts): an editor
# selection with 1-based lines, and a selection it capped itself to the limit,
# ending with the note the server would add (so the server never cuts it again):
# a 5321-character selection, as context-capture.spec.ts checks.
PANEL_CAPPED = "a" * 1964 + "\n… (truncated, 3357 more characters)"
PANEL_CONTEXT_FORMS = [
    (
        {
            "current_directory": "src",
            "focused_widget": "src/util.py",
            "selected_text": "b\nc",
            "selection_metadata": "lines_4-9",
        },
        "\n\nCurrent directory: src\nCurrently focused file: src/util.py"
        "\nUser has selected the following text from lines 4-9:\n```\nb\nc\n```",
    ),
    (
        {"selected_text": "b", "selection_metadata": "line_4"},
        "\n\nUser has selected the following text from line 4:\n```\nb\n```",
    ),
    (
        {"selected_text": PANEL_CAPPED, "selection_metadata": "cell_0"},
        f"\n\nUser has selected the following text from cell index 0:\n```\n{PANEL_CAPPED}\n```",
    ),
]


def graph_spec(name: str) -> str:
    """The ``file.py:graph`` spec of a test graph in ``tests/graphs``."""
    return f"{GRAPHS / name}.py:graph"


def parse_sse(body: str, end_checkpoint: bool = False) -> list:
    """Frames of a whole SSE body, asserting the exact chunk-wire framing (docs/protocol.md §6.4);
    the terminal frame's ``end_checkpoint_id`` is checked and left out unless ``end_checkpoint``."""
    assert body.endswith("\n\n"), f"body does not end with a blank line: {body[-40:]!r}"
    frames = []
    for event in body[: -len("\n\n")].split("\n\n"):
        assert event.startswith("data: "), f"not a data line: {event!r}"
        assert "\n" not in event, f"event spans several lines: {event!r}"
        frames.append(json.loads(event[len("data: "):]))
    return frames if end_checkpoint else [without_end_checkpoint(frame) for frame in frames]


def assert_one_terminal_last(frames: list) -> dict:
    """The response ends with exactly one terminal frame; returns it without the checkpoint
    it reports (docs/protocol.md §5.10), which must be a checkpoint id when there is one."""
    terminal = [f for f in frames if f.get("status") in TERMINAL_STATUSES]
    assert len(terminal) == 1, frames
    assert frames[-1] is terminal[0], frames
    return without_end_checkpoint(terminal[0])


def without_end_checkpoint(frame: dict) -> dict:
    """``frame`` without its ``end_checkpoint_id``, checked to be a non-empty string if present."""
    if "end_checkpoint_id" not in frame:
        return frame
    ended = frame["end_checkpoint_id"]
    assert isinstance(ended, str) and ended, frame
    return {key: value for key, value in frame.items() if key != "end_checkpoint_id"}


def text_of(frames: list) -> str:
    return "".join(f["chunk"] for f in frames if "chunk" in f)


class RawResponse:
    """An HTTP/1.1 response read straight off a socket, as a browser's fetch sees it.

    Tornado's own client asks for ``Connection: close``, which makes the server
    answer ``close``; a raw request keeps the connection persistent.
    """

    def __init__(self, reader, writer):
        self.reader = reader
        self.writer = writer
        self.status_line = ""
        self.headers: dict = {}

    async def read_head(self) -> None:
        head = (await self.reader.readuntil(b"\r\n\r\n")).decode("latin-1")
        self.status_line, *lines = head[: -len("\r\n\r\n")].split("\r\n")
        self.headers = dict(line.split(": ", 1) for line in lines)

    async def read_chunk(self) -> bytes:
        """The next chunk of a chunked body; ``b""`` at its end."""
        size = int((await self.reader.readuntil(b"\r\n")).strip(), 16)
        data = await self.reader.readexactly(size + 2)
        return data[:-2]

    async def read_body(self) -> bytes:
        body = b""
        while chunk := await self.read_chunk():
            body += chunk
        return body

    def close(self) -> None:
        self.writer.close()
