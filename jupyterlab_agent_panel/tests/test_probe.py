"""``POST agent-panel/probe``: the server tries an endpoint URL and names the failing step."""
import asyncio
import json
import socket
import time

import pytest
from jupyter_server.utils import url_path_join
from tornado.httpclient import HTTPClientError


@pytest.fixture
def probe(post_json):
    async def run(body) -> tuple:
        response = await post_json("probe", body)
        return response.code, json.loads(response.body)

    return run


@pytest.fixture
def closed_port() -> int:
    """A loopback port nothing listens on (bound, then released)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture
def silent_port():
    """A port that completes the TCP handshake (the backlog) but never answers."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen(8)
        yield sock.getsockname()[1]


async def test_a_live_server_is_ok_with_its_status(probe, jp_serverapp):
    url = f"http://127.0.0.1:{jp_serverapp.port}{jp_serverapp.base_url}agent-panel/health"

    code, answer = await probe({"url": url, "timeout_seconds": 5})

    assert code == 200
    # Without credentials the server's own API refuses: reachable all the same.
    assert answer == {
        "result": "ok",
        "status": 403,
        "detail": f"127.0.0.1:{jp_serverapp.port} answers HTTP 403 Forbidden",
    }


async def test_a_live_server_404_is_reported_as_its_status(probe, jp_serverapp):
    url = f"http://127.0.0.1:{jp_serverapp.port}/no/such/page"

    code, answer = await probe({"url": url})

    assert (code, answer["result"], answer["status"]) == (200, "ok", 404)


async def test_an_unknown_host_name_is_dns(probe):
    code, answer = await probe({"url": "http://agent-panel-probe.invalid:8000/", "timeout_seconds": 5})

    assert code == 200
    assert answer["result"] == "dns"
    assert answer["detail"].startswith("the name 'agent-panel-probe.invalid' cannot be resolved (")


async def test_a_closed_port_is_refused(probe, closed_port):
    code, answer = await probe({"url": f"http://127.0.0.1:{closed_port}/agent/"})

    assert code == 200
    assert answer == {
        "result": "refused",
        "detail": f"nothing listens at 127.0.0.1:{closed_port} (connection refused)",
    }


async def test_a_server_that_never_answers_times_out_quickly(probe, silent_port):
    started = time.monotonic()

    code, answer = await probe({"url": f"http://127.0.0.1:{silent_port}/", "timeout_seconds": 0.5})

    assert time.monotonic() - started < 3
    assert code == 200
    assert answer == {
        "result": "timeout",
        "detail": f"connected to 127.0.0.1:{silent_port}, but no HTTP answer within 0.5 s",
    }


async def test_a_websocket_or_file_url_is_refused(probe):
    refused = (("ws://127.0.0.1:1/ws", "ws"), ("file:///etc/passwd", "file"), ("agent-panel/", "a relative URL"))
    for url, scheme in refused:
        code, answer = await probe({"url": url})

        assert code == 400
        assert answer["reason"] == "bad_request"
        assert scheme in answer["message"]


@pytest.mark.parametrize(
    "body, message",
    [
        ("not json", "Expecting value"),
        ([], "Request body must be a JSON object, not list"),
        ({}, "url is required"),
        ({"url": 5}, "url is required and must be a string"),
        ({"url": "http://:80/"}, "the URL has no host name"),
        ({"url": "http://host:99999/"}, "invalid port"),
        ({"url": "http://host/", "timeout_seconds": 0}, "timeout_seconds must be a number in (0, 10]"),
        ({"url": "http://host/", "timeout_seconds": 60}, "timeout_seconds must be a number in (0, 10]"),
        ({"url": "http://host/", "timeout_seconds": True}, "timeout_seconds must be a number"),
    ],
)
async def test_bad_requests_are_400_naming_the_problem(probe, body, message):
    code, answer = await probe(body)

    assert code == 400
    assert message in answer["message"]


async def test_without_credentials_it_is_403(http_server_client, jp_base_url):
    url = url_path_join(jp_base_url, "agent-panel", "probe")

    with pytest.raises(HTTPClientError) as caught:
        await http_server_client.fetch(
            url, method="POST", body=json.dumps({"url": "http://127.0.0.1:1/"}), follow_redirects=False
        )

    assert caught.value.code == 403


# -- malformed URLs, malformed answers, credentials, the deadline ---------------------


@pytest.mark.parametrize(
    ("url", "message"),
    [
        (
            f"http://{'a' * 64}.example/",
            f"the host name '{'a' * 64}.example' has a label of 64 characters; at most 63 are allowed",
        ),
        ("http://a..b/", "the host name 'a..b' has an empty label (two dots in a row, or a leading dot)"),
        (f"http://{'a.' * 127}b/", "the host name is 255 characters long; at most 253 are allowed"),
        ("http://127.0.0.1:0/", "the URL has port 0, which nothing can listen on"),
        ("http://127.0.0.1:-1/", "the URL has an invalid port: Port could not be cast to integer value as '-1'"),
        ("http://127.0.0.1:65536/", "the URL has an invalid port: Port out of range 0-65535"),
        ("http://127.0.0.1:http/", "the URL has an invalid port: Port could not be cast to integer value as 'http'"),
    ],
)
async def test_malformed_urls_are_400_naming_the_problem(probe, url, message):
    code, answer = await probe({"url": url})

    assert (code, answer) == (400, {"message": message, "reason": "bad_request"})


