"""Forking a thread at an earlier turn (docs/protocol.md §5.10), with real LangGraph graphs.

Each turn begun by a message reports the checkpoint it starts from on its first
frame; a chat naming one runs on what the agent knew then (the remembering
graph answers with every human message it remembers), and the branch left
behind can be forked again. Over HTTP with the server's SQLite memory, and over
the kernel comm with the kernel's in-memory one.
"""
from __future__ import annotations

import json
import uuid

import pytest

from helpers import assert_one_terminal_last, graph_spec, text_of
from jupyterlab_agent_panel.graph import NOTHING_PENDING
from jupyterlab_agent_panel.memory.checkpoints import RESUME_AT_START, fork_problem


def new_thread() -> str:
    return f"thread-{uuid.uuid4().hex[:8]}"


@pytest.fixture
def agent_panel_config(tmp_path):
    return {
        "agents": {"remembering": graph_spec("remembering")},
        "checkpointer_url": f"sqlite:///{tmp_path / 'memory'}",
    }


@pytest.fixture
def say(run_turn):
    """Send ``message`` to the remembering agent: ``(checkpoint it started from, answer)``."""

    async def send(message: str, thread_id: str, **fields) -> tuple:
        body = {"message": message, "thread_id": thread_id, **fields}
        frames = await run_turn("agents/remembering/chat", body)
        assert assert_one_terminal_last(frames) == {"status": "complete", "outcome": "complete"}
        return frames[0]["checkpoint_id"], text_of(frames)

    return send


async def test_a_turn_reports_where_it_starts_and_a_fork_there_forgets_the_later_turns(say):
    thread = new_thread()
    first, _ = await say("one", thread)
    second, _ = await say("two", thread)
    third, _ = await say("three", thread)

    forked, answer = await say("TWO", thread, checkpoint_id=second)
    _, after = await say("and on", thread)
    _, old_branch = await say("THREE", thread, checkpoint_id=third)

    assert first is None  # a thread's first turn starts from nothing
    assert isinstance(second, str) and isinstance(third, str) and second != third
    assert answer == "I remember: one | TWO"
    assert isinstance(forked, str) and forked not in (second, third)
    assert after == "I remember: one | TWO | and on"
    # The branch left behind is kept: forking at its checkpoint finds it whole.
    assert old_branch == "I remember: one | two | THREE"


async def test_a_fork_at_an_unknown_checkpoint_is_refused_and_changes_nothing(say, post_json):
    thread = new_thread()
    await say("one", thread)
    body = {"message": "x", "thread_id": thread, "checkpoint_id": "no-such-checkpoint"}

    unknown = await post_json("agents/remembering/chat", body)
    wrong_type = await post_json("agents/remembering/chat", {**body, "checkpoint_id": 7})
    empty = await post_json("agents/remembering/chat", {**body, "checkpoint_id": " "})
    _, answer = await say("two", thread)

    assert unknown.code == 409
    assert json.loads(unknown.body) == {
        "message": f"Thread {thread!r} has no checkpoint 'no-such-checkpoint'",
        "reason": "unknown_checkpoint",
    }
    for refused in (wrong_type, empty):
        assert refused.code == 400
        assert json.loads(refused.body)["message"].startswith("checkpoint_id must be null or a non-empty string")
    assert answer == "I remember: one | two"


class TestTheDefaultAgent:
    @pytest.fixture
    def agent_panel_config(self, tmp_path):
        return {"checkpointer_url": f"sqlite:///{tmp_path / 'memory'}"}

    async def test_a_fork_before_a_pending_review_leaves_the_review_on_its_branch(self, run_turn, post_json):
        thread = new_thread()
        await run_turn("chat", {"message": "hello", "thread_id": thread})
        asked = await run_turn("chat", {"message": "ask me a question", "thread_id": thread})
        before_question = asked[0]["checkpoint_id"]
        assert asked[-1] == {"status": "complete", "outcome": "interrupted"}

        forked = await run_turn("chat", {"message": "hello", "thread_id": thread, "checkpoint_id": before_question})
        resume = await post_json("resume", {"thread_id": thread, "decisions": [{"type": "approve"}]})

        assert assert_one_terminal_last(forked) == {"status": "complete", "outcome": "complete"}
        # The new branch waits for nothing: the review stays with the branch it paused.
        assert resume.code == 409
        assert json.loads(resume.body) == {"message": NOTHING_PENDING, "reason": "nothing_pending"}

    async def test_a_resume_at_the_checkpoint_a_branch_paused_at_answers_its_review(self, run_turn, post_json):
        thread = new_thread()
        asked = await run_turn("chat", {"message": "ask me a question", "thread_id": thread}, end_checkpoint=True)
        paused = asked[-1]["end_checkpoint_id"]
        forked = await run_turn(
            "chat", {"message": "hello", "thread_id": thread, "checkpoint_id": None}, end_checkpoint=True
        )
        at_start = await post_json("resume", {"thread_id": thread, "decisions": [], "checkpoint_id": None})

        answered = await run_turn(
            "resume",
            {"thread_id": thread, "decisions": [{"type": "respond", "message": "Ada"}], "checkpoint_id": paused},
            end_checkpoint=True,
        )

        assert asked[-1]["outcome"] == "interrupted" and isinstance(paused, str)
        # It starts from a copy of the thread's first checkpoint, which held nothing.
        assert isinstance(forked[0]["checkpoint_id"], str) and "Ada" not in text_of(forked)
        assert forked[-1]["end_checkpoint_id"] not in (None, paused)
        assert at_start.code == 400
        assert json.loads(at_start.body)["message"] == RESUME_AT_START
        assert "Ada" in text_of(answered)
        assert assert_one_terminal_last(answered) == {"status": "complete", "outcome": "complete"}
        assert isinstance(answered[-1]["end_checkpoint_id"], str)


async def test_a_fork_to_null_goes_back_to_before_the_first_turn(say, run_turn):
    thread = new_thread()
    await say("one", thread)
    await say("two", thread)

    _, forgotten = await say("ONE", thread, checkpoint_id=None)
    _, after = await say("and on", thread)
    _, fresh = await say("first", new_thread(), checkpoint_id=None)

    assert forgotten == "I remember: ONE"
    assert after == "I remember: ONE | and on"
    assert fresh == "I remember: first"  # a thread with no checkpoints yet is already at its start


async def test_an_agent_without_checkpoints_cannot_fork():
    problem = await fork_problem(object(), "t", "c")

    assert problem == (
        "cannot_fork",
        "This agent keeps no checkpoints: its conversations cannot go back to an earlier turn",
    )
