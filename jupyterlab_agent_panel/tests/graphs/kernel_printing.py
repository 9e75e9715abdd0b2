"""Test graph for the kernel comm helper: prints while it runs, from both kinds of node.

The sync node runs on an executor thread, the async one on the helper's loop
thread; neither's output may reach a notebook cell.
"""
import sys
import time

from langchain_core.messages import AIMessage
from langgraph.graph import START, MessagesState, StateGraph

MARKER = "AGENT-PRINTED"
PRINTS = 10
PAUSE_SECONDS = 0.2


def _sync_printer(state: MessagesState) -> dict:
    for index in range(PRINTS):
        print(f"{MARKER} stdout sync {index}")
        print(f"{MARKER} stderr sync {index}", file=sys.stderr)
        time.sleep(PAUSE_SECONDS)
    return {"messages": [AIMessage(content="printed from a sync node")]}


async def _async_printer(state: MessagesState) -> dict:
    print(f"{MARKER} stdout async", flush=True)
    return {"messages": [AIMessage(content="printed from an async node")]}


_builder = StateGraph(MessagesState)
_builder.add_node("sync_printer", _sync_printer)
_builder.add_node("async_printer", _async_printer)
_builder.add_edge(START, "sync_printer")
_builder.add_edge("sync_printer", "async_printer")
graph = _builder.compile()
graph.name = "Kernel Printing"
