"""The routes against the real keyless demo tools agent (the default graph).

pytest-jupyter serves under ``base_url = /a%40b/``, so every request here also
checks that the routes live under the server's base URL.
"""
import json

import pytest
from jupyter_server.utils import url_path_join
from tornado.httpclient import HTTPClientError

from helpers import assert_one_terminal_last, parse_sse, text_of


async def test_health_reports_the_demo_agent(jp_fetch):
    # With no graph and no model configured, the built-in agent is the keyless demo (docs/protocol.md §16).
    response = await jp_fetch("agent-panel", "health")

    assert response.headers["Content-Type"] == "application/json"
    assert json.loads(response.body) == {
        "status": "healthy",
        "agent_loaded": True,
        "ready": True,
        "message": "Keyless demo agent ready: no model is configured (AgentPanel.model)",
        "spec": "jupyterlab_agent_panel.demo.showcase:graph",
        "agent_name": "Tool Demo Agent",
        "model_choice": True,
        "model": None,
        "prompts": ["Write a long answer", "What did I attach?", "Quiz me", "Make a plan", "Think about it"],
    }


async def test_tool_turn_is_framed_exactly_as_sse(post_json):
    response = await post_json("chat", {"message": "use a tool", "thread_id": "t-tool"})

    assert response.code == 200
    assert response.headers["Content-Type"] == "text/event-stream"
    assert response.headers["Cache-Control"] == "no-cache"
    body = response.body.decode("utf-8")
    frames = parse_sse(body, end_checkpoint=True)
    # Byte-exact: each event is "data: " + Python's default json.dumps of the frame.
    assert body == "".join(f"data: {json.dumps(frame)}\n\n" for frame in frames)
    assert "event:" not in body and "id:" not in body and "retry:" not in body

    calls = [f for f in frames if "tool_calls" in f]
    assert calls == [
        {
            "status": "streaming",
            "tool_calls": [{"name": "demo_lookup", "args": {"query": "use a tool"}, "id": "demo_lookup_1"}],
            "checkpoint_id": None,  # the thread's first turn (docs/protocol.md §5.10)
        }
    ]
    result_index = next(i for i, f in enumerate(frames) if "tool_result" in f)
    result = frames[result_index]
    assert json.loads(result["tool_result"]) == {"query": "use a tool", "answer": "42", "source": "demo-kb"}
    assert (result["id"], result["name"], result["tool_status"]) == ("demo_lookup_1", "demo_lookup", "success")
    assert frames[result_index + 1] == {
        "status": "streaming",
        "extraction": {
            "tool_name": "demo_lookup",
            "extracted_type": "demo_fact",
            "data": {"query": "use a tool", "answer": "42"},
        },
    }
    assert text_of(frames).startswith("The demo tool returned ")
    assert assert_one_terminal_last(frames) == {"status": "complete", "outcome": "complete"}


async def test_sse_headers_on_a_persistent_connection(raw_post):
    response = await raw_post("chat", {"message": "hello", "thread_id": "t-raw"})

    assert response.status_line == "HTTP/1.1 200 OK"
    assert response.headers["Content-Type"] == "text/event-stream"
    assert response.headers["Cache-Control"] == "no-cache"
    assert response.headers["Connection"] == "keep-alive"
    assert response.headers["Transfer-Encoding"] == "chunked"
    assert "Content-Length" not in response.headers
    frames = parse_sse((await response.read_body()).decode("utf-8"))
    assert assert_one_terminal_last(frames) == {"status": "complete", "outcome": "complete"}


async def test_hello_is_echoed_token_by_token(run_turn):
    frames = await run_turn("chat", {"message": "hello there", "thread_id": "t-hello"})

    chunks = [f["chunk"] for f in frames if "chunk" in f]
    assert chunks == ["(demo ", "agent) ", "You ", "said: ", "hello ", "there"]
    assert {f["node"] for f in frames if "chunk" in f} == {"agent"}
    assert assert_one_terminal_last(frames) == {"status": "complete", "outcome": "complete"}


async def test_think_streams_reasoning_apart_from_the_answer(run_turn):
    frames = await run_turn("chat", {"message": "think about it", "thread_id": "t-think"})

    reasoning = [f["reasoning"] for f in frames if "reasoning" in f]
    assert reasoning[0] == "Let me reason about this step by step. "
    assert len(reasoning) == 2
    first_chunk = next(i for i, f in enumerate(frames) if "chunk" in f)
    assert all("reasoning" not in f for f in frames[first_chunk:])
    assert text_of(frames) == "Done reasoning — that was the `reasoning` frame demo."
    assert assert_one_terminal_last(frames) == {"status": "complete", "outcome": "complete"}


ASK_USER = {
    "action_requests": [{"action": "ask_user", "args": {"question": "What should I call you?"}}],
    "review_configs": [],
    "allowed_decisions": ["respond", "approve"],
}


