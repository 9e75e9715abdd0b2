"""A scripted OpenAI-compatible server on 127.0.0.1, for tests that drive the real provider client.

The built-in agent's tests (and the browser tests, which start it as a process:
``python scripted_openai.py --port N --script notebook``) point ``OPENAI_BASE_URL``
at it, so ``langchain-openai``'s ``ChatOpenAI`` and the ``openai`` SDK talk to it
exactly as to OpenAI: ``GET /v1/models``, and ``POST /v1/chat/completions``
streamed as server-sent ``chat.completion.chunk`` events (reasoning, text, tool
calls, usage) or answered whole. A responder picks each reply from the request;
faults queued with :meth:`ScriptedOpenAI.fail_next` answer as OpenAI's errors do.
A :class:`Pace` streams at a model's speed (``bench/first_token.py``:
``--first-token-ms``, ``--tokens-per-second``); without one, at once.
``test_scripted_servers.py`` checks it against the real clients.
"""
from __future__ import annotations

import argparse
import itertools
import json
import re
import signal
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Callable, Optional

FAULTS = ("rate_limit", "server_error", "not_found", "context_length", "hang", "drop_after_text")
HANG_SECONDS = 60.0
CHAT_PATH = "/v1/chat/completions"


@dataclass
class Reply:
    """What the model says: reasoning, text, tool calls ``(name, args)``, and the usage it reports."""

    text: str = ""
    tool_calls: list[tuple[str, dict]] = field(default_factory=list)
    reasoning: str = ""  # streamed as ``reasoning_content`` deltas, as OpenAI-compatible reasoning servers do
    usage: Optional[tuple[int, int]] = None  # (prompt tokens, completion tokens); None: counted from the request


Responder = Callable[[dict], Reply]


@dataclass(frozen=True)
class Pace:
    """A model's speed: its first token ``first_token`` seconds after the request, then ``tokens_per_second``.

    A token is a streamed chunk that carries text, reasoning or a tool call's
    piece; the others (the role, the finish, the usage) go with their neighbours.
    Each token is due at a fixed time from the request, so the rate holds
    however long the writes take.
    """

    first_token: float = 0.0
    tokens_per_second: float = 0.0  # 0: every token with the first

    def due(self, index: int) -> float:
        """Seconds from the request to the token ``index`` (0: the first)."""
        return self.first_token + (index / self.tokens_per_second if self.tokens_per_second else 0.0)


class ScriptedOpenAI:
    """The server; ``responder`` answers each chat completion, ``requests`` records them.

    Each recorded request is the request's JSON with two keys added: ``_path``
    and ``_key_matched`` (the bearer token was ``api_key``, or no key is wanted).
    """

    def __init__(
        self,
        models=("gpt-4.1-mini", "local-llama"),
        api_key: Optional[str] = None,
        responder: Optional[Responder] = None,
        pace: Optional[Pace] = None,
    ):
        self.models = list(models)
        self.api_key = api_key
        self.responder = responder or echo_script
        self.pace = pace
        self.requests: list[dict] = []
        self._faults: list[str] = []
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._ids = itertools.count(1)
        self._httpd: Optional[ThreadingHTTPServer] = None

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._httpd.server_address[1]}/v1"

    def start(self, port: int = 0) -> ScriptedOpenAI:
        self._stopping.clear()
        self._httpd = _Server(("127.0.0.1", port), _handler(self))
        # A short poll: stop() waits for it, and every test that uses the server stops one.
        serve = threading.Thread(target=self._httpd.serve_forever, args=(0.05,), name="scripted-openai", daemon=True)
        serve.start()
        return self

    def stop(self) -> None:
        """Stop serving; a hanging request gives up at once (its connection is closed unanswered)."""
        self._stopping.set()
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None

    def __enter__(self) -> ScriptedOpenAI:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    def fail_next(self, kind: str, times: int = 1) -> None:
        """Answer the next ``times`` chat completions with the fault ``kind`` (one of ``FAULTS``)."""
        if kind not in FAULTS:
            raise ValueError(f"unknown fault {kind!r}, expected one of {FAULTS}")
        with self._lock:
            self._faults.extend([kind] * times)

    def next_id(self) -> int:
        """A number no other completion or tool call of this server has (ids are unique, as OpenAI's are)."""
        with self._lock:
            return next(self._ids)

    def take_fault(self) -> Optional[str]:
        with self._lock:
            return self._faults.pop(0) if self._faults else None

    def wait_stopping(self, seconds: float) -> None:
        self._stopping.wait(seconds)


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    # socketserver's backlog is 5: 50 clients connecting at once (bench/first_token.py) would
    # see dropped handshakes retried a second later.
    request_queue_size = 128


