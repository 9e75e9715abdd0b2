"""Turns that fail after the stream started end on one ``error`` frame."""
import pytest

from helpers import GRAPHS, assert_one_terminal_last, graph_spec, text_of


class TestGraphRaises:
    @pytest.fixture
    def agent_panel_config(self):
        return {"agent_spec": graph_spec("failing")}

    async def test_error_frame_is_last_after_the_partial_text(self, run_turn):
        frames = await run_turn("chat", {"message": "hi", "thread_id": "t"})

        assert text_of(frames) == "partial answer"
        assert assert_one_terminal_last(frames) == {"status": "error", "error": "RuntimeError: boom"}


class TestFrameCannotBeEncoded:
    @pytest.fixture
    def agent_panel_config(self):
        return {"extractors": [f"{GRAPHS / 'extractors.py'}:unserializable"]}

    async def test_server_ends_the_turn_with_an_error_frame(self, run_turn, jp_fetch):
        frames = await run_turn("chat", {"message": "use a tool", "thread_id": "t"})

        assert [f["tool_result"] for f in frames if "tool_result" in f]  # streamed up to the extraction
        assert assert_one_terminal_last(frames) == {
            "status": "error",
            "error": "TypeError: Object of type set is not JSON serializable",
        }
        assert (await jp_fetch("agent-panel", "health")).code == 200
