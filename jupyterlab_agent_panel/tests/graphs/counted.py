"""Test graph: a model that reports LangChain usage metadata, called twice in a turn that uses a tool.

The scripted model reads one token per message and writes one per word
(``ScriptedChatModel(report_usage=True)``); "use the tool" calls ``count``
first, so that turn has two model calls whose usage is summed.
"""
from uuid import uuid4

from langchain_core.messages import AIMessage
from langchain_core.tools import tool
from langgraph.graph import START, MessagesState, StateGraph
from langgraph.prebuilt import ToolNode, tools_condition

from jupyterlab_agent_panel.demo.scripted_model import ScriptedChatModel


@tool
def count() -> str:
    """Say that the tool ran."""
    return "counted"


def _script(messages) -> AIMessage:
    last = messages[-1]
    if last.type == "human" and "use the tool" in str(last.content):
        return AIMessage(content="", tool_calls=[{"name": "count", "args": {}, "id": f"count-{uuid4().hex[:8]}"}])
    return AIMessage(content="three words here")


_model = ScriptedChatModel(script=_script, report_usage=True)


async def _agent(state: MessagesState) -> dict:
    return {"messages": [await _model.ainvoke(state["messages"])]}


_builder = StateGraph(MessagesState)
_builder.add_node("agent", _agent)
_builder.add_node("tools", ToolNode([count]))
_builder.add_edge(START, "agent")
_builder.add_conditional_edges("agent", tools_condition)
_builder.add_edge("tools", "agent")
graph = _builder.compile(name="Counted")
