"""The trailing context block (docs/protocol.md §6.2) and what the agents see of it."""
import pytest
from langstage_core.demo._context import user_text

from helpers import PANEL_CAPPED, PANEL_CONTEXT_FORMS, graph_spec, text_of
from jupyterlab_agent_panel.context import (
    ATTACHMENT_LIMIT,
    MAX_ATTACHMENTS,
    SELECTION_LIMIT,
    attachments_problem,
    message_with_context,
)

FULL_CONTEXT = {
    "current_directory": "notes",
    "focused_widget": "notes/analysis.ipynb",
    "selected_text": "x = 1",
    "selection_metadata": "cell_3",
}
FULL_BLOCK = (
    "\n\nCurrent directory: notes"
    "\nCurrently focused file: notes/analysis.ipynb"
    "\nUser has selected the following text from cell index 3:\n```\nx = 1\n```"
)

def test_the_panel_caps_within_the_limit():
    assert len(PANEL_CAPPED) <= SELECTION_LIMIT


def test_all_fields_make_one_trailing_block():
    assert message_with_context("hello", FULL_CONTEXT) == "hello" + FULL_BLOCK


@pytest.mark.parametrize("context", [None, {}, {"current_directory": "", "selected_text": "  "}])
def test_no_context_leaves_the_message_unchanged(context):
    assert message_with_context("hello", context) == "hello"


@pytest.mark.parametrize(
    ("focused", "line"),
    [
        ("notes/analysis.ipynb", "Currently focused file: notes/analysis.ipynb"),
        ("script.py", "Currently focused file: script.py"),
        ("Launcher", "Currently focused: Launcher"),
    ],
)
def test_focused_widget_is_a_file_or_a_title(focused, line):
    assert message_with_context("m", {"focused_widget": focused}) == f"m\n\n{line}"


@pytest.mark.parametrize(
    ("metadata", "opening"),
    [
        ("cell_0", "User has selected the following text from cell index 0:"),
        ("line_7", "User has selected the following text from line 7:"),
        ("lines_3-9", "User has selected the following text from lines 3-9:"),
        ("", "User has selected the following text:"),
        ("somewhere", "User has selected the following text:"),
    ],
)
def test_selection_says_where_it_came_from(metadata, opening):
    block = message_with_context("m", {"selected_text": "s", "selection_metadata": metadata})

    assert block == f"m\n\n{opening}\n```\ns\n```"


def test_long_selection_is_cut_to_the_limit():
    selected = "a" * SELECTION_LIMIT + "b" * 5

    block = message_with_context("m", {"selected_text": selected})

    assert block == (
        "m\n\nUser has selected the following text:\n```\n"
        + "a" * SELECTION_LIMIT
        + "\n… (truncated, 5 more characters)\n```"
    )


def test_fence_outgrows_backticks_in_the_selection():
    block = message_with_context("m", {"selected_text": "```py\nx\n```"})

    assert block.endswith("\n````\n```py\nx\n```\n````")


@pytest.mark.parametrize("context", [FULL_CONTEXT, {"focused_widget": "Launcher"}, {"selected_text": "s"}])
def test_langstage_demo_strips_exactly_the_block(context):
    message = "hello\n\nsecond paragraph"

    assert user_text(message_with_context(message, context)) == message


ERROR_ATTACHMENT = {
    "kind": "error",
    "source": "cell 2 of notes/analysis.ipynb",
    "text": "ZeroDivisionError: division by zero\n----> 1 y = x / 0",
}


def test_attachments_follow_the_selection_each_saying_where_it_came_from():
    image = {"kind": "image", "source": "cell 1 of a.ipynb", "text": "[image output: image/png, 70 bytes]"}
    block = message_with_context("m", {"selected_text": "s", "attachments": [ERROR_ATTACHMENT, image]})

    assert block == (
        "m\n\nUser has selected the following text:\n```\ns\n```"
        "\nUser has attached the error output of cell 2 of notes/analysis.ipynb:"
        "\n```\nZeroDivisionError: division by zero\n----> 1 y = x / 0\n```"
        "\nUser has attached an image output of cell 1 of a.ipynb:\n```\n[image output: image/png, 70 bytes]\n```"
    )


