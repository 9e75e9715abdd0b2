"""An Agent Server run's stream as chunk-wire frames (docs/protocol.md §15.3).

The server extension streams a deployment's run with the stream modes
``messages-tuple`` (each message token by token, with the node that wrote it)
and ``updates`` (each node's finished writes, and ``__interrupt__``).
:class:`RunFrames` turns those parts into the frames iter_chunk_frames yields
for a local graph: text from the message tokens, tool calls from the finished
AI messages, tool results from the tool messages, a review from
``__interrupt__``. Pure: no I/O.
"""
from __future__ import annotations

from typing import Any, Iterator, Optional

AI_TYPES = ("AIMessageChunk", "ai")
REASONING_BLOCKS = ("reasoning", "thinking")


def paused_calls(messages: Any) -> dict:
    """The tool calls of a thread's messages that have no result yet, by id."""
    calls, answered = {}, set()
    for message in messages if isinstance(messages, list) else ():
        if not isinstance(message, dict):
            continue
        if message.get("type") == "ai":
            calls.update((c["id"], c) for c in message.get("tool_calls") or () if isinstance(c, dict) and c.get("id"))
        elif message.get("type") == "tool":
            answered.add(message.get("tool_call_id"))
    return {call_id: call for call_id, call in calls.items() if call_id not in answered}


def _answers_review(message: dict) -> bool:
    """Whether a tool message is LangChain HITL's answer to a review (a rejection), not a tool's result."""
    kwargs = message.get("additional_kwargs")
    return isinstance(kwargs, dict) and kwargs.get("lc_source") == "hitl_interrupt_decision"


def content_text(content: Any) -> tuple:
    """``(text, reasoning)`` of a message's content: a string, or a list of content blocks."""
    if isinstance(content, str):
        return content, ""
    text, reasoning = [], []
    for block in content if isinstance(content, list) else ():
        if isinstance(block, str):
            text.append(block)
        elif isinstance(block, dict) and block.get("type") == "text":
            text.append(str(block.get("text", "")))
        elif isinstance(block, dict) and block.get("type") in REASONING_BLOCKS:
            reasoning.append(str(block.get("reasoning") or block.get("thinking") or ""))
    return "".join(text), "".join(reasoning)


