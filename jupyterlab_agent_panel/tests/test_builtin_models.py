"""The built-in agent's models (docs/protocol.md §16.2, §16.3): which are on offer, which can be used,
a turn's own model, the keyless demo when none is configured, keys from ``<root>/.env``."""
from __future__ import annotations

import pytest

from builtin_helpers import CLAUDE, COMPLETE, KEY, LOCAL, MODEL, json_body, new_thread
from helpers import GRAPHS, assert_one_terminal_last, text_of

MISSING_CLAUDE_KEY = "ANTHROPIC_API_KEY is not set (in the server's environment or {root}/.env)"


class TestConfiguredModels:
    @pytest.fixture
    def agent_panel_config(self, model_env):
        return {"model": MODEL, "models": [CLAUDE, "not a model name"]}

    async def test_the_models_on_offer_say_which_can_be_used_and_why_not(self, jp_fetch, jp_root_dir):
        offers = json_body(await jp_fetch("agent-panel", "models"))

        missing = MISSING_CLAUDE_KEY.format(root=jp_root_dir)
        assert offers == {
            "choosable": True,
            "default": MODEL,
            "models": [
                {"id": MODEL, "provider": "openai", "name": "gpt-4.1-mini", "usable": True, "vision": True,
                 "source": "configured"},
                {"id": CLAUDE, "provider": "anthropic", "name": "claude-sonnet-4-5", "usable": False,
                 "reason": missing, "vision": False, "source": "configured"},
                # Listed by the OpenAI-compatible server; LangChain knows nothing of its images.
                {"id": LOCAL, "provider": "openai", "name": "local-llama", "usable": True, "vision": False,
                 "source": "server"},
            ],
            "problems": [],
        }

    async def test_health_names_the_default_model(self, jp_fetch):
        health = json_body(await jp_fetch("agent-panel", "health"))

        assert (health["ready"], health["model_choice"], health["model"]) == (True, True, MODEL)
        assert health["message"] == "Notebook agent ready on openai:gpt-4.1-mini"

    async def test_a_turn_runs_on_the_model_it_names_and_the_next_on_the_default(self, run_turn, model_env):
        thread_id = new_thread()
        local = await run_turn("chat", {"message": "hi", "thread_id": thread_id, "model": LOCAL})
        default = await run_turn("chat", {"message": "again", "thread_id": thread_id})

        assert text_of(local) == "Hello from local-llama! You said: hi"
        assert text_of(default) == "Hello from gpt-4.1-mini! You said: again"
        assert [r["model"] for r in model_env.requests] == ["local-llama", "gpt-4.1-mini"]
        # One memory for every model: the default read what local-llama said.
        assert "Hello from local-llama! You said: hi" in str(model_env.requests[-1]["messages"])

    async def test_a_model_not_on_offer_is_refused_and_the_thread_stays_usable(self, post_json, run_turn):
        thread_id = new_thread()
        refused = await post_json("chat", {"message": "hi", "thread_id": thread_id, "model": "openai:gpt-9"})

        assert refused.code == 400
        assert json_body(refused) == {
            "reason": "unknown_model",
            "message": "The model 'openai:gpt-9' is not on offer here; the models on offer are: "
            "openai:gpt-4.1-mini, anthropic:claude-sonnet-4-5, openai:local-llama",
        }
        assert text_of(await run_turn("chat", {"message": "hi", "thread_id": thread_id})).startswith("Hello")

    async def test_an_unusable_model_is_refused_with_what_to_do(self, post_json, jp_root_dir, model_env):
        refused = await post_json("chat", {"message": "hi", "thread_id": new_thread(), "model": CLAUDE})

        assert refused.code == 503
        missing = MISSING_CLAUDE_KEY.format(root=jp_root_dir)
        assert json_body(refused) == {
            "reason": "model_unavailable",
            "message": f"The model anthropic:claude-sonnet-4-5 cannot be used: {missing}",
        }
        assert model_env.requests == []

    @pytest.mark.parametrize("model", [3, "", "x" * 257])
    async def test_a_model_that_is_not_a_name_is_a_bad_request(self, post_json, model):
        refused = await post_json("chat", {"message": "hi", "thread_id": new_thread(), "model": model})

        assert (refused.code, json_body(refused)["reason"]) == (400, "bad_request")

    async def test_a_resume_runs_on_the_model_it_names(self, run_turn, model_env):
        thread_id = new_thread()
        await run_turn("chat", {"message": "write the file a.txt with x", "thread_id": thread_id, "model": LOCAL})
        resumed = await run_turn(
            "resume", {"thread_id": thread_id, "decisions": [{"type": "approve"}], "model": MODEL}
        )

        assert [r["model"] for r in model_env.requests] == ["local-llama", "gpt-4.1-mini"]
        assert assert_one_terminal_last(resumed) == COMPLETE


