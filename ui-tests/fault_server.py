"""A misbehaving chunk-wire endpoint for the reliability and security UI tests.

Run ``python fault_server.py --port N``; it prints ``listening on <url>`` once it
accepts connections and serves until it is terminated. It binds 127.0.0.1
only and answers CORS for loopback origins, so the panel can use it as an
external ("other origin") HTTP endpoint: ``http://127.0.0.1:N/``.

The first word of the chat message picks the behaviour (the rest is free):

========================  ==================================================
``ok``                    three text frames, then ``complete``
``drop``                  text frames, half a frame, then the socket closes
``stall``                 one text frame, then silence (idle timeout)
``silent``                no byte at all, not even headers (connect timeout)
``http-<code>-<json|html>`` that status with a JSON or an HTML error body
``type-<json|html>``      200 with the wrong content type
``invalid``               valid frames around lines that are not JSON objects
``big``                   one 10 MB text frame, then ``complete``
``many``                  100,000 one-character text frames, then ``complete``
``bytewise``              frames written one byte per TCP write
``flaky``                 502 for the first request with this exact message,
                          then a normal answer (Retry)
``count``                 ``tick-1 … tick-200``, one every 50 ms
``hostile``               every XSS payload in every place a frame can carry
                          text (fixtures/xss/payloads.json); ends on an
                          interrupt whose resume answers with a hostile error
========================  ==================================================

``GET /_log`` returns every request received (method, path, headers) and
``DELETE /_log`` clears it, for the tests' checks on what the browser sent.
"""
from __future__ import annotations

import argparse
import asyncio
import json
import re
from pathlib import Path
from typing import Optional

from tornado import httpserver, web
from tornado.iostream import StreamClosedError

PAYLOADS = Path(__file__).resolve().parent.parent / "fixtures" / "xss" / "payloads.json"
LOOPBACK_ORIGIN = re.compile(r"^https?://(127\.0\.0\.1|localhost)(:\d+)?$")
BIG_FRAME_CHARS = 10 * 1000 * 1000
MANY_FRAMES = 100_000
ERROR_PAGE = (
    "<!DOCTYPE html><html><head><title>{code} {reason}</title></head>"
    "<body><h1>{reason}</h1><p>The fault server refused this request on purpose.</p></body></html>"
)


def sse(frame: dict) -> str:
    return f"data: {json.dumps(frame)}\n\n"


def chunk(text: str) -> dict:
    return {"status": "streaming", "chunk": text, "node": "agent", "message_id": "m1"}


COMPLETE = {"status": "complete", "outcome": "complete"}


class State:
    """What the server remembers between requests."""

    def __init__(self) -> None:
        self.log: list[dict] = []
        self.seen_messages: set[str] = set()
        self.thread_scenarios: dict[str, str] = {}


class Base(web.RequestHandler):
    def initialize(self, state: State) -> None:
        self.state = state
        self.gone = asyncio.Event()

    def prepare(self) -> None:
        if self.request.path != "/_log":
            self.state.log.append(
                {"method": self.request.method, "path": self.request.path, "headers": dict(self.request.headers)}
            )
        origin = self.request.headers.get("Origin", "")
        if LOOPBACK_ORIGIN.match(origin):
            self.set_header("Access-Control-Allow-Origin", origin)
            self.set_header("Vary", "Origin")

    def options(self, *args) -> None:
        self.set_header("Access-Control-Allow-Methods", "GET, POST, OPTIONS")
        # Reflected, so a header the panel should never send would still go
        # through and show up in the log.
        requested = self.request.headers.get("Access-Control-Request-Headers")
        if requested:
            self.set_header("Access-Control-Allow-Headers", requested)
        self.set_header("Access-Control-Max-Age", "600")
        self.set_status(204)
        self.finish()

    def on_connection_close(self) -> None:
        self.gone.set()

    def json_body(self) -> dict:
        try:
            body = json.loads(self.request.body or b"{}")
        except ValueError:
            body = {}
        return body if isinstance(body, dict) else {}


class LogHandler(Base):
    def get(self) -> None:
        self.finish(json.dumps(self.state.log))

    def delete(self) -> None:
        self.state.log.clear()
        self.set_status(204)
        self.finish()


