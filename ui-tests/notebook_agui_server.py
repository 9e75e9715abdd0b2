"""The keyless notebook demo agent over AG-UI, for the UI tests (never use in production).

A stateless AG-UI 1.0 server whose "model" is the notebook demo's script
(``jupyterlab_agent_panel.demo.notebook_agent.script``): each run turns the
input's messages into LangChain messages, asks the script for the next step,
and either calls one of the notebook tools the client offers (a client tool:
the run ends, the panel runs it and continues with a ``role: "tool"``
message, docs/protocol.md §8.11) or answers in text. `POST /` runs; `GET
/_inputs` lists the inputs received so far, for the tests.

Usage: python ui-tests/notebook_agui_server.py --port 8767
"""

from __future__ import annotations

import json
from typing import Any, Iterator

from ag_ui.core import EventType, RunAgentInput, RunFinishedEvent, RunStartedEvent
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage
from stateless_agui_server import Run, main, text_of

from jupyterlab_agent_panel.demo.notebook_agent import script


def langchain_messages(run_input: RunAgentInput) -> list[BaseMessage]:
    """The AG-UI conversation as the demo's script reads it."""
    names: dict[str, str] = {}
    messages: list[BaseMessage] = []
    for message in run_input.messages:
        if message.role == "user":
            messages.append(HumanMessage(content=text_of(message)))
        elif message.role == "assistant":
            calls = []
            for call in getattr(message, "tool_calls", None) or []:
                names[call.id] = call.function.name
                arguments = json.loads(call.function.arguments or "{}")
                calls.append({"name": call.function.name, "args": arguments, "id": call.id})
            messages.append(AIMessage(content=text_of(message), tool_calls=calls))
        elif message.role == "tool":
            messages.append(
                ToolMessage(
                    content=text_of(message),
                    tool_call_id=message.tool_call_id,
                    name=names.get(message.tool_call_id, "unknown"),
                )
            )
    return messages


class NotebookRun(Run):
    def events(self) -> Iterator[Any]:
        yield RunStartedEvent(type=EventType.RUN_STARTED, thread_id=self.thread_id, run_id=self.run_id)
        step = script(langchain_messages(self.input))
        offered = {tool.name for tool in self.input.tools or []}
        if step.tool_calls:
            call = step.tool_calls[0]
            if call["name"] in offered:
                yield from self.call(f"call-{self.run_id}", call["name"], call["args"])
            else:
                yield from self.say(f"The client offers no {call['name']} tool (tools: {sorted(offered)}).")
        else:
            yield from self.say(str(step.content))
        yield RunFinishedEvent(type=EventType.RUN_FINISHED, thread_id=self.thread_id, run_id=self.run_id)


if __name__ == "__main__":
    main(NotebookRun, __doc__)
