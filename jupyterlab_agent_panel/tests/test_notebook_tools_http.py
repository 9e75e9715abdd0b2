"""The notebook tools over the HTTP routes of a real Jupyter server (docs/protocol.md §6, §12).

``POST chat`` pauses on the action request of a notebook tool; the test plays
the panel (``notebook_panel.py``) and ``POST resume`` carries its result as a
``respond`` decision; the graph's answer contains it. The graphs: the caller
(``graphs/notebook_caller.py``) at ``agents/caller/`` and the built-in keyless
demo at ``agents/notebook-demo/``.
"""
from __future__ import annotations

import json
import uuid

import pytest

from helpers import GRAPHS, assert_one_terminal_last, text_of
from notebook_panel import APPLY, Cell, Notebook, NotebookPanel, analysis_panel, source_fingerprint

CALLER = "agents/caller/"
DEMO = "agents/notebook-demo/"
INTERRUPTED = {"status": "complete", "outcome": "interrupted"}
COMPLETE = {"status": "complete", "outcome": "complete"}
FIXED = 'print("hi")'


@pytest.fixture
def agent_panel_config():
    return {"agents": {"caller": f"{GRAPHS / 'notebook_caller.py'}:graph"}}


def new_thread() -> str:
    return f"thread-{uuid.uuid4().hex[:8]}"


def interrupts(frames: list) -> list:
    return [f["interrupt"] for f in frames if f["status"] == "interrupt"]


@pytest.fixture
def converse(run_turn):
    """Chat, then answer every pause like the panel until the turn completes; returns each turn's frames."""

    async def run(route: str, message: str, nb: NotebookPanel, review=APPLY) -> list:
        thread_id = new_thread()
        turns = [await run_turn(f"{route}chat", {"message": message, "thread_id": thread_id})]
        while turns[-1][-1] == INTERRUPTED:
            [pending] = interrupts(turns[-1])
            decisions = nb.decisions(pending, review)
            turns.append(await run_turn(f"{route}resume", {"thread_id": thread_id, "decisions": decisions}))
        assert assert_one_terminal_last(turns[-1]) == COMPLETE
        return turns

    return run


async def test_a_tool_call_pauses_and_the_resume_carries_its_result(run_turn):
    nb = analysis_panel()
    thread_id = new_thread()
    message = json.dumps([{"name": "read_notebook", "args": {"path": "other.ipynb"}}])

    paused = await run_turn(f"{CALLER}chat", {"message": message, "thread_id": thread_id})

    assert paused[0] == {
        "status": "streaming",
        "tool_calls": [{"name": "read_notebook", "args": {"path": "other.ipynb"}, "id": "call_0"}],
        "checkpoint_id": None,
    }
    [pending] = interrupts(paused)
    assert pending["action_requests"][0]["jupyterlab_agent_panel"] == {
        "notebook_tool": 1,
        "mutates": False,
        "tool_call_id": "call_0",
    }
    assert pending["allowed_decisions"] == ["reject", "respond"]
    assert assert_one_terminal_last(paused) == INTERRUPTED

    resumed = await run_turn(f"{CALLER}resume", {"thread_id": thread_id, "decisions": nb.decisions(pending)})

    cell = {
        "index": 0,
        "cell_id": "o-1",
        "cell_type": "code",
        "source": "x = 1",
        "source_length": 5,
        "fingerprint": source_fingerprint("x = 1"),
        "execution_count": None,
        "outputs": [],
    }
    result = {"status": "ok", "path": "other.ipynb", "cell_count": 1, "cells": [cell]}
    assert text_of(resumed) == f"read_notebook [success]: {json.dumps(result)}"
    # The frame's copy is capped for display (500 characters); the graph got it whole.
    assert [f["tool_status"] for f in resumed if "tool_result" in f] == ["success"]
    assert assert_one_terminal_last(resumed) == COMPLETE


async def test_a_rejected_call_reaches_the_graph_with_its_reason(converse):
    nb = analysis_panel()
    message = json.dumps([{"name": "delete_cell", "args": {"cell_id": "c-1", "fingerprint": "x"}}])

    turns = await converse(CALLER, message, nb, review=("reject", "keep it"))

    assert text_of(turns[-1]) == 'delete_cell [error]: {"status": "rejected", "reason": "keep it"}'
    assert [c.cell_id for c in nb.notebooks["analysis.ipynb"].cells] == ["c-1", "c-2", "c-3"]


async def test_bad_arguments_answer_at_once_without_a_pause(run_turn):
    message = json.dumps([{"name": "run_cell", "args": {"cell_id": ""}}])

    frames = await run_turn(f"{CALLER}chat", {"message": message, "thread_id": new_thread()})

    assert interrupts(frames) == []
    assert text_of(frames) == (
        'run_cell [error]: {"status": "error", "code": "bad_arguments", "error": "run_cell was not called, '
        "its arguments are wrong: cell_id: String should have at least 1 character (got '')\"}"
    )
    assert assert_one_terminal_last(frames) == COMPLETE


# -- the keyless demo (graph: jupyterlab_agent_panel/demo/notebook_agent.py) -----


