"""UI-test graph: shows what it remembers of its thread, and asks for a review when told to.

Every answer lists the thread's human messages as typed ("I remember: a |
b"; the workspace context the panel adds after a blank line is left out), so a
test sees whether the agent kept the conversation across a server restart. A
message that starts with "review" stops on a review (LangChain's HITL shape:
approve or reject one ``publish`` action); the answer after the resume names
the decision, then what it remembers. Compiled without a checkpointer: the
server gives it its durable memory.
"""
from langchain_core.messages import AIMessage
from langgraph.graph import START, MessagesState, StateGraph
from langgraph.types import interrupt

REVIEW = {
    "action_requests": [{"name": "publish", "args": {"what": "the notes"}, "description": "Publish the notes?"}],
    "review_configs": [{"action_name": "publish", "allowed_decisions": ["approve", "reject"]}],
}


def _answer(state: MessagesState) -> dict:
    said = [m.content.split("\n\n")[0] for m in state["messages"] if m.type == "human"]
    remembered = "I remember: " + " | ".join(said)
    if said[-1].startswith("review"):
        decision = interrupt(REVIEW)["decisions"][0]["type"]
        remembered = f"Decision: {decision}. {remembered}"
    return {"messages": [AIMessage(content=remembered)]}


_builder = StateGraph(MessagesState)
_builder.add_node("answer", _answer)
_builder.add_edge(START, "answer")
graph = _builder.compile()
graph.name = "Remembering"
