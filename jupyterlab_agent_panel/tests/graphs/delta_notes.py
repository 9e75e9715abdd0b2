"""Test graph: a state kept in LangGraph's ``DeltaChannel``, which stores each step's writes,
not the value, so a checkpoint is read back from its ancestors' writes.

Each input's item is noted, then answered with how many items there are. Used by
``test_checkpoint_pruning.py``: such a thread is not pruned.
"""
from typing import Annotated, TypedDict

from langgraph.channels import DeltaChannel
from langgraph.graph import START, StateGraph


def _extend(said: list, batches: list) -> list:
    return [*said, *(item for batch in batches for item in batch)]


class State(TypedDict):
    said: Annotated[list, DeltaChannel(_extend)]


_builder = StateGraph(State)
_builder.add_node("note", lambda state: {"said": [f"noted {state['said'][-1]}"]})
_builder.add_node("answer", lambda state: {"said": [f"answer {len(state['said'])}"]})
_builder.add_edge(START, "note")
_builder.add_edge("note", "answer")
graph = _builder.compile()
graph.name = "Delta notes"
