"""UI-test graph: answers with the last human message, verbatim.

Nothing is added or removed, so the answer is exactly what the server sent the
agent: the typed message followed by the context block the server appends.
"""
from langchain_core.messages import AIMessage
from langgraph.graph import START, MessagesState, StateGraph


def _echo(state: MessagesState) -> dict:
    human = next(m for m in reversed(state["messages"]) if m.type == "human")
    return {"messages": [AIMessage(content=human.content)]}


_builder = StateGraph(MessagesState)
_builder.add_node("echo", _echo)
_builder.add_edge(START, "echo")
graph = _builder.compile(name="Echo Test Agent")
