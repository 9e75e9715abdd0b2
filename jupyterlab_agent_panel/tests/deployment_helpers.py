"""What the deployment tests share: a run left going by a lost client, a thread's runs, and
frames without the checkpoints a turn starts and ends at."""
from __future__ import annotations

import asyncio

CHECKPOINT_KEYS = ("checkpoint_id", "end_checkpoint_id")


def without_checkpoints(frames: list) -> list:
    """``frames`` without where the turn started and ended among its thread's checkpoints
    (docs/protocol.md §5.10): they differ from run to run, test_deployment_forks.py checks them."""
    return [{k: v for k, v in frame.items() if k not in CHECKPOINT_KEYS} for frame in frames]


def turns_without_checkpoints(run_turn):
    """``run_turn`` whose frames are :func:`without_checkpoints`."""

    async def run(route: str, body: dict) -> list:
        return without_checkpoints(await run_turn(route, body))

    return run


async def runs_on(agent_server: str, thread_id: str) -> list:
    from langgraph_sdk import get_client

    client = get_client(url=agent_server, api_key=None)
    try:
        return [run["status"] for run in await client.runs.list(thread_id)]
    finally:
        await client.aclose()


async def lose_the_client(raw_post, agent_panel, thread_id: str, message: str) -> None:
    """A turn on ``ticking`` whose client goes away (a page reload) once the first word came."""
    response = await raw_post("agents/ticking/chat", {"message": message, "thread_id": thread_id})
    assert b'"chunk": "tick1' in await response.read_chunk()
    turn = agent_panel.host("ticking").turns[thread_id]
    response.close()
    await asyncio.wait_for(asyncio.wait({turn}), 10)
    for _ in range(100):  # the handler unregisters the turn right after it ends
        if thread_id not in agent_panel.host("ticking").turns:
            return
        await asyncio.sleep(0.01)
    raise AssertionError("the lost client's turn is still registered")