async def test_the_demo_is_a_built_in_agent(jp_fetch):
    health = json.loads((await jp_fetch("agent-panel", "agents", "notebook-demo", "health")).body)

    assert health == {
        "status": "healthy",
        "agent_loaded": True,
        "ready": True,
        "message": "Agent ready: Notebook Demo Agent",
        "spec": "jupyterlab_agent_panel.demo.notebook_agent:graph",
        "agent_name": "Notebook Demo Agent",
    }


async def test_the_demo_adds_a_cell_runs_it_and_reports_its_output(converse):
    nb = analysis_panel()

    turns = await converse(DEMO, "add a cell that prints hello", nb)

    assert nb.called() == ["insert_cell", "run_cell"]
    insert, run = nb.calls
    assert insert["args"] == {"source": "print('hello')", "cell_type": "code"}
    assert run["args"] == {"path": "analysis.ipynb", "cell_id": "new-1", "timeout_seconds": 60.0}
    assert [(c.cell_id, c.source) for c in nb.notebooks["analysis.ipynb"].cells][-1] == ("new-1", "print('hello')")
    assert text_of(turns[-1]) == "I added a cell and ran it. It printed: hello"


async def test_the_demo_adds_the_cell_to_the_notebook_named(converse):
    nb = analysis_panel()

    turns = await converse(DEMO, "add a cell that prints hello in other.ipynb", nb)

    insert, run = nb.calls
    assert insert["args"] == {"path": "other.ipynb", "source": "print('hello')", "cell_type": "code"}
    assert run["args"]["path"] == "other.ipynb"
    assert [c.source for c in nb.notebooks["other.ipynb"].cells] == ["x = 1", "print('hello')"]
    assert len(nb.notebooks["analysis.ipynb"].cells) == 3
    assert text_of(turns[-1]) == "I added a cell and ran it. It printed: hello"


async def test_the_demo_runs_the_source_the_user_edited_in_review(converse):
    nb = analysis_panel()

    edit = {"insert_cell": ("edit", "print('hi there')")}
    turns = await converse(DEMO, "add a cell that prints hello", nb, review=edit)

    assert text_of(turns[-1]) == "I added a cell and ran it. It printed: hi there"


async def test_the_demo_quotes_the_reason_of_a_rejection(converse):
    nb = analysis_panel()

    turns = await converse(DEMO, "add a cell that prints hello", nb, review=("reject", "not in this notebook"))

    assert nb.called() == ["insert_cell"]
    assert text_of(turns[-1]) == "You rejected insert_cell (not in this notebook), so I left the notebook as it is."
    assert len(nb.notebooks["analysis.ipynb"].cells) == 3


async def test_the_demo_fixes_a_misspelt_name_in_the_active_cell(converse):
    nb = analysis_panel()

    turns = await converse(DEMO, "fix the error in the active cell", nb)

    assert nb.called() == ["get_active_cell", "read_cell", "edit_cell"]
    assert nb.calls[1]["args"] == {"path": "analysis.ipynb", "cell_id": "c-2"}
    assert nb.calls[2]["args"] == {
        "path": "analysis.ipynb",
        "cell_id": "c-2",
        "fingerprint": source_fingerprint('prnt("hi")'),
        "source": FIXED,
    }
    assert nb.notebooks["analysis.ipynb"].cells[1].source == FIXED
    assert text_of(turns[-1]) == f"I fixed cell 2 of analysis.ipynb:\n\n```python\n{FIXED}\n```"


async def test_the_demo_reports_a_cell_that_changed_during_review(converse):
    nb = analysis_panel()
    original_read = nb.read_cell

    def read_then_user_types(**args):
        result = original_read(**args)
        nb.notebooks["analysis.ipynb"].cells[1].source = 'prnt("hi")  # the user typed meanwhile'
        return result

    nb.read_cell = read_then_user_types

    turns = await converse(DEMO, "fix the error in the active cell", nb)

    assert text_of(turns[-1]) == "edit_cell did not work: cell c-2 changed since you read it: read it again"
    assert nb.notebooks["analysis.ipynb"].cells[1].source == 'prnt("hi")  # the user typed meanwhile'


async def test_the_demo_says_when_the_active_cell_has_no_error(converse):
    nb = NotebookPanel([Notebook("clean.ipynb", [Cell("k-1", "1 + 1")])], active_path="clean.ipynb")

    turns = await converse(DEMO, "fix the error in the active cell", nb)

    assert nb.called() == ["get_active_cell", "read_cell"]
    assert text_of(turns[-1]) == "Cell 1 of clean.ipynb shows no error. Run it, and ask me again if it fails."


async def test_the_demo_explains_itself_otherwise(run_turn):
    frames = await run_turn(f"{DEMO}chat", {"message": "hello", "thread_id": new_thread()})

    assert text_of(frames).startswith("I am a scripted demo of the notebook tools")
    assert assert_one_terminal_last(frames) == COMPLETE


class TestAConfiguredAgentTakesTheBuiltInName:
    @pytest.fixture
    def agent_panel_config(self):
        return {"agents": {"notebook-demo": f"{GRAPHS / 'echo_all.py'}:graph"}}

    async def test_the_configured_graph_is_served(self, run_turn, agent_panel):
        frames = await run_turn(f"{DEMO}chat", {"message": "hi", "thread_id": "t"})

        assert text_of(frames) == "echo: hi"
        assert list(agent_panel.named) == ["notebook-demo"]
