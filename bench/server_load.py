"""How the Jupyter server answers while agents work: ``GET /api/status`` under load.

Starts a real ``jupyter server`` with the extension (the demo agent as the
default, ``tests/graphs/blocking.py`` as the agent ``blocking``) on a free
loopback port, then, per run:

1. **idle**: the baseline, ``GET /api/status`` one request after another;
2. **load**: the same requests while ``--clients`` clients each run demo turns
   (``use a tool``) back to back for ``--seconds``, and one turn of the agent
   ``blocking`` sits in a node that blocks its event loop (``time.sleep`` in an
   ``async def``) for the whole window.

The status requests come from a process of their own, one after another on a
keep-alive connection, so the load clients' own work does not count. Prints
p50 / p95 / max of each phase (the median over ``--runs``, with min–max) and
the demo turns completed per second. ``--no-blocking`` leaves the blocking
turn out; ``--pythonpath DIR`` serves the package from another checkout (an
older commit, for a before / after comparison: ``git archive <commit>
jupyterlab_agent_panel | tar -x -C DIR``).

    .venv/bin/python bench/server_load.py [--clients 50] [--seconds 10] [--runs 3] [--no-blocking]
"""
from __future__ import annotations

import argparse
import asyncio
import concurrent.futures
import contextlib
import http.client
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Iterator

import httpx

REPO = Path(__file__).resolve().parents[1]
BLOCKING_SPEC = f"{REPO / 'jupyterlab_agent_panel' / 'tests' / 'graphs' / 'blocking.py'}:graph"
TOKEN = uuid.uuid4().hex
IDLE_REQUESTS = 200
SAMPLE_PAUSE = 0.01


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@contextlib.contextmanager
def serving(workdir: Path, extra_config: str = "", pythonpath: str | None = None) -> Iterator[tuple]:
    """``(server process, port)`` of a server started in ``workdir``; stopped at the end, its
    log printed if the block failed."""
    port = free_port()
    server = start_server(port, workdir, pythonpath, extra_config)
    try:
        yield server, port
    except BaseException:
        print((workdir / "server.log").read_text()[-3000:], file=sys.stderr)
        raise
    finally:
        server.terminate()
        server.wait(30)


def start_server(port: int, workdir: Path, pythonpath: str | None, extra_config: str = "") -> subprocess.Popen:
    config = workdir / "jupyter_server_config.py"
    config.write_text(
        "c.ServerApp.jpserver_extensions = {'jupyterlab_agent_panel': True}\n"
        f"c.AgentPanel.agents = {{'blocking': {BLOCKING_SPEC!r}}}\n" + extra_config
    )
    # Its own data directory: the agents' memory files stay out of the user's.
    env = dict(os.environ, JUPYTER_CONFIG_DIR=str(workdir), JUPYTER_DATA_DIR=str(workdir / "data"), JUPYTER_TOKEN=TOKEN)
    env.pop("LANGSTAGE_AGENT_SPEC", None)
    if pythonpath:
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [pythonpath, env.get("PYTHONPATH")]))
    return subprocess.Popen(
        [sys.executable, "-m", "jupyter_server", f"--port={port}", "--ip=127.0.0.1", "--no-browser", "--allow-root",
         f"--ServerApp.root_dir={workdir}"],
        env=env,
        cwd=workdir,  # not this checkout: `python -m` puts the working directory first on sys.path
        stdout=subprocess.DEVNULL,
        stderr=open(workdir / "server.log", "w"),  # closed with the process
    )


