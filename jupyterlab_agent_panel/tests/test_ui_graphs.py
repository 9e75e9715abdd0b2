"""The Galata UI tests' graphs (``ui-tests/graphs``), served as the UI-test server serves them.

The agents come from ``ui-tests/jupyter_server_test_config.py`` itself, so what
is checked here is what the UI tests talk to.
"""
import json
import time
from pathlib import Path

import pytest
from traitlets.config.loader import PyFileConfigLoader

from helpers import assert_one_terminal_last, text_of
from jupyterlab_agent_panel.context import message_with_context

UI_CONFIG = Path(__file__).resolve().parents[2] / "ui-tests" / "jupyter_server_test_config.py"
UI_AGENTS = ["hitl", "failing", "slow", "echo", "todos", "markdown", "remembering", "soak"]
CANCELLED_FRAME = {"status": "cancelled", "message": "Execution cancelled by user"}
COMPLETE = {"status": "complete", "outcome": "complete"}
INTERRUPTED = {"status": "complete", "outcome": "interrupted"}


@pytest.fixture
def agent_panel_config(monkeypatch):
    # Galata's helper makes temporary folders and sets ports; only the agents matter here.
    monkeypatch.setattr("jupyterlab.galata.configure_jupyter_server", lambda c: None)
    config = PyFileConfigLoader(UI_CONFIG.name, path=str(UI_CONFIG.parent)).load_config()
    return {"agents": config.AgentPanel.agents}


async def test_every_ui_agent_loads(jp_fetch):
    listing = json.loads((await jp_fetch("agent-panel", "agents")).body)["agents"]

    named = [agent for agent in listing if agent["name"] != "default"]
    assert [agent["name"] for agent in named] == [*UI_AGENTS, "notebook-demo"]  # the built-in one last
    for agent in named:
        assert (agent["ready"], agent["url"]) == (True, f"agent-panel/agents/{agent['name']}/"), agent


class TestHitl:
    CHAT = {"message": "write notes and clean up"}

    async def ask(self, run_turn, thread_id: str) -> list:
        return await run_turn("agents/hitl/chat", {**self.CHAT, "thread_id": thread_id})

    async def test_two_calls_wait_for_decisions(self, run_turn):
        frames = await self.ask(run_turn, "t")

        assert [f["tool_calls"] for f in frames if "tool_calls" in f] == [
            [{"name": "write_file", "args": {"path": "notes.md", "content": "Draft notes"}, "id": "call_write_file"}],
            [{"name": "execute", "args": {"command": "rm -rf build"}, "id": "call_execute"}],
        ]
        interrupt = frames[-2]["interrupt"]
        assert [(a["name"], a["args"]) for a in interrupt["action_requests"]] == [
            ("write_file", {"path": "notes.md", "content": "Draft notes"}),
            ("execute", {"command": "rm -rf build"}),
        ]
        assert interrupt["review_configs"] == [
            {"action_name": "write_file", "allowed_decisions": ["approve", "edit", "reject", "respond"]},
            {"action_name": "execute", "allowed_decisions": ["approve", "reject"]},
        ]
        assert frames[-1] == INTERRUPTED

    @pytest.mark.parametrize(
        ("decisions", "report"),
        [
            (
                [{"type": "approve"}, {"type": "approve"}],
                "- write_file: wrote 11 chars to notes.md\n- execute: ran: rm -rf build",
            ),
            (
                [
                    {
                        "type": "edit",
                        "edited_action": {"name": "write_file", "args": {"path": "edited.md", "content": "hello"}},
                    },
                    {"type": "reject", "message": "not now"},
                ],
                "- write_file: wrote 5 chars to edited.md\n"
                "- execute: User rejected the tool call for `execute` with reason: not now",
            ),
            (
                [{"type": "respond", "message": "the file is already there"}, {"type": "approve"}],
                "- write_file: the file is already there\n- execute: ran: rm -rf build",
            ),
        ],
    )
    async def test_the_answer_reports_the_decisions_received(self, run_turn, decisions, report):
        await self.ask(run_turn, "t")

        frames = await run_turn("agents/hitl/resume", {"thread_id": "t", "decisions": decisions})

        assert text_of(frames) == "Tool results:\n" + report
        assert assert_one_terminal_last(frames) == COMPLETE


async def test_failing_streams_text_then_fails(run_turn):
    frames = await run_turn("agents/failing/chat", {"message": "hi", "thread_id": "t"})

    assert [f["chunk"] for f in frames if "chunk" in f] == ["Partial ", "answer ", "before ", "the ", "failure"]
    assert assert_one_terminal_last(frames) == {
        "status": "error",
        "error": "RuntimeError: the test graph failed on purpose",
    }


