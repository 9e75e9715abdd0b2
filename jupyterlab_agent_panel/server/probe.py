"""``POST <base_url>agent-panel/probe``: the Jupyter server tries a URL itself (docs/protocol.md §6.9).

A browser reports a DNS failure, a refused connection and a CORS refusal all as
the same ``TypeError``, so the panel's "Test connection" asks the server to try
the endpoint and say which step failed::

    POST agent-panel/probe {"url": "http://host:8000/agent/", "timeout_seconds": 5}
    → {"result": "ok", "status": 200, "detail": "host:8000 answers HTTP 200 OK"}
    → {"result": "dns" | "refused" | "timeout" | "unreachable", "detail": "<why>"}

The server's network view may differ from the browser's (``127.0.0.1`` is a
different machine for each when they are not on the same host); the panel says
"from the Jupyter server" when it shows this answer.

About server-side request forgery: only users the server's ``Authorizer`` lets
``execute`` on ``agent_panel`` may call it (who may, can usually run code on
this server anyway), and it does as little as possible: ``http``/``https`` URLs
only (:mod:`.server.probe_target`), one name lookup, a TCP connect, then one bodiless
``GET`` to the address that accepted, without cookies, credentials (not even
those in the URL), proxies or any header from the caller, no redirects
followed, within one deadline of at most ``MAX_TIMEOUT`` seconds, a few probes
at a time on a client of its own; it answers with the status line only, never
a header or the body, so it cannot be used to read a page.
"""
from __future__ import annotations

import asyncio
import json
import logging
import socket
import ssl
from http.cookiejar import CookieJar, DefaultCookiePolicy
from typing import Optional

import httpx
from jupyter_server.auth.decorator import authorized
from tornado import web

from .panel_handler import PanelHandler, Rejected, bad_request
from .probe_target import ProbeRefused, ProbeTarget, probe_target, probe_timeout

logger = logging.getLogger(__name__)
MAX_CONCURRENT_PROBES = 4


class Prober:
    """The probe's own HTTP client and its limit of probes at a time; one per server."""

    SETTINGS_KEY = "jupyterlab_agent_panel.prober"

    def __init__(self, max_concurrent: int = MAX_CONCURRENT_PROBES):
        self._max_concurrent = max_concurrent
        self._slots = asyncio.Semaphore(max_concurrent)  # binds to the server's loop on first use
        self._client: Optional[httpx.AsyncClient] = None

    async def probe(self, target: ProbeTarget, timeout: float) -> dict:
        """Resolve, connect, then GET; the first step that fails, all within ``timeout``."""
        attempt = _Attempt(target, timeout)
        try:
            return await asyncio.wait_for(self._probe_in_slot(attempt), timeout)
        except asyncio.TimeoutError:
            return attempt.timed_out()
        except Exception as exc:  # a failure nobody foresaw is still an answer, not a 500
            logger.exception("agent-panel probe of %s failed", target.where)
            return {"result": "unreachable", "detail": f"{target.where}: {type(exc).__name__}: {exc}"}

    async def _probe_in_slot(self, attempt: _Attempt) -> dict:
        async with self._slots:
            return await attempt.run(self._http_client())

    def _http_client(self) -> httpx.AsyncClient:
        if self._client is None:
            self._client = httpx.AsyncClient(
                follow_redirects=False,
                timeout=None,  # the probe's one deadline applies (Prober.probe)
                trust_env=False,  # no proxy, no .netrc credentials
                cookies=CookieJar(policy=DefaultCookiePolicy(allowed_domains=[])),  # keeps none
                limits=httpx.Limits(max_connections=self._max_concurrent, max_keepalive_connections=0),
            )
        return self._client


