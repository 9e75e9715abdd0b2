"""Test graph: calls the notebook tools the message names, then reports their results.

The message is a JSON list of calls, ``[{"name": ..., "args": {...}}, ...]``,
all made in one model step (ids ``call_0``, ``call_1``, …). Once the step's
results are in, the answer lists them in call order, one line each:
``<name> [<ToolMessage status>]: <content>``. ``graph`` is LangChain's
``create_agent`` (a ``Send`` per tool call), ``tool_node_graph`` a
``StateGraph`` with one ``ToolNode`` (all calls in one task).
"""
import json

from langchain.agents import create_agent
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
from langgraph.graph import START, MessagesState, StateGraph
from langgraph.prebuilt import ToolNode, tools_condition

from jupyterlab_agent_panel import notebook_tools
from jupyterlab_agent_panel.demo.scripted_model import ScriptedChatModel


def _script(messages):
    results = []
    for message in reversed(messages):
        if isinstance(message, ToolMessage):
            results.insert(0, message)
        elif isinstance(message, HumanMessage):
            break
    if results:
        return AIMessage(content="\n".join(f"{m.name} [{m.status}]: {m.content}" for m in results))
    calls = json.loads(messages[-1].content.split("\n\n")[0])
    return AIMessage(
        content="",
        tool_calls=[{"name": c["name"], "args": c["args"], "id": f"call_{i}"} for i, c in enumerate(calls)],
    )


_model = ScriptedChatModel(script=_script)
graph = create_agent(_model, tools=notebook_tools(), name="Notebook Caller")


async def _agent(state: MessagesState) -> dict:
    return {"messages": [await _model.ainvoke(state["messages"])]}


_builder = StateGraph(MessagesState)
_builder.add_node("agent", _agent)
_builder.add_node("tools", ToolNode(notebook_tools()))
_builder.add_edge(START, "agent")
_builder.add_conditional_edges("agent", tools_condition)
_builder.add_edge("tools", "agent")
tool_node_graph = _builder.compile(name="Notebook Caller (ToolNode)")
