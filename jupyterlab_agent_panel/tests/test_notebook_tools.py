"""``notebook_tools()`` in real LangGraph graphs, driven through langstage-core's chunk wire.

Every call pauses the graph with the action request of docs/protocol.md §12.2;
the test answers like the panel (``notebook_panel.py``) and checks what the
graph gets back. ``graphs/notebook_caller.py`` makes the calls a message names,
in ``create_agent`` (a ``Send`` per call) and in a ``StateGraph`` with one
``ToolNode`` (all calls in one task).
"""
from __future__ import annotations

import json
import uuid
from pathlib import Path

import pytest
from langstage_core.agui import build_agent, iter_chunk_frames

from helpers import GRAPHS, assert_one_terminal_last, text_of
from jupyterlab_agent_panel import notebook_tools
from jupyterlab_agent_panel.tools.notebook import (
    DECLARATIONS_FILE,
    NOTEBOOK_TOOL_NAMES,
    tool_declarations_text,
)
from notebook_panel import analysis_panel as panel
from notebook_panel import error_output, source_fingerprint

ROOT = Path(__file__).resolve().parents[2]
TOOL_NAMES = [
    "list_notebooks",
    "read_notebook",
    "read_cell",
    "get_active_cell",
    "insert_cell",
    "edit_cell",
    "delete_cell",
    "run_cell",
]
MUTATING = {"insert_cell", "edit_cell", "delete_cell", "run_cell"}
INTERRUPTED = {"status": "complete", "outcome": "interrupted"}
COMPLETE = {"status": "complete", "outcome": "complete"}


def load_graph(attr: str = "graph"):
    from langstage_core.host import load_agent_spec

    return load_agent_spec(f"{GRAPHS / 'notebook_caller.py'}:{attr}")


@pytest.fixture(scope="module", params=["graph", "tool_node_graph"])
def agent(request):
    """The caller graph built once per graph shape; each test takes its own thread."""
    return build_agent(load_graph(request.param), name=request.param)


@pytest.fixture
def shape(request) -> str:
    """Which graph ``agent`` is: ``graph`` (create_agent) or ``tool_node_graph``."""
    return request.node.callspec.params["agent"]


async def turn(agent, message: str, thread_id: str, resume=None) -> list:
    return [f async for f in iter_chunk_frames(agent, message, thread_id, resume=resume, max_result_len=100_000)]


def calls(*pairs) -> str:
    return json.dumps([{"name": name, "args": args} for name, args in pairs])


def interrupts(frames: list) -> list:
    return [f["interrupt"] for f in frames if f["status"] == "interrupt"]


def results(frames: list) -> list:
    return [(f["name"], f["tool_status"], f["tool_result"]) for f in frames if "tool_result" in f]


def new_thread() -> str:
    return f"thread-{uuid.uuid4().hex[:8]}"


# -- what the tools declare ----------------------------------------------------


def test_the_eight_tools_in_order():
    tools = notebook_tools()
    assert [tool.name for tool in tools] == TOOL_NAMES
    assert NOTEBOOK_TOOL_NAMES == set(TOOL_NAMES)
    assert len({id(tool) for tool in tools}) == 8


def test_the_committed_declarations_are_what_the_tools_declare():
    committed = (ROOT / DECLARATIONS_FILE).read_text("utf-8")
    assert committed == tool_declarations_text(), (
        f"{DECLARATIONS_FILE} is out of date: run .venv/bin/python scripts/notebook-tools-schema.py"
    )


def test_every_declaration_is_a_strict_schema_a_model_is_offered():
    from langchain_core.utils.function_calling import convert_to_openai_tool

    declared = json.loads(tool_declarations_text())
    assert declared["version"] == 1
    assert [t["name"] for t in declared["tools"]] == TOOL_NAMES
    assert {t["name"] for t in declared["tools"] if t["mutates"]} == MUTATING
    for tool, declaration in zip(notebook_tools(), declared["tools"], strict=True):
        parameters = declaration["parameters"]
        assert convert_to_openai_tool(tool)["function"]["parameters"] == parameters
        assert parameters["type"] == "object" and parameters["additionalProperties"] is False
        assert "runtime" not in parameters["properties"]
        for name, schema in parameters["properties"].items():
            assert schema["description"], (tool.name, name)
            assert "anyOf" not in schema and schema.get("default", "absent") is not None, (tool.name, name)
    required = {t["name"]: sorted(t["parameters"].get("required", [])) for t in declared["tools"]}
    assert required == {
        "list_notebooks": [],
        "read_notebook": [],
        "read_cell": [],
        "get_active_cell": [],
        "insert_cell": ["source"],
        "edit_cell": ["cell_id", "fingerprint", "source"],
        "delete_cell": ["cell_id", "fingerprint"],
        "run_cell": ["cell_id"],
    }