class _Attempt:
    """One probe's steps; ``step`` says where the deadline caught it."""

    def __init__(self, target: ProbeTarget, timeout: float):
        self.target = target
        self.timeout = timeout
        self.step = "queue"

    async def run(self, client: httpx.AsyncClient) -> dict:
        target, where = self.target, self.target.where
        self.step = "resolve"
        loop = asyncio.get_running_loop()
        try:
            addresses = await loop.getaddrinfo(target.host, target.port, type=socket.SOCK_STREAM)
        except socket.gaierror as exc:
            return {"result": "dns", "detail": f"the name {target.host!r} cannot be resolved ({exc.strerror})"}
        self.step = "connect"
        address, failure = await _connect_any(addresses, where)
        if failure is not None:
            return failure
        self.step = "http"
        return await _get_status(client, target, address)

    def timed_out(self) -> dict:
        target, seconds = self.target, f"{self.timeout:g} s"
        details = {
            "queue": f"the server's {MAX_CONCURRENT_PROBES} probe slots stayed busy for {seconds}",
            "resolve": f"resolving {target.host!r} took more than {seconds}",
            "connect": f"no TCP connection to {target.where} within {seconds}",
            "http": f"connected to {target.where}, but no HTTP answer within {seconds}",
        }
        return {"result": "timeout", "detail": details[self.step]}


async def _connect_any(addresses: list, where: str) -> tuple:
    """``(the address that accepted, None)``, or ``(None, the verdict)`` if none did."""
    refused = None
    failure = None
    for *_, sockaddr in addresses:
        try:
            _, writer = await asyncio.open_connection(sockaddr[0], sockaddr[1])
        except ConnectionRefusedError:
            refused = {"result": "refused", "detail": f"nothing listens at {where} (connection refused)"}
            continue
        except OSError as exc:
            failure = {"result": "unreachable", "detail": f"cannot connect to {where}: {exc.strerror or exc}"}
            continue
        writer.close()
        return sockaddr[0], None
    return None, refused or failure or {"result": "unreachable", "detail": f"{where} has no address to connect to"}


async def _get_status(client: httpx.AsyncClient, target: ProbeTarget, address: str) -> dict:
    """GET the URL from ``address`` (the one that accepted) and read the status line only."""
    where = target.where
    url = httpx.URL(target.url)
    request = client.build_request(
        "GET",
        url.copy_with(host=address, username=None, password=None),
        headers={"Host": url.netloc.decode("ascii"), "Accept": "*/*"},
        extensions={"sni_hostname": url.host},
    )
    try:
        response = await client.send(request, stream=True)
    except httpx.RemoteProtocolError as exc:
        return {"result": "unreachable", "detail": f"{where} answered, but not with valid HTTP: {_protocol_error(exc)}"}
    except httpx.HTTPError as exc:
        cause = exc.__cause__ or exc.__context__
        if isinstance(cause, ssl.SSLError) or "SSL" in str(exc):
            return {"result": "unreachable", "detail": f"{where} accepts connections, but TLS failed: {exc}"}
        return {"result": "unreachable", "detail": f"{where}: {exc}"}
    await response.aclose()  # the body is never read
    return {
        "result": "ok",
        "status": response.status_code,
        "detail": f"{where} answers HTTP {response.status_code} {response.reason_phrase}".rstrip(),
    }


def _protocol_error(exc: httpx.RemoteProtocolError) -> str:
    message = str(exc)
    if message == "Receive buffer too long":
        return "its status line and headers are too long to read"
    if message.startswith("Server disconnected"):
        return "it closed the connection without an answer"
    return message


class ProbeHandler(PanelHandler):
    """The route; registered by ``handlers.setup_handlers``."""

    @web.authenticated
    @authorized("execute")
    async def post(self) -> None:
        try:
            body = self.json_body()
            target = probe_target(body.get("url"))
            timeout = probe_timeout(body.get("timeout_seconds"))
        except ProbeRefused as refused:
            self.reply_rejected(bad_request(str(refused)))
            return
        except Rejected as rejected:
            self.reply_rejected(rejected)
            return
        prober: Prober = self.settings[Prober.SETTINGS_KEY]
        self.finish(json.dumps(await prober.probe(target, timeout)))
