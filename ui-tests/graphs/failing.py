"""UI-test graph: streams a partial answer, then fails.

The answer streams word by word ("Partial answer before the failure"), then the
node raises ``RuntimeError("the test graph failed on purpose")``, so the turn
ends on an ``error`` frame after some text.
"""
from langchain_core.messages import AIMessage
from langgraph.graph import START, MessagesState, StateGraph

from jupyterlab_agent_panel.demo.scripted_model import ScriptedChatModel

PARTIAL_ANSWER = "Partial answer before the failure"

_model = ScriptedChatModel(script=lambda messages: AIMessage(content=PARTIAL_ANSWER))


async def _answer_then_fail(state: MessagesState) -> dict:
    await _model.ainvoke(state["messages"])
    raise RuntimeError("the test graph failed on purpose")


_builder = StateGraph(MessagesState)
_builder.add_node("answer", _answer_then_fail)
_builder.add_edge(START, "answer")
graph = _builder.compile(name="Failing Test Agent")
