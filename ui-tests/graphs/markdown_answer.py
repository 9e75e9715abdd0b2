"""UI-test graph: streams a fixed Markdown answer, for rendering tests.

It has a heading, a list, a table, a fenced Python block, inline LaTeX and a
link. (Not named ``markdown.py``: the spec loader puts this folder first on
``sys.path``, where that name would shadow the ``markdown`` package.)
"""
from langchain_core.messages import AIMessage
from langgraph.graph import START, MessagesState, StateGraph

from jupyterlab_agent_panel.demo.scripted_model import ScriptedChatModel

ANSWER = """## Rendering check

Things to render:

- a **bold** item
- an *italic* item

| Name | Value |
| ---- | ----- |
| alpha | 1 |
| beta | 2 |

```python
print("hello from the agent")
```

Euler's identity: $e^{i\\pi}+1=0$.

See [the example site](https://example.org)."""

_model = ScriptedChatModel(script=lambda messages: AIMessage(content=ANSWER))


async def _answer(state: MessagesState) -> dict:
    return {"messages": [await _model.ainvoke(state["messages"])]}


_builder = StateGraph(MessagesState)
_builder.add_node("answer", _answer)
_builder.add_edge(START, "answer")
graph = _builder.compile(name="Markdown Test Agent")