# -- the action request --------------------------------------------------------

ACTION_REQUESTS = [
    ("list_notebooks", {}, {}, "List the open notebooks"),
    (
        "read_notebook",
        {"path": "a.ipynb"},
        {"path": "a.ipynb", "start_index": 0, "max_cells": 50, "include_outputs": True},
        "Read cells 0 to 49 of a.ipynb",
    ),
    ("read_cell", {"index": 2}, {"index": 2}, "Read the cell at index 2 of the active notebook"),
    ("read_cell", {"cell_id": "c-2"}, {"cell_id": "c-2"}, "Read cell c-2 of the active notebook"),
    ("get_active_cell", {}, {}, "Read which cell is active"),
    (
        "insert_cell",
        {"source": "print('hello')", "after_cell_id": "abc", "path": "analysis.ipynb"},
        {"source": "print('hello')", "after_cell_id": "abc", "path": "analysis.ipynb", "cell_type": "code"},
        "Insert a code cell after cell abc of analysis.ipynb",
    ),
    (
        "insert_cell",
        {"source": "# Title", "cell_type": "markdown", "index": 0},
        {"source": "# Title", "cell_type": "markdown", "index": 0},
        "Insert a markdown cell at index 0 of the active notebook",
    ),
    (
        "edit_cell",
        {"cell_id": "c-2", "fingerprint": "f", "source": "print(1)"},
        {"cell_id": "c-2", "fingerprint": "f", "source": "print(1)"},
        "Replace the source of cell c-2 in the active notebook",
    ),
    (
        "delete_cell",
        {"cell_id": "c-2", "fingerprint": "f", "path": "b.ipynb"},
        {"cell_id": "c-2", "fingerprint": "f", "path": "b.ipynb"},
        "Delete cell c-2 from b.ipynb",
    ),
    (
        "run_cell",
        {"cell_id": "c-1", "timeout_seconds": 5},
        {"cell_id": "c-1", "timeout_seconds": 5.0},
        "Run cell c-1 of the active notebook (waiting at most 5 s)",
    ),
]


@pytest.mark.parametrize(("name", "args", "full_args", "description"), ACTION_REQUESTS)
async def test_a_call_pauses_with_the_action_request_of_the_convention(agent, name, args, full_args, description):
    frames = await turn(agent, calls((name, args)), new_thread())

    assert [f["tool_calls"] for f in frames if "tool_calls" in f] == [[{"name": name, "args": args, "id": "call_0"}]]
    assert interrupts(frames) == [
        {
            "action_requests": [
                {
                    "name": name,
                    "args": full_args,
                    "description": description,
                    "jupyterlab_agent_panel": {
                        "notebook_tool": 1,
                        "mutates": name in MUTATING,
                        "tool_call_id": "call_0",
                    },
                }
            ],
            "review_configs": [{"action_name": name, "allowed_decisions": ["respond", "reject"]}],
            "allowed_decisions": ["reject", "respond"],
        }
    ]
    assert results(frames) == []
    assert assert_one_terminal_last(frames) == INTERRUPTED


# -- the resume ------------------------------------------------------------------


