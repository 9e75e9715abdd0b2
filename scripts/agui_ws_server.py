"""A chanx websocket server that serves AG-UI runs the way docs/protocol.md §9 describes.

Test-only. Built on the real chanx runtime (topic subscriptions, the flat
`version`/`topic`/`ref`/`seq` envelope, `subscribed` and `error` frames) with
fast-channels' in-memory channel layer; the AG-UI behaviour of chanx-kit's `ag_ui`
kit (which is not published on PyPI) is implemented here from its documented
contract:

* topic `agui:thread:<thread_id>`; `ag_ui_run` (payload: a camelCase
  `RunAgentInput`) runs the agent and broadcasts every event to the thread as
  `ag_ui_event` with a per-run `seq` that starts at 1 on `RUN_STARTED`;
* a client that subscribes while a run is in flight gets that run replayed from
  `RUN_STARTED` before any live event;
* one run per thread: a second `ag_ui_run` gets a seq-less `RUN_ERROR` ("thread
  is already running <id>"), sent to the asker only;
* `ag_ui_cancel {runId}` stops the run, which ends on a `RUN_ERROR` in its own
  sequence.

The agent is a real langstage-core one (`build_agent`) driven through
ag-ui-langgraph's `LangGraphAgent.run`, as a chanx application wrapping the
adapter would. Run state is process-local, like the kit's default.

Usage: python scripts/agui_ws_server.py --port 8765 [--agent SPEC]
(default agent: the keyless demo, `langstage_core.demo.tools:graph`; the route
is `/ws/agent`).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
from dataclasses import dataclass, field
from typing import Any, Literal

from chanx.core.decorators import ws_handler
from chanx.core.envelope import current_seq
from chanx.core.topic import Topic
from chanx.fast_channels.websocket import AsyncJsonWebsocketConsumer
from chanx.messages.base import BaseMessage
from fast_channels.layers import InMemoryChannelLayer, register_channel_layer
from pydantic import BaseModel, Field

DEFAULT_AGENT = "langstage_core.demo.tools:graph"
ROUTE = "/ws/agent"
LAYER = "agui"


class RunMessage(BaseMessage):
    action: Literal["ag_ui_run"] = "ag_ui_run"
    # Kept as sent: camelCase, opaque `state` / `forwardedProps` untouched.
    payload: dict[str, Any]


class CancelPayload(BaseModel):
    run_id: str = Field(alias="runId")


class CancelMessage(BaseMessage):
    action: Literal["ag_ui_cancel"] = "ag_ui_cancel"
    payload: CancelPayload


class EventMessage(BaseMessage):
    action: Literal["ag_ui_event"] = "ag_ui_event"
    payload: dict[str, Any]


@dataclass
class ThreadRun:
    """The run in flight on a thread and every event it sent (for replay)."""

    run_id: str
    task: asyncio.Task | None = None
    events: list[dict[str, Any]] = field(default_factory=list)


class Threads:
    """Process-local run bookkeeping. The lock orders replays against live events."""

    agent: Any = None
    active: dict[str, ThreadRun] = {}
    locks: dict[str, asyncio.Lock] = {}

    @classmethod
    def lock(cls, thread_id: str) -> asyncio.Lock:
        return cls.locks.setdefault(thread_id, asyncio.Lock())


def event_json(event: Any) -> dict[str, Any]:
    if isinstance(event, dict):
        return event
    return event.model_dump(mode="json", by_alias=True, exclude_none=True)


class AguiThreadTopic(Topic[EventMessage]):
    pattern = "agui:thread:{thread_id}"
    channel_layer_alias = LAYER
    passthrough_events = [EventMessage]

    @property
    def thread_id(self) -> str:
        return self.params["thread_id"]

    async def on_subscribe(self) -> None:
        """Replay the run in flight, if any, before anything live reaches us."""
        async with Threads.lock(self.thread_id):
            run = Threads.active.get(self.thread_id)
            for seq, event in enumerate(run.events if run else [], start=1):
                await self._send_event(event, seq)

    @ws_handler(output_type=EventMessage)
    async def handle_ag_ui_run(self, message: RunMessage) -> None:
        payload = message.payload
        run_id = str(payload.get("runId") or os.urandom(8).hex())
        thread_id = self.thread_id
        async with Threads.lock(thread_id):
            busy = Threads.active.get(thread_id)
            if busy is None:
                run = ThreadRun(run_id)
                Threads.active[thread_id] = run
        if busy is not None:
            # To the asker only, outside any run's sequence.
            await self._send_event({"type": "RUN_ERROR", "message": f"thread is already running {busy.run_id}"})
            return
        run.task = asyncio.create_task(self._run(thread_id, run, {**payload, "runId": run_id}))

    @ws_handler(output_type=EventMessage)
    async def handle_ag_ui_cancel(self, message: CancelMessage) -> None:
        run = Threads.active.get(self.thread_id)
        if run is not None and run.run_id == message.payload.run_id and run.task:
            run.task.cancel()

    async def _run(self, thread_id: str, run: ThreadRun, payload: dict[str, Any]) -> None:
        from ag_ui.core import RunAgentInput

        topic = f"agui:thread:{thread_id}"
        try:
            run_input = RunAgentInput.model_validate(payload)
            async for event in Threads.agent.clone().run(run_input):
                await self._publish(topic, run, event_json(event))
        except asyncio.CancelledError:
            await self._publish(topic, run, {"type": "RUN_ERROR", "message": f"Run {run.run_id} was cancelled"})
        except Exception as error:  # reported to the thread as RUN_ERROR
            await self._publish(topic, run, {"type": "RUN_ERROR", "message": f"{type(error).__name__}: {error}"})
        finally:
            async with Threads.lock(thread_id):
                if Threads.active.get(thread_id) is run:
                    del Threads.active[thread_id]

    @classmethod
    async def _publish(cls, topic: str, run: ThreadRun, event: dict[str, Any]) -> None:
        thread_id = topic.rsplit(":", 1)[-1]
        async with Threads.lock(thread_id):
            run.events.append(event)
            await cls.broadcast(topic, EventMessage(payload=event), seq=len(run.events))

    async def _send_event(self, event: dict[str, Any], seq: int | None = None) -> None:
        token = current_seq.set(seq)
        try:
            await self.send_message(EventMessage(payload=event))
        finally:
            current_seq.reset(token)


class AgentConsumer(AsyncJsonWebsocketConsumer):
    topics = [AguiThreadTopic]
    channel_layer_alias = LAYER
    # Keys go out as the agent wrote them (camelCase AG-UI events).
    camelize = False


def build_app(agent_spec: str = DEFAULT_AGENT) -> Any:
    from langstage_core.agui import build_agent
    from starlette.applications import Starlette
    from starlette.responses import JSONResponse
    from starlette.routing import Route, WebSocketRoute

    register_channel_layer(LAYER, InMemoryChannelLayer())
    Threads.agent = build_agent(agent_spec)

    async def health(_request: Any) -> JSONResponse:
        return JSONResponse({"status": "ok"})

    return Starlette(routes=[
        WebSocketRoute(ROUTE, AgentConsumer.as_asgi()),
        Route("/health", health),
    ])


def main(argv: list[str] | None = None) -> None:
    import uvicorn

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--agent", default=DEFAULT_AGENT)
    args = parser.parse_args(argv)
    uvicorn.run(build_app(args.agent), host=args.host, port=args.port, log_level="warning")


if __name__ == "__main__":
    sys.exit(main())
