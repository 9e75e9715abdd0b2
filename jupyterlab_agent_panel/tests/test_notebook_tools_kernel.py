"""The notebook tools over the kernel comm (docs/protocol.md §7, §12), in a real ipykernel.

The kernel serves the graph with ``jupyterlab_agent_panel.serve(...)``; the test
is the panel: it sends ``start_turn``, answers each pause with a ``resume`` whose
``respond`` decision carries the result ``notebook_panel.py`` computed, and reads
the answer from the frames.
"""
from __future__ import annotations

import json
import uuid

import pytest

from helpers import text_of
from kernel_comm_client import GRAPHS_DIR, KernelUnderTest, PanelComm, frames_of
from notebook_panel import APPLY, NotebookPanel, analysis_panel

DEMO_SPEC = "jupyterlab_agent_panel.demo.notebook_agent:graph"
CALLER_SPEC = f"{GRAPHS_DIR / 'notebook_caller.py'}:graph"
INTERRUPTED = {"status": "complete", "outcome": "interrupted"}
COMPLETE = {"status": "complete", "outcome": "complete"}


def serving(kernel: KernelUnderTest, spec: str) -> PanelComm:
    assert kernel.execute(f"import jupyterlab_agent_panel\njupyterlab_agent_panel.serve({json.dumps(spec)})").ok
    panel = PanelComm(kernel)
    panel.open()
    hello = panel.wait(lambda d: d.get("type") == "hello")["content"]["data"]
    assert hello["ready"] is True, hello
    return panel


@pytest.fixture
def demo(kernel):
    panel = serving(kernel, DEMO_SPEC)
    yield panel
    panel.close()


@pytest.fixture
def caller(kernel):
    panel = serving(kernel, CALLER_SPEC)
    yield panel
    panel.close()


def converse(panel: PanelComm, message: str, nb: NotebookPanel, review=APPLY) -> list:
    """Chat, then answer every pause like the panel until the turn completes; returns each turn's frames."""
    thread_id = f"thread-{uuid.uuid4().hex[:8]}"
    frames, end = panel.run_turn(message, thread_id)
    turns = [frames]
    while frames[-1] == INTERRUPTED:
        assert end["outcome"] == "interrupted"
        [pending] = [f["interrupt"] for f in frames if f["status"] == "interrupt"]
        turn_id = panel.resume(nb.decisions(pending, review), thread_id)
        end = panel.wait_turn_end(turn_id)["content"]["data"]
        frames = frames_of(panel.turn(turn_id))
        turns.append(frames)
    assert frames[-1] == COMPLETE and end["outcome"] == "complete"
    return turns


def test_the_demo_adds_a_cell_runs_it_and_reports_its_output(demo):
    nb = analysis_panel()

    turns = converse(demo, "add a cell that prints hello", nb)

    assert len(turns) == 3
    assert nb.called() == ["insert_cell", "run_cell"]
    assert text_of(turns[-1]) == "I added a cell and ran it. It printed: hello"


def test_the_demo_fixes_a_misspelt_name_in_the_active_cell(demo):
    nb = analysis_panel()

    turns = converse(demo, "fix the error in the active cell", nb)

    assert nb.called() == ["get_active_cell", "read_cell", "edit_cell"]
    assert nb.notebooks["analysis.ipynb"].cells[1].source == 'print("hi")'
    assert text_of(turns[-1]) == 'I fixed cell 2 of analysis.ipynb:\n\n```python\nprint("hi")\n```'


def test_the_demo_stops_when_the_user_will_not_run_the_cell(demo):
    nb = analysis_panel()

    turns = converse(demo, "add a cell that prints hello", nb, review={"run_cell": ("reject", "")})

    assert nb.called() == ["insert_cell", "run_cell"]
    assert nb.notebooks["analysis.ipynb"].executions == 0
    assert text_of(turns[-1]) == "You rejected run_cell, so I left the notebook as it is."


def test_a_tool_call_pauses_and_the_resume_carries_its_result(caller):
    nb = analysis_panel()
    message = json.dumps([{"name": "list_notebooks", "args": {}}])

    turns = converse(caller, message, nb)

    [pending] = [f["interrupt"] for f in turns[0] if f["status"] == "interrupt"]
    assert pending["action_requests"][0]["jupyterlab_agent_panel"] == {
        "notebook_tool": 1,
        "mutates": False,
        "tool_call_id": "call_0",
    }
    assert text_of(turns[-1]) == f"list_notebooks [success]: {json.dumps(nb.run('list_notebooks', {}))}"


def test_a_reject_and_bad_arguments(caller):
    nb = analysis_panel()

    rejected = converse(caller, json.dumps([{"name": "insert_cell", "args": {"source": "x"}}]), nb, ("reject", "no"))
    bad = converse(caller, json.dumps([{"name": "read_cell", "args": {}}]), nb)

    assert text_of(rejected[-1]) == 'insert_cell [error]: {"status": "rejected", "reason": "no"}'
    assert len(bad) == 1  # answered at once: no pause
    assert text_of(bad[0]) == (
        'read_cell [error]: {"status": "error", "code": "bad_arguments", "error": "read_cell was not called, '
        'its arguments are wrong: give exactly one of cell_id and index"}'
    )
