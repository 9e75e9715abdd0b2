"""Test graph: the remembering graph (``remembering.py``) with a tool step in every turn.

Each message is first noted by the ``note`` tool (a model step asking for it, the
tool's step, then the answer step), so a turn leaves several per-step
checkpoints. A message starting with "review" makes the tool ask first
(``interrupt``): the turn pauses on a review the resume answers. Compiled without
a checkpointer, so the server gives it its durable memory. Used by
``test_checkpoint_pruning.py`` and ``bench/checkpoint_pruning.py``.
"""
from langchain_core.messages import AIMessage
from langchain_core.tools import tool
from langgraph.graph import END, START, MessagesState, StateGraph
from langgraph.prebuilt import ToolNode, tools_condition
from langgraph.types import interrupt


@tool
def note(text: str) -> str:
    """Note what the user said."""
    if text.startswith("review"):
        return f"noted {text} ({interrupt({'question': f'Note {text!r}?'})})"
    return f"noted {text}"


def _agent(state: MessagesState) -> dict:
    last = state["messages"][-1]
    if last.type == "human":
        call = {"name": "note", "args": {"text": last.content}, "id": f"call-{len(state['messages'])}"}
        return {"messages": [AIMessage(content="", tool_calls=[call])]}
    said = [m.content for m in state["messages"] if m.type == "human"]
    return {"messages": [AIMessage(content="I remember: " + " | ".join(said))]}


_builder = StateGraph(MessagesState)
_builder.add_node("agent", _agent)
_builder.add_node("tools", ToolNode([note]))
_builder.add_edge(START, "agent")
_builder.add_conditional_edges("agent", tools_condition, {"tools": "tools", END: END})
_builder.add_edge("tools", "agent")
graph = _builder.compile()
graph.name = "Remembering with tools"
