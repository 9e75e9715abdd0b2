"""The tests' stand-ins for a provider and an MCP server, checked with the real clients they stand in for.

The built-in agent's tests trust ``scripted_openai.py`` to look like OpenAI to
``langchain-openai`` and the ``openai`` SDK (streamed text and tool calls,
usage, each error's class and code) and ``mcp_stdio_server.py`` to be an MCP
server to ``langchain-mcp-adapters``; these tests hold them to it.
"""
from __future__ import annotations

import json
import operator
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from functools import reduce
from pathlib import Path

import openai
import pytest
from langchain_core.messages import HumanMessage
from langchain_mcp_adapters.client import MultiServerMCPClient
from langchain_mcp_adapters.tools import load_mcp_tools
from langchain_openai import ChatOpenAI
from mcp.shared.exceptions import McpError

from scripted_openai import Pace, Reply, ScriptedOpenAI, image_parts, notebook_script

KEY = "sk-test-scripted-0123456789abcdef"
MODEL = "gpt-4.1-mini"
HERE = Path(__file__).parent
PNG_URL = "data:image/png;base64,iVBORw0KGgo="


@pytest.fixture
def server():
    with ScriptedOpenAI(api_key=KEY) as running:
        yield running


def chat_model(server: ScriptedOpenAI, **options) -> ChatOpenAI:
    """The provider client as the product makes it, without retries unless asked."""
    options = {"api_key": KEY, "model": MODEL, "max_retries": 0, **options}
    return ChatOpenAI(base_url=server.base_url, stream_usage=True, **options)


def call(name: str, args: dict) -> Reply:
    return Reply(tool_calls=[(name, args)])


def test_text_streams_word_by_word_and_ends_with_the_usage(server):
    server.responder = lambda body: Reply("The answer is 42.", usage=(12, 5))

    chunks = list(chat_model(server).stream("What is it?"))

    assert [chunk.content for chunk in chunks if chunk.content] == ["The ", "answer ", "is ", "42."]
    message = reduce(operator.add, chunks)
    assert message.response_metadata["finish_reason"] == "stop"
    counts = ("input_tokens", "output_tokens", "total_tokens")
    assert [message.usage_metadata[count] for count in counts] == [12, 5, 17]
    [request] = server.requests
    # ChatOpenAI asks for the usage only when told to (stream_usage=True) once base_url is not OpenAI's.
    assert (request["stream"], request["stream_options"]) == (True, {"include_usage": True})
    assert (request["_path"], request["_key_matched"]) == ("/v1/chat/completions", True)
    assert request["messages"] == [{"role": "user", "content": "What is it?"}]


def test_tool_calls_parse_streamed_and_whole_with_unique_ids(server):
    server.responder = lambda body: Reply(tool_calls=[("shout", {"text": "hi"}), ("add", {"a": 2, "b": 3})])
    specs = [{"type": "function", "function": {"name": name, "parameters": {}}} for name in ("shout", "add")]
    model = chat_model(server).bind_tools(specs)

    streamed = reduce(operator.add, model.stream("go"))
    whole = model.invoke("go")

    for message in (streamed, whole):
        calls = [(tool_call["name"], tool_call["args"]) for tool_call in message.tool_calls]
        assert calls == [("shout", {"text": "hi"}), ("add", {"a": 2, "b": 3})]
        assert message.response_metadata["finish_reason"] == "tool_calls"
        # Counted when the responder gives none: a quarter of the messages' JSON, ten per call.
        prompt = len(json.dumps(server.requests[0]["messages"])) // 4
        assert (message.usage_metadata["input_tokens"], message.usage_metadata["output_tokens"]) == (prompt, 20)
    ids = [tool_call["id"] for message in (streamed, whole) for tool_call in message.tool_calls]
    assert len(set(ids)) == 4 and all(call_id.startswith("call_") for call_id in ids)
    assert [spec["function"]["name"] for spec in server.requests[0]["tools"]] == ["shout", "add"]


