"""Test graph: answers with every human message of its thread, so a reply shows what it remembers.

Compiled without a checkpointer, so the server gives it its durable memory
(``jupyterlab_agent_panel/memory/agent_memory.py``). Used by ``test_agent_memory.py``.
"""
from langchain_core.messages import AIMessage
from langgraph.graph import START, MessagesState, StateGraph


def _recall(state: MessagesState) -> dict:
    said = [m.content for m in state["messages"] if m.type == "human"]
    return {"messages": [AIMessage(content="I remember: " + " | ".join(said))]}


_builder = StateGraph(MessagesState)
_builder.add_node("recall", _recall)
_builder.add_edge(START, "recall")
graph = _builder.compile()
graph.name = "Remembering"
