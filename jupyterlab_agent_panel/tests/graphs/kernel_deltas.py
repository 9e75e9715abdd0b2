"""Test graph for the kernel comm helper: one model reply streamed as many text deltas.

A keyless chat model whose stream yields ``count`` tokens ``d0 `` … ``d{count-1} ``,
each becoming one ``chunk`` frame; ``build_graph(count)`` picks the count.
"""
from typing import Any, AsyncIterator, Iterator, Optional

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult
from langgraph.graph import START, MessagesState, StateGraph

DEFAULT_COUNT = 3000


def expected_text(count: int) -> str:
    return "".join(f"d{index} " for index in range(count))


class DeltaModel(BaseChatModel):
    """Streams ``count`` fixed tokens, whatever the conversation."""

    count: int = DEFAULT_COUNT

    @property
    def _llm_type(self) -> str:
        return "kernel-deltas"

    def _generate(self, messages: list[BaseMessage], stop: Optional[list[str]] = None,
                  run_manager: Any = None, **kwargs: Any) -> ChatResult:
        return ChatResult(generations=[ChatGeneration(message=AIMessage(content=expected_text(self.count)))])

    def _stream(self, messages: list[BaseMessage], stop: Optional[list[str]] = None,
                run_manager: Any = None, **kwargs: Any) -> Iterator[ChatGenerationChunk]:
        for index in range(self.count):
            yield ChatGenerationChunk(message=AIMessageChunk(content=f"d{index} "))

    async def _astream(self, messages: list[BaseMessage], stop: Optional[list[str]] = None,
                       run_manager: Any = None, **kwargs: Any) -> AsyncIterator[ChatGenerationChunk]:
        for chunk in self._stream(messages):
            if run_manager is not None:
                await run_manager.on_llm_new_token(chunk.message.content, chunk=chunk)
            yield chunk


def build_graph(count: int = DEFAULT_COUNT):
    model = DeltaModel(count=count)

    async def reply(state: MessagesState) -> dict:
        return {"messages": [await model.ainvoke(state["messages"])]}

    builder = StateGraph(MessagesState)
    builder.add_node("reply", reply)
    builder.add_edge(START, "reply")
    compiled = builder.compile()
    compiled.name = f"Kernel Deltas x{count}"
    return compiled


graph = build_graph()