async def test_slow_ticks_every_half_second_and_stops_on_cancel(open_stream, post_json):
    began = time.monotonic()
    stream = open_stream("agents/slow/chat", {"message": "go", "thread_id": "t"})
    ticks = [(await stream.next_frame())["chunk"] for _ in range(2)]
    ticked = time.monotonic() - began

    cancelled = time.monotonic()
    await post_json("agents/slow/cancel", {"thread_id": "t"})
    rest = await stream.rest()

    assert ticks == ["tick1 ", "tick2 "]
    assert ticked >= 1.0  # each word waits half a second
    assert rest == [CANCELLED_FRAME]
    assert time.monotonic() - cancelled < 5


async def test_slow_gives_a_short_turn_when_asked_for_n_ticks(run_turn):
    # The queue's UI test sends "ticks=N" messages so that queued turns end soon.
    frames = await run_turn("agents/slow/chat", {"message": "second ticks=2", "thread_id": "t-short"})

    assert text_of(frames) == "tick1 tick2"
    assert assert_one_terminal_last(frames) == COMPLETE


async def test_echo_returns_the_message_and_context_verbatim(run_turn):
    context = {"current_directory": "notes", "focused_widget": "notes/a.ipynb", "selected_text": "x = 1"}

    frames = await run_turn("agents/echo/chat", {"message": "hello", "thread_id": "t", **context})

    assert text_of(frames) == message_with_context("hello", context)
    assert text_of(frames).startswith("hello\n\nCurrent directory: notes\n")
    assert assert_one_terminal_last(frames) == COMPLETE


async def test_todos_sends_two_todo_extractions(run_turn):
    frames = await run_turn("agents/todos/chat", {"message": "plan it", "thread_id": "t"})

    assert [f["extraction"] for f in frames if "extraction" in f] == [
        {
            "tool_name": "write_todos",
            "extracted_type": "todos",
            "data": [
                {"content": "Read the notebook", "status": "in_progress"},
                {"content": "Fix the failing cell", "status": "pending"},
                {"content": "Write a summary", "status": "pending"},
            ],
        },
        {
            "tool_name": "write_todos",
            "extracted_type": "todos",
            "data": [
                {"content": "Read the notebook", "status": "completed"},
                {"content": "Fix the failing cell", "status": "in_progress"},
                {"content": "Write a summary", "status": "pending"},
            ],
        },
    ]
    results = [f for f in frames if "tool_result" in f]
    assert [(f["id"], f["tool_status"]) for f in results] == [
        ("call_write_todos_1", "success"),
        ("call_write_todos_2", "success"),
    ]
    assert text_of(frames) == "Read the notebook; fixing the failing cell next."
    assert assert_one_terminal_last(frames) == COMPLETE


async def test_markdown_streams_every_rendered_feature(run_turn):
    frames = await run_turn("agents/markdown/chat", {"message": "show me", "thread_id": "t"})

    text = text_of(frames)
    assert len([f for f in frames if "chunk" in f]) > 10  # streamed, not one block
    assert text.startswith("## Rendering check\n")
    for part in (
        "\n- a **bold** item\n",
        "\n| Name | Value |\n| ---- | ----- |\n| alpha | 1 |\n",
        '\n```python\nprint("hello from the agent")\n```\n',
        " $e^{i\\pi}+1=0$.",
        "[the example site](https://example.org)",
    ):
        assert part in text
    assert assert_one_terminal_last(frames) == COMPLETE


async def test_remembering_lists_what_was_typed_and_asks_for_a_review(run_turn):
    context = {"current_directory": "work", "focused_widget": "a.ipynb"}
    first = await run_turn("agents/remembering/chat", {"message": "my name is Ada", "thread_id": "t", **context})
    asked = await run_turn("agents/remembering/chat", {"message": "review the notes", "thread_id": "t"})
    resumed = await run_turn("agents/remembering/resume", {"thread_id": "t", "decisions": [{"type": "approve"}]})

    assert text_of(first) == "I remember: my name is Ada"
    review = asked[-2]["interrupt"]
    assert review["review_configs"] == [{"action_name": "publish", "allowed_decisions": ["approve", "reject"]}]
    assert asked[-1] == INTERRUPTED
    assert text_of(resumed) == "Decision: approve. I remember: my name is Ada | review the notes"
    assert assert_one_terminal_last(resumed) == COMPLETE
