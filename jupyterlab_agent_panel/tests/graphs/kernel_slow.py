"""Test graphs for the kernel comm helper: a first node says "started", a second one waits.

``graph`` waits briefly (a turn still streaming while a cell runs); ``silent_graph``
sits silently for 30 s in an async node and ``blocking_graph`` for 5 s in a sync
node run on an executor thread (cancel must not wait for either).
"""
import asyncio
import time

from langchain_core.messages import AIMessage
from langgraph.graph import START, MessagesState, StateGraph

SHORT_WAIT_SECONDS = 3
SILENT_SECONDS = 30
BLOCKING_SECONDS = 5


def _started(state: MessagesState) -> dict:
    return {"messages": [AIMessage(content="started")]}


def _async_waiter(seconds: float):
    async def wait(state: MessagesState) -> dict:
        await asyncio.sleep(seconds)
        return {"messages": [AIMessage(content="finished")]}

    return wait


def _blocking_wait(state: MessagesState) -> dict:
    time.sleep(BLOCKING_SECONDS)
    return {"messages": [AIMessage(content="finished")]}


def _build(wait, name: str):
    builder = StateGraph(MessagesState)
    builder.add_node("start", _started)
    builder.add_node("wait", wait)
    builder.add_edge(START, "start")
    builder.add_edge("start", "wait")
    compiled = builder.compile()
    compiled.name = name
    return compiled


graph = _build(_async_waiter(SHORT_WAIT_SECONDS), "Kernel Slow")
silent_graph = _build(_async_waiter(SILENT_SECONDS), "Kernel Silent")
blocking_graph = _build(_blocking_wait, "Kernel Blocking")
