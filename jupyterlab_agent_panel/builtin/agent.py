"""The notebook agent on one model (docs/protocol.md §16.1), built on langstage-core's shared factory.

``create_default_agent`` is the default deep agent every LangStage host
builds (deepagents: a filesystem, subagents, summarisation); the built-in
agent adds planning with ``write_todos`` (deepagents 0.7 has it no more), the
notebook tools, the MCP servers' tools, its system prompt, reviews of file
changes and its own middleware. The
filesystem is the Jupyter server's root folder (``virtual_mode``: no path
leaves it).
"""
from __future__ import annotations

from typing import Any, Callable

from ..graph import build_turn_agent, durable_config
from .middleware import ImageContent, ModelFailures
from .prompt import SYSTEM_PROMPT

AGENT_NAME = "Notebook agent"
GRAPH_NAME = "notebook-agent"
# The deep agent's own tools (deepagents', and write_todos), which MCP tools may not shadow.
DEEPAGENTS_TOOLS = frozenset(
    {"ls", "read_file", "write_file", "edit_file", "glob", "grep", "execute", "delete", "task", "write_todos"}
)


def _file_change(verb: str) -> Callable[..., str]:
    def describe(tool_call: dict, state: Any, runtime: Any) -> str:
        return f"{verb} {tool_call['args'].get('file_path', 'a file')}"

    return describe


# Every change to the server's files is reviewed (docs/protocol.md §16.6).
FILE_REVIEWS = {
    "write_file": {"allowed_decisions": ["approve", "edit", "reject"], "description": _file_change("Write")},
    "edit_file": {"allowed_decisions": ["approve", "edit", "reject"], "description": _file_change("Edit")},
    "delete": {"allowed_decisions": ["approve", "reject"], "description": _file_change("Delete")},
}


def secret_files() -> list:
    """The agent's file tools may not read the ``.env`` files, which hold keys, nor change the root's."""
    from deepagents.middleware.filesystem import FilesystemPermission

    return [
        FilesystemPermission(operations=["read", "write"], paths=["/.env"], mode="deny"),
        FilesystemPermission(operations=["read"], paths=["/**/.env", "/**/.env.*"], mode="deny"),
    ]


def build_notebook_agent(
    model: Any,
    *,
    vision: bool,
    tools: list,
    reviews: dict,
    checkpointer: Any,
    root_dir: str,
    describe_failure: Callable[[BaseException], str],
) -> Any:
    """The ag-ui-langgraph agent of the notebook agent on ``model``, with its threads in ``checkpointer``."""
    from langchain.agents.middleware import TodoListMiddleware
    from langstage_core.demo import create_default_agent

    graph = create_default_agent(
        root_dir,
        model=model,
        system_prompt=SYSTEM_PROMPT,
        tools=tools,
        name=GRAPH_NAME,
        checkpointer=checkpointer,
        interrupt_on={**FILE_REVIEWS, **reviews},
        permissions=secret_files(),
        # deepagents 0.7 no longer plans by itself: write_todos comes from LangChain's middleware.
        middleware=[TodoListMiddleware(), ModelFailures(describe_failure), ImageContent(vision)],
    )
    return build_turn_agent(graph, name=AGENT_NAME, config=durable_config())
