"""UI-test graph: updates a to-do list twice in one turn, plus its extractor.

The scripted model calls ``write_todos`` (run by a real ``ToolNode``) with three
items, then again with the first one completed, then answers. Served with
``TodosExtractor``, the turn carries two ``todos`` extraction frames.
"""
import json
from typing import Literal

from langchain_core.messages import AIMessage
from langchain_core.tools import tool
from langgraph.graph import END, START, MessagesState, StateGraph
from langgraph.prebuilt import ToolNode
from typing_extensions import TypedDict

from jupyterlab_agent_panel.demo.scripted_model import ScriptedChatModel

FIRST_TODOS = [
    {"content": "Read the notebook", "status": "in_progress"},
    {"content": "Fix the failing cell", "status": "pending"},
    {"content": "Write a summary", "status": "pending"},
]
SECOND_TODOS = [
    {"content": "Read the notebook", "status": "completed"},
    {"content": "Fix the failing cell", "status": "in_progress"},
    {"content": "Write a summary", "status": "pending"},
]
ANSWER = "Read the notebook; fixing the failing cell next."


class Todo(TypedDict):
    content: str
    status: Literal["pending", "in_progress", "completed"]


@tool
def write_todos(todos: list[Todo]) -> str:
    """Replace the to-do list."""
    return json.dumps({"todos": todos})


class TodosExtractor:
    """The ``write_todos`` result as a list of ``{content, status}`` items."""

    tool_name = "write_todos"
    extracted_type = "todos"

    def extract(self, content):
        return [{"content": todo["content"], "status": todo["status"]} for todo in json.loads(content)["todos"]]


def _script(messages):
    # Every write_todos result since the user's message moves the plan one step on.
    updates = 0
    for message in reversed(messages):
        if message.type == "human":
            break
        updates += message.type == "tool"
    if updates < 2:
        todos = FIRST_TODOS if updates == 0 else SECOND_TODOS
        call = {"name": "write_todos", "args": {"todos": todos}, "id": f"call_write_todos_{updates + 1}"}
        return AIMessage(content="", tool_calls=[call])
    return AIMessage(content=ANSWER)


_model = ScriptedChatModel(script=_script)


async def _plan(state: MessagesState) -> dict:
    return {"messages": [await _model.ainvoke(state["messages"])]}


_builder = StateGraph(MessagesState)
_builder.add_node("plan", _plan)
_builder.add_node("tools", ToolNode([write_todos]))
_builder.add_edge(START, "plan")
_builder.add_conditional_edges("plan", lambda state: "tools" if state["messages"][-1].tool_calls else END)
_builder.add_edge("tools", "plan")
graph = _builder.compile(name="Todos Test Agent")
