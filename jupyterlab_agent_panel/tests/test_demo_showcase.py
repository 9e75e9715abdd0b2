"""The built-in agent's keyless demo (``jupyterlab_agent_panel.demo.showcase``, docs/protocol.md §16):
the prompts its health offers, and a turn for each: a long answer Stop can end, what was attached
quoted back, a question answered in words, a plan kept with ``write_todos``. langstage-core's triggers
keep their answers (test_handlers.py and the other tests of the default agent)."""
from __future__ import annotations

import json
import time

import pytest
from langchain_core.messages import HumanMessage

from builtin_helpers import MODEL, json_body, new_thread
from helpers import assert_one_terminal_last, text_of
from jupyterlab_agent_panel.demo.showcase import (
    LONG_TEXT,
    NOTHING_ATTACHED,
    PLAN_DONE,
    PROMPTS,
    QUESTION,
    route,
)
from jupyterlab_agent_panel.graph import SHOWCASE_SPEC, load_agent

CANCELLED_FRAME = {"status": "cancelled", "message": "Execution cancelled by user"}
NAME_ERROR = "NameError: name 'prnt' is not defined"
QUIZ_REVIEW = {
    "action_requests": [{"name": "quiz", "description": QUESTION}],
    "review_configs": [{"action_name": "quiz", "allowed_decisions": ["respond"]}],
    "allowed_decisions": ["respond"],
}


def test_each_prompt_asks_for_one_of_the_demo_turns():
    routes = [route({"messages": [HumanMessage(content=prompt)]}) for prompt in PROMPTS]

    # "Think about it" is langstage-core's own trigger; the others are this demo's.
    assert routes == ["showcase", "showcase", "showcase", "showcase", "agent"]
    assert all(len(prompt) <= 40 for prompt in PROMPTS)


def test_a_message_with_a_tool_demo_trigger_goes_to_the_tool_demo():
    for message in ("quiz me, then use a tool", "make a plan and think", "what did I attach? ask me"):
        assert route({"messages": [HumanMessage(content=message)]}) == "agent"


def test_served_elsewhere_it_brings_its_own_extractors():
    loaded = load_agent(SHOWCASE_SPEC)

    assert [e.extracted_type for e in loaded.extractors] == ["demo_fact", "todos"]
    assert loaded.name == "Tool Demo Agent"


async def test_health_offers_the_prompts_while_the_demo_answers(jp_fetch):
    health = json_body(await jp_fetch("agent-panel", "health"))

    assert health["prompts"] == list(PROMPTS)
    assert health["spec"] == SHOWCASE_SPEC


class TestWithAModel:
    @pytest.fixture
    def agent_panel_config(self, model_env):
        return {"model": MODEL}

    async def test_the_notebook_agent_offers_no_prompts(self, jp_fetch):
        health = json_body(await jp_fetch("agent-panel", "health"))

        assert health["model"] == MODEL
        assert "prompts" not in health


async def test_the_long_answer_streams_a_word_at_a_time_for_seconds(run_turn):
    began = time.monotonic()
    frames = await run_turn("chat", {"message": "Write a long answer", "thread_id": new_thread()})

    chunks = [f for f in frames if "chunk" in f]
    assert len(chunks) > 200
    assert {f["node"] for f in chunks} == {"showcase"}
    assert text_of(frames) == LONG_TEXT
    assert time.monotonic() - began > 4
    assert assert_one_terminal_last(frames) == {"status": "complete", "outcome": "complete"}


async def test_stop_ends_the_long_answer_as_cancelled(open_stream, post_json):
    thread_id = new_thread()
    stream = open_stream("chat", {"message": "Write a long answer", "thread_id": thread_id})
    arrived = [await stream.next_frame() for _ in range(5)]

    reply = await post_json("cancel", {"thread_id": thread_id})
    rest = await stream.rest(timeout=10)

    assert json.loads(reply.body) == {"status": "success", "message": "Cancellation requested"}
    assert rest[-1] == CANCELLED_FRAME
    shown = text_of(arrived + rest[:-1])
    assert LONG_TEXT.startswith(shown) and len(shown) < len(LONG_TEXT) / 2


