"""UI-test graph: two tool calls that each need a human decision, then a report.

LangChain's ``create_agent`` with ``HumanInTheLoopMiddleware`` on a scripted
model. Every new message gets one AIMessage with two calls:

* ``write_file(path="notes.md", content="Draft notes")`` — approve, edit, reject
  or respond;
* ``execute(command="rm -rf build")`` — approve or reject only.

After the resume, the answer lists each ToolMessage's content verbatim, in call
order, so a test sees exactly which decisions reached the graph: an edit shows
in ``write_file``'s result (``wrote 5 chars to edited.md``), a reject's reason or
a respond's message stands in for the tool's result. The tools never touch the
disk.
"""
from langchain.agents import create_agent
from langchain.agents.middleware import HumanInTheLoopMiddleware
from langchain_core.messages import AIMessage, ToolMessage
from langchain_core.tools import tool

from jupyterlab_agent_panel.demo.scripted_model import ScriptedChatModel

TOOL_CALLS = [
    {"name": "write_file", "args": {"path": "notes.md", "content": "Draft notes"}, "id": "call_write_file"},
    {"name": "execute", "args": {"command": "rm -rf build"}, "id": "call_execute"},
]


@tool
def write_file(path: str, content: str) -> str:
    """Write ``content`` to the file at ``path``."""
    return f"wrote {len(content)} chars to {path}"


@tool
def execute(command: str) -> str:
    """Run a shell command."""
    return f"ran: {command}"


def _script(messages):
    results = {}
    for message in reversed(messages):
        if not isinstance(message, ToolMessage):
            break
        results[message.tool_call_id] = message
    if not results:
        return AIMessage(content="", tool_calls=TOOL_CALLS)
    # In call order: a rejected call's answer is added before the approved calls run.
    lines = [f"- {results[call['id']].name}: {results[call['id']].content}" for call in TOOL_CALLS]
    return AIMessage(content="Tool results:\n" + "\n".join(lines))


graph = create_agent(
    ScriptedChatModel(script=_script),
    tools=[write_file, execute],
    middleware=[
        HumanInTheLoopMiddleware(
            interrupt_on={
                "write_file": {"allowed_decisions": ["approve", "edit", "reject", "respond"]},
                "execute": {"allowed_decisions": ["approve", "reject"]},
            },
            edit_notice=None,  # an edited call's result is then just the tool's own
        )
    ],
    name="HITL Test Agent",
)