async def test_the_panels_result_is_the_tools_return_value(agent):
    nb = panel()
    thread_id = new_thread()
    paused = await turn(agent, calls(("read_cell", {"cell_id": "c-2"})), thread_id)
    decisions = nb.decisions(interrupts(paused)[0])

    resumed = await turn(agent, "", thread_id, resume={"decisions": decisions})

    read = nb.run("read_cell", {"cell_id": "c-2"})
    assert read == {
        "status": "ok",
        "path": "analysis.ipynb",
        "index": 1,
        "cell_id": "c-2",
        "cell_type": "code",
        "source": 'prnt("hi")',
        "source_length": 10,
        "fingerprint": source_fingerprint('prnt("hi")'),
        "execution_count": None,
        "outputs": [error_output("NameError", "name 'prnt' is not defined")],
    }
    assert decisions == [{"type": "respond", "message": json.dumps(read)}]
    assert results(resumed) == [("read_cell", "success", json.dumps(read))]
    assert text_of(resumed) == f"read_cell [success]: {json.dumps(read)}"
    assert assert_one_terminal_last(resumed) == COMPLETE


async def test_a_mutating_call_applies_after_review_and_returns_what_was_applied(agent):
    nb = panel()
    thread_id = new_thread()
    paused = await turn(agent, calls(("insert_cell", {"source": "print('hello')", "after_cell_id": "c-1"})), thread_id)

    resumed = await turn(agent, "", thread_id, resume={"decisions": nb.decisions(interrupts(paused)[0])})

    cells = nb.notebooks["analysis.ipynb"].cells
    assert [(c.cell_id, c.source) for c in cells[:3]] == [
        ("c-1", "import math"),
        ("new-1", "print('hello')"),
        ("c-2", 'prnt("hi")'),
    ]
    applied = {
        "status": "applied",
        "path": "analysis.ipynb",
        "cell_id": "new-1",
        "index": 1,
        "cell_type": "code",
        "source": "print('hello')",
        "fingerprint": source_fingerprint("print('hello')"),
        "edited_by_user": False,
    }
    assert text_of(resumed) == f"insert_cell [success]: {json.dumps(applied)}"


async def test_an_edit_is_refused_when_the_cell_changed_since_it_was_read(agent):
    nb = panel()
    read = nb.run("read_cell", {"cell_id": "c-2"})
    nb.notebooks["analysis.ipynb"].cells[1].source = 'print("changed by the user")'
    thread_id = new_thread()
    edit = {"cell_id": "c-2", "fingerprint": read["fingerprint"], "source": 'print("hi")'}
    paused = await turn(agent, calls(("edit_cell", edit)), thread_id)

    resumed = await turn(agent, "", thread_id, resume={"decisions": nb.decisions(interrupts(paused)[0])})

    stale = {"status": "error", "code": "stale", "error": "cell c-2 changed since you read it: read it again"}
    assert results(resumed) == [("edit_cell", "error", json.dumps(stale))]
    assert nb.notebooks["analysis.ipynb"].cells[1].source == 'print("changed by the user")'


@pytest.mark.parametrize(
    ("decision", "result"),
    [
        ({"type": "reject", "message": "not now"}, {"status": "rejected", "reason": "not now"}),
        ({"type": "reject", "message": "  "}, {"status": "rejected", "reason": None}),
        ({"type": "reject"}, {"status": "rejected", "reason": None}),
    ],
)
async def test_a_reject_decision_returns_the_rejection(agent, decision, result):
    thread_id = new_thread()
    await turn(agent, calls(("delete_cell", {"cell_id": "c-1", "fingerprint": "f"})), thread_id)

    resumed = await turn(agent, "", thread_id, resume={"decisions": [decision]})

    assert results(resumed) == [("delete_cell", "error", json.dumps(result))]
    assert text_of(resumed) == f"delete_cell [error]: {json.dumps(result)}"
    assert assert_one_terminal_last(resumed) == COMPLETE


async def test_the_panels_own_rejection_reaches_the_model_as_it_was_sent(agent):
    nb = panel()
    thread_id = new_thread()
    paused = await turn(agent, calls(("run_cell", {"cell_id": "c-1"})), thread_id)
    decisions = nb.decisions(interrupts(paused)[0], review=("reject", "it takes too long"))

    resumed = await turn(agent, "", thread_id, resume={"decisions": decisions})

    assert results(resumed) == [("run_cell", "error", '{"status": "rejected", "reason": "it takes too long"}')]
    assert nb.notebooks["analysis.ipynb"].executions == 0