async def wait_ready(client: httpx.AsyncClient, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            if (await client.get("/api/status")).status_code == 200:
                return
        except httpx.TransportError:
            pass
        await asyncio.sleep(0.2)
    raise RuntimeError("the server did not start")


async def chat(client: httpx.AsyncClient, route: str, message: str) -> list:
    """One turn; the frames it streamed."""
    body = {"message": message, "thread_id": uuid.uuid4().hex}
    frames = []
    async with client.stream("POST", f"/agent-panel/{route}", json=body, timeout=None) as response:
        assert response.status_code == 200, await response.aread()
        async for line in response.aiter_lines():
            if line.startswith("data: "):
                frames.append(json.loads(line[len("data: "):]))
    assert frames and frames[-1]["status"] == "complete", frames[-3:]
    return frames


def sample_status(port: int, count: int, until: float) -> list[float]:
    """Milliseconds per ``GET /api/status``, one after another on one keep-alive
    connection, ``count`` times or until the wall-clock time ``until``.

    Runs in a process of its own, so what the load clients cost this process
    does not count as the server's latency.
    """
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    headers = {"Authorization": f"token {TOKEN}"}
    latencies = []
    while len(latencies) < count and time.time() < until:
        began = time.perf_counter()
        connection.request("GET", "/api/status", headers=headers)
        response = connection.getresponse()
        response.read()
        latencies.append((time.perf_counter() - began) * 1000)
        assert response.status == 200, response.status
        time.sleep(SAMPLE_PAUSE)
    connection.close()
    return latencies


def percentiles(values: list[float]) -> dict:
    ordered = sorted(values)
    return {
        "p50": statistics.median(ordered),
        "p95": ordered[min(len(ordered) - 1, int(len(ordered) * 0.95))],
        "max": ordered[-1],
    }


async def one_run(base: str, port: int, clients: int, seconds: float, sampler, blocking: bool) -> dict:
    loop = asyncio.get_running_loop()
    idle = await loop.run_in_executor(sampler, sample_status, port, IDLE_REQUESTS, time.time() + 60)

    headers = {"Authorization": f"token {TOKEN}"}
    limits = httpx.Limits(max_connections=clients + 4)
    async with httpx.AsyncClient(base_url=base, headers=headers, limits=limits, trust_env=False) as load:
        block = f"block {seconds + 1:g}" if blocking else "block 0"
        blocked = asyncio.ensure_future(chat(load, "agents/blocking/chat", block))
        await asyncio.sleep(0.5)  # the blocking node is asleep by now
        stop_at = time.monotonic() + seconds
        done = 0

        async def client_loop() -> None:
            nonlocal done
            while time.monotonic() < stop_at:
                await chat(load, "chat", "use a tool")
                done += 1

        began = time.monotonic()
        workers = [asyncio.ensure_future(client_loop()) for _ in range(clients)]
        under_load = await loop.run_in_executor(sampler, sample_status, port, 10**9, time.time() + seconds)
        await asyncio.gather(*workers)
        elapsed = time.monotonic() - began
        await blocked
        return {
            "idle": percentiles(idle),
            "load": percentiles(under_load),
            "turns_per_second": done / elapsed,
        }


def summary(runs: list[dict], phase: str, key: str) -> str:
    values = [run[phase][key] for run in runs]
    return f"{statistics.median(values):.1f} ({min(values):.1f}–{max(values):.1f})"


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--seconds", type=float, default=10)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--pythonpath", help="serve jupyterlab_agent_panel from this directory")
    parser.add_argument("--no-blocking", action="store_true", help="the demo turns only, no blocking node")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="agent-panel-load-") as workdir:
        with serving(Path(workdir), pythonpath=args.pythonpath) as (_, port):
            base = f"http://127.0.0.1:{port}"
            headers = {"Authorization": f"token {TOKEN}"}
            async with httpx.AsyncClient(base_url=base, headers=headers, trust_env=False, timeout=60) as warm:
                await wait_ready(warm)
                await chat(warm, "chat", "use a tool")  # load the agents before measuring
                await chat(warm, "agents/blocking/chat", "block 0")
            with concurrent.futures.ProcessPoolExecutor(max_workers=1) as sampler:
                runs = [
                    await one_run(base, port, args.clients, args.seconds, sampler, not args.no_blocking)
                    for _ in range(args.runs)
                ]

    blocking = "" if args.no_blocking else " while one turn blocks the agent 'blocking'"
    print(f"GET /api/status, ms: median (min–max) of {args.runs} runs; load = {args.clients} clients "
          f"running demo turns for {args.seconds:g} s{blocking}")
    print("| phase | p50 | p95 | max |")
    print("| ----- | --- | --- | --- |")
    for phase in ("idle", "load"):
        print(f"| {phase} | " + " | ".join(summary(runs, phase, key) for key in ("p50", "p95", "max")) + " |")
    rates = [run["turns_per_second"] for run in runs]
    print(f"demo turns/s under load: {statistics.median(rates):.1f} ({min(rates):.1f}–{max(rates):.1f})")


if __name__ == "__main__":
    asyncio.run(main())
