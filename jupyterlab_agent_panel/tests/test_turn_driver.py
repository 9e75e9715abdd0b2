"""The turn driver alone: real LangGraph graphs, plus streams core never produces.

The HTTP and comm tests prove the driver through both transports; these pin the
rule itself: frames forwarded in order, then exactly one terminal frame.
"""
from __future__ import annotations

import asyncio
import uuid

import pytest

from helpers import graph_spec, text_of, without_end_checkpoint
from jupyterlab_agent_panel.graph import load_agent
from jupyterlab_agent_panel.turns.driver import (
    CANCELLED_FRAME,
    NO_TERMINAL_FRAME,
    TurnDriver,
    TurnEnd,
    TurnRequest,
)

APPROVE = {"decisions": [{"type": "approve"}]}
COMPLETE = {"status": "complete", "outcome": "complete"}


def streaming(text: str) -> dict:
    return {"status": "streaming", "chunk": text, "node": "agent", "message_id": "m1"}


class Recorder:
    """What a transport would have sent: frames, then the ends (one, if the rule holds)."""

    def __init__(self):
        self.sent: list = []
        self.ends: list[TurnEnd] = []
        self.driver = TurnDriver(send=self.send, end=self.ends.append)

    async def send(self, frame: dict) -> None:
        self.sent.append(frame)

    @property
    def end(self) -> TurnEnd:
        """The one end, its terminal frame without the checkpoint it reports (checked)."""
        assert len(self.ends) == 1, self.ends
        end = self.ends[0]
        return TurnEnd(without_end_checkpoint(end.frame), end.outcome, end.failure)


class ScriptedRequest:
    """A request whose stream is a plain async generator (what core never does)."""

    def __init__(self, frames):
        self._frames = frames
        self.closed = False

    async def refusal(self):
        return None

    async def frames(self):
        try:
            async for frame in self._frames():
                yield frame
        finally:
            self.closed = True


async def until(condition, timeout: float = 10) -> None:
    async def poll() -> None:
        while not condition():
            await asyncio.sleep(0.01)

    await asyncio.wait_for(poll(), timeout)


def real_request(spec: str | None = None, message: str = "hello", **kwargs) -> TurnRequest:
    loaded = load_agent(spec)
    assert loaded.ready, loaded.error
    return TurnRequest(loaded, message, f"thread-{uuid.uuid4().hex[:8]}", **kwargs)


async def test_a_real_graph_streams_then_completes():
    recorder = Recorder()

    assert await recorder.driver.run(real_request(message="hello there")) is True

    assert "hello there" in text_of(recorder.sent)
    assert all(frame["status"] == "streaming" for frame in recorder.sent)
    assert recorder.end == TurnEnd(COMPLETE, "complete")


async def test_an_interrupt_makes_the_outcome_interrupted_and_a_resume_runs_once():
    asking = real_request(message="ask me a question")
    first = Recorder()
    await first.driver.run(asking)

    assert [f["status"] for f in first.sent][-1] == "interrupt"
    assert first.end == TurnEnd({"status": "complete", "outcome": "interrupted"}, "interrupted")

    resume = TurnRequest(asking.loaded, "", asking.thread_id, resume=APPROVE)
    second = Recorder()
    assert await second.driver.run(resume) is True
    assert second.end.outcome == "complete"

    third = Recorder()
    assert await third.driver.run(resume) is False  # nothing pending any more
    assert (third.sent, third.ends) == ([], [])


async def test_started_is_awaited_once_before_the_first_frame():
    order = []

    async def note(item: str) -> None:
        order.append(item)

    driver = TurnDriver(send=lambda frame: note(frame["status"]), end=lambda end: order.append("end"))
    assert await driver.run(real_request(), started=lambda: note("started")) is True

    assert order[0] == "started" and order.count("started") == 1
    assert order[-1] == "end" and len(order) > 2


async def test_a_resume_with_nothing_pending_sends_nothing_and_never_starts():
    started = []
    recorder = Recorder()

    async def start() -> None:
        started.append(True)

    assert await recorder.driver.run(real_request(resume=APPROVE), started=start) is False  # a fresh thread

    assert (started, recorder.sent, recorder.ends) == ([], [], [])
    assert recorder.driver.cancel() is False  # already over: a late Stop sends nothing


