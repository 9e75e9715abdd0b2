"""Choosing the graph: ``AgentPanel`` config, command line, environment, failures."""
import json
import shutil

import pytest

from helpers import GRAPHS, assert_one_terminal_last, graph_spec, text_of

ECHO_SPEC = graph_spec("echo_all")


async def health(jp_fetch) -> dict:
    return json.loads((await jp_fetch("agent-panel", "health")).body)


class TestSpecFromConfig:
    @pytest.fixture
    def agent_panel_config(self):
        return {"agent_spec": ECHO_SPEC}

    async def test_config_trait_selects_the_graph(self, jp_fetch, run_turn):
        assert await health(jp_fetch) == {
            "status": "healthy",
            "agent_loaded": True,
            "ready": True,
            "message": "Agent ready: Echo All",
            "spec": ECHO_SPEC,
            "agent_name": "Echo All",
        }
        frames = await run_turn("chat", {"message": "hi", "thread_id": "t"})
        assert text_of(frames) == "echo: hi"

    async def test_config_trait_wins_over_the_environment(self, jp_fetch, monkeypatch):
        monkeypatch.setenv("LANGSTAGE_AGENT_SPEC", graph_spec("slow"))

        assert (await health(jp_fetch))["spec"] == ECHO_SPEC


class TestSpecFromCommandLine:
    @pytest.fixture
    def jp_argv(self):
        return [f"--AgentPanel.agent_spec={ECHO_SPEC}"]

    async def test_command_line_option_selects_the_graph(self, jp_fetch):
        assert (await health(jp_fetch))["agent_name"] == "Echo All"


async def test_environment_variable_selects_the_graph(jp_fetch, run_turn, monkeypatch):
    monkeypatch.setenv("LANGSTAGE_AGENT_SPEC", ECHO_SPEC)

    assert (await health(jp_fetch))["spec"] == ECHO_SPEC
    assert text_of(await run_turn("chat", {"message": "hi", "thread_id": "t"})) == "echo: hi"


class TestRelativeFileSpec:
    @pytest.fixture
    def agent_panel_config(self, jp_root_dir):
        shutil.copy(GRAPHS / "echo_all.py", jp_root_dir / "my_agent.py")
        return {"agent_spec": "my_agent.py:graph"}

    async def test_a_relative_file_resolves_against_the_server_root(self, jp_fetch):
        assert (await health(jp_fetch))["agent_name"] == "Echo All"


class TestUnnamedGraph:
    @pytest.fixture
    def agent_panel_config(self):
        return {"agent_spec": graph_spec("failing")}

    async def test_health_has_no_agent_name(self, jp_fetch):
        body = await health(jp_fetch)

        assert "agent_name" not in body
        assert body["message"] == f"Agent ready: {graph_spec('failing')}"


class TestBadSpec:
    @pytest.fixture
    def agent_panel_config(self):
        return {"agent_spec": "no_such_module_for_agent_panel:graph"}

    async def test_health_reports_the_load_error(self, jp_fetch):
        body = await health(jp_fetch)

        assert (body["status"], body["agent_loaded"], body["ready"]) == ("agent_not_loaded", False, False)
        assert body["message"] == (
            "Could not load agent 'no_such_module_for_agent_panel:graph': "
            "ModuleNotFoundError: No module named 'no_such_module_for_agent_panel'"
        )

    @pytest.mark.parametrize(
        ("route", "body"),
        [
            ("chat", {"message": "hi", "thread_id": "t"}),
            ("resume", {"thread_id": "t", "decisions": [{"type": "approve"}]}),
        ],
    )
    async def test_turns_get_503_naming_the_load_error(self, post_json, route, body):
        response = await post_json(route, body)

        assert response.code == 503
        assert json.loads(response.body) == {
            "message": "Agent not loaded: Could not load agent 'no_such_module_for_agent_panel:graph': "
            "ModuleNotFoundError: No module named 'no_such_module_for_agent_panel'",
            "reason": "no_agent",
        }


class TestConfiguredExtractors:
    @pytest.fixture
    def agent_panel_config(self):
        return {"extractors": [f"{GRAPHS / 'extractors.py'}:AnswerOnlyExtractor"]}

    async def test_configured_extractors_replace_the_demo_ones(self, run_turn):
        frames = await run_turn("chat", {"message": "use a tool", "thread_id": "t"})

        extractions = [f["extraction"] for f in frames if "extraction" in f]
        assert extractions == [{"tool_name": "demo_lookup", "extracted_type": "answer_only", "data": {"answer": "42"}}]
        assert assert_one_terminal_last(frames)["status"] == "complete"


class TestBadExtractor:
    @pytest.fixture
    def agent_panel_config(self):
        return {"extractors": [f"{GRAPHS / 'extractors.py'}:NoSuchExtractor"]}

    async def test_health_names_the_extractor(self, jp_fetch):
        body = await health(jp_fetch)

        assert body["status"] == "agent_not_loaded"
        spec = f"{GRAPHS / 'extractors.py'}:NoSuchExtractor"
        assert body["message"].startswith(f"Could not load extractor '{spec}': AttributeError")
