"""Each review decision reaches the graph once: a resume with no pending interrupt is refused.

Without the check, a second resume of the same review (a double click, a second
tab, a retry after a reload) runs the graph again: on a finished thread an empty
turn, on an unknown thread a whole new run with an empty message. The server
answers it with 409 ``nothing_pending``, the kernel helper with ``rejected`` /
``nothing_pending``; neither runs anything.
"""
from __future__ import annotations

import asyncio
import json
import uuid

import pytest

from helpers import assert_one_terminal_last, parse_sse, text_of
from jupyterlab_agent_panel.graph import NOTHING_PENDING, has_pending_interrupt, load_agent
from kernel_comm_client import PanelComm, frames_of

APPROVE = [{"type": "approve"}]
RESUMED = "Resumed. Your decision was: {'decisions': [{'type': 'approve'}]}."


def new_thread() -> str:
    return f"thread-{uuid.uuid4().hex[:8]}"


def refusal_of(response) -> dict:
    assert response.code == 409, response.body
    assert response.headers["Content-Type"].startswith("application/json")
    return json.loads(response.body)


async def test_pending_interrupt_is_read_from_the_checkpointer():
    from langstage_core.agui import iter_chunk_frames

    agent = load_agent().agent
    thread_id = new_thread()
    assert await has_pending_interrupt(agent, thread_id) is False
    async for _ in iter_chunk_frames(agent, "ask me a question", thread_id):
        pass
    assert await has_pending_interrupt(agent, thread_id) is True
    async for _ in iter_chunk_frames(agent, "", thread_id, resume={"decisions": APPROVE}):
        pass
    assert await has_pending_interrupt(agent, thread_id) is False


async def test_an_agent_without_readable_state_is_not_blocked():
    class NoGraph:
        pass

    class BrokenGraph:
        async def aget_state(self, config):
            raise RuntimeError("no checkpointer")

    broken = NoGraph()
    broken.graph = BrokenGraph()
    assert await has_pending_interrupt(NoGraph(), "t") is True
    assert await has_pending_interrupt(broken, "t") is True


async def test_a_second_resume_of_one_review_is_refused_over_http(run_turn, post_json):
    thread_id = new_thread()
    await run_turn("chat", {"message": "ask me a question", "thread_id": thread_id})

    first = await run_turn("resume", {"thread_id": thread_id, "decisions": APPROVE})
    assert text_of(first) == RESUMED
    assert assert_one_terminal_last(first) == {"status": "complete", "outcome": "complete"}

    again = refusal_of(await post_json("resume", {"thread_id": thread_id, "decisions": APPROVE}))
    assert again == {"message": NOTHING_PENDING, "reason": "nothing_pending"}

    # The thread is not stuck: it chats on, and pauses again when asked to.
    more = await run_turn("chat", {"message": "hello", "thread_id": thread_id})
    assert "hello" in text_of(more)


@pytest.mark.parametrize("first_message", [None, "hello"])
async def test_resume_without_an_interrupt_runs_nothing(post_json, run_turn, first_message):
    thread_id = new_thread()
    if first_message:
        await run_turn("chat", {"message": first_message, "thread_id": thread_id})
    refused = refusal_of(await post_json("resume", {"thread_id": thread_id, "decisions": APPROVE}))
    assert refused["reason"] == "nothing_pending"
    if first_message:  # the refused resume added nothing to the conversation
        answer = await run_turn("chat", {"message": "hello again", "thread_id": thread_id})
        assert text_of(answer).endswith("You said: hello again")


async def test_two_concurrent_resumes_run_the_graph_once(run_turn, post_json):
    thread_id = new_thread()
    await run_turn("chat", {"message": "ask me a question", "thread_id": thread_id})

    body = {"thread_id": thread_id, "decisions": APPROVE}
    responses = await asyncio.gather(post_json("resume", body), post_json("resume", body))

    streamed = [r for r in responses if r.code == 200]
    refused = [r for r in responses if r.code != 200]
    assert len(streamed) == 1 and len(refused) == 1
    assert text_of(parse_sse(streamed[0].body.decode())) == RESUMED
    # Depending on timing the loser finds the turn running or the review gone.
    assert refusal_of(refused[0])["reason"] in ("busy", "nothing_pending")


# -- the kernel comm helper --------------------------------------------------------


def resume_outcome(panel: PanelComm, thread_id: str) -> tuple[str, list]:
    """Resume ``thread_id`` with approve; ``(turn_id, messages of that turn)``."""
    turn_id = panel.resume(APPROVE, thread_id)
    panel.wait(lambda d: d.get("turn_id") == turn_id and d.get("type") in ("turn_end", "rejected"))
    return turn_id, panel.turn(turn_id)


def test_a_second_resume_over_the_comm_is_rejected(panel):
    thread_id = new_thread()
    frames, end = panel.run_turn("ask me a question", thread_id)
    assert end["outcome"] == "interrupted"

    first, _ = resume_outcome(panel, thread_id)
    assert "".join(f.get("chunk", "") for f in frames_of(panel.turn(first))) == RESUMED

    turn_id, again = resume_outcome(panel, thread_id)
    assert again == [
        {"type": "rejected", "turn_id": turn_id, "reason": "nothing_pending", "detail": NOTHING_PENDING}
    ]
    # The thread is free again: a new message runs.
    _, end = panel.run_turn("hello", thread_id)
    assert end["outcome"] == "complete"


def test_resume_of_an_unknown_thread_over_the_comm_is_rejected(panel):
    turn_id, messages = resume_outcome(panel, new_thread())
    assert [m["type"] for m in messages] == ["rejected"]
    assert messages[0]["reason"] == "nothing_pending"