def post_stream(server: ScriptedOpenAI, **extra) -> list:
    """The ``data:`` payloads of a streamed chat completion, read off the wire (the clients forgive too much)."""
    body = {"model": MODEL, "messages": [{"role": "user", "content": "hi"}], "stream": True, **extra}
    headers = {"Authorization": f"Bearer {KEY}", "Content-Type": "application/json"}
    request = urllib.request.Request(f"{server.base_url}/chat/completions", json.dumps(body).encode(), headers)
    with urllib.request.urlopen(request, timeout=5) as response:
        assert response.headers["Content-Type"].startswith("text/event-stream")
        events = response.read().decode().split("\n\n")
    assert events.pop() == "" and all(event.startswith("data: ") for event in events)
    return [event.removeprefix("data: ") for event in events]


def test_the_stream_is_in_openai_s_wire_format(server):
    server.responder = lambda body: Reply("Hi there", tool_calls=[("shout", {"text": "hi"})], reasoning="Let me see")

    events = post_stream(server, stream_options={"include_usage": True})

    assert events.pop() == "[DONE]"
    chunks = [json.loads(event) for event in events]
    assert {(chunk["object"], chunk["model"]) for chunk in chunks} == {("chat.completion.chunk", MODEL)}
    *answer, usage = chunks
    deltas = [chunk["choices"][0]["delta"] for chunk in answer]
    assert deltas[0] == {"role": "assistant", "content": ""}
    assert "".join(delta.get("reasoning_content", "") for delta in deltas) == "Let me see"
    assert [delta["content"] for delta in deltas[1:] if "content" in delta] == ["Hi ", "there"]
    first, *pieces = [delta["tool_calls"][0] for delta in deltas if "tool_calls" in delta]
    assert first == {"index": 0, "id": first["id"], "type": "function", "function": {"name": "shout", "arguments": ""}}
    assert len(pieces) >= 2 and {piece["index"] for piece in pieces} == {0}
    assert json.loads("".join(piece["function"]["arguments"] for piece in pieces)) == {"text": "hi"}
    assert [chunk["choices"][0]["finish_reason"] for chunk in answer][-2:] == [None, "tool_calls"]
    assert usage["choices"] == [] and set(usage["usage"]) == {"prompt_tokens", "completion_tokens", "total_tokens"}
    # Without include_usage, no usage chunk.
    assert json.loads(post_stream(server)[-2])["choices"][0]["finish_reason"] == "tool_calls"


def test_models_lists_what_the_server_serves_now(server):
    client = openai.OpenAI(base_url=server.base_url, api_key=KEY)

    assert [model.id for model in client.models.list()] == ["gpt-4.1-mini", "local-llama"]
    server.models = ["other-model"]
    [model] = client.models.list()
    assert (model.id, model.owned_by, model.created) == ("other-model", "scripted", 0)


def test_a_wrong_key_or_an_unknown_model_is_refused(server):
    wrong = "sk-proj-WRONGwrongWRONG1234"
    with pytest.raises(openai.AuthenticationError) as refused:
        chat_model(server, api_key=wrong).invoke("hi")
    with pytest.raises(openai.NotFoundError) as not_found:
        chat_model(server, model="gone-model").invoke("hi")

    assert refused.value.code == "invalid_api_key"
    assert refused.value.message.startswith(f"Error code: 401 - Incorrect API key provided: sk-proj-{'*' * 15}1234.")
    assert wrong not in str(refused.value)
    assert [request["_key_matched"] for request in server.requests] == [False, True]
    assert not_found.value.code == "model_not_found"
    assert "The model `gone-model` does not exist or you do not have access to it." in not_found.value.message


@pytest.mark.parametrize(
    "kind, error, status, code",
    [
        ("not_found", openai.NotFoundError, 404, "model_not_found"),
        ("rate_limit", openai.RateLimitError, 429, "rate_limit_exceeded"),
        ("server_error", openai.InternalServerError, 500, None),
        ("context_length", openai.BadRequestError, 400, "context_length_exceeded"),
    ],
)
def test_a_fault_raises_the_openai_error_once(server, kind, error, status, code):
    server.fail_next(kind)

    with pytest.raises(error) as caught:
        chat_model(server).invoke("hi")

    assert (caught.value.status_code, caught.value.code) == (status, code)
    assert chat_model(server).invoke("hi").content == "You said: hi"


def test_a_single_rate_limit_is_retried_by_the_client(server):
    server.fail_next("rate_limit")

    assert chat_model(server, max_retries=1).invoke("hi").content == "You said: hi"
    assert len(server.requests) == 2


