"""``POST agent-panel/probe``: the server tries an endpoint URL and names the failing step."""
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
        ([], "the body must be a JSON object"),
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
