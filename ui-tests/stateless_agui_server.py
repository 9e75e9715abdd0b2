"""A stateless, conforming AG-UI 1.0 server for the UI tests (never use in production).

It keeps nothing between runs and answers from each `RunAgentInput` alone, as
AG-UI allows an agent to: `messages` is the conversation so far, `state` the
state the run starts from, `tools` what the client offers, `resume` the answers
to the interrupts of the previous run. Events are written with ag-ui-protocol's
`EventEncoder`. `POST /` runs; `GET /` is not a route (405, as the reference SDK
servers answer), `GET /_inputs` lists the inputs received so far, for the tests.
With `--multimodal`, `GET /` answers the health the panel reads, declaring that
the agent takes images (`capabilities.multimodal.input.image`), so the panel
sends image outputs as image parts.

What a run does, by the input:

* a resume: "Resumed <id>: <status> <payload>." and the conversation it saw;
* a tool message last (a client tool's result): "The <tool> tool returned …";
* `ask`: a 1.0 interrupt asking for a name, with a `responseSchema`;
* `confirm`: a tool call `delete_file` and an interrupt tied to it;
* `expire`: an interrupt whose `expiresAt` has passed;
* `echo <text>`: a call of the client tool `echo` when the input offers it;
* anything else: "Reply <n>. Seen: <role>:<first word>, …" over every message.

Every run counts itself in the shared state (`turns_seen`, one more than the
input's) and reports token usage on `RUN_FINISHED`.

Usage: python ui-tests/stateless_agui_server.py --port 8766
"""

from __future__ import annotations

import argparse
import json
from typing import Any, Iterator

import uvicorn
from ag_ui.core import (
    EventType,
    Interrupt,
    RunAgentInput,
    RunFinishedEvent,
    RunFinishedInterruptOutcome,
    RunStartedEvent,
    StateSnapshotEvent,
    TextMessageContentEvent,
    TextMessageEndEvent,
    TextMessageStartEvent,
    TokenUsage,
    ToolCallArgsEvent,
    ToolCallEndEvent,
    ToolCallStartEvent,
)
from ag_ui.encoder import EventEncoder
from fastapi import FastAPI, Request
from fastapi.middleware.cors import CORSMiddleware
from fastapi.responses import StreamingResponse

#: The schema of the answer `ask` wants.
NAME_SCHEMA = {
    "type": "object",
    "properties": {"name": {"type": "string", "title": "Name", "minLength": 1}},
    "required": ["name"],
    "additionalProperties": False,
}


def text_of(message: Any) -> str:
    content = getattr(message, "content", None)
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(getattr(part, "text", "") for part in content)
    return ""


def seen(messages: list) -> str:
    """`role:first-word` of every message, in order (a tool call shows as `call:<name>`)."""
    parts = []
    for message in messages:
        words = text_of(message).split()
        parts.append(f"{message.role}:{words[0] if words else ''}")
        for call in getattr(message, "tool_calls", None) or []:
            parts.append(f"call:{call.function.name}")
    return ", ".join(parts)


def last_user_text(messages: list) -> str:
    for message in reversed(messages):
        if message.role == "user":
            return text_of(message)
    return ""