class Target:
    """A local server that answers every request with ``answer`` (bytes) and records the requests."""

    def __init__(self, answer: bytes, close: bool = True):
        self.answer = answer
        self.close_after = close
        self.requests: list = []
        self.server = None

    async def start(self) -> int:
        self.server = await asyncio.start_server(self._handle, "127.0.0.1", 0)
        return self.server.sockets[0].getsockname()[1]

    async def _handle(self, reader, writer):
        try:
            head = await reader.readuntil(b"\r\n\r\n")
        except (asyncio.IncompleteReadError, ConnectionError):  # the probe's bare TCP check
            writer.close()
            return
        self.requests.append(head.decode("latin-1"))
        writer.write(self.answer)
        await writer.drain()
        if self.close_after:
            writer.close()
        else:
            await asyncio.sleep(30)  # a body that never ends

    def stop(self) -> None:
        self.server.close()


@pytest.fixture
def target():
    """Starts :class:`Target` servers in the test's loop; stopped at teardown."""
    started = []

    async def start(answer: bytes, close: bool = True) -> tuple:
        server = Target(answer, close)
        started.append(server)
        return server, await server.start()

    yield start
    for server in started:
        server.stop()


@pytest.mark.parametrize(
    ("answer", "detail"),
    [
        (
            b"HTTP/1.1 200 OK\r\nX-Long: " + b"a" * 200_000 + b"\r\n\r\n",
            "answered, but not with valid HTTP: its status line and headers are too long to read",
        ),
        (b"garbage here\r\n\r\n", "answered, but not with valid HTTP: illegal status line: bytearray(b'garbage here')"),
        (b"", "answered, but not with valid HTTP: it closed the connection without an answer"),
    ],
)
async def test_a_malformed_answer_is_named(probe, target, answer, detail):
    _, port = await target(answer)

    code, verdict = await probe({"url": f"http://127.0.0.1:{port}/", "timeout_seconds": 5})

    assert (code, verdict) == (200, {"result": "unreachable", "detail": f"127.0.0.1:{port} {detail}"})


async def test_a_huge_body_is_never_read(probe, target):
    _, port = await target(b"HTTP/1.1 200 OK\r\nContent-Length: 200000000\r\n\r\n" + b"x" * 1024, close=False)
    started = time.monotonic()

    code, verdict = await probe({"url": f"http://127.0.0.1:{port}/big", "timeout_seconds": 5})

    assert time.monotonic() - started < 2
    assert (code, verdict) == (200, {"result": "ok", "status": 200, "detail": f"127.0.0.1:{port} answers HTTP 200 OK"})


async def test_no_credentials_cookies_or_body_are_sent(probe, target):
    server, port = await target(b"HTTP/1.1 302 Found\r\nSet-Cookie: session=1\r\nLocation: /elsewhere\r\n\r\n")

    for _ in range(2):  # the second request must not carry the cookie the first was given
        code, verdict = await probe({"url": f"http://ada:secret@localhost:{port}/agent/?q=1"})
        assert (code, verdict["result"], verdict["status"]) == (200, "ok", 302)  # the redirect is not followed

    assert len(server.requests) == 2
    for request in server.requests:
        lines = request.split("\r\n")
        assert lines[0] == "GET /agent/?q=1 HTTP/1.1"
        headers = {line.split(": ", 1)[0].lower(): line.split(": ", 1)[1] for line in lines[1:] if line}
        assert headers["host"] == f"localhost:{port}"
        assert not {"authorization", "cookie", "content-length", "transfer-encoding"} & headers.keys(), headers


@pytest.fixture
def silent_server():
    """Starts a server that accepts connections and never answers; stopped at teardown."""
    started = []

    async def start() -> int:
        server = await asyncio.start_server(lambda reader, writer: None, "127.0.0.1", 0)
        started.append(server)
        return server.sockets[0].getsockname()[1]

    yield start
    for server in started:
        server.close()


async def test_queued_probes_keep_their_deadline(probe, silent_server):
    url = f"http://127.0.0.1:{await silent_server()}/"
    holding = [asyncio.ensure_future(probe({"url": url, "timeout_seconds": 2})) for _ in range(4)]
    await asyncio.sleep(0.3)  # the four slots are taken, each probe waiting for an answer
    started = time.monotonic()

    queued = await asyncio.gather(*(probe({"url": url, "timeout_seconds": 0.5}) for _ in range(2)))

    assert time.monotonic() - started < 1.5  # their own deadline, not the slots' holders'
    assert [answer for _, answer in queued] == [
        {"result": "timeout", "detail": "the server's 4 probe slots stayed busy for 0.5 s"}
    ] * 2
    for code, answer in await asyncio.gather(*holding):
        assert (code, answer["result"]) == (200, "timeout")
        assert answer["detail"].endswith(", but no HTTP answer within 2 s")


async def test_the_probe_does_not_wait_for_tornados_shared_client(probe, silent_server, jp_serverapp):
    from tornado.httpclient import AsyncHTTPClient

    port = await silent_server()
    shared = AsyncHTTPClient()  # process-wide, ten requests at a time
    hogs = [
        asyncio.ensure_future(shared.fetch(f"http://127.0.0.1:{port}/", request_timeout=5, raise_error=False))
        for _ in range(12)
    ]
    await asyncio.sleep(0.1)
    started = time.monotonic()
    url = f"http://127.0.0.1:{jp_serverapp.port}{jp_serverapp.base_url}agent-panel/health"

    code, verdict = await probe({"url": url, "timeout_seconds": 5})

    assert time.monotonic() - started < 1
    assert (code, verdict["result"], verdict["status"]) == (200, "ok", 403)
    for hog in hogs:
        hog.cancel()
