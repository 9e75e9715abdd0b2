"""A real LangGraph Agent Server for the tests: ``langgraph dev`` (langgraph-cli[inmem], in memory)
on 127.0.0.1 and a free port, with tracing and telemetry off, serving the tests' keyless graphs.

Started once per module that uses it and stopped afterwards; its working
folder (where ``langgraph dev`` keeps its state) is removed. The Galata tests
run it as a script (``python agent_server.py --port N``, ui-tests/playwright.config.js),
until it gets SIGTERM.
"""
from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

from helpers import GRAPHS
from server_process import free_port

UI_GRAPHS = Path(__file__).resolve().parents[2] / "ui-tests" / "graphs"
SERVED = {
    "remembering": f"{UI_GRAPHS / 'remembering.py'}:graph",
    "hitl": f"{UI_GRAPHS / 'hitl.py'}:graph",
    "failing": f"{UI_GRAPHS / 'failing.py'}:graph",
    "slow": f"{GRAPHS / 'slow.py'}:graph",
    "ticking": f"{UI_GRAPHS / 'slow.py'}:graph",
    "demo": f"{GRAPHS / 'demo_tools.py'}:graph",
    "notebook": "jupyterlab_agent_panel.demo.notebook_agent:graph",
}
# The deployment's own auth (langgraph.json "auth"): only the key TEAM_KEY gets in.
TEAM_KEY = "the-team-key"
KEY_CHECK = f"""
from langgraph_sdk import Auth

auth = Auth()


@auth.authenticate
async def authenticate(headers: dict) -> str:
    if headers.get(b"x-api-key") != {TEAM_KEY.encode()!r}:
        raise Auth.exceptions.HTTPException(status_code=401, detail="a wrong or missing key")
    return "team"
"""
QUIET = {"LANGSMITH_TRACING": "false", "LANGCHAIN_TRACING_V2": "false", "LANGGRAPH_CLI_NO_ANALYTICS": "1"}


class AgentServer:
    """``with AgentServer() as url:`` the deployment's URL, once it answers ``GET /ok``."""

    def __init__(self, graphs: dict = SERVED, port: int = 0, keyed: bool = False):
        """``keyed``: the deployment admits only requests with the ``x-api-key`` TEAM_KEY."""
        self.port = port or free_port()
        self.folder = Path(tempfile.mkdtemp(prefix="agent-panel-agent-server-"))
        config = {"dependencies": ["."], "graphs": graphs}
        if keyed:
            (self.folder / "key_check.py").write_text(KEY_CHECK)
            config["auth"] = {"path": "./key_check.py:auth"}
        (self.folder / "langgraph.json").write_text(json.dumps(config))
        self.url = f"http://127.0.0.1:{self.port}"
        self.process = None

    def __enter__(self) -> str:
        command = [
            str(Path(sys.executable).with_name("langgraph")), "dev", "--no-browser", "--no-reload",
            "--host", "127.0.0.1", "--port", str(self.port),
        ]  # fmt: skip
        self.log = open(self.folder / "server.log", "wb")  # closed in __exit__
        env = {**os.environ, **QUIET}
        self.process = subprocess.Popen(
            command, cwd=self.folder, env=env, stdout=self.log, stderr=subprocess.STDOUT, start_new_session=True
        )
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                break
            try:
                with urllib.request.urlopen(f"{self.url}/ok", timeout=2) as answer:
                    if json.load(answer).get("ok") is True:
                        return self.url
            except OSError:
                time.sleep(0.3)
        log = (self.folder / "server.log").read_text(errors="replace")
        self.__exit__()
        raise AssertionError(f"langgraph dev did not start: {log[-3000:]}")

    def __exit__(self, *exc_info) -> None:
        if self.process is not None and self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait()
        self.log.close()
        shutil.rmtree(self.folder, ignore_errors=True)


def serve_until_terminated() -> None:
    import argparse

    parser = argparse.ArgumentParser(description="langgraph dev with the tests' graphs, until SIGTERM")
    parser.add_argument("--port", type=int, required=True)
    port = parser.parse_args().port
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    with AgentServer(port=port) as url:
        print(f"Agent Server at {url}", flush=True)
        while True:
            signal.pause()


if __name__ == "__main__":
    serve_until_terminated()