def _handler(server: ScriptedOpenAI) -> type:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args) -> None:  # quiet: the tests read requests, not logs
            pass

        def do_GET(self) -> None:
            if self.path.rstrip("/") in ("/v1/models", "/health"):
                data = [{"id": m, "object": "model", "created": 0, "owned_by": "scripted"} for m in server.models]
                self._json(200, {"object": "list", "data": data})
            else:
                self._error(404, f"Invalid URL (GET {self.path})", None)

        def do_POST(self) -> None:
            raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            if self.path.rstrip("/") != CHAT_PATH:
                self._error(404, f"Invalid URL (POST {self.path})", None)
                return
            try:
                body = json.loads(raw or b"{}")
            except ValueError:
                self._error(400, "We could not parse the JSON body of your request.", None)
                return
            sent_key = (self.headers.get("Authorization") or "").removeprefix("Bearer ").strip()
            key_matched = server.api_key is None or sent_key == server.api_key
            server.requests.append({**body, "_path": self.path, "_key_matched": key_matched})
            if not key_matched:
                self._error(401, f"Incorrect API key provided: {masked(sent_key)}. You can find your API key at "
                            "https://platform.openai.com/account/api-keys.", "invalid_api_key")
                return
            if body.get("model") not in server.models:
                self._model_not_found(body.get("model"))
                return
            fault = server.take_fault()
            if fault in ("rate_limit", "server_error", "not_found", "context_length"):
                self._fault(fault, body.get("model"))
                return
            if fault == "hang":
                server.wait_stopping(HANG_SECONDS)
                self.close_connection = True
                return
            if fault == "drop_after_text" and not body.get("stream"):
                self.close_connection = True  # a whole answer cut is no answer: the connection just closes
                return
            reply = server.responder(body)
            if not body.get("stream"):
                self._json(200, completion(body, reply, server.next_id))
                return
            if fault == "drop_after_text" and not reply.text:
                reply = Reply("Partial answer")  # the fault cuts the stream after a word: it needs one
            self._stream(body, reply, fault)

        def _fault(self, kind: str, model: str) -> None:
            if kind == "rate_limit":
                message = f"Rate limit reached for {model} on requests per min (RPM): Limit 3, Used 3."
                self._error(429, message, "rate_limit_exceeded", kind="requests", headers={"retry-after": "0"})
            elif kind == "server_error":
                self._error(500, "The server had an error while processing your request.", None, kind="server_error")
            elif kind == "not_found":
                self._model_not_found(model)
            else:
                self._error(400, "This model's maximum context length is 128000 tokens. However, your messages "
                            "resulted in 130000 tokens.", "context_length_exceeded", param="messages")

        def _model_not_found(self, model) -> None:
            message = f"The model `{model}` does not exist or you do not have access to it."
            self._error(404, message, "model_not_found")

        def _error(self, status: int, message: str, code, param=None, kind="invalid_request_error", headers=None):
            error = {"message": message, "type": kind, "param": param, "code": code}
            self._json(status, {"error": error}, headers)

        def _json(self, status: int, payload: dict, headers: Optional[dict] = None) -> None:
            data = json.dumps(payload).encode("utf-8")
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            for name, value in (headers or {}).items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(data)

        def _stream(self, body: dict, reply: Reply, fault: Optional[str]) -> None:
            began = time.monotonic()
            tokens = 0
            # Chunked, as OpenAI streams: a connection dropped mid-answer is then an incomplete body.
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream; charset=utf-8")
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            for chunk in chunks(body, reply, server.next_id):
                if server.pace is not None and is_token(chunk):
                    server.wait_stopping(max(0.0, began + server.pace.due(tokens) - time.monotonic()))
                    tokens += 1
                self._write_chunk(f"data: {json.dumps(chunk)}\n\n".encode())
                if fault == "drop_after_text" and chunk["choices"] and chunk["choices"][0]["delta"].get("content"):
                    self.close_connection = True
                    return  # after the first word: no [DONE], no last chunk, the body is cut
            self._write_chunk(b"data: [DONE]\n\n")
            self.wfile.write(b"0\r\n\r\n")

        def _write_chunk(self, data: bytes) -> None:
            self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
            self.wfile.flush()

    return Handler


