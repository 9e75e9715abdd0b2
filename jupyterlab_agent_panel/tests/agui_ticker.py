"""Test graph for the websocket tests: streams "tick1 … tick30", a tenth of a second apart.

Long enough for a second client to join mid-run, short enough to wait for. Uses
the scripted model of the package's demos.
"""
from langchain_core.messages import AIMessage
from langgraph.graph import START, MessagesState, StateGraph

from jupyterlab_agent_panel.demo.scripted_model import ScriptedChatModel

TICKS = 30
ANSWER = " ".join(f"tick{n}" for n in range(1, TICKS + 1))

_model = ScriptedChatModel(script=lambda messages: AIMessage(content=ANSWER), seconds_per_token=0.1)


async def _tick(state: MessagesState) -> dict:
    return {"messages": [await _model.ainvoke(state["messages"])]}


_builder = StateGraph(MessagesState)
_builder.add_node("tick", _tick)
_builder.add_edge(START, "tick")
graph = _builder.compile(name="Ticker")
