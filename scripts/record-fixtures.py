"""Record real chunk-wire and event-wire streams from the installed langstage-core.

Run with the project venv:  .venv/bin/python scripts/record-fixtures.py

Writes fixtures/recorded/<scenario>-<wire>.jsonl, one frame per line, exactly as
`iter_chunk_frames` / `iter_event_frames` yield them, serialised with Python's
default `json.dumps` (ASCII-only, what the SSE server sends). Message ids are
random per run; nothing is normalised. `fixtures/recorded/expected.json` is
written by hand from the scenarios, never generated.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from langstage_core.agui import build_agent, iter_chunk_frames, iter_event_frames
from langstage_core.demo.tools import demo_extractors

OUT = Path(__file__).resolve().parent.parent / "fixtures" / "recorded"
WIRES = {"chunk": iter_chunk_frames, "event": iter_event_frames}


async def record(iterate, agent, name: str, message: str, thread_id: str, **kwargs) -> None:
    frames = [frame async for frame in iterate(agent, message, thread_id, **kwargs)]
    path = OUT / f"{name}.jsonl"
    path.write_text("".join(json.dumps(frame) + "\n" for frame in frames), encoding="utf-8")
    print(f"{path.name}: {len(frames)} frames")


async def record_demo(wire: str) -> None:
    """The keyless demo tools agent, served the way the server extension does."""
    iterate = WIRES[wire]
    agent = build_agent("langstage_core.demo.tools:graph")
    extractors = demo_extractors()

    async def turn(name, message, thread_id, **kwargs):
        await record(iterate, agent, f"{name}-{wire}", message, f"{wire}-{thread_id}",
                     extractors=extractors, **kwargs)

    await turn("R01-hello", "hello there", "hello")
    await turn("R04-think", "think about it", "think")
    await turn("R05-use-a-tool", "use a tool", "tool")
    await turn("R10a-ask", "ask me a question", "ask-respond")
    # A new message while the interrupt is pending re-surfaces it (F10c).
    await turn("R10c-resurfaced", "hello again", "ask-respond")
    await turn("R10b-resume-respond", "", "ask-respond",
               resume={"decisions": [{"type": "respond", "message": "Ada"}]})
    await turn("R10a-ask-second-thread", "ask me a question", "ask-approve")
    await turn("R10b-resume-approve", "", "ask-approve",
               resume={"decisions": [{"type": "approve"}]})


def build_hitl_agent():
    """LangChain's create_agent + HumanInTheLoopMiddleware on a scripted model that
    asks for two tool calls at once (F09's scenario), streamed like a real LLM."""
    from langchain.agents import create_agent
    from langchain.agents.middleware import HumanInTheLoopMiddleware
    from langchain_core.language_models import BaseChatModel
    from langchain_core.messages import AIMessage, AIMessageChunk, ToolMessage
    from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult
    from langchain_core.tools import tool
    from langgraph.checkpoint.memory import InMemorySaver

    @tool
    def write_file(path: str, content: str) -> str:
        """Write a file."""
        return f"wrote {len(content)} chars to {path}"

    @tool
    def execute(command: str) -> str:
        """Run a shell command."""
        return f"ran {command}"

    calls = [
        {"name": "write_file", "args": {"path": "notes.md", "content": "hi"}, "id": "c1"},
        {"name": "execute", "args": {"command": "rm -rf build"}, "id": "c2"},
    ]
    summary = "Both calls were handled."

    class ScriptedModel(BaseChatModel):
        """Two tool calls first; a summary once tool results are in."""

        @property
        def _llm_type(self) -> str:
            return "scripted-hitl"

        def bind_tools(self, tools, **kwargs):
            return self

        def _generate(self, messages, stop=None, run_manager=None, **kwargs):
            if isinstance(messages[-1], ToolMessage):
                message = AIMessage(content=summary)
            else:
                message = AIMessage(content="", tool_calls=calls)
            return ChatResult(generations=[ChatGeneration(message=message)])

        def _stream(self, messages, stop=None, run_manager=None, **kwargs):
            if isinstance(messages[-1], ToolMessage):
                tokens = summary.split(" ")
                for i, token in enumerate(tokens):
                    piece = token if i == len(tokens) - 1 else token + " "
                    yield ChatGenerationChunk(message=AIMessageChunk(content=piece))
                return
            # Like a provider: name and id first, then the argument text.
            for index, call in enumerate(calls):
                yield ChatGenerationChunk(message=AIMessageChunk(content="", tool_call_chunks=[
                    {"name": call["name"], "args": "", "id": call["id"], "index": index}]))
                yield ChatGenerationChunk(message=AIMessageChunk(content="", tool_call_chunks=[
                    {"name": None, "args": json.dumps(call["args"]), "id": None, "index": index}]))

    graph = create_agent(
        ScriptedModel(),
        tools=[write_file, execute],
        middleware=[HumanInTheLoopMiddleware(interrupt_on={
            "write_file": True,
            "execute": {"allowed_decisions": ["approve", "reject"]},
        })],
        checkpointer=InMemorySaver(),
    )
    return build_agent(graph)


async def record_hitl(wire: str) -> None:
    iterate = WIRES[wire]
    agent = build_hitl_agent()
    thread_id = f"{wire}-hitl"
    await record(iterate, agent, f"R09a-hitl-two-actions-{wire}", "write notes and clean up",
                 thread_id)
    decisions = [
        {"type": "edit",
         "edited_action": {"name": "write_file", "args": {"path": "notes.md", "content": "hello"}}},
        {"type": "reject", "message": "not now"},
    ]
    await record(iterate, agent, f"R09b-hitl-resume-{wire}", "", thread_id,
                 resume={"decisions": decisions})


async def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    for wire in WIRES:
        await record_demo(wire)
        await record_hitl(wire)


if __name__ == "__main__":
    asyncio.run(main())
