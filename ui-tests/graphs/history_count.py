"""UI-test graph: reports what its checkpoint holds, to prove nothing is duplicated.

Every answer counts the messages in the graph's own state (the server's
checkpoint): "Checkpoint: 7 messages, 7 distinct ids, 3 from the user." A
client that sends the whole conversation with each run must not make the server
add any of it twice. A message mentioning "tool" first calls the `count` tool,
so the thread also holds a tool call and its result. The answer comes from a
chat model that reports LangChain usage metadata (a token per message read, one
per word written), which the AG-UI adapter turns into `RUN_FINISHED.usage`.
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


def _report(messages) -> str:
    ids = [m.id for m in messages]
    users = sum(1 for m in messages if m.type == "human")
    return (
        f"Checkpoint: {len(messages)} messages, {len(set(ids))} distinct ids, "
        f"{users} from the user."
    )


def _script(messages) -> AIMessage:
    last = messages[-1]
    if last.type == "human" and "tool" in str(last.content):
        call = {"name": "count", "args": {}, "id": f"count-{uuid4().hex[:8]}"}
        return AIMessage(content="", tool_calls=[call])
    return AIMessage(content=_report(messages))


_model = ScriptedChatModel(script=_script, report_usage=True)


async def _agent(state: MessagesState) -> dict:
    return {"messages": [await _model.ainvoke(state["messages"])]}


_builder = StateGraph(MessagesState)
_builder.add_node("agent", _agent)
_builder.add_node("tools", ToolNode([count]))
_builder.add_edge(START, "agent")
_builder.add_conditional_edges("agent", tools_condition)
_builder.add_edge("tools", "agent")
graph = _builder.compile(name="History Count Agent")
