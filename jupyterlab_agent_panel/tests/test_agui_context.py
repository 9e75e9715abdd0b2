"""The workspace context over AG-UI: `RunAgentInput.context` reaches the graph.

The panel sends the four context fields as AG-UI context entries
(`fixtures/agui/context-entries.json`, which jest checks the panel builds);
ag-ui-langgraph hands them to the graph in its state (`ag-ui.context`). A real
`langstage-agui` runs `graphs/agui_context_echo.py`, which answers with them.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from agui_helpers import FIXTURES, recorder

ECHO_GRAPH = Path(__file__).parent / "graphs" / "agui_context_echo.py"


@pytest.fixture(scope="module")
def context_echo_url():
    with recorder.serve("--agent", f"{ECHO_GRAPH}:graph") as url:
        yield url


def answer(url: str, context: list) -> str:
    body = recorder.run_input("agui-context", f"run-{len(context)}", "hello")
    body["context"] = context
    events = recorder.events(recorder.post(url, body))
    assert events[-1]["type"] == "RUN_FINISHED", events[-1]
    return "".join(e.get("delta", "") for e in events if e["type"] == "TEXT_MESSAGE_CONTENT")


def test_every_context_entry_reaches_the_graph(context_echo_url):
    entries = json.loads((FIXTURES / "context-entries.json").read_text())["context"]

    assert answer(context_echo_url, entries) == (
        "The current directory in JupyterLab: notes\n"
        "The JupyterLab document or panel the user is looking at: notes/analysis.ipynb\n"
        "The text the user has selected: x = 1\n"
        "Where the selected text comes from: cell_2"
    )


def test_no_context_means_no_entries(context_echo_url):
    assert answer(context_echo_url, []) == "(no context)"
