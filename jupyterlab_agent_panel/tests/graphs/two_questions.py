"""Test graph: two parallel branches each ask a question, so a turn pauses on two interrupts.

Used by ``test_resume_stale.py``: each interrupt frame carries its own interrupt's id.
"""
from langchain_core.messages import AIMessage
from langgraph.graph import END, START, MessagesState, StateGraph
from langgraph.types import interrupt


def _ask(question: str):
    def node(state: MessagesState) -> dict:
        return {"messages": [AIMessage(content=f"{question} {interrupt(question)}")]}

    return node


_builder = StateGraph(MessagesState)
_builder.add_node("name", _ask("What is your name?"))
_builder.add_node("colour", _ask("What is your favourite colour?"))
for _node in ("name", "colour"):
    _builder.add_edge(START, _node)
    _builder.add_edge(_node, END)
graph = _builder.compile()
graph.name = "Two questions"