async def test_interrupt_then_respond_resumes_the_same_thread(run_turn, pending_ids):
    asked = await run_turn("chat", {"message": "ask me a question", "thread_id": "t-ask"})

    assert asked == [
        {
            "status": "interrupt",
            "interrupt": ASK_USER,
            "interrupt_ids": await pending_ids("t-ask"),
            "checkpoint_id": None,
        },
        {"status": "complete", "outcome": "interrupted"},
    ]

    resumed = await run_turn(
        "resume", {"thread_id": "t-ask", "decisions": [{"type": "respond", "message": "Ada"}]}
    )

    assert "Ada" in text_of(resumed)
    assert text_of(resumed) == (
        "Resumed. Your decision was: {'decisions': [{'type': 'respond', 'message': 'Ada'}]}."
    )
    assert assert_one_terminal_last(resumed) == {"status": "complete", "outcome": "complete"}


async def test_interrupt_then_approve(run_turn):
    asked = await run_turn("chat", {"message": "please ask me something", "thread_id": "t-approve"})
    assert asked[-1] == {"status": "complete", "outcome": "interrupted"}

    resumed = await run_turn("resume", {"thread_id": "t-approve", "decisions": [{"type": "approve"}]})

    assert text_of(resumed) == "Resumed. Your decision was: {'decisions': [{'type': 'approve'}]}."
    assert assert_one_terminal_last(resumed) == {"status": "complete", "outcome": "complete"}


async def test_threads_are_separate_conversations(run_turn):
    await run_turn("chat", {"message": "ask me a question", "thread_id": "t-paused"})

    other = await run_turn("chat", {"message": "hello", "thread_id": "t-other"})

    assert text_of(other) == "(demo agent) You said: hello"


@pytest.mark.parametrize(
    ("route", "body", "message"),
    [
        ("chat", "", "Request body is empty; expected a JSON object"),
        (
            "chat",
            "{not json",
            "Request body is not valid JSON: "
            "Expecting property name enclosed in double quotes: line 1 column 2 (char 1)",
        ),
        (
            "chat",
            b"\xff{}",
            "Request body is not valid JSON: 'utf-8' codec can't decode byte 0xff in position 0: invalid start byte",
        ),
        ("chat", "[1, 2]", "Request body must be a JSON object, not list"),
        ("chat", {"thread_id": "t"}, "Message is required"),
        ("chat", {"message": "   ", "thread_id": "t"}, "Message is required"),
        ("chat", {"message": 5, "thread_id": "t"}, "message must be a string"),
        ("chat", {"message": "hi"}, "thread_id is required"),
        ("chat", {"message": "hi", "thread_id": "t", "selected_text": ["x"]}, "selected_text must be a string"),
        ("chat", {"message": "hi", "thread_id": "t", "attachments": {}}, "attachments must be a list"),
        (
            "chat",
            {"message": "hi", "thread_id": "t", "attachments": [{"kind": "movie", "source": "s", "text": "t"}]},
            "attachments[0].kind must be one of error, output, image, variables, file, notebook, cell",
        ),
        ("resume", {"decisions": []}, "thread_id is required"),
        ("resume", {"thread_id": "t", "decisions": {"type": "approve"}}, "decisions must be a list"),
        (
            "resume",
            {"thread_id": "t", "decisions": [{"type": "approve"}, "no"]},
            "decisions[1] must be an object with a string 'type'",
        ),
        ("cancel", {}, "thread_id is required"),
        ("cancel", {"thread_id": 7}, "thread_id must be a string"),
    ],
)
async def test_bad_bodies_get_400_naming_the_problem(post_json, route, body, message):
    response = await post_json(route, body)

    assert response.code == 400
    assert response.headers["Content-Type"] == "application/json"
    assert json.loads(response.body) == {"message": message, "reason": "bad_request"}


@pytest.mark.parametrize(
    ("method", "route"), [("GET", "health"), ("POST", "chat"), ("POST", "resume"), ("POST", "cancel")]
)
async def test_requests_without_credentials_get_403(jp_serverapp, http_server_client, jp_base_url, method, route):
    url = url_path_join(jp_base_url, "agent-panel", route)
    body = json.dumps({"message": "hello", "thread_id": "t"}) if method == "POST" else None

    with pytest.raises(HTTPClientError) as caught:
        await http_server_client.fetch(url, method=method, body=body, follow_redirects=False)

    assert caught.value.code == 403


async def test_cancel_of_an_idle_thread_is_not_found(post_json):
    response = await post_json("cancel", {"thread_id": "t-idle"})

    assert response.code == 200
    assert json.loads(response.body) == {
        "status": "not_found",
        "message": "No active execution found for this thread",
    }


async def test_agent_is_loaded_once_and_reused(run_turn, jp_fetch, default_agent):
    await jp_fetch("agent-panel", "health")
    loaded = await default_agent.loaded_agent()

    await run_turn("chat", {"message": "hello", "thread_id": "t-once"})

    assert await default_agent.loaded_agent() is loaded


async def test_failure_before_streaming_is_a_500_and_the_server_survives(post_json, jp_fetch, monkeypatch):
    def broken_context(message, context):
        raise RuntimeError("context builder broke")

    monkeypatch.setattr("jupyterlab_agent_panel.server.handlers.message_with_context", broken_context)

    response = await post_json("chat", {"message": "hello", "thread_id": "t-500"})

    assert response.code == 500
    assert response.headers["Content-Type"] == "application/json"
    assert json.loads(response.body)["message"] == "Unhandled error"
    assert (await jp_fetch("agent-panel", "health")).code == 200