async def test_a_failing_graph_ends_on_cores_error_frame():
    recorder = Recorder()

    await recorder.driver.run(real_request(graph_spec("failing")))

    assert text_of(recorder.sent) == "partial answer"
    assert recorder.end == TurnEnd({"status": "error", "error": "RuntimeError: boom"}, "error")


async def test_cancelling_the_task_ends_the_turn_cancelled_and_propagates():
    recorder = Recorder()
    turn = asyncio.ensure_future(recorder.driver.run(real_request(graph_spec("slow"))))
    await until(lambda: recorder.sent)  # "started", then the graph sleeps

    turn.cancel()
    with pytest.raises(asyncio.CancelledError):
        await turn

    assert text_of(recorder.sent) == "started"
    assert recorder.end == TurnEnd(CANCELLED_FRAME, "cancelled")


async def test_cancel_ends_at_once_and_drops_what_the_graph_yields_after():
    release = asyncio.Event()

    async def frames():
        yield streaming("before")
        await release.wait()
        yield streaming("after the cancel")
        yield COMPLETE

    recorder = Recorder()
    request = ScriptedRequest(frames)
    turn = asyncio.ensure_future(recorder.driver.run(request))
    await until(lambda: recorder.sent)

    assert recorder.driver.cancel() is True
    assert recorder.end == TurnEnd(CANCELLED_FRAME, "cancelled")  # before the graph moved on
    assert recorder.driver.cancel() is False
    release.set()
    assert await turn is True

    assert recorder.sent == [streaming("before")]
    assert len(recorder.ends) == 1 and request.closed


async def test_the_first_terminal_frame_wins_and_later_frames_are_dropped():
    async def frames():
        yield {"status": "interrupt", "interrupt": {"value": "?"}}
        yield COMPLETE
        yield streaming("late")
        yield {"status": "error", "error": "late"}

    recorder = Recorder()
    request = ScriptedRequest(frames)
    await recorder.driver.run(request)

    assert recorder.sent == [{"status": "interrupt", "interrupt": {"value": "?"}}]
    assert recorder.end == TurnEnd(COMPLETE, "interrupted")
    assert request.closed  # the generator was closed, not left suspended


async def test_a_stream_that_raises_ends_with_an_error_frame_naming_the_exception():
    failure = ValueError("bad chunk")

    async def frames():
        yield streaming("partial")
        raise failure

    recorder = Recorder()
    await recorder.driver.run(ScriptedRequest(frames))

    assert recorder.sent == [streaming("partial")]
    assert recorder.end == TurnEnd({"status": "error", "error": "ValueError: bad chunk"}, "error", failure)


async def test_a_stream_without_a_terminal_frame_ends_with_the_error_frame():
    async def frames():
        yield streaming("only")

    recorder = Recorder()
    await recorder.driver.run(ScriptedRequest(frames))

    assert recorder.sent == [streaming("only")]
    assert recorder.end == TurnEnd(NO_TERMINAL_FRAME, "error")


async def test_a_send_that_fails_ends_the_turn_with_its_error_and_closes_the_stream():
    gone = ConnectionError("client left")
    ends: list = []

    async def send(frame: dict) -> None:
        raise gone

    async def frames():
        yield streaming("one")
        yield streaming("two")

    request = ScriptedRequest(frames)
    await TurnDriver(send=send, end=ends.append).run(request)

    assert ends == [TurnEnd({"status": "error", "error": "ConnectionError: client left"}, "error", gone)]
    assert request.closed


async def test_the_graph_s_schemas_are_built_once_for_all_turns():
    loaded = load_agent(None)
    assert loaded.ready, loaded.error
    graph = loaded.agent.graph
    expected = type(loaded.agent).__mro__[1].get_schema_keys(loaded.agent, {})
    built = []
    schema_of_input = graph.get_input_jsonschema
    graph.get_input_jsonschema = lambda config=None: built.append(config) or schema_of_input(config)

    for message in ("hello there", "hello again", "and once more"):
        recorder = Recorder()
        assert await recorder.driver.run(TurnRequest(loaded, message, f"thread-{uuid.uuid4().hex[:8]}")) is True
        assert message in text_of(recorder.sent)
        assert recorder.end == TurnEnd(COMPLETE, "complete")

    assert len(built) == 1  # the first turn's; pydantic built them anew on every turn before
    keys = loaded.agent.clone().get_schema_keys({})
    assert keys == expected and "messages" in keys["input"]
    keys["input"].clear()  # a caller changing its copy leaves the next turn's keys whole
    assert loaded.agent.clone().get_schema_keys({}) == expected