class Run:
    """The events of one run, answering from its input only."""

    def __init__(self, run_input: RunAgentInput):
        self.input = run_input
        self.run_id = run_input.run_id
        self.thread_id = run_input.thread_id
        state = run_input.state if isinstance(run_input.state, dict) else {}
        self.turns_seen = int(state.get("turns_seen", 0)) + 1

    def events(self) -> Iterator[Any]:
        yield RunStartedEvent(
            type=EventType.RUN_STARTED, thread_id=self.thread_id, run_id=self.run_id
        )
        yield StateSnapshotEvent(
            type=EventType.STATE_SNAPSHOT, snapshot={"turns_seen": self.turns_seen}
        )
        messages = list(self.input.messages)
        outcome = None
        if self.input.resume:
            entry = self.input.resume[0]
            payload = json.dumps(entry.payload, sort_keys=True)
            yield from self.say(
                f"Resumed {entry.interrupt_id}: {entry.status} {payload}. "
                f"Seen: {seen(messages)}."
            )
        elif messages and messages[-1].role == "tool":
            result = messages[-1]
            status = " (an error)" if getattr(result, "error", None) else ""
            yield from self.say(
                f"The {self.tool_name(result.tool_call_id)} tool returned "
                f"{text_of(result)}{status}. Seen: {seen(messages)}."
            )
        else:
            outcome = yield from self.answer(last_user_text(messages).strip(), messages)
        yield RunFinishedEvent(
            type=EventType.RUN_FINISHED,
            thread_id=self.thread_id,
            run_id=self.run_id,
            outcome=outcome,
            usage=[
                TokenUsage(
                    provider="stateless",
                    model="echo",
                    input_tokens=10 * len(messages),
                    output_tokens=5,
                )
            ],
        )

    def answer(self, text: str, messages: list):
        if text == "ask":
            yield from self.say("I need your name.")
            return self.interrupt(
                reason="input_required",
                message="What is your name?",
                response_schema=NAME_SCHEMA,
            )
        if text == "confirm":
            call_id = f"call-{self.run_id}"
            yield from self.say("I would like to delete a file.")
            yield from self.call(call_id, "delete_file", {"path": "notes.txt"})
            return self.interrupt(
                reason="tool_call", message="Delete notes.txt?", tool_call_id=call_id
            )
        if text == "expire":
            yield from self.say("This question is out of date.")
            return self.interrupt(
                reason="confirmation",
                message="Answer before the year 2000?",
                expires_at="2000-01-01T00:00:00Z",
            )
        if text.startswith("echo "):
            if not any(tool.name == "echo" for tool in self.input.tools or []):
                offered = [tool.name for tool in self.input.tools or []]
                yield from self.say(f"No echo tool was offered (tools: {offered}).")
                return None
            yield from self.say("Calling echo.")
            yield from self.call(f"call-{self.run_id}", "echo", {"text": text[5:]})
            return None
        users = sum(1 for message in messages if message.role == "user")
        yield from self.say(
            f"Reply {users}. Seen: {seen(messages)}. turns_seen={self.turns_seen}"
        )
        return None

    def interrupt(self, **fields) -> RunFinishedInterruptOutcome:
        return RunFinishedInterruptOutcome(
            type="interrupt",
            interrupts=[Interrupt(id=f"int-{self.run_id}", **fields)],
        )

    def say(self, text: str) -> Iterator[Any]:
        message_id = f"msg-{self.run_id}"
        yield TextMessageStartEvent(
            type=EventType.TEXT_MESSAGE_START, message_id=message_id, role="assistant"
        )
        yield TextMessageContentEvent(
            type=EventType.TEXT_MESSAGE_CONTENT, message_id=message_id, delta=text
        )
        yield TextMessageEndEvent(type=EventType.TEXT_MESSAGE_END, message_id=message_id)

    def call(self, call_id: str, name: str, args: dict) -> Iterator[Any]:
        yield ToolCallStartEvent(
            type=EventType.TOOL_CALL_START,
            tool_call_id=call_id,
            tool_call_name=name,
            parent_message_id=f"msg-{self.run_id}",
        )
        yield ToolCallArgsEvent(
            type=EventType.TOOL_CALL_ARGS, tool_call_id=call_id, delta=json.dumps(args)
        )
        yield ToolCallEndEvent(type=EventType.TOOL_CALL_END, tool_call_id=call_id)

    def tool_name(self, call_id: str) -> str:
        for message in self.input.messages:
            for call in getattr(message, "tool_calls", None) or []:
                if call.id == call_id:
                    return call.function.name
        return "unknown"


def build_app(run_class: type[Run] = Run, multimodal: bool = False) -> FastAPI:
    """The app whose runs are ``run_class``'s events (``Run``: this module's scripted answers)."""
    app = FastAPI()
    app.add_middleware(
        CORSMiddleware,
        allow_origin_regex=r"^https?://(localhost|127\.0\.0\.1)(:\d+)?$",
        allow_methods=["*"],
        allow_headers=["*"],
    )
    inputs: list[dict] = []

    @app.post("/")
    async def run(request: Request):
        body = await request.json()
        inputs.append(body)
        run_input = RunAgentInput.model_validate(body)
        encoder = EventEncoder(accept=request.headers.get("accept"))
        return StreamingResponse(
            (encoder.encode(event) for event in run_class(run_input).events()),
            media_type=encoder.get_content_type(),
        )

    @app.get("/_inputs")
    async def received():
        return inputs

    if multimodal:

        @app.get("/")
        async def health():
            capabilities = {"multimodal": {"input": {"image": True}}}
            return {"status": "ok", "agent": {"name": "Multimodal test agent"}, "capabilities": capabilities}

    return app


def main(run_class: type[Run] = Run, description: str = __doc__) -> None:
    parser = argparse.ArgumentParser(description=description.splitlines()[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--multimodal", action="store_true", help="declare that the agent takes images")
    args = parser.parse_args()
    app = build_app(run_class, multimodal=args.multimodal)
    uvicorn.run(app, host=args.host, port=args.port, log_level="warning")


if __name__ == "__main__":
    main()
