"""``POST <base_url>agent-panel/probe``: the Jupyter server tries a URL itself.

A browser reports a DNS failure, a refused connection and a CORS refusal all as
the same ``TypeError``, so the panel's "Test connection" asks the server to try
the endpoint and say which step failed::

    POST agent-panel/probe {"url": "http://host:8000/agent/", "timeout_seconds": 5}
    → {"result": "ok", "status": 200, "detail": "host:8000 answers HTTP 200 OK"}
    → {"result": "dns" | "refused" | "timeout" | "unreachable", "detail": "<why>"}

The server's network view may differ from the browser's (``127.0.0.1`` is a
different machine for each when they are not on the same host); the panel says
"from the Jupyter server" when it shows this answer.

About server-side request forgery: only authenticated Jupyter users may call it,
and they can already run code on this server (kernels, terminals). The probe
still does as little as possible: ``http``/``https`` URLs only, one name
lookup, one TCP connect and one bodiless ``GET`` without cookies, credentials
or any header from the caller, no redirects followed, a timeout of at most
``MAX_TIMEOUT`` seconds, and it answers with the status line only, never the
body, so it cannot be used to read a page the browser could not read itself.
"""
from __future__ import annotations

import asyncio
import json
import socket
import ssl
from typing import Optional
from urllib.parse import urlsplit

from jupyter_server.base.handlers import APIHandler
from tornado import web
from tornado.httpclient import AsyncHTTPClient, HTTPClientError, HTTPRequest

DEFAULT_TIMEOUT = 5.0
MAX_TIMEOUT = 10.0


class ProbeRefused(ValueError):
    """The request cannot be probed (not a URL the probe tries); a 400."""


def probe_target(url: object) -> tuple:
    """``(scheme, host, port)`` of an ``http(s)`` URL, or ``ProbeRefused``."""
    if not isinstance(url, str) or not url.strip():
        raise ProbeRefused("url is required and must be a string")
    parts = urlsplit(url.strip())
    if parts.scheme not in ("http", "https"):
        raise ProbeRefused(f"only http and https URLs are probed, not {parts.scheme or 'a relative URL'!r}")
    try:
        port = parts.port
    except ValueError as exc:
        raise ProbeRefused(f"the URL has an invalid port: {exc}") from exc
    if not parts.hostname:
        raise ProbeRefused("the URL has no host name")
    return parts.scheme, parts.hostname, port or (443 if parts.scheme == "https" else 80)


def probe_timeout(value: object) -> float:
    if value is None:
        return DEFAULT_TIMEOUT
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value <= MAX_TIMEOUT:
        raise ProbeRefused(f"timeout_seconds must be a number in (0, {MAX_TIMEOUT:g}]")
    return float(value)


async def probe(url: str, timeout: float) -> dict:
    """Resolve, connect, then GET ``url``; report the first step that fails."""
    _, host, port = probe_target(url)
    where = f"{host}:{port}"
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout

    def left() -> float:
        return max(deadline - loop.time(), 0.001)

    try:
        addresses = await asyncio.wait_for(loop.getaddrinfo(host, port, type=socket.SOCK_STREAM), left())
    except asyncio.TimeoutError:
        return {"result": "timeout", "detail": f"resolving {host!r} took more than {timeout:g} s"}
    except socket.gaierror as exc:
        return {"result": "dns", "detail": f"the name {host!r} cannot be resolved ({exc.strerror})"}

    failure = await _connect_any(addresses, where, timeout, left)
    if failure:
        return failure

    request = HTTPRequest(
        url.strip(),
        method="GET",
        follow_redirects=False,
        connect_timeout=left(),
        request_timeout=left(),
        headers={"Accept": "*/*"},
    )
    try:
        response = await AsyncHTTPClient().fetch(request, raise_error=False)
    except HTTPClientError as exc:  # tornado reports a timeout as 599
        if exc.code == 599:
            return {"result": "timeout", "detail": f"connected to {where}, but no HTTP answer within {timeout:g} s"}
        return {"result": "unreachable", "detail": f"{where}: {exc}"}
    except ssl.SSLError as exc:
        return {"result": "unreachable", "detail": f"{where} accepts connections, but TLS failed: {exc.reason or exc}"}
    except OSError as exc:
        return {"result": "unreachable", "detail": f"{where}: {exc.strerror or exc}"}
    return {
        "result": "ok",
        "status": response.code,
        "detail": f"{where} answers HTTP {response.code} {response.reason or ''}".rstrip(),
    }


async def _connect_any(addresses: list, where: str, timeout: float, left) -> Optional[dict]:
    """Connect to each resolved address until one accepts; ``None`` once one does."""
    refused = None
    failure = None
    for *_, sockaddr in addresses:
        try:
            _, writer = await asyncio.wait_for(asyncio.open_connection(sockaddr[0], sockaddr[1]), left())
        except ConnectionRefusedError:
            refused = {"result": "refused", "detail": f"nothing listens at {where} (connection refused)"}
            continue
        except asyncio.TimeoutError:
            return {"result": "timeout", "detail": f"no TCP connection to {where} within {timeout:g} s"}
        except OSError as exc:
            failure = {"result": "unreachable", "detail": f"cannot connect to {where}: {exc.strerror or exc}"}
            continue
        writer.close()
        return None
    return refused or failure or {"result": "unreachable", "detail": f"{where} has no address to connect to"}


class ProbeHandler(APIHandler):
    """The route; registered by ``handlers.setup_handlers``."""

    @web.authenticated
    async def post(self) -> None:
        try:
            body = json.loads(self.request.body or b"null")
            if not isinstance(body, dict):
                raise ProbeRefused("the body must be a JSON object {url, timeout_seconds?}")
            url = body.get("url")
            probe_target(url)
            timeout = probe_timeout(body.get("timeout_seconds"))
        except ValueError as exc:  # ProbeRefused, bad JSON, bad UTF-8
            self.set_status(400)
            self.finish(json.dumps({"message": str(exc), "reason": "bad_request"}))
            return
        self.finish(json.dumps(await probe(url, timeout)))