def wait_for_requests(server: ScriptedOpenAI, count: int) -> None:
    deadline = time.monotonic() + 5
    while len(server.requests) < count:
        assert time.monotonic() < deadline, "the request did not arrive"
        time.sleep(0.01)


def test_a_hanging_request_times_out_while_others_are_answered(server):
    server.fail_next("hang")

    with ThreadPoolExecutor(1) as pool:
        hanging = pool.submit(chat_model(server, timeout=1.0).invoke, "wait")
        wait_for_requests(server, 1)
        assert chat_model(server).invoke("meanwhile").content == "You said: meanwhile"
        with pytest.raises(openai.APITimeoutError):
            hanging.result(timeout=5)


def test_stopping_the_server_ends_a_hanging_request_at_once():
    with ScriptedOpenAI() as server, ThreadPoolExecutor(1) as pool:
        server.fail_next("hang")
        hanging = pool.submit(chat_model(server, timeout=30).invoke, "wait")
        wait_for_requests(server, 1)
        started = time.monotonic()
        server.stop()
        with pytest.raises(openai.APIConnectionError):
            hanging.result(timeout=5)
    assert time.monotonic() - started < 2


def test_a_dropped_stream_yields_the_partial_text_then_raises(server):
    server.fail_next("drop_after_text")
    received = []

    with pytest.raises(openai.APIConnectionError):
        for chunk in chat_model(server).stream("tell me a story"):
            received.append(chunk.content)

    assert "".join(received) == "You "


def test_a_paced_stream_keeps_the_model_s_speed():
    pace = Pace(first_token=0.2, tokens_per_second=20)
    with ScriptedOpenAI(pace=pace) as server:
        server.responder = lambda body: Reply("one two three four five")
        model = chat_model(server)
        began = time.monotonic()
        arrived = [time.monotonic() - began for chunk in model.stream("go") if chunk.content]

    # The server sends token i at 0.2 s + i x 50 ms after it got the request, so no token can
    # arrive sooner than that after `began`; gaps between arrivals jitter with the client's reads.
    assert len(arrived) == 5
    for i, at in enumerate(arrived):
        assert 0.2 + i * 0.05 <= at < 0.2 + i * 0.05 + 0.25, (i, arrived)


def test_images_are_found_in_user_and_tool_messages(server):
    server.responder = notebook_script
    image = {"type": "image_url", "image_url": {"url": PNG_URL}}

    answer = chat_model(server).invoke([HumanMessage([{"type": "text", "text": "how many images?"}, image])])

    assert answer.content == "I see 1 image(s)."
    tool_result = {"role": "tool", "tool_call_id": "call_1", "content": [image, {"type": "text", "text": "ok"}]}
    assert image_parts({"messages": [*server.requests[0]["messages"], tool_result]}) == [PNG_URL, PNG_URL]


def conversation(line: str, *results: tuple, model: str = MODEL) -> dict:
    """A chat-completions body: the user's line and context, then each ``(tool, result)`` as a call and its answer."""
    messages = [{"role": "system", "content": "You help."}, {"role": "user", "content": f"{line}\n\nContext: a.ipynb"}]
    for number, (name, result) in enumerate(results):
        call = {"id": f"call_{number}", "type": "function", "function": {"name": name, "arguments": "{}"}}
        content = result if isinstance(result, (str, list)) else json.dumps(result)
        messages += [
            {"role": "assistant", "content": None, "tool_calls": [call]},
            {"role": "tool", "tool_call_id": call["id"], "content": content},
        ]
    return {"model": model, "messages": messages}


ADD = "add a cell that prints hi"
WRITE = "write the file notes.txt with hello"
USE = "use the tool shout with hello"
INSERTED = ("insert_cell", {"status": "applied", "cell_id": "c-9", "index": 1, "cell_type": "code"})
REJECTED = ("insert_cell", {"status": "rejected", "reason": None})
PRINTED = [{"output_type": "stream", "name": n, "text": t} for n, t in (("stdout", "hi\n"), ("stderr", "careful\n"))]
RAN = ("run_cell", {"status": "ok", "cell_id": "c-9", "execution_status": "ok", "outputs": PRINTED})
FAILED = ("run_cell", {"status": "error", "code": "no_kernel", "error": "No kernel."})


