"""A provider's failures end the turn in words (docs/protocol.md §16.4), and keys are never shown.

The scripted OpenAI-compatible server answers as OpenAI does when it refuses
a key (401, quoting the key masked), has no such model (404), rate-limits
(429), fails (500), finds the conversation too long (400
``context_length_exceeded``), does not answer (a timeout) or drops the
connection mid-answer; ``langchain-openai`` raises what the ``openai`` SDK
raises, and the turn ends with one error frame that says what to do.
"""
from __future__ import annotations

import logging

import pytest

from builtin_helpers import MODEL, assert_no_key, new_thread, usage_frames
from helpers import assert_one_terminal_last, text_of

GONE = "openai:gone-model"  # configured, but the provider has no such model


@pytest.fixture
def agent_panel_config(model_env):
    return {"model": MODEL, "models": [GONE], "model_timeout_seconds": 1.5, "model_max_retries": 1}


async def say(run_turn, message: str = "hello") -> list:
    return await run_turn("chat", {"message": message, "thread_id": new_thread()})


def error_of(frames: list) -> str:
    terminal = assert_one_terminal_last(frames)
    assert terminal["status"] == "error", frames
    return terminal["error"]


async def test_a_refused_key_names_the_variable_and_shows_no_key(run_turn, monkeypatch, caplog):
    caplog.set_level(logging.DEBUG)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-proj-WRONGwrongWRONG1234")

    frames = await say(run_turn)

    error = error_of(frames)
    assert error.startswith("openai:gpt-4.1-mini refused the key (401): Incorrect API key provided: [redacted].")
    assert error.endswith(f"Check OPENAI_API_KEY {where_to_set(error)}.")
    for text in (str(frames), caplog.text):
        assert "WRONGwrong" not in text and "sk-proj" not in text and "****" not in text


def where_to_set(error: str) -> str:
    return error[error.index("in the server's environment or ") :].removesuffix(".")


async def test_a_model_the_provider_lacks_says_so(run_turn):
    frames = await run_turn("chat", {"message": "hello", "thread_id": new_thread(), "model": GONE})

    assert error_of(frames) == (
        "openai:gone-model: the provider has no such model (404: The model `gone-model` does not exist or you do "
        "not have access to it.). Pick another model, or check its name in AgentPanel.model / AgentPanel.models."
    )


async def test_a_rate_limit_is_retried(run_turn, model_env):
    model_env.fail_next("rate_limit")

    frames = await say(run_turn)

    assert text_of(frames) == "Hello from gpt-4.1-mini! You said: hello"
    assert len(model_env.requests) == 2


async def test_a_rate_limit_that_lasts_ends_the_turn_after_the_retries(run_turn, model_env):
    model_env.fail_next("rate_limit", times=2)

    frames = await say(run_turn)

    assert error_of(frames) == (
        "openai:gpt-4.1-mini is rate limited (429, still after 1 retries): Rate limit reached for gpt-4.1-mini on "
        "requests per min (RPM): Limit 3, Used 3.. Wait a moment and send again, or pick another model."
    )


async def test_a_model_that_does_not_answer_times_out(run_turn, model_env):
    model_env.fail_next("hang", times=2)

    frames = await say(run_turn)

    assert error_of(frames) == (
        "openai:gpt-4.1-mini did not answer within 1.5 s (AgentPanel.model_timeout_seconds). "
        "Send again, or raise the timeout."
    )


async def test_a_conversation_too_long_for_the_model_says_to_start_another(run_turn, model_env):
    model_env.fail_next("context_length")

    frames = await say(run_turn)

    assert error_of(frames).startswith("The conversation is longer than openai:gpt-4.1-mini can read (")
    assert error_of(frames).endswith("Start a new conversation, or pick a model with a longer context.")


async def test_a_server_failure_says_to_try_later(run_turn, model_env):
    model_env.fail_next("server_error", times=2)

    frames = await say(run_turn)

    assert error_of(frames) == (
        "openai:gpt-4.1-mini's server failed (500): The server had an error while processing your request.. "
        "Send again later."
    )


async def test_an_answer_cut_mid_stream_keeps_what_came(run_turn, model_env):
    model_env.fail_next("drop_after_text")

    frames = await say(run_turn, "tell me something")

    assert text_of(frames) == "Hello "
    assert error_of(frames).startswith(f"The connection to {model_env.base_url} failed or broke (")
    assert usage_frames(frames) == []


async def test_no_answer_or_log_line_shows_the_key(run_turn, post_json, jp_fetch, model_env, caplog):
    caplog.set_level(logging.DEBUG)
    model_env.fail_next("rate_limit", times=2)
    texts = [str(await say(run_turn)), str(await say(run_turn, "add a cell that prints hi"))]
    for route in ("health", "models", "agents"):
        texts.append((await jp_fetch("agent-panel", route)).body.decode())
    texts.append((await post_json("chat", {"message": "x", "thread_id": "t", "model": "openai:nope"})).body.decode())

    for text in [*texts, caplog.text]:
        assert_no_key(text)
    # The key did go where it belongs: to the provider.
    assert model_env.requests and all(request["_key_matched"] for request in model_env.requests)
