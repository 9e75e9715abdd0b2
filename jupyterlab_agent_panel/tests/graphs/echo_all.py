"""Test graph: replies with the whole text of the last human message, verbatim.

Unlike the demo (which strips surface context before echoing), this shows
exactly what the server sent to the agent, context block included.
"""
from langchain_core.messages import AIMessage
from langgraph.graph import START, MessagesState, StateGraph


def _echo(state: MessagesState) -> dict:
    human = next(m for m in reversed(state["messages"]) if m.type == "human")
    return {"messages": [AIMessage(content=f"echo: {human.content}")]}


_builder = StateGraph(MessagesState)
_builder.add_node("echo", _echo)
_builder.add_edge(START, "echo")
graph = _builder.compile()
graph.name = "Echo All"
