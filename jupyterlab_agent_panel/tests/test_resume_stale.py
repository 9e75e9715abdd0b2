"""A resume names the review it answers, and only the pending one is answered (docs/protocol.md §5.9).

Interrupt frames carry their interrupt's id, read from the checkpoint; a resume
that names ids (the panel's always does) runs only when they are exactly the
interrupts waiting. A replayed resume of an earlier review, a stale tab's
answer to a review another answer replaced, or ids never asked are refused with
409 ``stale_review`` (a comm ``rejected``), nothing runs and the pending review
still resumes once. Real graphs over the real routes and the kernel comm; the
built-in agent's reviewed file writes and MCP tools against the scripted model
server.
"""
from __future__ import annotations

import json
import uuid

import pytest

from builtin_helpers import COMPLETE, INTERRUPTED, MODEL, interrupts, mcp_server
from helpers import assert_one_terminal_last, graph_spec, text_of
from jupyterlab_agent_panel.graph import NOTHING_PENDING
from kernel_comm_client import frames_of

APPROVE = [{"type": "approve"}]
RESUMED = "Resumed. Your decision was: {'decisions': [{'type': 'approve'}]}."
ASK = "ask me a question"


def new_thread() -> str:
    return f"thread-{uuid.uuid4().hex[:8]}"


def ids_of(frames: list) -> list:
    return [i for f in frames if f["status"] == "interrupt" for i in f["interrupt_ids"]]


def stale(answered: str, waiting: str, rows: str) -> dict:
    message = (
        f"This answers a review that is no longer pending (interrupt {answered}): the agent now waits "
        f"on {waiting} ({rows}). Nothing was resumed; the pending review can still be answered."
    )
    return {"message": message, "reason": "stale_review"}


def refusal_of(response, status: int = 409) -> dict:
    assert response.code == status, response.body
    return json.loads(response.body)


async def test_an_interrupt_frame_carries_the_id_of_the_interrupt_it_shows(run_turn, pending_ids):
    thread_id = new_thread()
    asked = await run_turn("chat", {"message": ASK, "thread_id": thread_id})

    [pending] = await pending_ids(thread_id)
    assert [f.get("interrupt_ids") for f in asked] == [[pending], None]


async def test_a_replayed_resume_of_an_earlier_review_is_refused(run_turn, post_json):
    thread_id = new_thread()
    [first] = ids_of(await run_turn("chat", {"message": ASK, "thread_id": thread_id}))
    replayed = {"thread_id": thread_id, "decisions": APPROVE, "interrupt_ids": [first]}
    assert text_of(await run_turn("resume", replayed)) == RESUMED
    [second] = ids_of(await run_turn("chat", {"message": ASK, "thread_id": thread_id}))
    assert second != first

    # The same answer again: the count and the verb fit the new review, the ids do not.
    assert refusal_of(await post_json("resume", replayed)) == stale(first, second, "action 1 (ask_user)")

    # Nothing ran: the new review resumes, once.
    answer = {"thread_id": thread_id, "decisions": APPROVE, "interrupt_ids": [second]}
    resumed = await run_turn("resume", answer)
    assert text_of(resumed) == RESUMED
    assert assert_one_terminal_last(resumed) == COMPLETE
    again = refusal_of(await post_json("resume", answer))
    assert again == {"message": NOTHING_PENDING, "reason": "nothing_pending"}


@pytest.mark.parametrize("named", [["forged"], [], "both"])
async def test_a_resume_naming_calls_that_are_not_pending_is_refused(run_turn, post_json, named):
    thread_id = new_thread()
    [pending] = ids_of(await run_turn("chat", {"message": ASK, "thread_id": thread_id}))
    named = [pending, "forged"] if named == "both" else named

    refused = await post_json("resume", {"thread_id": thread_id, "decisions": APPROVE, "interrupt_ids": named})
    assert refusal_of(refused) == stale(", ".join(named) or "none", pending, "action 1 (ask_user)")

    answer = {"thread_id": thread_id, "decisions": APPROVE, "interrupt_ids": [pending]}
    assert text_of(await run_turn("resume", answer)) == RESUMED


@pytest.mark.parametrize(
    ("named", "problem"),
    [
        ("abc", "interrupt_ids must be a list of non-empty strings"),
        ([7], "interrupt_ids must be a list of non-empty strings"),
        ([""], "interrupt_ids must be a list of non-empty strings"),
        (["x" * 300], "interrupt_ids[0] is 300 characters long; at most 256 are allowed"),
    ],
)
async def test_interrupt_ids_that_are_not_ids_are_a_bad_request(run_turn, post_json, named, problem):
    thread_id = new_thread()
    await run_turn("chat", {"message": ASK, "thread_id": thread_id})

    refused = await post_json("resume", {"thread_id": thread_id, "decisions": APPROVE, "interrupt_ids": named})
    assert refusal_of(refused, 400) == {"message": problem, "reason": "bad_request"}
    assert text_of(await run_turn("resume", {"thread_id": thread_id, "decisions": APPROVE})) == RESUMED


# -- the kernel comm ---------------------------------------------------------------