def masked(key: str) -> str:
    """A key as OpenAI's 401 quotes it: its first 8 characters, asterisks, its last four (short keys: asterisks)."""
    return f"{key[:8]}{'*' * max(len(key) - 12, 4)}{key[-4:]}" if len(key) > 12 else "*" * max(len(key), 4)


def usage_of(body: dict, reply: Reply) -> dict:
    if reply.usage is not None:
        prompt, completion_tokens = reply.usage
    else:
        prompt = len(json.dumps(body.get("messages", []))) // 4
        completion_tokens = len(f"{reply.reasoning} {reply.text}".split()) + 10 * len(reply.tool_calls)
    return {"prompt_tokens": prompt, "completion_tokens": completion_tokens, "total_tokens": prompt + completion_tokens}


def _calls(reply: Reply, next_id: Callable[[], int]) -> list:
    return [(f"call_{next_id()}", name, json.dumps(args)) for name, args in reply.tool_calls]


def _words(text: str) -> list:
    return re.findall(r"\s*\S+\s*", text)


def completion(body: dict, reply: Reply, next_id: Callable[[], int]) -> dict:
    """A whole ``chat.completion``."""
    message: dict = {"role": "assistant", "content": reply.text or None}
    if reply.reasoning:
        message["reasoning_content"] = reply.reasoning
    calls = _calls(reply, next_id)
    if calls:
        message["tool_calls"] = [
            {"id": call_id, "type": "function", "function": {"name": name, "arguments": args}}
            for call_id, name, args in calls
        ]
    choice = {"index": 0, "message": message, "finish_reason": "tool_calls" if calls else "stop"}
    return {**_head(body, "chat.completion", next_id), "choices": [choice], "usage": usage_of(body, reply)}


