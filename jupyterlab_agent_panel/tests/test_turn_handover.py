"""The next turn of a thread, sent the moment the previous one's terminal frame arrived.

The panel sends a queued message as soon as it reads a terminal frame, while
the server may still be closing that turn's graph stream (the 409 ``busy`` row
of docs/protocol.md §6.3). The graph's stream closing late (as under load) is played here by
holding the turn driver after its terminal frame.
"""
from __future__ import annotations

import asyncio

import pytest

from helpers import graph_spec, text_of
from jupyterlab_agent_panel.server.sse_turn import SseTurn
from jupyterlab_agent_panel.turns.driver import TurnDriver

CLOSING_SECONDS = 0.5
TERMINAL = {"complete", "error", "cancelled"}


@pytest.fixture
def agent_panel_config() -> dict:
    return {"agents": {"echo": graph_spec("echo_all"), "slow": graph_spec("slow")}}


@pytest.fixture
def late_close(monkeypatch):
    """Each turn's graph stream closes CLOSING_SECONDS after its terminal frame.

    The terminal frame is flushed at once, as it is when the flush of the
    turn's last frames is still under way when it is written.
    """
    original_run = TurnDriver.run
    original_end = SseTurn._write_end

    async def run(self, *args, **kwargs):
        result = await original_run(self, *args, **kwargs)
        await asyncio.sleep(CLOSING_SECONDS)
        return result

    def write_end(self, end, text):
        original_end(self, end, text)
        self._handler.flush()

    monkeypatch.setattr(TurnDriver, "run", run)
    monkeypatch.setattr(SseTurn, "_write_end", write_end)


async def test_the_next_turn_waits_for_the_previous_ones_close(late_close, open_stream, run_turn):
    first = open_stream("agents/echo/chat", {"message": "one", "thread_id": "t"})
    while (await first.next_frame())["status"] not in TERMINAL:
        pass

    second = await run_turn("agents/echo/chat", {"message": "two", "thread_id": "t"})

    assert text_of(second) == "echo: two"
    await first.rest()


async def test_a_turn_that_has_not_ended_still_makes_the_next_one_busy(late_close, open_stream, post_json):
    first = open_stream("agents/slow/chat", {"message": "one", "thread_id": "t"})
    await first.next_frame()  # the turn runs

    response = await post_json("agents/slow/chat", {"message": "two", "thread_id": "t"})

    assert response.code == 409
    await post_json("agents/slow/cancel", {"thread_id": "t"})
    await first.rest()
