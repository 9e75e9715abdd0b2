"""Cancel, busy threads and client disconnects, with a graph that sits silently for 30 s.

``graphs/slow.py`` says "started" and then awaits ``asyncio.sleep(30)``: only
cancelling the turn's task ends it early (no frame ever arrives to check a flag).
"""
import asyncio
import json
import time

import pytest

from helpers import assert_one_terminal_last, graph_spec

CANCELLED_FRAME = {"status": "cancelled", "message": "Execution cancelled by user"}
CANCEL_BOUND_SECONDS = 10  # generous: a cancelled turn ends in milliseconds


@pytest.fixture
def agent_panel_config():
    return {"agent_spec": graph_spec("slow")}


async def started(open_stream, thread_id: str):
    """Open a chat on ``thread_id`` and wait until the graph is inside its silent node."""
    stream = open_stream("chat", {"message": "go", "thread_id": thread_id})
    first = await stream.next_frame()
    assert (first.get("chunk"), first.get("node")) == ("started", "start")
    return stream


async def test_cancel_stops_a_silent_node(open_stream, post_json, default_agent):
    stream = await started(open_stream, "t-cancel")
    turn = default_agent.turns["t-cancel"]

    began = time.monotonic()
    reply = await post_json("cancel", {"thread_id": "t-cancel"})
    rest = await stream.rest(timeout=CANCEL_BOUND_SECONDS)

    assert json.loads(reply.body) == {"status": "success", "message": "Cancellation requested"}
    assert rest == [CANCELLED_FRAME]
    assert time.monotonic() - began < CANCEL_BOUND_SECONDS
    assert turn.cancelled()
    assert default_agent.turns == {}


async def test_a_second_turn_on_a_busy_thread_gets_409(open_stream, post_json, default_agent):
    stream = await started(open_stream, "t-busy")

    chat = await post_json("chat", {"message": "again", "thread_id": "t-busy"})
    resume = await post_json("resume", {"thread_id": "t-busy", "decisions": [{"type": "approve"}]})

    for response in (chat, resume):
        assert response.code == 409
        assert json.loads(response.body) == {
            "message": "A turn is already running on thread 't-busy'",
            "reason": "busy",
        }
    # The rejected requests left the running turn alone.
    assert not default_agent.turns["t-busy"].done()
    await post_json("cancel", {"thread_id": "t-busy"})
    assert await stream.rest() == [CANCELLED_FRAME]


async def test_threads_run_concurrently_and_cancel_separately(open_stream, post_json, default_agent):
    first = await started(open_stream, "t-first")
    second = await started(open_stream, "t-second")

    await post_json("cancel", {"thread_id": "t-first"})

    assert await first.rest() == [CANCELLED_FRAME]
    assert not default_agent.turns["t-second"].done()
    await post_json("cancel", {"thread_id": "t-second"})
    assert await second.rest() == [CANCELLED_FRAME]


async def test_a_cancelled_thread_takes_a_new_turn(open_stream, post_json):
    stream = await started(open_stream, "t-again")
    await post_json("cancel", {"thread_id": "t-again"})
    await stream.rest()

    again = await started(open_stream, "t-again")
    await post_json("cancel", {"thread_id": "t-again"})

    frames = await again.rest()
    assert assert_one_terminal_last(frames) == CANCELLED_FRAME


async def test_client_disconnect_cancels_the_turn(raw_post, default_agent):
    response = await raw_post("chat", {"message": "go", "thread_id": "t-gone"})
    first = await response.read_chunk()
    assert b'"chunk": "started"' in first
    turn = default_agent.turns["t-gone"]

    response.close()
    await asyncio.wait_for(asyncio.wait({turn}), CANCEL_BOUND_SECONDS)

    assert turn.cancelled()
    for _ in range(100):  # the handler unregisters the turn right after it ends
        if not default_agent.turns:
            break
        await asyncio.sleep(0.01)
    assert default_agent.turns == {}
