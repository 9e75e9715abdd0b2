"""A deployment's turns start and end at checkpoints, and fork there (docs/protocol.md §5.10, §15.6),
against a real ``langgraph dev``: the remembering graph answers with every message it remembers, so
a reply shows which turns the agent still knows after a fork.
"""
from __future__ import annotations

import json
import uuid

import pytest
from langgraph_sdk.errors import NotFoundError

from agent_server import SERVED, AgentServer
from deployment_helpers import lose_the_client, runs_on
from helpers import assert_one_terminal_last, text_of

APPROVE = [{"type": "approve"}]
COMPLETE = {"status": "complete", "outcome": "complete"}
INTERRUPTED = {"status": "complete", "outcome": "interrupted"}


@pytest.fixture(scope="module")
def agent_server():
    graphs = {name: SERVED[name] for name in ("remembering", "hitl", "ticking")}
    with AgentServer(graphs=graphs) as url:
        yield url


@pytest.fixture
def agent_panel_config(agent_server):
    names = ("remembering", "hitl", "ticking")
    return {"deployments": {name: {"url": agent_server, "assistant_id": name} for name in names}}


@pytest.fixture
def sdk(agent_server):
    from langgraph_sdk import get_client

    return get_client(url=agent_server, api_key=None)


@pytest.fixture
def newest(sdk):
    """The thread's newest checkpoint, as the Agent Server says (None: it has none)."""

    async def read(thread_id: str):
        return (await sdk.threads.get_state(thread_id))["checkpoint_id"]

    return read


class Turn:
    """A turn's frames: where it started, where it ended, what it said and how it ended."""

    def __init__(self, frames: list):
        self.frames = frames
        assert_one_terminal_last(frames)
        end = dict(frames[-1])
        self.start = frames[0].get("checkpoint_id", "absent")
        self.end = end.pop("end_checkpoint_id", "absent")
        self.outcome = end
        self.text = text_of(frames)


@pytest.fixture
def turn(run_turn):
    async def run(route: str, thread_id: str, **body) -> Turn:
        return Turn(await run_turn(f"agents/{route}", {"thread_id": thread_id, **body}, end_checkpoint=True))

    return run


def new_thread() -> str:
    return str(uuid.uuid4())


async def test_turns_report_their_checkpoints_and_a_fork_forgets_the_later_turns(turn, newest, sdk):
    thread = new_thread()
    said = []
    for message in ("one", "two", "three"):
        said.append(await turn("remembering/chat", thread, message=message))
        assert said[-1].end == await newest(thread)  # the Agent Server's own newest checkpoint
    one, two, three = said

    forked = await turn("remembering/chat", thread, message="TWO", checkpoint_id=two.start)
    on = await turn("remembering/chat", thread, message="and on")
    old_branch = await turn("remembering/chat", thread, message="four", checkpoint_id=three.end)

    assert one.start is None  # the thread's first turn starts from nothing
    assert (two.start, three.start) == (one.end, two.end)
    assert len({one.end, two.end, three.end}) == 3
    assert [t.outcome for t in (one, two, three, forked, on, old_branch)] == [COMPLETE] * 6
    assert three.text == "I remember: one | two | three"
    assert (forked.start, forked.text) == (two.start, "I remember: one | TWO")
    assert on.start == forked.end and on.text == "I remember: one | TWO | and on"
    # The branch left behind is kept: going on from its end finds it whole.
    assert old_branch.text == "I remember: one | two | three | four"
    assert old_branch.end == await newest(thread)
    assert (await sdk.threads.get(thread))["status"] == "idle"


async def test_a_fork_to_null_forgets_every_turn(turn):
    thread = new_thread()
    await turn("remembering/chat", thread, message="one")
    await turn("remembering/chat", thread, message="two")

    fresh = await turn("remembering/chat", thread, message="fresh", checkpoint_id=None)
    then = await turn("remembering/chat", thread, message="then")
    again = await turn("remembering/chat", thread, message="again", checkpoint_id=None)
    new = await turn("remembering/chat", new_thread(), message="first", checkpoint_id=None)

    assert (fresh.start, fresh.text, fresh.outcome) == (None, "I remember: fresh", COMPLETE)
    assert (then.start, then.text) == (fresh.end, "I remember: fresh | then")
    assert again.text == "I remember: again"
    assert (new.start, new.text) == (None, "I remember: first")  # a thread the deployment did not have


