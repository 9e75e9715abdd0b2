"""Test graph: says it started, then sits silently in a long node.

The silent node is what a flag-between-frames cancel cannot interrupt; the
server must cancel the running task instead.
"""
import asyncio

from langchain_core.messages import AIMessage
from langgraph.graph import START, MessagesState, StateGraph

SLEEP_SECONDS = 30


def _start(state: MessagesState) -> dict:
    return {"messages": [AIMessage(content="started")]}


async def _wait(state: MessagesState) -> dict:
    await asyncio.sleep(SLEEP_SECONDS)
    return {"messages": [AIMessage(content="finished")]}


_builder = StateGraph(MessagesState)
_builder.add_node("start", _start)
_builder.add_node("wait", _wait)
_builder.add_edge(START, "start")
_builder.add_edge("start", "wait")
graph = _builder.compile()