async def test_a_plain_text_answer_of_an_unaware_client_is_passed_on(agent):
    thread_id = new_thread()
    await turn(agent, calls(("get_active_cell", {})), thread_id)

    answer = {"decisions": [{"type": "respond", "message": "cell 3, I think"}]}
    resumed = await turn(agent, "", thread_id, resume=answer)

    assert results(resumed) == [("get_active_cell", "success", "cell 3, I think")]


UNSUPPORTED_TAIL = "so it cannot run notebook tools. Tell the user to use the JupyterLab agent panel."


@pytest.mark.parametrize(
    ("resume", "why"),
    [
        ({"decisions": [{"type": "approve"}]}, "the client answered with the decision 'approve', "),
        (
            {"decisions": [{"type": "edit", "edited_action": {"name": "run_cell", "args": {}}}]},
            "the client answered with the decision 'edit', ",
        ),
        ({"decisions": [{"type": "respond", "message": 42}]}, "the client answered with the decision 'respond', "),
        ({"decisions": []}, "the client answered with 0 decisions instead of one decision, "),
        (
            {"decisions": [{"type": "respond", "message": "a"}, {"type": "respond", "message": "b"}]},
            "the client answered with 2 decisions instead of one decision, ",
        ),
        ("yes", "the client answered with a str instead of one decision, "),
    ],
)
async def test_any_other_answer_says_the_client_cannot_run_notebook_tools(agent, resume, why):
    thread_id = new_thread()
    await turn(agent, calls(("run_cell", {"cell_id": "c-1"})), thread_id)

    resumed = await turn(agent, "", thread_id, resume=resume)

    error = {"status": "error", "code": "unsupported", "error": f"run_cell did not run: {why}{UNSUPPORTED_TAIL}"}
    assert results(resumed) == [("run_cell", "error", json.dumps(error))]


# -- bad arguments: a clear result, no interrupt ---------------------------------

BAD_ARGUMENTS = [
    ("insert_cell", {}, "source: Field required"),
    ("insert_cell", {"source": 3}, "source: Input should be a valid string (got 3)"),
    (
        "insert_cell",
        {"source": "x", "cell_type": "sql"},
        "cell_type: Input should be 'code' or 'markdown' (got 'sql')",
    ),
    ("insert_cell", {"source": "x", "index": 1, "after_cell_id": "a"}, "give index or after_cell_id, not both"),
    ("insert_cell", {"source": "x", "index": -1}, "index: Input should be greater than or equal to 0 (got -1)"),
    ("insert_cell", {"source": "x", "index": "3"}, "index: Input should be a valid integer (got '3')"),
    ("insert_cell", {"source": "x", "path": ""}, "path: String should have at least 1 character (got '')"),
    (
        "insert_cell",
        {"source": "x", "position": "end"},
        "unknown argument 'position' (the arguments are: path, source, cell_type, index, after_cell_id)",
    ),
    ("read_cell", {}, "give exactly one of cell_id and index"),
    ("read_cell", {"cell_id": "a", "index": 0}, "give exactly one of cell_id and index"),
    ("edit_cell", {"cell_id": "a", "source": "x"}, "fingerprint: Field required"),
    (
        "run_cell",
        {"cell_id": "a", "timeout_seconds": 0},
        "timeout_seconds: Input should be greater than or equal to 1 (got 0)",
    ),
    ("read_notebook", {"max_cells": 500}, "max_cells: Input should be less than or equal to 200 (got 500)"),
    ("list_notebooks", {"path": "a.ipynb"}, "unknown argument 'path' (the arguments are: none)"),
]


@pytest.mark.parametrize(("name", "args", "problem"), BAD_ARGUMENTS)
async def test_bad_arguments_return_an_error_result_without_pausing(agent, name, args, problem):
    frames = await turn(agent, calls((name, args)), new_thread())

    error = {
        "status": "error",
        "code": "bad_arguments",
        "error": f"{name} was not called, its arguments are wrong: {problem}",
    }
    assert interrupts(frames) == []
    assert results(frames) == [(name, "error", json.dumps(error))]
    assert assert_one_terminal_last(frames) == COMPLETE


