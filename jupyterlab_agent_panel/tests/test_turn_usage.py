"""A turn's token usage on any served graph (docs/protocol.md §16.4), over HTTP and the kernel comm.

The UI tests' history-count graph (``ui-tests/graphs/history_count.py``) has
a model that reports LangChain usage metadata: one token per message read, one
per word written; a message that mentions a tool calls one first. A turn's ``usage`` frame sums its model
calls and comes just before its terminal frame; a graph whose model reports
none (the keyless demo) sends no ``usage`` frame.
"""
from __future__ import annotations

import json

import pytest

from agui_helpers import GRAPHS as UI_GRAPHS
from builtin_helpers import new_thread, usage_frames
from helpers import assert_one_terminal_last
from kernel_comm_client import PanelComm

COUNTED = f"{UI_GRAPHS / 'history_count.py'}:graph"


@pytest.fixture
def agent_panel_config():
    return {"agents": {"counted": COUNTED}}


async def test_a_turn_reports_the_sum_of_its_model_calls_before_its_end(run_turn):
    thread_id = new_thread()
    first = await run_turn("agents/counted/chat", {"message": "hello", "thread_id": thread_id})
    second = await run_turn("agents/counted/chat", {"message": "use the tool", "thread_id": thread_id})

    # Read 1 message, wrote 10 words ("Checkpoint: 1 messages, 1 distinct ids, 1 from the user.").
    assert first[-2:] == [{"status": "usage", "input_tokens": 1, "output_tokens": 10}, assert_one_terminal_last(first)]
    # Two calls: read 3 messages and wrote nothing (the tool call), then read 5 and wrote 10 words.
    assert usage_frames(second) == [{"status": "usage", "input_tokens": 8, "output_tokens": 10}]
    assert second[-2]["status"] == "usage"


async def test_a_graph_whose_model_reports_nothing_sends_no_usage(run_turn):
    frames = await run_turn("chat", {"message": "use a tool", "thread_id": new_thread()})

    assert usage_frames(frames) == []


def test_the_kernel_comm_reports_usage_too(kernel):
    assert kernel.execute(f"import jupyterlab_agent_panel\njupyterlab_agent_panel.serve({json.dumps(COUNTED)})").ok
    panel = PanelComm(kernel)
    panel.open()
    panel.wait(lambda d: d.get("type") == "hello")

    frames, end = panel.run_turn("hello", new_thread())

    assert frames[-2:] == [{"status": "usage", "input_tokens": 1, "output_tokens": 10}, frames[-1]]
    assert frames[-1]["status"] == "complete" and end["outcome"] == "complete"
