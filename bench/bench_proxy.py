"""The benchmarks' routes in a throwaway ``jupyter lab`` (a server extension).

Every page the benchmarks measure gets its turns through the Jupyter server,
as users' panels do: ``bench-stream/<path>`` (the agent panel's endpoint and
the bare baseline page) and ``langstage-jupyter/<route>`` (the routes
langstage-jupyter's sidebar calls, its own server extension disabled) are
forwarded as they arrive to the stream server at ``$BENCH_STREAM_URL``
(bench/stream-server.js, on 127.0.0.1). Only the bench loads this module; its
labs listen on 127.0.0.1 with a random token. The routes need no XSRF token
(the baseline page has none) and forward nothing but the request body.
"""

import os

from jupyter_server.utils import url_path_join
from tornado import httpclient, web

# langstage-jupyter's routes, and the stream server's that answer them.
PEER_ROUTES = {"chat": "chat", "health": "health", "cancel": "cancel"}


class StreamProxy(web.RequestHandler):
    """Forward one request to the stream server, writing its body as it comes."""

    def initialize(self, target: str, routes: dict | None = None) -> None:
        self._target = target
        self._routes = routes

    def check_xsrf_cookie(self) -> None:
        """The baseline page posts without Jupyter's XSRF token."""

    async def get(self, path: str) -> None:
        await self._forward("GET", path, None)

    async def post(self, path: str) -> None:
        await self._forward("POST", path, self.request.body)

    async def _forward(self, method: str, path: str, body: bytes | None) -> None:
        if self._routes is not None:
            if path not in self._routes:
                raise web.HTTPError(404, f"no bench route {path}")
            path = self._routes[path]

        def header(line: str) -> None:
            name, _, value = line.partition(":")
            if name.lower() in ("content-type", "cache-control"):
                self.set_header(name.strip(), value.strip())
            elif line.startswith("HTTP/"):
                self.set_status(int(line.split(" ")[1]))

        def chunk(data: bytes) -> None:
            self.write(data)
            self.flush()

        request = httpclient.HTTPRequest(
            url_path_join(self._target, path),
            method=method,
            body=body,
            headers={"Content-Type": "application/json"},
            header_callback=header,
            streaming_callback=chunk,
            request_timeout=600,
        )
        try:
            await httpclient.AsyncHTTPClient().fetch(request, raise_error=False)
        except OSError as error:
            raise web.HTTPError(502, f"stream server: {error}") from error
        self.finish()


def _jupyter_server_extension_points():
    return [{"module": "bench_proxy"}]


def _load_jupyter_server_extension(server_app):
    target = os.environ["BENCH_STREAM_URL"]
    base = server_app.web_app.settings["base_url"]
    server_app.web_app.add_handlers(
        ".*$",
        [
            (url_path_join(base, "bench-stream", "(.*)"), StreamProxy, {"target": target}),
            (
                url_path_join(base, "langstage-jupyter", "(.*)"),
                StreamProxy,
                {"target": target, "routes": PEER_ROUTES},
            ),
        ],
    )
    server_app.log.info("bench_proxy: forwarding to %s", target)