class TestNoModelConfigured:
    @pytest.fixture
    def agent_panel_config(self, model_env):
        return {}

    async def test_the_keyless_demo_answers_until_a_turn_picks_a_model(self, run_turn, jp_fetch, model_env):
        thread_id = new_thread()
        offers = json_body(await jp_fetch("agent-panel", "models"))
        demo = await run_turn("chat", {"message": "hello", "thread_id": thread_id})
        asked_by_the_demo = len(model_env.requests)
        picked = await run_turn("chat", {"message": "hello", "thread_id": thread_id, "model": MODEL})

        assert offers["default"] is None
        assert [m["id"] for m in offers["models"]] == [MODEL, LOCAL]  # what the local server lists
        assert asked_by_the_demo == 0 and text_of(demo) == "(demo agent) You said: hello"
        assert text_of(picked) == "Hello from gpt-4.1-mini! You said: hello"
        assert len(model_env.requests) == 1


class TestUnusableDefault:
    @pytest.fixture
    def agent_panel_config(self, model_env):
        return {"model": CLAUDE}

    async def test_health_says_what_is_missing_and_a_usable_model_still_runs(self, jp_fetch, post_json, run_turn):
        health = json_body(await jp_fetch("agent-panel", "health"))
        refused = await post_json("chat", {"message": "hi", "thread_id": new_thread()})
        picked = await run_turn("chat", {"message": "hi", "thread_id": new_thread(), "model": MODEL})

        assert (health["ready"], health["status"]) == (False, "model_unavailable")
        assert health["message"].startswith("The model anthropic:claude-sonnet-4-5 cannot be used: ANTHROPIC_API_KEY")
        assert (refused.code, json_body(refused)["reason"]) == (503, "model_unavailable")
        assert text_of(picked) == "Hello from gpt-4.1-mini! You said: hi"


class TestDotenv:
    @pytest.fixture
    def agent_panel_config(self, monkeypatch, openai_server, jp_root_dir):
        for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "OPENAI_API_BASE", "AGENT_PANEL_MODEL"):
            monkeypatch.delenv(name, raising=False)
        (jp_root_dir / ".env").write_text(f"OPENAI_API_KEY={KEY}\nOPENAI_BASE_URL={openai_server.base_url}\n")
        return {"model": MODEL}

    async def test_the_key_and_endpoint_come_from_the_root_folders_env_file(self, run_turn, openai_server):
        frames = await run_turn("chat", {"message": "hi", "thread_id": new_thread()})

        assert text_of(frames) == "Hello from gpt-4.1-mini! You said: hi"
        assert openai_server.requests[0]["_key_matched"] is True

    async def test_a_key_changed_in_the_file_is_used_at_once(self, run_turn, post_json, jp_root_dir, openai_server):
        await run_turn("chat", {"message": "hi", "thread_id": new_thread()})
        wrong_key = f"OPENAI_API_KEY=sk-wrong-0000000000\nOPENAI_BASE_URL={openai_server.base_url}\n"
        (jp_root_dir / ".env").write_text(wrong_key)

        frames = await run_turn("chat", {"message": "hi", "thread_id": new_thread()})

        assert openai_server.requests[-1]["_key_matched"] is False
        assert frames[-1]["status"] == "error" and "refused the key (401)" in frames[-1]["error"]


class TestOwnGraph:
    @pytest.fixture
    def agent_panel_config(self):
        return {"agent_spec": f"{GRAPHS / 'echo_all.py'}:graph"}

    async def test_a_graph_of_the_users_offers_no_models_and_refuses_one(self, jp_fetch, post_json):
        offers = json_body(await jp_fetch("agent-panel", "models"))
        refused = await post_json("chat", {"message": "hi", "thread_id": new_thread(), "model": MODEL})

        assert offers == {"choosable": False, "default": None, "models": [], "problems": []}
        assert refused.code == 400
        assert json_body(refused)["message"] == "Agent 'default' serves its own graph: it offers no choice of model"


class TestProviderPackageMissing:
    @pytest.fixture
    def agent_panel_config(self, model_env, monkeypatch):
        monkeypatch.setenv("MISTRAL_API_KEY", "mistral-key-for-tests-123")
        return {"model": MODEL, "models": ["mistralai:mistral-large-latest"]}

    async def test_the_package_to_install_is_named(self, jp_fetch, post_json):
        offers = json_body(await jp_fetch("agent-panel", "models"))
        body = {"message": "hi", "thread_id": new_thread(), "model": "mistralai:mistral-large-latest"}
        refused = await post_json("chat", body)

        missing = "the package langchain-mistralai is not installed: pip install langchain-mistralai"
        assert [(m["usable"], m.get("reason")) for m in offers["models"] if m["provider"] == "mistralai"] == [
            (False, missing)
        ]
        assert json_body(refused) == {
            "reason": "model_unavailable",
            "message": f"The model mistralai:mistral-large-latest cannot be used: {missing}",
        }