class RunFrames:
    """Feed it the run's stream parts in order; each part gives the frames it means."""

    def __init__(self, *, extractors: list, max_result_len: int, paused_calls: Optional[dict] = None):
        """``paused_calls``: on a resume, the thread's calls still without a result, by id."""
        self.run_id: Optional[str] = None
        self._paused_calls = paused_calls or {}
        self.interrupted = False
        # As core matches them: by tool name, "*" for any tool without one of its own.
        self._by_tool = {e.tool_name: e for e in extractors if e.tool_name != "*"}
        self._any_tool = next((e for e in extractors if e.tool_name == "*"), None)
        self._max_result_len = max_result_len
        self._streamed_ids: set = set()  # AI messages whose text came token by token
        self._called_ids: set = set()
        self._result_ids: set = set()
        self._tool_names: dict = {}

    def feed(self, event: str, data: Any) -> Iterator[dict]:
        if event == "metadata" and isinstance(data, dict):
            self.run_id = data.get("run_id") or self.run_id
        elif event == "messages" and isinstance(data, list) and len(data) == 2:
            yield from self._message(*data)
        elif event == "updates" and isinstance(data, dict):
            yield from self._updates(data)

    def terminal(self) -> dict:
        return {"status": "complete", "outcome": "interrupted" if self.interrupted else "complete"}

    def _message(self, message: Any, metadata: Any) -> Iterator[dict]:
        if not isinstance(message, dict):
            return
        node = metadata.get("langgraph_node", "agent") if isinstance(metadata, dict) else "agent"
        kind, message_id = message.get("type"), message.get("id")
        if kind in AI_TYPES:
            if kind == "ai" and message_id in self._streamed_ids:
                return  # its tokens came already
            if kind == "AIMessageChunk":
                self._streamed_ids.add(message_id)
            text, reasoning = content_text(message.get("content"))
            kwargs = message.get("additional_kwargs")
            if isinstance(kwargs, dict) and isinstance(kwargs.get("reasoning_content"), str):
                reasoning += kwargs["reasoning_content"]  # where OpenAI-style providers put it
            if reasoning:
                yield {"status": "streaming", "reasoning": reasoning, "node": node}
            if text:
                yield {"status": "streaming", "chunk": text, "node": node, "message_id": message_id}
            yield from self._tool_calls(message)
        elif kind == "tool":
            yield from self._tool_result(message)

    def _updates(self, updates: dict) -> Iterator[dict]:
        for node, update in updates.items():
            if node == "__interrupt__":
                yield from self._interrupts(update)
                continue
            messages = update.get("messages") if isinstance(update, dict) else None
            for message in messages if isinstance(messages, list) else ():
                if isinstance(message, dict) and message.get("type") == "ai":
                    yield from self._tool_calls(message)
                elif isinstance(message, dict) and message.get("type") == "tool":
                    yield from self._tool_result(message)

    def _tool_calls(self, message: dict) -> Iterator[dict]:
        """Each complete call once: a streamed chunk's calls are partial until its message is done."""
        if message.get("type") == "AIMessageChunk" and message.get("chunk_position") != "last":
            return
        for call in message.get("tool_calls") or ():
            call_id = call.get("id") if isinstance(call, dict) else None
            # A call answered already in this run (a rejected review) is not shown again, as core does.
            if not call_id or call_id in self._called_ids or call_id in self._result_ids or not call.get("name"):
                continue
            self._called_ids.add(call_id)
            self._tool_names[call_id] = call["name"]
            tool_call = {"name": call["name"], "args": call.get("args") or {}, "id": call_id}
            yield {"status": "streaming", "tool_calls": [tool_call]}

    def _tool_result(self, message: dict) -> Iterator[dict]:
        call_id = message.get("tool_call_id")
        if call_id in self._result_ids:
            return
        paused = self._paused_calls.get(call_id)
        if paused is not None and call_id not in self._called_ids and not _answers_review(message):
            # A call that ran once its review was answered is announced again before its
            # result, as core does for a local graph; a review's own answer (a rejection) is not.
            yield from self._tool_calls({"type": "ai", "tool_calls": [paused]})
        self._result_ids.add(call_id)
        content = message.get("content")
        full = content if isinstance(content, str) else content_text(content)[0]
        name = message.get("name") or self._tool_names.get(call_id)
        failed = message.get("status") == "error"
        from langstage_core.agui import _truncate_result  # core's cap (docs/protocol.md §2.2)

        yielded_result = _truncate_result(full, self._max_result_len)
        yield {
            "status": "streaming",
            "tool_result": yielded_result,
            "id": call_id,
            "name": name,
            "tool_status": "error" if failed else "success",
            "duration_ms": None,
        }
        extractor = None if failed else self._by_tool.get(name, self._any_tool)
        if extractor is None:
            return
        # A display extractor (caps_content) is fed what the card shows; a parser the whole result.
        data = extractor.extract(yielded_result if getattr(extractor, "caps_content", False) else full)
        if data is not None:
            extraction = {"tool_name": name, "extracted_type": extractor.extracted_type, "data": data}
            yield {"status": "streaming", "extraction": extraction}

    def _interrupts(self, interrupts: Any) -> Iterator[dict]:
        from langstage_core.agui import _normalize_interrupt  # the shape core gives a local graph's review

        for interrupt in interrupts if isinstance(interrupts, list) else [interrupts]:
            value = interrupt.get("value") if isinstance(interrupt, dict) else interrupt
            requests, configs, decisions = _normalize_interrupt(value)
            self.interrupted = True
            review = {"action_requests": requests, "review_configs": configs, "allowed_decisions": decisions}
            frame = {"status": "interrupt", "interrupt": review}
            # Its id, as a local graph's frame has it (docs/protocol.md §5.9): a resume names it.
            interrupt_id = interrupt.get("id") if isinstance(interrupt, dict) else None
            if isinstance(interrupt_id, str) and interrupt_id:
                frame["interrupt_ids"] = [interrupt_id]
            yield frame
