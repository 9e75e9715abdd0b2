"""The built-in agent on a real provider client (docs/protocol.md §16.1, §16.4, §16.5).

``langchain-openai`` talks to the tests' scripted OpenAI-compatible server
(``scripted_openai.py``, the notebook script) through ``OPENAI_BASE_URL``; MCP
tools come from a real MCP server over stdio (``mcp_stdio_server.py``); the
test plays the panel for the notebook tools (``notebook_panel.py``).
"""
from __future__ import annotations

import json

import pytest

from builtin_helpers import (
    COMPLETE,
    INTERRUPTED,
    MODEL,
    interrupts,
    json_body,
    mcp_server,
    new_thread,
    tool_results,
    usage_frames,
)
from helpers import assert_one_terminal_last, text_of
from jupyterlab_agent_panel.builtin.mcp import tool_title
from notebook_panel import Cell, Notebook, NotebookPanel


@pytest.fixture
def agent_panel_config(model_env):
    return {"model": MODEL}


def scratch_panel() -> NotebookPanel:
    return NotebookPanel([Notebook("scratch.ipynb", [Cell("s-1", "x = 1")])], active_path="scratch.ipynb")


async def test_an_answer_streams_and_reports_its_usage(run_turn, model_env):
    frames = await run_turn("chat", {"message": "hello there", "thread_id": new_thread()})

    assert text_of(frames) == "Hello from gpt-4.1-mini! You said: hello there"
    assert len([f for f in frames if "chunk" in f]) > 1  # token by token
    [request] = model_env.requests
    assert request["stream"] is True and request["model"] == "gpt-4.1-mini"
    assert "JupyterLab" in json.dumps(request["messages"][0])  # the notebook agent's system prompt
    offered = {tool["function"]["name"] for tool in request["tools"]}
    assert {"insert_cell", "run_cell", "write_todos", "write_file", "edit_file"} <= offered
    prompt = len(json.dumps(request["messages"])) // 4  # what the scripted server reports
    assert usage_frames(frames) == [{"status": "usage", "input_tokens": prompt, "output_tokens": 7}]
    assert frames[-2]["status"] == "usage"
    assert assert_one_terminal_last(frames) == COMPLETE


async def test_the_model_reads_the_earlier_turns_of_its_thread(run_turn, model_env):
    thread_id = new_thread()
    await run_turn("chat", {"message": "my name is Ada", "thread_id": thread_id})
    await run_turn("chat", {"message": "what is my name?", "thread_id": thread_id})

    said = [(m["role"], m["content"]) for m in model_env.requests[-1]["messages"][1:]]
    assert said == [
        ("user", "my name is Ada"),
        ("assistant", "Hello from gpt-4.1-mini! You said: my name is Ada"),
        ("user", "what is my name?"),
    ]


async def test_a_notebook_tool_pauses_and_its_result_reaches_the_model(run_turn, model_env):
    nb, thread_id = scratch_panel(), new_thread()
    turns = [await run_turn("chat", {"message": "add a cell that prints hi", "thread_id": thread_id})]
    while turns[-1][-1] == INTERRUPTED:
        [pending] = interrupts(turns[-1])
        turns.append(await run_turn("resume", {"thread_id": thread_id, "decisions": nb.decisions(pending)}))

    assert nb.called() == ["insert_cell", "run_cell"]
    assert [c.source for c in nb.notebooks["scratch.ipynb"].cells] == ["x = 1", "print('hi')"]
    assert text_of(turns[-1]) == "I added a cell and ran it. It printed: hi"
    assert assert_one_terminal_last(turns[-1]) == COMPLETE
    # Each result went to the model whole, as the panel sent it.
    inserted, ran = (json.loads(m["content"]) for m in tool_results(model_env.requests[-1]))
    assert inserted["status"] == "applied" and inserted["source"] == "print('hi')"
    assert ran["execution_status"] == "ok"
    assert ran["outputs"] == [{"output_type": "stream", "name": "stdout", "text": "hi\n"}]
    # Every turn that called the model says what it used.
    assert all(len(usage_frames(turn)) == 1 for turn in turns)


async def test_a_file_write_is_reviewed_and_happens_only_once_approved(run_turn, jp_root_dir):
    thread_id = new_thread()
    paused = await run_turn("chat", {"message": "write the file notes.txt with hello", "thread_id": thread_id})

    [review] = interrupts(paused)
    [request] = review["action_requests"]
    assert (request["name"], request["args"]) == ("write_file", {"file_path": "/notes.txt", "content": "hello\n"})
    assert request["description"] == "Write /notes.txt"
    assert review["review_configs"][0]["allowed_decisions"] == ["approve", "edit", "reject"]
    assert not (jp_root_dir / "notes.txt").exists()

    resumed = await run_turn("resume", {"thread_id": thread_id, "decisions": [{"type": "approve"}]})

    assert (jp_root_dir / "notes.txt").read_text() == "hello\n"
    assert text_of(resumed).startswith("Done: ")
    assert assert_one_terminal_last(resumed) == COMPLETE


