"""The chanx AG-UI test server (scripts/agui_ws_server.py) against real websocket clients.

The panel's websocket transport is tested against this server in the browser
(ui-tests/tests/agui.spec.ts); these tests pin the server's side of the contract
in docs/protocol.md §9: chanx's envelope, per-run `seq` from RUN_STARTED, replay to a
client that joins mid-run, one run per thread, cancel.
"""
from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
import websockets

from agui_helpers import Client, chanx_server, run_input

TICKER = f"{Path(__file__).with_name('agui_ticker.py')}:graph"
TOPIC = "agui:thread:t-ws"


@pytest.fixture(scope="module")
def demo_url():
    with chanx_server() as url:
        yield url


@pytest.fixture(scope="module")
def ticker_url():
    with chanx_server(TICKER) as url:
        yield url


def run(coroutine):
    return asyncio.run(coroutine)


def texts(frames: list[dict]) -> str:
    return "".join(
        frame["payload"].get("delta", "")
        for frame in frames
        if frame["payload"]["type"] == "TEXT_MESSAGE_CONTENT"
    )


def test_a_run_is_one_contiguous_sequence_from_run_started(demo_url):
    async def scenario():
        async with websockets.connect(demo_url) as socket:
            client = Client(socket)
            subscribed = await client.subscribe("agui:thread:t-demo")
            assert subscribed == {"action": "subscribed", "payload": None, "version": 1, "topic": "agui:thread:t-demo"}
            await client.send(topic="agui:thread:t-demo", action="ag_ui_run",
                              payload=run_input("t-demo", "r-demo", "hello"))
            return await client.events_until_end()

    frames = run(scenario())
    assert [frame["seq"] for frame in frames] == list(range(1, len(frames) + 1))
    assert {frame["topic"] for frame in frames} == {"agui:thread:t-demo"}
    assert frames[0]["payload"] == {"type": "RUN_STARTED", "threadId": "t-demo", "runId": "r-demo"}
    assert frames[-1]["payload"]["type"] == "RUN_FINISHED"
    assert texts(frames) == "(demo agent) You said: hello"


def test_a_client_joining_mid_run_sees_the_whole_run_once(ticker_url):
    async def scenario():
        async with websockets.connect(ticker_url) as first, websockets.connect(ticker_url) as second:
            starter, joiner = Client(first), Client(second)
            await starter.subscribe(TOPIC)
            await starter.send(topic=TOPIC, action="ag_ui_run", payload=run_input("t-ws", "r-join", "go"))
            seen = []
            while texts(seen).count("tick") < 5:
                seen.append(await starter.recv())
            assert (await joiner.subscribe(TOPIC))["action"] == "subscribed"
            return seen + await starter.events_until_end(), await joiner.events_until_end()

    started, joined = run(scenario())
    assert [frame["seq"] for frame in joined] == list(range(1, len(joined) + 1))
    assert [frame["payload"] for frame in joined] == [frame["payload"] for frame in started]
    assert joined[0]["payload"]["type"] == "RUN_STARTED"
    assert texts(joined) == " ".join(f"tick{n}" for n in range(1, 31))


def test_a_second_run_on_a_busy_thread_is_refused_without_ending_the_first(ticker_url):
    async def scenario():
        async with websockets.connect(ticker_url) as first, websockets.connect(ticker_url) as second:
            owner, other = Client(first), Client(second)
            await owner.subscribe("agui:thread:t-busy")
            await other.subscribe("agui:thread:t-busy")
            topic = "agui:thread:t-busy"
            await owner.send(topic=topic, action="ag_ui_run", payload=run_input("t-busy", "r-1", "go"))
            await owner.recv()
            await other.send(topic=topic, action="ag_ui_run", payload=run_input("t-busy", "r-2", "me too"))
            refusal = None
            while refusal is None:
                frame = await other.recv()
                if frame.get("seq") is None and frame.get("action") == "ag_ui_event":
                    refusal = frame
            return refusal, await owner.events_until_end()

    refusal, frames = run(scenario())
    assert refusal["payload"] == {"type": "RUN_ERROR", "message": "thread is already running r-1"}
    assert frames[-1]["payload"]["type"] == "RUN_FINISHED"


def test_cancel_ends_the_run_inside_its_sequence(ticker_url):
    async def scenario():
        async with websockets.connect(ticker_url) as socket:
            client = Client(socket)
            await client.subscribe("agui:thread:t-cancel")
            await client.send(topic="agui:thread:t-cancel", action="ag_ui_run",
                              payload=run_input("t-cancel", "r-cancel", "go"))
            frames = [await client.recv()]
            await client.send(topic="agui:thread:t-cancel", action="ag_ui_cancel", payload={"runId": "r-cancel"})
            return frames + await client.events_until_end()

    frames = run(scenario())
    assert frames[-1]["payload"] == {"type": "RUN_ERROR", "message": "Run r-cancel was cancelled"}
    assert [frame["seq"] for frame in frames] == list(range(1, len(frames) + 1))
    assert "tick30" not in texts(frames)


def test_an_unknown_topic_is_an_error_frame(demo_url):
    async def scenario():
        async with websockets.connect(demo_url) as socket:
            return await Client(socket).subscribe("nothing:here")

    frame = run(scenario())
    assert frame["action"] == "error"
    assert frame["topic"] == "nothing:here"
    assert frame["payload"]["reason"] == "unknown_topic"
