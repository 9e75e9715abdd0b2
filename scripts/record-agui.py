"""Record real AG-UI event streams from `langstage-agui` (the installed langstage-core).

Run with the project venv:  .venv/bin/python scripts/record-agui.py

Starts `langstage-agui` on 127.0.0.1 (a free port) once per agent, POSTs the
`RunAgentInput` bodies the panel sends (camelCase, fresh ids, `tools`/`context`/
`forwardedProps` always present) and writes each raw SSE response body, byte for
byte, to fixtures/agui/<name>.sse. Resumes carry both channels: the legacy
`forwardedProps.command.resume` envelope and `resume[]` with the interrupt id read
from the paused run's `CUSTOM on_interrupt` event (`rawEvent.id`).
`fixtures/agui/expected.json` is written by hand, never generated.

Agents: the keyless demo (`--demo=tools`), and the UI-test graphs in
ui-tests/graphs/ (`failing.py`: text then an exception; `hitl.py`: two streamed
tool calls behind LangChain's HumanInTheLoopMiddleware). One stream comes from the
adapter in process rather than over HTTP: the demo's interrupt with ag-ui-langgraph's
1.0 outcome on and its raw events off (`Q16-outcome-after-legacy-without-id.jsonl`).
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Iterator

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "fixtures" / "agui"
GRAPHS = ROOT / "ui-tests" / "graphs"
START_TIMEOUT_S = 60


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def agui_command() -> str:
    """`langstage-agui` next to this interpreter (the venv), else on PATH."""
    beside = Path(sys.executable).with_name("langstage-agui")
    found = str(beside) if beside.exists() else shutil.which("langstage-agui")
    if not found:
        raise SystemExit("langstage-agui is not installed: pip install 'langstage-core[agui,stub]'")
    return found


@contextlib.contextmanager
def serve(*agent_args: str, cors: str | None = None) -> Iterator[str]:
    """Run `langstage-agui <agent_args>` on a free loopback port; yield its URL."""
    port = free_port()
    command = [agui_command(), *agent_args, "--host", "127.0.0.1", "--port", str(port)]
    if cors:
        command += ["--cors", cors]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(GRAPHS), os.environ.get("PYTHONPATH")]))}
    process = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}/"
    try:
        wait_healthy(url, process)
        yield url
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def wait_healthy(url: str, process: subprocess.Popen) -> None:
    deadline = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < deadline:
        if process.poll() is not None:
            output = process.stdout.read().decode(errors="replace") if process.stdout else ""
            raise RuntimeError(f"langstage-agui exited with {process.returncode}:\n{output}")
        try:
            with urllib.request.urlopen(url, timeout=2) as response:
                if json.load(response).get("status") == "ok":
                    return
        except OSError:
            time.sleep(0.2)
    raise TimeoutError(f"langstage-agui did not answer on {url} within {START_TIMEOUT_S} s")


def run_input(thread_id: str, run_id: str, message: str | None = None, *,
              message_id: str | None = None, resume_envelope: dict | None = None,
              interrupt_ids: list[str] = ()) -> dict:
    """The body the panel POSTs: a chat turn, or a resume (`messages: []`)."""
    body = {
        "threadId": thread_id,
        "runId": run_id,
        "messages": [] if message is None else [
            {"id": message_id or f"{run_id}-user", "role": "user", "content": message}
        ],
        "tools": [],
        "context": [],
        "forwardedProps": {},
        "state": {},
    }
    if resume_envelope is not None:
        body["forwardedProps"] = {"command": {"resume": resume_envelope}}
        if interrupt_ids:
            body["resume"] = [
                {"interruptId": interrupt_id, "status": "resolved", "payload": resume_envelope}
                for interrupt_id in interrupt_ids
            ]
    return body


def post(url: str, body: dict) -> bytes:
    request = urllib.request.Request(
        url,
        data=json.dumps(body).encode(),
        headers={"Content-Type": "application/json", "Accept": "text/event-stream"},
        method="POST",
    )
    with urllib.request.urlopen(request, timeout=120) as response:
        return response.read()


def events(body: bytes) -> list[dict]:
    """The events of an SSE body (one `data:` line each, as langstage-agui writes)."""
    return [
        json.loads(line[len("data:"):])
        for line in body.decode().splitlines()
        if line.startswith("data:")
    ]


def interrupt_ids(body: bytes) -> list[str]:
    """Interrupt ids the legacy `CUSTOM on_interrupt` events reveal (`rawEvent.id`)."""
    return [
        event["rawEvent"]["id"]
        for event in events(body)
        if event.get("type") == "CUSTOM" and event.get("name") == "on_interrupt"
        and isinstance(event.get("rawEvent"), dict) and event["rawEvent"].get("id")
    ]


def record(url: str, name: str, body: dict, out: Path = OUT) -> bytes:
    raw = post(url, body)
    (out / f"{name}.sse").write_bytes(raw)
    kinds = [event.get("type") for event in events(raw)]
    print(f"{name}.sse: {len(raw)} bytes, {len(kinds)} events, last {kinds[-1] if kinds else None}")
    return raw


def record_demo(url: str, out: Path = OUT) -> None:
    record(url, "hello", run_input("agui-hello", "run-hello", "hello"), out)
    # Same thread: the closing MESSAGES_SNAPSHOT holds the whole thread.
    record(url, "hello-then-tool", run_input("agui-hello", "run-hello-2", "use a tool"), out)
    record(url, "think", run_input("agui-think", "run-think", "think about it"), out)
    record(url, "tool", run_input("agui-tool", "run-tool", "use a tool"), out)
    ask = record(url, "ask", run_input("agui-ask", "run-ask", "ask me a question"), out)
    # A message while the interrupt is open re-surfaces it and is dropped (docs/protocol.md §8.9).
    record(url, "ask-pending", run_input("agui-ask", "run-ask-2", "hello while paused"), out)
    envelope = {"decisions": [{"type": "respond", "message": "Ada"}]}
    record(url, "ask-resume", run_input("agui-ask", "run-ask-3", resume_envelope=envelope,
                                        interrupt_ids=interrupt_ids(ask)), out)


def record_failing(url: str, out: Path = OUT) -> None:
    record(url, "failing", run_input("agui-failing", "run-failing", "fail please"), out)


def record_hitl(url: str, out: Path = OUT) -> None:
    paused = record(url, "hitl", run_input("agui-hitl", "run-hitl", "tidy up"), out)
    envelope = {"decisions": [{"type": "approve"}, {"type": "reject", "message": "not now"}]}
    record(url, "hitl-resume", run_input("agui-hitl", "run-hitl-2", resume_envelope=envelope,
                                         interrupt_ids=interrupt_ids(paused)), out)


#: Interrupt values as graphs pass them to `interrupt(...)` (docs/protocol.md §5.2).
INTERRUPT_VALUES = [
    {"action_requests": [{"action": "ask_user", "args": {"question": "Name?"}}],
     "allowed_decisions": ["respond", "approve"]},
    {"action_requests": [{"name": "write_file", "args": {"path": "a"}, "description": "d"},
                         {"name": "execute", "args": {"command": "ls"}}],
     "review_configs": [{"action_name": "write_file", "allowed_decisions": ["approve", "edit", "custom"]},
                        {"action_name": "execute", "allowed_decisions": ["reject", "approve"]},
                        "not a config"]},
    {"action_requests": [{"name": "x", "args": {}}], "review_configs": []},
    {"action_requests": "not a list", "allowed_decisions": None, "review_configs": None},
    [{"action_request": {"action": "deploy", "args": {"env": "prod"}},
      "config": {"allow_accept": True, "allow_ignore": True, "allow_edit": False}, "description": "Deploy?"},
     {"action_request": {"action": "notify", "args": {}}, "config": {"allow_respond": True}},
     "a bare item", 3],
    [{"action_request": None, "config": {}}],
    [{"action": "no config at all"}],
    [],
    {"action_request": {"action": "single", "args": {}}, "config": {"allow_accept": True}},
    {"question": "What now?"},
    {},
    "Approve deleting build/?",
    "",
    None,
    0,
    False,
    3.5,
    [1, "two", None],
]


def record_interrupt_normalisation(out: Path = OUT) -> None:
    """What core's `_normalize_interrupt` makes of each value, for the panel's port."""
    from langstage_core.agui import _normalize_interrupt

    cases = []
    for value in INTERRUPT_VALUES:
        action_requests, review_configs, allowed = _normalize_interrupt(value)
        cases.append({"value": value, "action_requests": action_requests,
                      "review_configs": review_configs, "allowed_decisions": allowed})
    (out / "normalize-interrupt.json").write_text(json.dumps(cases, indent=1) + "\n", encoding="utf-8")
    print(f"normalize-interrupt.json: {len(cases)} cases")


OUTCOME_FIXTURE = "Q16-outcome-after-legacy-without-id.jsonl"


def record_outcome_interrupt(out: Path = OUT) -> None:
    """The demo's interrupt from ag-ui-langgraph's `LangGraphAgent` itself, built with
    `emit_interrupt_outcome=True` and raw events off: the legacy `CUSTOM on_interrupt`
    then comes without an id, and the 1.0 outcome with one (one event per line)."""
    import asyncio

    from ag_ui.core import RunAgentInput
    from ag_ui_langgraph import LangGraphAgent
    from langgraph.checkpoint.memory import InMemorySaver
    from langstage_core.demo.tools import graph

    agent = LangGraphAgent(
        name="demo",
        graph=graph.copy(update={"checkpointer": InMemorySaver()}),
        emit_interrupt_outcome=True,
        emit_raw_events=False,
    )
    run_input = RunAgentInput(
        thread_id="t-q16", run_id="r-q16", tools=[], context=[], state={}, forwarded_props={},
        messages=[{"id": "u-q16", "role": "user", "content": "ask me a question"}],
    )

    async def lines() -> list[str]:
        return [
            json.dumps(event.model_dump(mode="json", by_alias=True, exclude_none=True))
            async for event in agent.clone().run(run_input)
        ]

    (out / OUTCOME_FIXTURE).write_text("\n".join(asyncio.run(lines())) + "\n", encoding="utf-8")
    print(f"{OUTCOME_FIXTURE}: recorded")


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    record_interrupt_normalisation()
    record_outcome_interrupt()
    with serve("--demo=tools") as url:
        record_demo(url)
    with serve("--agent", f"{GRAPHS / 'failing.py'}:graph") as url:
        record_failing(url)
    with serve("--agent", f"{GRAPHS / 'hitl.py'}:graph") as url:
        record_hitl(url)


if __name__ == "__main__":
    main()
