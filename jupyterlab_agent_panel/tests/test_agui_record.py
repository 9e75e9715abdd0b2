"""The real `langstage-agui --demo=tools` behind the panel's AG-UI fixtures.

The recorder (scripts/record-agui.py) runs here against a fresh server: what it
records today must have the shape of the committed fixtures/agui streams the jest
tests read (text, reasoning, tool call and result, interrupt and resume), and the
committed interrupt-normalisation cases must still be what the installed
langstage-core computes. Also checked: the CORS a browser on the lab's origin needs.
"""
from __future__ import annotations

import json
import urllib.request

import pytest

from agui_helpers import FIXTURES, recorder

DEMO_STREAMS = ["hello", "hello-then-tool", "think", "tool", "ask", "ask-pending", "ask-resume"]
LAB_ORIGIN = "http://127.0.0.1:8904"


@pytest.fixture(scope="module")
def agui_url():
    with recorder.serve("--demo=tools", cors=LAB_ORIGIN) as url:
        yield url


@pytest.fixture(scope="module")
def recorded(agui_url, tmp_path_factory):
    out = tmp_path_factory.mktemp("agui")
    recorder.record_demo(agui_url, out)
    return {name: recorder.events((out / f"{name}.sse").read_bytes()) for name in DEMO_STREAMS}


def shape(events: list[dict]) -> list[str]:
    """The event types, RAW noise left out."""
    return [event["type"] for event in events if event["type"] != "RAW"]


def text(events: list[dict], kind: str = "TEXT_MESSAGE_CONTENT") -> str:
    return "".join(event.get("delta", "") for event in events if event["type"] == kind)


@pytest.mark.parametrize("name", DEMO_STREAMS)
def test_recordings_keep_the_shape_of_the_committed_fixtures(recorded, name):
    committed = recorder.events((FIXTURES / f"{name}.sse").read_bytes())
    assert shape(recorded[name]) == shape(committed)


def test_text_reasoning_and_tool(recorded):
    assert text(recorded["hello"]) == "(demo agent) You said: hello"
    assert text(recorded["think"], "REASONING_MESSAGE_CONTENT").startswith("Let me reason about this step by step.")
    tool = recorded["tool"]
    start = next(event for event in tool if event["type"] == "TOOL_CALL_START")
    assert (start["toolCallId"], start["toolCallName"]) == ("demo_lookup_1", "demo_lookup")
    assert text(tool, "TOOL_CALL_ARGS") == '{"query": "use a tool"}'
    result = next(event for event in tool if event["type"] == "TOOL_CALL_RESULT")
    assert result["content"] == '{"query": "use a tool", "answer": "42", "source": "demo-kb"}'


def test_interrupt_and_resume_with_a_decision(recorded):
    custom = [event for event in recorded["ask"] if event["type"] == "CUSTOM"]
    assert [event["name"] for event in custom] == ["on_interrupt"]
    assert json.loads(custom[0]["value"]) == {
        "action_requests": [{"action": "ask_user", "args": {"question": "What should I call you?"}}],
        "allowed_decisions": ["respond", "approve"],
    }
    assert custom[0]["rawEvent"]["id"]
    # A message while paused re-surfaces the same interrupt and runs nothing.
    assert shape(recorded["ask-pending"]) == ["RUN_STARTED", "CUSTOM", "RUN_FINISHED"]
    assert text(recorded["ask-resume"]) == (
        "Resumed. Your decision was: {'decisions': [{'type': 'respond', 'message': 'Ada'}]}."
    )


def test_interrupt_normalisation_cases_match_the_installed_core(tmp_path):
    recorder.record_interrupt_normalisation(tmp_path)
    assert json.loads((tmp_path / "normalize-interrupt.json").read_text()) == json.loads(
        (FIXTURES / "normalize-interrupt.json").read_text()
    )


def test_the_outcome_interrupt_fixture_is_what_the_installed_adapter_sends(tmp_path):
    """ag-ui-langgraph with the 1.0 outcome on and raw events off announces one
    interrupt twice: the legacy event without an id, then the outcome with one."""
    recorder.record_outcome_interrupt(tmp_path)
    name = recorder.OUTCOME_FIXTURE

    def read(path):
        return [json.loads(line) for line in path.read_text().splitlines() if line]

    recorded, committed = read(tmp_path / name), read(FIXTURES / name)
    assert shape(recorded) == shape(committed)
    custom = next(event for event in recorded if event["type"] == "CUSTOM")
    assert "rawEvent" not in custom
    finished = recorded[-1]
    [interrupt] = finished["outcome"]["interrupts"]
    assert interrupt["id"]
    assert interrupt["metadata"]["langgraph"]["raw"] == json.loads(custom["value"])


def test_health_and_cors_for_the_lab_origin(agui_url):
    with urllib.request.urlopen(agui_url) as response:
        assert json.load(response) == {"status": "ok", "agent": {"name": "Tool Demo Agent"}}
    preflight = urllib.request.Request(agui_url, method="OPTIONS", headers={
        "Origin": LAB_ORIGIN,
        "Access-Control-Request-Method": "POST",
        "Access-Control-Request-Headers": "content-type",
    })
    with urllib.request.urlopen(preflight) as response:
        assert response.headers["Access-Control-Allow-Origin"] == LAB_ORIGIN
        assert "POST" in response.headers["Access-Control-Allow-Methods"]