async def test_a_rejected_file_write_writes_nothing(run_turn, jp_root_dir):
    thread_id = new_thread()
    await run_turn("chat", {"message": "write the file notes.txt with hello", "thread_id": thread_id})

    reject = [{"type": "reject", "message": "not now"}]
    resumed = await run_turn("resume", {"thread_id": thread_id, "decisions": reject})

    assert not (jp_root_dir / "notes.txt").exists()
    # The model is told why (the scripted model quotes what it was told).
    assert text_of(resumed) == "Done: User rejected the tool call for `write_file` with reason: not now"


async def test_the_file_tools_do_not_read_env_files(run_turn, model_env, jp_root_dir):
    secret = "SECRET_SHOULD_NOT_LEAK_42"
    (jp_root_dir / ".env").write_text(f"MY_TOKEN={secret}\n")
    (jp_root_dir / "sub").mkdir()
    (jp_root_dir / "sub" / ".env").write_text(f"OTHER={secret}\n")
    (jp_root_dir / "notes.txt").write_text(f"no {secret[:6]} here\n")

    read = await run_turn("chat", {"message": "read the file .env", "thread_id": new_thread()})
    nested = await run_turn("chat", {"message": "read the file sub/.env", "thread_id": new_thread()})
    found = await run_turn("chat", {"message": f"search the files for {secret[:6]}", "thread_id": new_thread()})

    assert text_of(read) == "Error: permission denied for read on /.env"
    assert text_of(nested) == "Error: permission denied for read on /sub/.env"
    assert "/notes.txt" in text_of(found) and ".env" not in text_of(found)
    assert secret not in str(model_env.requests)


@pytest.mark.parametrize(
    ("description", "title"),
    [
        ("Add two integers.", "Add two integers"),
        ("Fetch a page. Returns its text.\nArgs: url", "Fetch a page"),
        ("  List the rows\nwith their ids", "List the rows"),
        ("What is 6 × 7? Ask it.", "What is 6 × 7?"),
        ("x" * 200, "x" * 119 + "…"),
        ("", ""),
        (None, ""),
    ],
)
def test_an_mcp_tools_title_is_its_descriptions_first_sentence(description, title):
    assert tool_title(description) == title


class TestMcpServers:
    @pytest.fixture
    def agent_panel_config(self, model_env):
        return {"model": MODEL, "mcp_servers": {"tests": mcp_server(), "broken": mcp_server("--crash")}}

    async def test_an_mcp_tool_is_called_and_its_result_shown(self, run_turn, model_env):
        frames = await run_turn("chat", {"message": "use the tool shout with hello", "thread_id": new_thread()})

        [call] = [f["tool_calls"][0] for f in frames if "tool_calls" in f]
        assert (call["name"], call["args"]) == ("shout", {"text": "hello"})
        # Its line in the panel says what it does, from the server's description.
        assert call["title"] == "Say the text louder: upper case, with an exclamation mark"
        assert {"shout", "add", "fail_always"} <= {tool["function"]["name"] for tool in model_env.requests[0]["tools"]}
        [result] = [f for f in frames if "tool_result" in f]
        assert (result["tool_result"], result["tool_status"]) == ("HELLO!", "success")
        assert text_of(frames) == "The tool said: HELLO!"
        assert assert_one_terminal_last(frames) == COMPLETE

    async def test_a_failing_mcp_tool_answers_the_model_with_its_error(self, run_turn):
        frames = await run_turn("chat", {"message": "use the tool fail_always with x", "thread_id": new_thread()})

        [result] = [f for f in frames if "tool_result" in f]
        assert result["tool_status"] == "error"
        assert "fail_always refuses 'x'" in result["tool_result"]
        assert assert_one_terminal_last(frames) == COMPLETE

    async def test_a_broken_mcp_server_is_named_in_health_and_left_out(self, jp_fetch):
        health = json_body(await jp_fetch("agent-panel", "health"))

        assert health["ready"] is True and health["status"] == "healthy"
        ready = "Notebook agent ready on openai:gpt-4.1-mini. MCP server 'broken' is left out: "
        assert health["message"].startswith(ready)


class TestReviewedMcpServer:
    @pytest.fixture
    def agent_panel_config(self, model_env):
        return {"model": MODEL, "mcp_servers": {"tests": mcp_server(review=True)}}

    async def test_its_calls_wait_for_a_review(self, run_turn, model_env):
        thread_id = new_thread()
        paused = await run_turn("chat", {"message": "use the tool shout with hi", "thread_id": thread_id})

        [review] = interrupts(paused)
        assert [r["name"] for r in review["action_requests"]] == ["shout"]
        assert review["review_configs"][0]["allowed_decisions"] == ["approve", "reject"]
        assert review["action_requests"][0]["description"].startswith("MCP server 'tests': ")
        assert assert_one_terminal_last(paused) == INTERRUPTED

        resumed = await run_turn("resume", {"thread_id": thread_id, "decisions": [{"type": "approve"}]})

        assert text_of(resumed) == "The tool said: HI!"
