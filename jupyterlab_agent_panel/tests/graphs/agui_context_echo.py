"""Test graph: answers with the AG-UI ``context`` entries it was given, one per line.

ag-ui-langgraph puts ``RunAgentInput.context`` in the graph state under ``ag-ui``
(its ``context`` list); a graph only receives that key if its state declares it.
Each entry comes out as ``<description>: <value>``.
"""
from typing import Annotated, Any

from langchain_core.messages import AIMessage
from langgraph.graph import START, StateGraph
from langgraph.graph.message import add_messages
from typing_extensions import TypedDict

State = TypedDict("State", {"messages": Annotated[list, add_messages], "ag-ui": dict})


def _field(entry: Any, name: str) -> Any:
    return entry.get(name) if isinstance(entry, dict) else getattr(entry, name)


def _echo(state: State) -> dict:
    entries = (state.get("ag-ui") or {}).get("context") or []
    lines = [f"{_field(e, 'description')}: {_field(e, 'value')}" for e in entries]
    return {"messages": [AIMessage(content="\n".join(lines) or "(no context)")]}


_builder = StateGraph(State)
_builder.add_node("echo", _echo)
_builder.add_edge(START, "echo")
graph = _builder.compile(name="AG-UI Context Echo")
