"""``jupyter server`` in a process of its own, for tests that stop a server and start another.

A restart is a new process on the same files: nothing of the first server's
memory can leak into the second. Each server listens on 127.0.0.1 and a free
port, and is stopped when its ``async with`` block ends.
"""
from __future__ import annotations

import asyncio
import json
import os
import socket
import subprocess
import sys
from pathlib import Path
from typing import Optional

from tornado.httpclient import AsyncHTTPClient, HTTPClientError

from helpers import parse_sse

TOKEN = "server-process-token"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class JupyterServerProcess:
    """A server with the extension, ``tmp_path/root`` as its root and ``options`` on its command line.

    ``data_dir`` is its ``JUPYTER_DATA_DIR`` (where the default conversation and
    memory files live); servers given the same one share them.
    """

    def __init__(self, tmp_path: Path, *options: str, data_dir: Optional[Path] = None, log_name: str = "server"):
        self.port = free_port()
        root = tmp_path / "root"
        root.mkdir(exist_ok=True)
        self.log_path = tmp_path / f"{log_name}-{self.port}.log"
        self.command = [
            sys.executable, "-m", "jupyter_server", "--no-browser", "--allow-root", "--ip=127.0.0.1",
            f"--port={self.port}", "--ServerApp.port_retries=0", f"--IdentityProvider.token={TOKEN}",
            f"--ServerApp.root_dir={root}", "--ServerApp.jpserver_extensions=jupyterlab_agent_panel=True", *options,
        ]  # fmt: skip
        self.env = dict(os.environ)
        if data_dir is not None:
            self.env["JUPYTER_DATA_DIR"] = str(data_dir)
        self.client = AsyncHTTPClient(force_instance=True)

    async def request(self, method: str, route: str, body=None):
        """``(status, body)`` of a request to ``agent-panel/<route>``, whatever the status."""
        url = f"http://127.0.0.1:{self.port}/agent-panel/{route}"
        data = None if body is None else json.dumps(body)
        try:
            response = await self.client.fetch(
                url, method=method, headers={"Authorization": f"token {TOKEN}"}, body=data, request_timeout=60
            )
        except HTTPClientError as exc:
            if exc.response is None:
                raise
            response = exc.response
        return response.code, response.body

    async def fetch(self, method: str, route: str, body=None):
        """The parsed JSON answer of a request that must succeed."""
        code, answer = await self.request(method, route, body)
        assert 200 <= code < 300, (code, answer)
        return json.loads(answer) if answer else None

    async def turn(self, route: str, body: dict) -> list:
        """The frames of a chat or resume that must be streamed."""
        code, answer = await self.request("POST", route, body)
        assert code == 200, (code, answer)
        return parse_sse(answer.decode("utf-8"))

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")

    async def __aenter__(self) -> JupyterServerProcess:
        with open(self.log_path, "wb") as log:
            self.process = subprocess.Popen(self.command, stdout=log, stderr=subprocess.STDOUT, env=self.env)
        for _ in range(600):
            if self.process.poll() is not None:
                raise RuntimeError(self.log())
            try:
                await self.client.fetch(f"http://127.0.0.1:{self.port}/api/status?token={TOKEN}")
                return self
            except (OSError, HTTPClientError):
                await asyncio.sleep(0.1)
        await self.__aexit__()
        raise TimeoutError(f"the Jupyter server did not start: {self.log()}")

    async def __aexit__(self, *exc_info) -> None:
        self.client.close()
        self.process.terminate()
        try:
            self.process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