def chunks(body: dict, reply: Reply, next_id: Callable[[], int]) -> list:
    """The ``chat.completion.chunk`` events of a streamed reply, as OpenAI sends them."""
    head = _head(body, "chat.completion.chunk", next_id)

    def chunk(delta: dict, finish: Optional[str] = None) -> dict:
        return {**head, "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}

    out = [chunk({"role": "assistant", "content": ""})]
    out += [chunk({"reasoning_content": word}) for word in _words(reply.reasoning)]
    out += [chunk({"content": word}) for word in _words(reply.text)]
    for index, (call_id, name, args) in enumerate(_calls(reply, next_id)):
        start = {"index": index, "id": call_id, "type": "function", "function": {"name": name, "arguments": ""}}
        out.append(chunk({"tool_calls": [start]}))
        half = len(args) // 2
        for piece in (args[:half], args[half:]):
            out.append(chunk({"tool_calls": [{"index": index, "function": {"arguments": piece}}]}))
    out.append(chunk({}, "tool_calls" if reply.tool_calls else "stop"))
    if (body.get("stream_options") or {}).get("include_usage"):
        out.append({**head, "choices": [], "usage": usage_of(body, reply)})
    return out


def is_token(chunk: dict) -> bool:
    """Whether a ``chat.completion.chunk`` carries a token: text, reasoning or a piece of a tool call."""
    delta = chunk["choices"][0]["delta"] if chunk["choices"] else {}
    return bool(delta.get("content") or delta.get("reasoning_content") or delta.get("tool_calls"))


def _head(body: dict, kind: str, next_id: Callable[[], int]) -> dict:
    return {"id": f"chatcmpl-{next_id()}", "object": kind, "created": int(time.time()), "model": body.get("model")}


# -- what the messages say --------------------------------------------------------


def _text(content) -> str:
    if isinstance(content, str):
        return content
    return "".join(part.get("text", "") for part in content or [] if isinstance(part, dict))


def image_parts(body: dict) -> list[str]:
    """The data URLs of every image part of the request's messages."""
    found = []
    for message in body.get("messages", []):
        content = message.get("content")
        for part in content if isinstance(content, list) else []:
            if isinstance(part, dict) and part.get("type") == "image_url":
                found.append(part["image_url"]["url"])
    return found


def last_request(body: dict) -> tuple[str, list[tuple[str, str]]]:
    """The first line of the last user message, and the tool results after it as (tool name, text)."""
    messages = body.get("messages", [])
    names = {
        call["id"]: call["function"]["name"]
        for message in messages
        for call in message.get("tool_calls") or []
    }
    results = []
    for message in reversed(messages):
        if message.get("role") == "tool":
            results.append((names.get(message.get("tool_call_id"), "?"), _text(message.get("content"))))
        elif message.get("role") == "user":
            # The panel's context block follows the user's own words after a blank line.
            text = _text(message.get("content")).strip()
            return (text.splitlines()[0] if text else ""), list(reversed(results))
    return "", list(reversed(results))


# -- scripts ----------------------------------------------------------------------


def echo_script(body: dict) -> Reply:
    line, _ = last_request(body)
    return Reply(f"You said: {line}")


ADD_CELL = re.compile(r"add a cell that prints (?P<text>.+)", re.IGNORECASE)
WRITE_FILE = re.compile(r"write the file (?P<path>\S+) with (?P<text>.+)", re.IGNORECASE)
USE_TOOL = re.compile(r"use the tool (?P<tool>[\w-]+)(?: with (?P<text>.+))?", re.IGNORECASE)
READ_CELL = re.compile(r"look at cell (?P<cell>\S+)", re.IGNORECASE)
READ_FILE = re.compile(r"read the file (?P<path>\S+)", re.IGNORECASE)
SEARCH = re.compile(r"search the files for (?P<pattern>\S+)", re.IGNORECASE)


def notebook_script(body: dict) -> Reply:
    """The built-in notebook agent's script for the tests (rules on the last user message's first line)."""
    line, results = last_request(body)
    name, text = results[-1] if results else (None, "")
    result = _json(text)
    if name is not None and result.get("status") == "rejected":
        return Reply(f"You rejected {name}, so I left the notebook as it is.")
    if name is not None and result.get("status") == "error":
        return Reply(f"{name} failed: {result.get('error')}")
    if (match := ADD_CELL.search(line)) is not None:
        if name is None:
            source = f"print({match['text'].strip()!r})"
            return Reply(tool_calls=[("insert_cell", {"source": source, "cell_type": "code"})])
        if name == "insert_cell" and result.get("status") == "applied":
            return Reply(tool_calls=[("run_cell", {"cell_id": result.get("cell_id")})])
        printed = "".join(
            output.get("text", "")
            for output in result.get("outputs", [])
            if output.get("output_type") == "stream" and output.get("name") == "stdout"
        )
        return Reply(f"I added a cell and ran it. It printed: {printed.strip()}")
    if (match := WRITE_FILE.search(line)) is not None:
        if name is None:
            args = {"file_path": "/" + match["path"].lstrip("/"), "content": match["text"] + "\n"}
            return Reply(tool_calls=[("write_file", args)])
        return Reply(f"Done: {text}")
    if (match := USE_TOOL.search(line)) is not None:
        if name is None:
            return Reply(tool_calls=[(match["tool"], {"text": match["text"] or ""})])
        return Reply(f"The tool said: {text}")
    if (match := READ_CELL.search(line)) is not None:
        if name is None:
            return Reply(tool_calls=[("read_cell", {"cell_id": match["cell"]})])
        return Reply(f"I read cell {result.get('cell_id')} and see {len(image_parts(body))} image(s).")
    if (match := READ_FILE.search(line)) is not None:
        args = {"file_path": "/" + match["path"].lstrip("/")}
        return Reply(tool_calls=[("read_file", args)]) if name is None else Reply(text)
    if (match := SEARCH.search(line)) is not None:
        return Reply(tool_calls=[("grep", {"pattern": match["pattern"]})]) if name is None else Reply(text)
    if "how many images" in line.lower():
        return Reply(f"I see {len(image_parts(body))} image(s).")
    if "think about it" in line.lower():
        return Reply("I thought it over.", reasoning="The user wants me to think first.")
    return Reply(f"Hello from {body.get('model')}! You said: {line}")


def _json(text: str) -> dict:
    try:
        value = json.loads(text)
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


SCRIPTS = {"echo": echo_script, "notebook": notebook_script}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--script", choices=sorted(SCRIPTS), default="notebook")
    parser.add_argument("--models", default="gpt-4.1-mini,local-llama", help="comma-separated model names")
    parser.add_argument("--api-key", default=None)
    parser.add_argument("--first-token-ms", type=float, default=0.0, help="the first token this long after a request")
    parser.add_argument("--tokens-per-second", type=float, default=0.0, help="then this many (0: all at once)")
    options = parser.parse_args()
    pace = None
    if options.first_token_ms or options.tokens_per_second:
        pace = Pace(options.first_token_ms / 1000, options.tokens_per_second)
    server = ScriptedOpenAI(options.models.split(","), options.api_key, SCRIPTS[options.script], pace)
    server.start(options.port)
    stopped = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stopped.set())
    signal.signal(signal.SIGINT, lambda *_: stopped.set())
    stopped.wait()
    server.stop()


if __name__ == "__main__":
    main()
