"""Test graph: an async node that blocks its event loop with a sync call.

A message ``block <seconds>`` makes the node call ``time.sleep(seconds)`` inside
``async def``, the mistake that froze the whole Jupyter server while graphs ran
on its event loop. It says "blocking" first, so a client knows the node started,
and "unblocked" once the sleep returned. Used by ``test_agent_isolation.py`` and
``bench/server_load.py``.
"""
import time

from langchain_core.messages import AIMessage
from langgraph.graph import START, MessagesState, StateGraph


def _announce(state: MessagesState) -> dict:
    return {"messages": [AIMessage(content="blocking")]}


async def _block(state: MessagesState) -> dict:
    human = next(m for m in reversed(state["messages"]) if m.type == "human")
    words = human.content.split()
    seconds = float(words[1]) if len(words) > 1 else 1.0
    time.sleep(seconds)  # blocks the loop: the point of this graph
    return {"messages": [AIMessage(content="unblocked")]}


_builder = StateGraph(MessagesState)
_builder.add_node("announce", _announce)
_builder.add_node("block", _block)
_builder.add_edge(START, "announce")
_builder.add_edge("announce", "block")
graph = _builder.compile()
graph.name = "Blocking"
