"""A keyless chat model for the demo and test graphs: it streams a scripted reply.

``script(messages)`` picks the reply from the conversation so far: an
``AIMessage`` with text, tool calls, or both. Text streams word by word; tool
calls stream like a provider's (name and id first, then the argument JSON).
With ``report_usage`` the last chunk carries LangChain ``usage_metadata``, as a
provider that reports usage does: a token per message read, one per word
written.
The graphs run on an event loop (their agent's own, in the server), so only
the async stream is implemented: its ``asyncio.sleep`` between tokens is where
a cancel lands.

Used by the notebook tools demo (``notebook_agent.py``) and by the UI-test
graphs (``ui-tests/graphs``).
"""
from __future__ import annotations

import asyncio
import json
import re
from typing import Any, AsyncIterator, Callable, Optional

from langchain_core.callbacks import AsyncCallbackManagerForLLMRun, CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult


def words(text: str) -> list[str]:
    """``text`` cut after each run of whitespace; joined back, they give ``text``."""
    return re.findall(r"\S*\s*", text)[:-1] if text else []


class ScriptedChatModel(BaseChatModel):
    script: Callable[[list[BaseMessage]], AIMessage]
    seconds_per_token: float = 0.0
    report_usage: bool = False

    @property
    def _llm_type(self) -> str:
        return "agent-panel-ui-scripted"

    def bind_tools(self, tools: Any, **kwargs: Any) -> ScriptedChatModel:
        return self  # the script decides which tools to call

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: Optional[list[str]] = None,
        run_manager: Optional[CallbackManagerForLLMRun] = None,
        **kwargs: Any,
    ) -> ChatResult:
        return ChatResult(generations=[ChatGeneration(message=self.script(messages))])

    async def _astream(
        self,
        messages: list[BaseMessage],
        stop: Optional[list[str]] = None,
        run_manager: Optional[AsyncCallbackManagerForLLMRun] = None,
        **kwargs: Any,
    ) -> AsyncIterator[ChatGenerationChunk]:
        reply = self.script(messages)
        for piece in words(reply.text):
            await asyncio.sleep(self.seconds_per_token)
            yield ChatGenerationChunk(message=AIMessageChunk(content=piece))
        for index, call in enumerate(reply.tool_calls):
            head = {"name": call["name"], "args": "", "id": call["id"], "index": index}
            body = {"name": None, "args": json.dumps(call["args"]), "id": None, "index": index}
            for tool_call_chunk in (head, body):
                yield ChatGenerationChunk(message=AIMessageChunk(content="", tool_call_chunks=[tool_call_chunk]))
        if self.report_usage:
            read, written = len(messages), len(words(reply.text))
            usage = {"input_tokens": read, "output_tokens": written, "total_tokens": read + written}
            yield ChatGenerationChunk(message=AIMessageChunk(content="", usage_metadata=usage))
