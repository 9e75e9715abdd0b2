"""Where a turn starts among its thread's LangGraph checkpoints, and forks (docs/protocol.md §5.10).

A turn begun by a message reports the checkpoint its thread was at just before
it (``checkpoint_id`` on its first frame; ``null`` on a thread's first turn).
A chat that names such a checkpoint forks the thread there: LangGraph copies it
as the thread's newest checkpoint (``update_state`` with no values, its way of
going back in time), so the turn runs on what the agent knew then, and the
checkpoints after it stay in the thread's history as the branch left behind.
"""
from __future__ import annotations

import logging
from contextlib import aclosing
from typing import Any, AsyncGenerator, Optional

from .json_limits import length_problem

logger = logging.getLogger(__name__)

CHECKPOINT_KEY = "checkpoint_id"
# A chat's ``"checkpoint_id": null``: fork to before the thread's first turn. Never a real id
# (checkpoint_id_problem refuses an empty one).
FORK_TO_START = ""


def checkpoint_id_problem(value: Any) -> Optional[str]:
    """Why a request's ``checkpoint_id`` (where to fork) cannot be one, or None."""
    if not isinstance(value, str) or not value.strip():
        return "checkpoint_id must be a non-empty string (one a turn's first frame reported)"
    return length_problem("checkpoint_id", value)


def _config(thread_id: str, checkpoint_id: Optional[str] = None) -> dict:
    configurable = {"thread_id": thread_id, "checkpoint_ns": ""}
    if checkpoint_id is not None:
        configurable["checkpoint_id"] = checkpoint_id
    return {"configurable": configurable}


def _graph(agent: Any) -> Any:
    graph = getattr(agent, "graph", None)
    return graph if getattr(graph, "checkpointer", None) else None


async def fork_problem(agent: Any, thread_id: str, checkpoint_id: str) -> Optional[tuple]:
    """Why ``thread_id`` cannot be forked at ``checkpoint_id``: ``(reason, message)``, or None."""
    graph = _graph(agent)
    if graph is None:
        return "cannot_fork", "This agent keeps no checkpoints: its conversations cannot go back to an earlier turn"
    snapshot = await graph.aget_state(_config(thread_id, checkpoint_id))
    if snapshot.created_at is None:
        return "unknown_checkpoint", f"Thread {thread_id!r} has no checkpoint {checkpoint_id!r}"
    return None


async def fork(agent: Any, thread_id: str, checkpoint_id: str) -> None:
    """Make ``checkpoint_id`` the newest checkpoint of ``thread_id`` (the later ones are kept)."""
    await _graph(agent).aupdate_state(_config(thread_id, checkpoint_id), None)


async def latest_checkpoint(agent: Any, thread_id: str) -> tuple:
    """``(known, checkpoint_id)``: the thread's newest checkpoint (None before its first turn);
    ``known`` is False when the agent keeps no checkpoints or they cannot be read."""
    graph = _graph(agent)
    if graph is None:
        return False, None
    try:
        snapshot = await graph.aget_state(_config(thread_id))
    except Exception:  # noqa: BLE001 - an unreadable checkpointer: the turn runs, unforkable
        logger.warning("agent-panel: cannot read the checkpoints of thread %r", thread_id, exc_info=True)
        return False, None
    return True, snapshot.config.get("configurable", {}).get("checkpoint_id")


async def with_checkpoint(
    frames: AsyncGenerator[dict, None], agent: Any, thread_id: str, fork_from: Optional[str]
) -> AsyncGenerator[dict, None]:
    """``frames`` of a turn begun by a message, forked at ``fork_from`` first if given, the first
    one carrying the checkpoint the turn starts from."""
    if fork_from is not None:
        await fork(agent, thread_id, fork_from)
    known, before = await latest_checkpoint(agent, thread_id)
    first = True
    async with aclosing(frames):
        async for frame in frames:
            if first and known:
                frame = {**frame, CHECKPOINT_KEY: before}
            first = False
            yield frame