class HealthHandler(Base):
    def get(self) -> None:
        self.set_header("Content-Type", "application/json")
        self.finish(json.dumps({
            "status": "healthy", "agent_loaded": True, "ready": True,
            "message": "Agent ready: fault server", "agent_name": "Fault server",
        }))


class CancelHandler(Base):
    def post(self) -> None:
        self.set_header("Content-Type", "application/json")
        self.finish(json.dumps({"status": "not_found", "message": "No active execution found for this thread"}))


class StreamHandler(Base):
    """``chat`` and ``resume``: the scenario decides what goes on the wire."""

    async def post(self, route: str) -> None:
        body = self.json_body()
        thread_id = str(body.get("thread_id", ""))
        if route == "chat":
            message = str(body.get("message", ""))
            scenario = message.split()[0] if message.split() else ""
            self.state.thread_scenarios[thread_id] = scenario
        else:
            message = ""
            scenario = "resume-" + self.state.thread_scenarios.get(thread_id, "")
        try:
            await self.play(scenario, message)
        except StreamClosedError:
            pass  # the browser went away (Stop, reload, abort): nothing to tell it

    async def play(self, scenario: str, message: str) -> None:
        status = re.fullmatch(r"http-(\d{3})-(json|html)", scenario)
        if status:
            return self.refuse(int(status.group(1)), status.group(2))
        if scenario == "flaky" and message not in self.state.seen_messages:
            self.state.seen_messages.add(message)
            return self.refuse(502, "html")
        if scenario.startswith("type-"):
            kind = scenario[len("type-"):]
            self.set_header("Content-Type", "text/html" if kind == "html" else "application/json")
            return self.finish("<html><body>Welcome to the proxy login page</body></html>"
                               if kind == "html" else json.dumps(COMPLETE))
        if scenario == "silent":
            await self.gone.wait()
            return
        self.set_header("Content-Type", "text/event-stream")
        self.set_header("Cache-Control", "no-cache")
        player = getattr(self, "play_" + scenario.replace("-", "_"), None)
        if player is None:
            await self.send(sse(chunk(f"fault server: no scenario {scenario!r}")), sse(COMPLETE))
        else:
            await player()
        if not self._finished:
            self.finish()

    def refuse(self, code: int, kind: str) -> None:
        self.set_status(code)
        reason = self._reason
        if kind == "json":
            self.set_header("Content-Type", "application/json")
            self.finish(json.dumps({"message": f"fault server says {code}: {reason}", "reason": "fault"}))
        else:
            self.set_header("Content-Type", "text/html")
            self.finish(ERROR_PAGE.format(code=code, reason=reason))

    async def send(self, *parts: str) -> None:
        for part in parts:
            self.write(part)
        await self.flush()

    async def play_ok(self) -> None:
        await self.send(sse(chunk("all ")), sse(chunk("is ")), sse(chunk("well")), sse(COMPLETE))

    async def play_flaky(self) -> None:
        await self.play_ok()

    async def play_drop(self) -> None:
        await self.send(sse(chunk("partial answer ")), sse(chunk("before the drop")))
        await asyncio.sleep(0.2)
        await self.send('data: {"status": "streaming", "chunk": "never comp')
        await asyncio.sleep(0.2)
        # No terminating chunk: the browser sees the body break off.
        self.request.connection.stream.close()

    async def play_stall(self) -> None:
        await self.send(sse(chunk("waiting for a slow tool")))
        await self.gone.wait()

    async def play_invalid(self) -> None:
        await self.send(
            sse(chunk("before ")),
            "data: {not json at all\n\n",
            "data: [1, 2, 3]\n\n",
            'data: "a bare string"\n\n',
            "data: {\"status\": \"streaming\", \"chunk\": \"cut\n\n",
            "this line is no SSE field at all\n\n",
            sse(chunk("after")),
            sse(COMPLETE),
        )

    async def play_big(self) -> None:
        line = "0123456789" * 9 + "ABCDEFGHI\n"  # 100 characters a line
        text = "BIG-START\n" + line * (BIG_FRAME_CHARS // len(line)) + "BIG-END"
        await self.send(sse(chunk(text)))
        await self.send(sse(COMPLETE))

    async def play_many(self) -> None:
        batch = []
        for index in range(MANY_FRAMES):
            batch.append(sse(chunk("x" if index % 1000 else "|")))
            if len(batch) == 1000:
                await self.send(*batch)
                batch = []
        await self.send(*batch, sse(chunk(" MANY-END")), sse(COMPLETE))

    async def play_bytewise(self) -> None:
        self.request.connection.stream.set_nodelay(True)
        await self.flush()
        text = "".join([
            sse(chunk("byte ")), sse(chunk("by byte: ")), sse(chunk("é, ß, 漢字, 😀")),
            sse({"status": "streaming", "tool_calls": [{"name": "lookup", "args": {"q": "ü"}, "id": "c1"}]}),
            sse({"status": "streaming", "tool_result": "done ✓", "id": "c1", "name": "lookup",
                 "tool_status": "success", "duration_ms": 3}),
            sse(COMPLETE),
        ])
        for byte in text.encode("utf-8"):
            self.write(bytes([byte]))
            await self.flush()
            await asyncio.sleep(0.001)

    async def play_count(self) -> None:
        for index in range(1, 201):
            await self.send(sse(chunk(f"tick-{index} ")))
            await asyncio.sleep(0.05)
        await self.send(sse(COMPLETE))

    async def play_hostile(self) -> None:
        await self.send(*(sse(frame) for frame in hostile_frames()))

    async def play_resume_hostile(self) -> None:
        payloads = load_payloads()
        text = "\n\n".join(p["markup"] for p in payloads)
        await self.send(
            sse(chunk("Hostile text after the review:\n\n" + text)),
            sse({"status": "error", "error": "RuntimeError: " + " ".join(p["markup"] for p in payloads),
                 "traceback": "Traceback (most recent call last):\n" + "\n".join(p["markup"] for p in payloads)}),
        )


def load_payloads() -> list[dict]:
    return json.loads(PAYLOADS.read_text(encoding="utf-8"))["payloads"]


def hostile_frames() -> list[dict]:
    """Each payload in text, reasoning, tool name/args/result, extraction and interrupt."""
    payloads = load_payloads()
    markups = [p["markup"] for p in payloads]
    joined = "\n\n".join(markups)
    frames: list[dict] = [
        {"status": "streaming", "reasoning": "Thinking about:\n\n" + joined, "node": "agent"},
        chunk("Hostile answer:\n\n" + joined),
    ]
    for index, payload in enumerate(payloads):
        call_id = f"hostile_{index}"
        frames.append({"status": "streaming", "tool_calls": [{
            "name": payload["markup"], "id": call_id,
            "args": {"html": payload["markup"], payload["markup"]: index},
        }]})
        frames.append({"status": "streaming", "tool_result": payload["markup"], "id": call_id,
                       "name": payload["markup"], "tool_status": "success", "duration_ms": 1})
    frames.append({"status": "streaming", "extraction": {
        "tool_name": markups[0], "extracted_type": "hostile<b onmouseover=window.__xss=1>",
        "data": [{"payload": m, m: m} for m in markups],
    }})
    frames.append({"status": "interrupt", "interrupt": {
        "action_requests": [{"name": markups[1], "description": joined, "args": {"command": joined}}],
        "review_configs": [],
        "allowed_decisions": ["approve", "reject"],
    }})
    frames.append({"status": "complete", "outcome": "interrupted"})
    return frames


def make_app() -> web.Application:
    state = State()
    return web.Application([
        (r"/_log", LogHandler, {"state": state}),
        (r"/health", HealthHandler, {"state": state}),
        (r"/cancel", CancelHandler, {"state": state}),
        (r"/(chat|resume)", StreamHandler, {"state": state}),
    ])


async def serve(port: int) -> None:
    server = httpserver.HTTPServer(make_app())
    server.listen(port, address="127.0.0.1")
    print(f"listening on http://127.0.0.1:{port}/", flush=True)
    await asyncio.Event().wait()


def main(argv: Optional[list] = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, required=True)
    asyncio.run(serve(parser.parse_args(argv).port))


if __name__ == "__main__":
    main()
