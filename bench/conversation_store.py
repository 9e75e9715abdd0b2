"""How the conversations store answers (docs/protocol.md §13), and the Jupyter server meanwhile.

Starts a real ``jupyter server`` with the extension (``server_load.start_server``)
whose ``AgentPanel.conversations_db`` is in a temporary folder, then measures:

1. **saves**: a 1,000-turn conversation saved as the panel saves it, one turn
   (a user and an assistant entry of about 1 KB each) per ``PUT``: ms per save;
2. **open**: ``GET`` of that conversation, ms and bytes;
3. **10 MB**: a 10 MB answer saved and opened, ms each;
4. **search**: ``GET conversations?q=`` over 100 conversations of 100 entries, the
   text in one entry of one conversation;
5. **status**: ``GET /api/status`` from a process of its own, idle and during 1-4,
   p50 / p95 / max: whether the store ever holds up the server's event loop.

    .venv/bin/python bench/conversation_store.py
"""
from __future__ import annotations

import asyncio
import concurrent.futures
import multiprocessing
import tempfile
import time
from pathlib import Path

import httpx
from server_load import TOKEN, percentiles, sample_status, serving, wait_ready

TURNS = 1000
ENTRY_TEXT = "lorem ipsum dolor sit amet " * 38  # ~1 KB
BIG_TEXT = "x" * (10 * 1024 * 1024)
SEARCH_CONVERSATIONS = 100
SEARCH_ENTRIES = 100


def update(entries: list, **fields) -> dict:
    return {"threadId": "t", "endpointName": "Local agent", "status": "idle", "entries": entries, **fields}


async def timed(call) -> tuple:
    began = time.perf_counter()
    response = await call
    assert response.status_code in (200, 204), response.text[:300]
    return response, (time.perf_counter() - began) * 1000


async def measure(client: httpx.AsyncClient) -> dict:
    route = "/agent-panel/conversations"
    saves = []
    for turn in range(TURNS):
        entries = [
            {"key": f"u{turn}", "kind": "user", "text": f"question {turn}: {ENTRY_TEXT}"},
            {"key": f"a{turn}", "kind": "assistant", "text": f"answer {turn}: {ENTRY_TEXT}"},
        ]
        saves.append((await timed(client.put(f"{route}/long", json=update(entries, status="running"))))[1])
    opened, open_ms = await timed(client.get(f"{route}/long"))
    big_save_ms = (await timed(client.put(f"{route}/big", json=update([{"key": "big", "text": BIG_TEXT}]))))[1]
    big_open_ms = (await timed(client.get(f"{route}/big")))[1]
    for n in range(SEARCH_CONVERSATIONS):
        entries = [{"key": f"e{i}", "text": f"{ENTRY_TEXT} {n}-{i}"} for i in range(SEARCH_ENTRIES)]
        if n == SEARCH_CONVERSATIONS // 2:
            entries[-1]["text"] += " the Needle"
        await client.put(f"{route}/s{n}", json=update(entries, title=f"Conversation {n}"))
    found, search_ms = await timed(client.get(route, params={"q": "NEEDLE"}))
    assert [c["id"] for c in found.json()["conversations"]] == [f"s{SEARCH_CONVERSATIONS // 2}"]
    return {
        "save": percentiles(saves),
        "open_ms": open_ms,
        "open_bytes": len(opened.content),
        "big_save_ms": big_save_ms,
        "big_open_ms": big_open_ms,
        "search_ms": search_ms,
    }


async def main() -> None:
    with tempfile.TemporaryDirectory() as temp:
        workdir = Path(temp)
        database = str(workdir / "c.sqlite")
        headers = {"Authorization": f"token {TOKEN}"}
        with serving(workdir, f"c.AgentPanel.conversations_db = {database!r}\n") as (_, port):
            base = f"http://127.0.0.1:{port}"
            async with httpx.AsyncClient(base_url=base, headers=headers, timeout=120, trust_env=False) as client:
                await wait_ready(client)
                loop = asyncio.get_running_loop()
                with concurrent.futures.ProcessPoolExecutor(1) as sampler:
                    idle = await loop.run_in_executor(sampler, sample_status, port, 200, time.time() + 60)
                stop, results = multiprocessing.Event(), multiprocessing.Queue()
                busy = multiprocessing.Process(target=sample_until, args=(port, stop, results))
                busy.start()
                try:
                    figures = await measure(client)
                finally:
                    stop.set()
                during = results.get(timeout=60)
                busy.join()
    report(figures, percentiles(idle), percentiles(during))


def sample_until(port: int, stop, results) -> None:
    """``sample_status`` in slices until ``stop`` is set; all the latencies go to ``results``."""
    latencies = []
    while not stop.is_set():
        latencies += sample_status(port, 50, time.time() + 1)
    results.put(latencies)


def report(figures: dict, idle: dict, during: dict) -> None:
    save = figures["save"]
    print(f"save one turn (PUT, 2 entries, {TURNS} turns): p50 {save['p50']:.1f} ms, p95 {save['p95']:.1f} ms, "
          f"max {save['max']:.1f} ms")
    print(f"open the {TURNS}-turn conversation (GET): {figures['open_ms']:.0f} ms, {figures['open_bytes']:,} bytes")
    print(f"10 MB answer: save {figures['big_save_ms']:.0f} ms, open {figures['big_open_ms']:.0f} ms")
    print(f"search q over {SEARCH_CONVERSATIONS} x {SEARCH_ENTRIES} entries: {figures['search_ms']:.0f} ms")
    for phase, status in (("idle", idle), ("during 1-4", during)):
        print(f"GET /api/status {phase}: p50 {status['p50']:.1f} ms, p95 {status['p95']:.1f} ms, "
              f"max {status['max']:.1f} ms")


if __name__ == "__main__":
    asyncio.run(main())