async def test_several_wrong_arguments_are_named_together(agent):
    frames = await turn(agent, calls(("edit_cell", {"cell_id": 7, "source": None})), new_thread())

    [(_, _, content)] = results(frames)
    assert json.loads(content)["error"] == (
        "edit_cell was not called, its arguments are wrong: cell_id: Input should be a valid string (got 7); "
        "fingerprint: Field required; source: Input should be a valid string (got None)"
    )


# -- two notebook calls in one step (docs/protocol.md §12.6) ---------------------


async def test_langgraph_cannot_resume_two_pending_interrupts_with_one_decision_list():
    """Why the tools run one call per step: two interrupts of one step, one chunk-wire resume."""
    from langchain.agents import create_agent
    from langchain_core.messages import AIMessage, ToolMessage
    from langchain_core.tools import tool
    from langgraph.types import interrupt

    from jupyterlab_agent_panel.demo.scripted_model import ScriptedChatModel

    @tool
    def ask(question: str) -> str:
        """Ask the user."""
        return json.dumps(interrupt({"action_requests": [{"name": "ask", "args": {"question": question}}]}))

    def script(messages):
        if isinstance(messages[-1], ToolMessage):
            return AIMessage(content="done")
        return AIMessage(
            content="",
            tool_calls=[{"name": "ask", "args": {"question": q}, "id": f"call_{q}"} for q in ("a", "b")],
        )

    agent = build_agent(create_agent(ScriptedChatModel(script=script), tools=[ask]), name="two asks")
    thread_id = new_thread()
    paused = await turn(agent, "go", thread_id)
    assert len(interrupts(paused)) == 2

    resumed = await turn(agent, "", thread_id, resume={"decisions": [{"type": "respond", "message": "x"}] * 2})

    assert resumed == [
        {
            "status": "error",
            "error": "RuntimeError: When there are multiple pending interrupts, you must specify the interrupt "
            "id when resuming. Docs: https://docs.langchain.com/oss/python/langgraph/interrupts"
            "#handling-multiple-interrupts.",
        }
    ]


async def test_only_the_first_notebook_call_of_a_step_pauses(agent, shape):
    nb = panel()
    thread_id = new_thread()
    step = calls(
        ("get_active_cell", {}),
        ("read_cell", {"index": 0}),
        ("insert_cell", {"source": "x"}),
    )
    paused = await turn(agent, step, thread_id)

    [pending] = interrupts(paused)
    assert [r["name"] for r in pending["action_requests"]] == ["get_active_cell"]

    def not_run(name: str) -> str:
        return json.dumps(
            {
                "status": "error",
                "code": "one_call_per_step",
                "error": f"{name} did not run: notebook tools run one call at a time, and get_active_cell "
                f"(call call_0) of the same step goes first. Call {name} again once you have its result.",
            }
        )

    resumed = await turn(agent, "", thread_id, resume={"decisions": nb.decisions(pending)})

    active = json.dumps(nb.run("get_active_cell", {}))
    refused = [("read_cell", "error", not_run("read_cell")), ("insert_cell", "error", not_run("insert_cell"))]
    assert sorted(results(paused)) == sorted(refused)
    if shape == "graph":  # a task per call: only the paused one runs again
        assert results(resumed) == [("get_active_cell", "success", active)]
    else:  # one task for the step: LangGraph runs all its calls again, and they refuse again
        assert sorted(results(resumed)) == sorted([("get_active_cell", "success", active), *refused])
    assert text_of(resumed) == "\n".join(
        [
            f"get_active_cell [success]: {active}",
            f"read_cell [error]: {not_run('read_cell')}",
            f"insert_cell [error]: {not_run('insert_cell')}",
        ]
    )
    assert [c.cell_id for c in nb.notebooks["analysis.ipynb"].cells] == ["c-1", "c-2", "c-3"]
    assert assert_one_terminal_last(resumed) == COMPLETE


async def test_a_call_with_bad_arguments_first_still_holds_back_the_others(agent):
    frames = await turn(agent, calls(("insert_cell", {}), ("list_notebooks", {})), new_thread())

    assert interrupts(frames) == []
    assert sorted((name, status, json.loads(content)["code"]) for name, status, content in results(frames)) == [
        ("insert_cell", "error", "bad_arguments"),
        ("list_notebooks", "error", "one_call_per_step"),
    ]
