"""Shared by the AG-UI tests: the project's scripts, and servers they start.

`scripts/record-agui.py` records real langstage-agui streams and
`scripts/agui_ws_server.py` is the chanx websocket test server; both are loaded
from the repository (they are not part of the package).
"""
from __future__ import annotations

import asyncio
import contextlib
import importlib.util
import json
import os
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from types import ModuleType
from typing import Any, Iterator

ROOT = Path(__file__).resolve().parents[2]
GRAPHS = ROOT / "ui-tests" / "graphs"
FIXTURES = ROOT / "fixtures" / "agui"


def load_script(file_name: str) -> ModuleType:
    path = ROOT / "scripts" / file_name
    spec = importlib.util.spec_from_file_location(path.stem.replace("-", "_"), path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


recorder = load_script("record-agui.py")


@contextlib.contextmanager
def chanx_server(agent: str | None = None) -> Iterator[str]:
    """The chanx AG-UI test server on a free loopback port; yields its ws URL."""
    port = recorder.free_port()
    command = [sys.executable, str(ROOT / "scripts" / "agui_ws_server.py"), "--port", str(port)]
    if agent:
        command += ["--agent", agent]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(GRAPHS), os.environ.get("PYTHONPATH")]))}
    process = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 60
        while True:
            if process.poll() is not None:
                raise RuntimeError(process.stdout.read().decode(errors="replace"))
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=2):
                    break
            except OSError:
                if time.monotonic() > deadline:
                    raise TimeoutError("the chanx test server did not start") from None
                time.sleep(0.2)
        yield f"ws://127.0.0.1:{port}/ws/agent"
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


class Client:
    """A minimal chanx client: one socket, frames as dicts."""

    def __init__(self, socket: Any):
        self.socket = socket

    async def send(self, **frame: Any) -> None:
        await self.socket.send(json.dumps({"version": 1, **frame}))

    async def recv(self, timeout: float = 30) -> dict:
        return json.loads(await asyncio.wait_for(self.socket.recv(), timeout))

    async def subscribe(self, topic: str) -> dict:
        await self.send(action="subscribe", topic=topic)
        return await self.recv()

    async def events_until_end(self, timeout: float = 60) -> list[dict]:
        """`ag_ui_event` frames until the run's RUN_FINISHED / RUN_ERROR (with a seq)."""
        frames = []
        while True:
            frame = await self.recv(timeout)
            if frame.get("action") != "ag_ui_event":
                continue
            frames.append(frame)
            if frame.get("seq") is not None and frame["payload"]["type"] in ("RUN_FINISHED", "RUN_ERROR"):
                return frames


def run_input(thread_id: str, run_id: str, message: str) -> dict:
    return recorder.run_input(thread_id, run_id, message)