async def test_a_review_left_on_a_branch_is_answered_by_resuming_at_its_end(turn, post_json, newest, sdk):
    thread = new_thread()
    await turn("remembering/chat", thread, message="hello")
    asked = await turn("remembering/chat", thread, message="review the notes")
    [review] = asked.frames[0]["interrupt_ids"]
    forked = await turn("remembering/chat", thread, message="hello again", checkpoint_id=asked.start)

    plain = await post_json("agents/remembering/resume", {"thread_id": thread, "decisions": APPROVE})
    at_fork = await post_json(
        "agents/remembering/resume", {"thread_id": thread, "decisions": APPROVE, "checkpoint_id": forked.end}
    )
    before_resume = await newest(thread)
    resumed = await turn(
        "remembering/resume", thread, decisions=APPROVE, interrupt_ids=[review], checkpoint_id=asked.end
    )
    on = await turn("remembering/chat", thread, message="more")

    assert asked.outcome == INTERRUPTED
    # The turn that paused ended at the checkpoint where its review waits.
    waiting = (await sdk.threads.get_state(thread, checkpoint={"checkpoint_id": asked.end}))["interrupts"]
    assert [i["id"] for i in waiting] == [review]
    assert forked.text == "I remember: hello | hello again" and forked.outcome == COMPLETE
    # The new branch waits for nothing, the review stays on the branch it paused.
    for refused in (plain, at_fork):
        assert refused.code == 409
        assert json.loads(refused.body)["reason"] == "nothing_pending"
    assert before_resume == forked.end  # refusals moved nothing
    assert resumed.start == "absent"  # a resume reports only where it ended
    assert (resumed.text, resumed.outcome) == ("Decision: approve. I remember: hello | review the notes", COMPLETE)
    assert resumed.end == on.start
    assert on.text == "I remember: hello | review the notes | more"
    assert (await sdk.threads.get(thread))["status"] == "idle"


async def test_a_langchain_hitl_review_is_answered_on_its_branch(turn):
    thread = new_thread()
    asked = await turn("hitl/chat", thread, message="write notes")
    forked = await turn("hitl/chat", thread, message="write other notes", checkpoint_id=asked.start)
    decisions = [{"type": "approve"}, {"type": "reject", "message": "not now"}]

    resumed = await turn("hitl/resume", thread, decisions=decisions, checkpoint_id=asked.end)

    assert (asked.outcome, forked.outcome) == (INTERRUPTED, INTERRUPTED)
    assert forked.end != asked.end
    # The approved call, paused at that checkpoint, is announced again before its result.
    assert [f["tool_calls"][0]["name"] for f in resumed.frames if "tool_calls" in f] == ["write_file"]
    assert resumed.text == (
        "Tool results:\n- write_file: wrote 11 chars to notes.md\n"
        "- execute: User rejected the tool call for `execute` with reason: not now"
    )
    assert resumed.outcome == COMPLETE


async def test_a_fork_at_a_checkpoint_the_thread_lacks_is_refused_and_nothing_runs(
    turn, post_json, newest, agent_server, sdk
):
    thread, other = new_thread(), new_thread()
    first = await turn("remembering/chat", thread, message="one")
    elsewhere = await turn("remembering/chat", other, message="other")
    unknown = [str(uuid.uuid4()), "no-such-checkpoint", "a/b", elsewhere.end]

    chats = [await chat(post_json, thread, checkpoint_id) for checkpoint_id in unknown]
    resume = await post_json(
        "agents/remembering/resume", {"thread_id": thread, "decisions": APPROVE, "checkpoint_id": unknown[0]}
    )
    bad = [await chat(post_json, thread, value) for value in (7, " ", ["x"])]
    null_resume = await post_json(
        "agents/remembering/resume", {"thread_id": thread, "decisions": APPROVE, "checkpoint_id": None}
    )
    missing_thread = new_thread()
    on_missing = await chat(post_json, missing_thread, unknown[0])

    for checkpoint_id, refused in zip([*unknown, unknown[0]], [*chats, resume], strict=True):
        assert refused.code == 409
        assert json.loads(refused.body) == {
            "message": f"Thread {thread!r} has no checkpoint {checkpoint_id!r}",
            "reason": "unknown_checkpoint",
        }
    for refused in (*bad, null_resume):
        assert refused.code == 400
        assert json.loads(refused.body)["reason"] == "bad_request"
    assert on_missing.code == 409
    # Nothing ran: one run on the thread, still at its checkpoint, remembering one turn.
    assert await runs_on(agent_server, thread) == ["success"]
    assert await newest(thread) == first.end
    with pytest.raises(NotFoundError):  # not even created
        await sdk.threads.get(missing_thread)
    assert (await turn("remembering/chat", thread, message="two")).text == "I remember: one | two"


async def chat(post_json, thread_id: str, checkpoint_id):
    body = {"message": "x", "thread_id": thread_id, "checkpoint_id": checkpoint_id}
    return await post_json("agents/remembering/chat", body)


async def test_a_joined_run_reports_where_it_ended(raw_post, turn, agent_panel, newest):
    thread = new_thread()
    await lose_the_client(raw_post, agent_panel, thread, "ticks=3")

    joined = await turn("ticking/join", thread)

    assert joined.text == "tick1 tick2 tick3"
    assert joined.start == "absent"  # a join does not know where the run began
    assert joined.outcome == COMPLETE
    assert joined.end == await newest(thread)