def test_files_notebooks_and_cells_say_what_they_are():
    attachments = [
        {"kind": "file", "source": "data/notes.txt", "text": "hello"},
        {"kind": "notebook", "source": "a.ipynb", "text": "# %% cell 1 [code]\nx = 1"},
        {"kind": "cell", "source": "cell 3 of a.ipynb", "text": "y = 2"},
    ]
    block = message_with_context("m", {"attachments": attachments})

    assert block == (
        "m\n\n"
        "User has attached the file data/notes.txt:\n```\nhello\n```\n"
        "User has attached the cell sources of the notebook a.ipynb:\n```\n# %% cell 1 [code]\nx = 1\n```\n"
        "User has attached the source of cell 3 of a.ipynb:\n```\ny = 2\n```"
    )


def test_a_long_attachment_is_cut_to_its_limit():
    text = "x" * (ATTACHMENT_LIMIT + 3)
    block = message_with_context("m", {"attachments": [{"kind": "output", "source": "s", "text": text}]})

    assert block.endswith("x" * ATTACHMENT_LIMIT + "\n… (truncated, 3 more characters)\n```")


@pytest.mark.parametrize(
    ("value", "problem"),
    [
        (None, None),
        ([ERROR_ATTACHMENT], None),
        ("x", "attachments must be a list"),
        (
            [ERROR_ATTACHMENT] * (MAX_ATTACHMENTS + 1),
            f"attachments holds 21 entries, at most {MAX_ATTACHMENTS} are accepted",
        ),
        (["x"], "attachments[0] must be an object"),
        (
            [{**ERROR_ATTACHMENT, "kind": 1}],
            "attachments[0].kind must be one of error, output, image, variables, file, notebook, cell",
        ),
        ([{**ERROR_ATTACHMENT, "source": None}], "attachments[0].source must be a string"),
    ],
)
def test_attachments_are_checked(value, problem):
    assert attachments_problem(value) == problem


class TestEchoAllSeesTheBlock:
    @pytest.fixture
    def agent_panel_config(self):
        return {"agent_spec": graph_spec("echo_all")}

    async def test_agent_receives_message_and_block(self, run_turn):
        frames = await run_turn("chat", {"message": "hello", "thread_id": "t", **FULL_CONTEXT})

        assert text_of(frames) == "echo: hello" + FULL_BLOCK

    async def test_attachments_arrive_after_the_context(self, run_turn):
        body = {"message": "hello", "thread_id": "t-att", **FULL_CONTEXT, "attachments": [ERROR_ATTACHMENT]}
        frames = await run_turn("chat", body)

        assert text_of(frames) == (
            "echo: hello" + FULL_BLOCK + "\nUser has attached the error output of cell 2 of notes/analysis.ipynb:"
            "\n```\nZeroDivisionError: division by zero\n----> 1 y = x / 0\n```"
        )

    @pytest.mark.parametrize(
        ("context", "block"), PANEL_CONTEXT_FORMS, ids=["editor-lines", "editor-line", "capped-selection"]
    )
    async def test_each_form_the_panel_sends_arrives(self, run_turn, context, block):
        frames = await run_turn("chat", {"message": "hello", "thread_id": "t-forms", **context})

        assert text_of(frames) == "echo: hello" + block


async def test_demo_echo_leaves_the_block_out(run_turn):
    frames = await run_turn(
        "chat",
        {
            "message": "hello",
            "thread_id": "t-context",
            # "think" and "use a tool" here must not fire the demo's triggers.
            "current_directory": "notes/think",
            "focused_widget": "notes/use a tool.ipynb",
            "selected_text": "ask me anything",
            "selection_metadata": "cell_2",
        },
    )

    assert text_of(frames) == "(demo agent) You said: hello"
    assert [f for f in frames if "reasoning" in f or "tool_calls" in f or "interrupt" in f] == []
