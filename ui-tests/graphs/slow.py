"""UI-test graph: streams "tick1 tick2 … tick120", one word every half second.

About a minute per turn, so a test can press Stop mid-turn. The wait between
words is an ``asyncio.sleep``, so a cancel ends the turn at once. A message
containing ``ticks=N`` gets N ticks instead (a short turn, e.g. for the queue).
"""
import re

from langchain_core.messages import AIMessage
from langgraph.graph import START, MessagesState, StateGraph

from jupyterlab_agent_panel.demo.scripted_model import ScriptedChatModel

SECONDS_PER_TOKEN = 0.5
TICKS = 120


def _answer(messages) -> AIMessage:
    human = next(m for m in reversed(messages) if m.type == "human")
    asked = re.search(r"\bticks=(\d+)", str(human.content))
    count = int(asked.group(1)) if asked else TICKS
    return AIMessage(content=" ".join(f"tick{n}" for n in range(1, count + 1)))


_model = ScriptedChatModel(script=_answer, seconds_per_token=SECONDS_PER_TOKEN)


async def _tick(state: MessagesState) -> dict:
    return {"messages": [await _model.ainvoke(state["messages"])]}


_builder = StateGraph(MessagesState)
_builder.add_node("tick", _tick)
_builder.add_edge(START, "tick")
graph = _builder.compile(name="Slow Test Agent")
