"""Test graph: a first node answers, the second raises."""
from langchain_core.messages import AIMessage
from langgraph.graph import START, MessagesState, StateGraph


def _answer(state: MessagesState) -> dict:
    return {"messages": [AIMessage(content="partial answer")]}


def _explode(state: MessagesState) -> dict:
    raise RuntimeError("boom")


_builder = StateGraph(MessagesState)
_builder.add_node("answer", _answer)
_builder.add_node("explode", _explode)
_builder.add_edge(START, "answer")
_builder.add_edge("answer", "explode")
graph = _builder.compile()