def resume_messages(panel, thread_id: str, ids: list) -> tuple:
    turn_id = panel.resume(APPROVE, thread_id, interrupt_ids=ids)
    panel.wait(lambda d: d.get("turn_id") == turn_id and d.get("type") in ("turn_end", "rejected"))
    return turn_id, panel.turn(turn_id)


def test_over_the_comm_a_replayed_resume_is_rejected_and_the_pending_review_resumes(panel):
    thread_id = new_thread()
    frames, _ = panel.run_turn(ASK, thread_id)
    [first] = ids_of(frames)
    _, messages = resume_messages(panel, thread_id, [first])
    assert "".join(f.get("chunk", "") for f in frames_of(messages)) == RESUMED
    frames, _ = panel.run_turn(ASK, thread_id)
    [second] = ids_of(frames)

    turn_id, messages = resume_messages(panel, thread_id, [first])
    refused = stale(first, second, "action 1 (ask_user)")
    assert messages == [
        {"type": "rejected", "turn_id": turn_id, "reason": "stale_review", "detail": refused["message"]}
    ]

    _, messages = resume_messages(panel, thread_id, [second])
    assert "".join(f.get("chunk", "") for f in frames_of(messages)) == RESUMED
    assert messages[-1]["outcome"] == "complete"


def test_over_the_comm_malformed_interrupt_ids_are_rejected(panel):
    thread_id = new_thread()
    panel.run_turn(ASK, thread_id)

    turn_id, messages = resume_messages(panel, thread_id, "abc")
    assert messages == [
        {
            "type": "rejected",
            "turn_id": turn_id,
            "reason": "bad_request",
            "detail": "interrupt_ids must be a list of non-empty strings",
        }
    ]


# -- the built-in agent's reviewed file writes --------------------------------------


class TestBuiltinFileWrites:
    @pytest.fixture
    def agent_panel_config(self, model_env):
        return {"model": MODEL}

    async def test_a_resume_not_answering_the_pending_write_is_refused(self, run_turn, post_json, jp_root_dir):
        thread_id = new_thread()
        paused = await run_turn("chat", {"message": "write the file a.txt with first", "thread_id": thread_id})
        [first] = ids_of(paused)
        resume = {"thread_id": thread_id, "decisions": APPROVE, "interrupt_ids": [first]}
        assert assert_one_terminal_last(await run_turn("resume", resume)) == COMPLETE
        assert (jp_root_dir / "a.txt").read_text() == "first\n"

        paused = await run_turn("chat", {"message": "write the file b.txt with second", "thread_id": thread_id})
        assert assert_one_terminal_last(paused) == INTERRUPTED
        [review], [second] = interrupts(paused), ids_of(paused)
        assert review["action_requests"][0]["args"]["file_path"] == "/b.txt"

        # An approval of the first write, replayed, and one naming a call never asked.
        for named in ([first], ["call-forged"]):
            body = {**resume, "interrupt_ids": named}
            assert refusal_of(await post_json("resume", body)) == stale(named[0], second, "action 1 (write_file)")
            assert not (jp_root_dir / "b.txt").exists()

        resumed = await run_turn("resume", {**resume, "interrupt_ids": [second]})
        assert assert_one_terminal_last(resumed) == COMPLETE
        assert (jp_root_dir / "b.txt").read_text() == "second\n"


class TestReviewedMcpServer:
    @pytest.fixture
    def agent_panel_config(self, model_env):
        return {"model": MODEL, "mcp_servers": {"tests": mcp_server(review=True)}}

    async def test_a_resume_not_answering_the_pending_call_is_refused(self, run_turn, post_json, model_env):
        thread_id = new_thread()
        [pending] = ids_of(await run_turn("chat", {"message": "use the tool shout with hi", "thread_id": thread_id}))
        asked = len(model_env.requests)

        body = {"thread_id": thread_id, "decisions": APPROVE, "interrupt_ids": ["call-forged"]}
        assert refusal_of(await post_json("resume", body)) == stale("call-forged", pending, "action 1 (shout)")
        assert len(model_env.requests) == asked  # nothing ran: the model was not asked again

        resumed = await run_turn("resume", {**body, "interrupt_ids": [pending]})
        assert text_of(resumed) == "The tool said: HI!"


class TestTwoInterrupts:
    @pytest.fixture
    def agent_panel_config(self):
        return {"agents": {"two": graph_spec("two_questions")}}

    async def test_each_interrupt_frame_carries_its_own_interrupts_id(self, run_turn, post_json, pending_of):
        thread_id = new_thread()
        asked = await run_turn("agents/two/chat", {"message": "hi", "thread_id": thread_id})

        pending = {i.id: i.value for i in await pending_of(thread_id, "two")}
        shown = {f["interrupt_ids"][0]: f["interrupt"]["action_requests"] for f in asked if f["status"] == "interrupt"}
        assert shown == {id_: [question] for id_, question in pending.items()} and len(shown) == 2
        # Answering one of the two is not answering what waits.
        first = next(iter(pending))
        body = {"thread_id": thread_id, "decisions": APPROVE, "interrupt_ids": [first]}
        assert refusal_of(await post_json("agents/two/resume", body))["reason"] == "stale_review"