@pytest.mark.parametrize(
    "body, reply",
    [
        (conversation(ADD), call("insert_cell", {"source": "print('hi')", "cell_type": "code"})),
        (conversation(ADD, INSERTED), call("run_cell", {"cell_id": "c-9"})),
        (conversation(ADD, INSERTED, RAN), Reply("I added a cell and ran it. It printed: hi")),
        (conversation(ADD, REJECTED), Reply("You rejected insert_cell, so I left the notebook as it is.")),
        (conversation(ADD, INSERTED, FAILED), Reply("run_cell failed: No kernel.")),
        (conversation(WRITE), call("write_file", {"file_path": "/notes.txt", "content": "hello\n"})),
        (conversation(WRITE, ("write_file", "Updated file /notes.txt")), Reply("Done: Updated file /notes.txt")),
        (conversation(USE), call("shout", {"text": "hello"})),
        (conversation(USE, ("shout", [{"type": "text", "text": "HELLO!"}])), Reply("The tool said: HELLO!")),
        (conversation("think about it"), Reply("I thought it over.", reasoning="The user wants me to think first.")),
        (conversation("hi there", model="local-llama"), Reply("Hello from local-llama! You said: hi there")),
    ],
)
def test_the_notebook_script(body, reply):
    assert notebook_script(body) == reply


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def wait_for_health(port: int) -> None:
    deadline = time.monotonic() + 5
    while True:
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=1).close()
            return
        except OSError:
            assert time.monotonic() < deadline, "the server did not come up"
            time.sleep(0.05)


def test_the_server_runs_as_a_quiet_process_until_sigterm():
    port = free_port()
    command = [sys.executable, str(HERE / "scripted_openai.py"), "--port", str(port), "--script", "notebook"]
    with subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE) as process:
        try:
            wait_for_health(port)
            client = openai.OpenAI(base_url=f"http://127.0.0.1:{port}/v1", api_key="any", max_retries=0)
            answer = client.chat.completions.create(
                model=MODEL, messages=[{"role": "user", "content": "add a cell that prints hi"}]
            )
            process.send_signal(signal.SIGTERM)
            out, err = process.communicate(timeout=5)
        finally:
            if process.poll() is None:
                process.kill()
    [function] = [tool_call.function for tool_call in answer.choices[0].message.tool_calls]
    assert function.name == "insert_cell"
    assert json.loads(function.arguments) == {"source": "print('hi')", "cell_type": "code"}
    assert answer.usage.total_tokens > 0
    assert (process.returncode, out, err) == (0, b"", b"")


def mcp_client(*args: str) -> MultiServerMCPClient:
    server = {"transport": "stdio", "command": sys.executable, "args": [str(HERE / "mcp_stdio_server.py"), *args]}
    return MultiServerMCPClient({"t": server})


def mcp_text(content: list) -> str:
    return "".join(block["text"] for block in content)


async def test_the_mcp_server_offers_its_tools():
    tools = {mcp_tool.name: mcp_tool for mcp_tool in await mcp_client().get_tools()}

    assert sorted(tools) == ["add", "fail_always", "shout"]
    properties = tools["add"].args_schema["properties"]
    assert {name: spec["type"] for name, spec in properties.items()} == {"a": "integer", "b": "integer"}


async def test_the_mcp_tools_answer_and_fail_in_one_session():
    # get_tools() alone starts the server again for every call; one session is one process, as the product holds.
    async with mcp_client().session("t") as session:
        tools = {mcp_tool.name: mcp_tool for mcp_tool in await load_mcp_tools(session)}
        shouted = await tools["shout"].ainvoke({"text": "hi"})
        added = await tools["add"].ainvoke({"a": 2, "b": 3})
        failed = await tools["fail_always"].ainvoke(
            {"type": "tool_call", "id": "call_1", "name": "fail_always", "args": {"text": "x"}}
        )

    assert (mcp_text(shouted), mcp_text(added)) == ("HI!", "5")
    assert failed.status == "error"
    assert mcp_text(failed.content) == "Error executing tool fail_always: fail_always refuses 'x'"


async def test_an_mcp_server_that_crashes_at_start_fails_get_tools():
    crashed = subprocess.run([sys.executable, str(HERE / "mcp_stdio_server.py"), "--crash"], capture_output=True)
    assert crashed.returncode == 3

    with pytest.raises(Exception) as caught:
        await mcp_client("--crash").get_tools()

    assert caught.group_contains(McpError, match="Connection closed")