async def test_what_was_attached_is_quoted_back(run_turn):
    frames = await run_turn(
        "chat",
        {
            "message": "What did I attach?",
            "thread_id": new_thread(),
            "current_directory": "work",
            "focused_widget": "work/analysis.ipynb",
            "selected_text": 'alpha = "selected words"',
            "selection_metadata": "cell_1",
            "attachments": [
                {"kind": "error", "source": "cell 3 of analysis.ipynb", "text": NAME_ERROR},
                {"kind": "file", "source": "data/notes.txt", "text": "first line\nsecond line"},
            ],
        },
    )

    assert text_of(frames) == (
        "You attached 3 things to this message:\n\n"
        '**The selection from cell index 1:**\n\n```\nalpha = "selected words"\n```\n\n'
        f"**The error output of cell 3 of analysis.ipynb:**\n\n```\n{NAME_ERROR}\n```\n\n"
        "**The file data/notes.txt:**\n\n```\nfirst line\nsecond line\n```\n\n"
        "The panel also said where you were: the current directory `work` "
        "and the focused document `work/analysis.ipynb`."
    )
    assert assert_one_terminal_last(frames) == {"status": "complete", "outcome": "complete"}


async def test_with_nothing_attached_it_says_how_to_attach(run_turn):
    frames = await run_turn("chat", {"message": "what did I attach?", "thread_id": new_thread()})

    assert text_of(frames) == NOTHING_ATTACHED


async def test_the_quiz_asks_a_question_that_takes_only_an_answer(run_turn, post_json, pending_ids):
    thread_id = new_thread()
    asked = await run_turn("chat", {"message": "Quiz me", "thread_id": thread_id})

    assert asked == [
        {
            "status": "interrupt",
            "interrupt": QUIZ_REVIEW,
            "interrupt_ids": await pending_ids(thread_id),
            "checkpoint_id": None,
        },
        {"status": "complete", "outcome": "interrupted"},
    ]
    # Only an answer answers it (docs/protocol.md §5.8): an approval is refused, and it still waits.
    approved = await post_json("resume", {"thread_id": thread_id, "decisions": [{"type": "approve"}]})
    assert approved.code == 400
    answered = await run_turn("resume", {"thread_id": thread_id, "decisions": [{"type": "respond", "message": "42"}]})
    assert text_of(answered) == "Right: 6 × 7 = 42. Your answer reached me through the question's answer box."
    assert assert_one_terminal_last(answered) == {"status": "complete", "outcome": "complete"}


async def test_a_wrong_answer_is_corrected(run_turn):
    thread_id = new_thread()
    await run_turn("chat", {"message": "quiz me", "thread_id": thread_id})

    answered = await run_turn("resume", {"thread_id": thread_id, "decisions": [{"type": "respond", "message": "41"}]})

    assert text_of(answered) == "Not quite: you answered “41”, and 6 × 7 = 42."


async def test_the_plan_is_kept_with_write_todos_and_checked_off(run_turn):
    frames = await run_turn("chat", {"message": "Make a plan", "thread_id": new_thread()})

    plans = [f["extraction"] for f in frames if "extraction" in f]
    assert {(p["tool_name"], p["extracted_type"]) for p in plans} == {("write_todos", "todos")}
    assert [[step["status"] for step in p["data"]] for p in plans] == [
        ["in_progress", "pending", "pending"],
        ["completed", "in_progress", "pending"],
        ["completed", "completed", "in_progress"],
        ["completed", "completed", "completed"],
    ]
    assert [step["content"] for step in plans[0]["data"]] == [
        "Load the data",
        "Plot the distributions",
        "Write up the findings",
    ]
    assert text_of(frames).endswith(PLAN_DONE)
    assert assert_one_terminal_last(frames) == {"status": "complete", "outcome": "complete"}
