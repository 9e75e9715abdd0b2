"""Frames are valid JSON on both paths: NaN and ±Infinity arrive as null (docs/protocol.md §2.11).

An extractor returns ``{"mean": nan, "range": [-inf, inf]}``; the SSE body and
the comm frame must carry the same, JSON-valid extraction.
"""
import json
import math
import uuid

import pytest

from helpers import GRAPHS, without_end_checkpoint
from jupyterlab_agent_panel.turns.frame_json import finite, sse_event
from kernel_comm_client import KernelUnderTest, PanelComm

NON_FINITE = f"{GRAPHS / 'extractors.py'}:non_finite"
EXPECTED = {
    "tool_name": "demo_lookup",
    "extracted_type": "stats",
    "data": {"answer": "42", "mean": None, "range": [None, None]},
}


def strict_frames(body: str) -> list:
    """The frames of an SSE body, refusing the NaN / Infinity Python's json would accept."""

    def refuse(constant: str):
        raise AssertionError(f"{constant} in a frame: not JSON")

    frames = [json.loads(event[len("data: "):], parse_constant=refuse) for event in body.split("\n\n") if event]
    return [without_end_checkpoint(frame) for frame in frames]


class TestOverHttp:
    @pytest.fixture
    def agent_panel_config(self):
        return {"extractors": [NON_FINITE]}

    async def test_non_finite_numbers_arrive_as_null(self, post_json):
        response = await post_json("chat", {"message": "use a tool", "thread_id": "t"})

        frames = strict_frames(response.body.decode())
        assert [f["extraction"] for f in frames if "extraction" in f] == [EXPECTED]
        assert frames[-1] == {"status": "complete", "outcome": "complete"}


def test_over_the_comm_the_same_frame_arrives():
    kernel = KernelUnderTest()
    try:
        serve = f"import jupyterlab_agent_panel, sys\nsys.path.insert(0, {str(GRAPHS)!r})\nimport extractors\n"
        serve += "jupyterlab_agent_panel.serve(extractors=extractors.non_finite())"
        assert kernel.execute(serve).ok
        panel = PanelComm(kernel)
        panel.open()
        panel.wait(lambda d: d.get("type") == "hello")

        frames, end = panel.run_turn("use a tool", uuid.uuid4().hex)

        assert [f["extraction"] for f in frames if "extraction" in f] == [EXPECTED]
        assert end["outcome"] == "complete"
    finally:
        kernel.shutdown()


def test_finite_copies_only_what_it_changes():
    clean = {"a": [1.5, {"b": "x"}], "c": None}
    assert finite(clean) is clean

    dirty = {"keep": {"b": 1}, "values": (1.0, math.nan), "deep": [{"x": -math.inf}]}
    cleaned = finite(dirty)
    assert cleaned == {"keep": {"b": 1}, "values": [1.0, None], "deep": [{"x": None}]}
    assert cleaned["keep"] is dirty["keep"]
    assert math.isnan(dirty["values"][1])  # the frame the graph made is left alone


def test_an_sse_event_is_json_text_without_nan():
    assert sse_event({"status": "streaming", "x": math.inf}) == 'data: {"status": "streaming", "x": null}\n\n'
