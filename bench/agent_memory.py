"""How much a served agent's threads cost the Jupyter server's memory (docs/protocol.md §14).

Starts a real ``jupyter server`` with the extension (``server_load.start_server``)
once per ``AgentPanel.checkpointer_url``: ``memory`` (LangGraph's in-process
saver, what every agent had before the durable memory) and the default
(a SQLite file per agent in the server's data directory). Each server answers
one warm-up turn of the demo agent, then

1. **200 threads**: 200 new threads, one 100 KB message each;
2. **one thread**: 30 messages of 100 KB on one more thread,

and the server process's resident memory (``VmRSS``) is read before and after
each phase; the SQLite file's size is read at the end. The figures are the
growth in MiB, the median (min–max) of ``--runs`` servers per setting.

    .venv/bin/python bench/agent_memory.py [--runs 3]
"""
from __future__ import annotations

import argparse
import asyncio
import json
import random
import statistics
import string
import tempfile
import uuid
from pathlib import Path

import httpx
from server_load import TOKEN, serving, wait_ready

THREADS = 200
ONE_THREAD_MESSAGES = 30
MESSAGE_CHARS = 100_000
SETTINGS = {"memory": "memory", "sqlite": ""}
MIB = 1024 * 1024


def rss_bytes(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    raise RuntimeError(f"no VmRSS for process {pid}")


def message() -> str:
    """100 KB of text no two turns share (so nothing is interned or deduplicated)."""
    return "".join(random.choices(string.ascii_letters + " ", k=MESSAGE_CHARS))


async def turn(client: httpx.AsyncClient, thread_id: str) -> None:
    body = {"message": message(), "thread_id": thread_id}
    async with client.stream("POST", "/agent-panel/chat", json=body, timeout=None) as response:
        assert response.status_code == 200, await response.aread()
        last = None
        async for line in response.aiter_lines():
            if line.startswith("data: "):
                last = json.loads(line[len("data: "):])
    assert last == {"status": "complete", "outcome": "complete"}, last


async def measure(port: int, pid: int) -> dict:
    """The RSS growth of each phase, in MiB."""
    headers = {"Authorization": f"token {TOKEN}"}
    async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}", headers=headers, trust_env=False) as client:
        await wait_ready(client)
        await turn(client, uuid.uuid4().hex)  # load the agent before measuring
        before = rss_bytes(pid)
        for _ in range(THREADS):
            await turn(client, uuid.uuid4().hex)
        after_threads = rss_bytes(pid)
        thread_id = uuid.uuid4().hex
        for _ in range(ONE_THREAD_MESSAGES):
            await turn(client, thread_id)
        after_one = rss_bytes(pid)
    return {"threads": (after_threads - before) / MIB, "one_thread": (after_one - after_threads) / MIB}


async def one_server(checkpointer_url: str) -> dict:
    with tempfile.TemporaryDirectory(prefix="agent-panel-memory-") as workdir:
        setting = f"c.AgentPanel.checkpointer_url = {checkpointer_url!r}\n"
        with serving(Path(workdir), setting) as (server, port):
            growth = await measure(port, server.pid)
        files = Path(workdir, "data", "agent_panel", "memory").glob("*.sqlite*")
        return {**growth, "file": sum(f.stat().st_size for f in files) / MIB}


def figure(values: list) -> str:
    return f"{statistics.median(values):.1f} ({min(values):.1f}–{max(values):.1f})"


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    results = {name: [await one_server(url) for _ in range(args.runs)] for name, url in SETTINGS.items()}

    sent = THREADS * MESSAGE_CHARS / MIB
    print(f"Server RSS growth, MiB: median (min–max) of {args.runs} servers per setting; "
          f"{THREADS} threads of {MESSAGE_CHARS // 1000} KB ({sent:.1f} MiB sent), then "
          f"{ONE_THREAD_MESSAGES} messages of {MESSAGE_CHARS // 1000} KB on one thread")
    print("| checkpointer_url | 200 threads | one thread | memory files on disk |")
    print("| ---------------- | ----------- | ---------- | -------------------- |")
    for name, runs in results.items():
        disk = figure([r["file"] for r in runs]) if name == "sqlite" else "—"
        growth = " | ".join(figure([r[phase] for r in runs]) for phase in ("threads", "one_thread"))
        print(f"| {name} | {growth} | {disk} |")
    for phase in ("threads", "one_thread"):
        memory = statistics.median(r[phase] for r in results["memory"])
        sqlite = statistics.median(r[phase] for r in results["sqlite"])
        print(f"{phase}: SQLite grows {sqlite / memory:.3f}× what the in-process memory grows")


if __name__ == "__main__":
    asyncio.run(main())
