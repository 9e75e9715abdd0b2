"""Where a turn starts among its thread's LangGraph checkpoints, and forks (docs/protocol.md §5.10).

A turn begun by a message reports the checkpoint its thread was at just before
it (``checkpoint_id`` on its first frame; ``null`` on a thread's first turn).
A chat that names such a checkpoint forks the thread there: LangGraph copies it
as the thread's newest checkpoint (``update_state`` with no values, its way of
going back in time), so the turn runs on what the agent knew then, and the
checkpoints after it stay in the thread's history as the branch left behind.
A chat naming ``null`` forks before the thread's first turn; a resume naming a
checkpoint goes back to the branch that paused there. Every turn's terminal
frame reports the checkpoint the thread ended at (``end_checkpoint_id``): where
the panel goes back to when it shows that branch again.
"""
from __future__ import annotations

import logging
from contextlib import aclosing
from typing import Any, AsyncGenerator, Optional

from ..json_limits import length_problem

logger = logging.getLogger(__name__)

CHECKPOINT_KEY = "checkpoint_id"
END_CHECKPOINT_KEY = "end_checkpoint_id"
TERMINAL_STATUSES = frozenset({"complete", "error", "cancelled"})


class ThreadStart:
    """Where a chat with ``"checkpoint_id": null`` forks: before the thread's first turn."""

    def __repr__(self) -> str:
        return "the start of the thread"


THREAD_START = ThreadStart()
RESUME_AT_START = "a resume's checkpoint_id must name the checkpoint its review paused at, not null"


def fork_point(body: dict) -> Any:
    """Where a request forks its thread: None (it goes on from the newest checkpoint),
    :data:`THREAD_START`, or a checkpoint id. Raises ``ValueError`` naming a bad one."""
    if CHECKPOINT_KEY not in body:
        return None
    value = body[CHECKPOINT_KEY]
    if value is None:
        return THREAD_START
    problem = checkpoint_id_problem(value)
    if problem is not None:
        raise ValueError(problem)
    return value


def checkpoint_id_problem(value: Any) -> Optional[str]:
    """Why a request's ``checkpoint_id`` (where to fork) cannot be one, or None."""
    if not isinstance(value, str) or not value.strip():
        return "checkpoint_id must be null or a non-empty string (one a turn's frame reported)"
    return length_problem("checkpoint_id", value)


def _config(thread_id: str, checkpoint_id: Optional[str] = None) -> dict:
    configurable = {"thread_id": thread_id, "checkpoint_ns": ""}
    if checkpoint_id is not None:
        configurable["checkpoint_id"] = checkpoint_id
    return {"configurable": configurable}


def _graph(agent: Any) -> Any:
    graph = getattr(agent, "graph", None)
    return graph if getattr(graph, "checkpointer", None) else None


async def fork_problem(agent: Any, thread_id: str, fork_from: Any) -> Optional[tuple]:
    """Why ``thread_id`` cannot be forked at ``fork_from``: ``(reason, message)``, or None."""
    graph = _graph(agent)
    if graph is None:
        return "cannot_fork", "This agent keeps no checkpoints: its conversations cannot go back to an earlier turn"
    if fork_from is THREAD_START:
        return None
    snapshot = await graph.aget_state(_config(thread_id, fork_from))
    if snapshot.created_at is None:
        return "unknown_checkpoint", f"Thread {thread_id!r} has no checkpoint {fork_from!r}"
    return None


async def fork(agent: Any, thread_id: str, fork_from: Any) -> None:
    """Make ``fork_from`` the newest checkpoint of ``thread_id`` (the later ones are kept).

    The thread's start is its oldest checkpoint, the input one of its first turn,
    which holds no values yet; a thread without checkpoints is already there."""
    graph = _graph(agent)
    if fork_from is THREAD_START:
        history = [found async for found in graph.checkpointer.alist(_config(thread_id))]
        if not history:
            return
        fork_from = history[-1].config["configurable"]["checkpoint_id"]
    await graph.aupdate_state(_config(thread_id, fork_from), None)


async def latest_checkpoint(agent: Any, thread_id: str) -> tuple:
    """``(known, checkpoint_id)``: the thread's newest checkpoint (None before its first turn);
    ``known`` is False when the agent keeps no checkpoints or they cannot be read."""
    graph = _graph(agent)
    if graph is None:
        return False, None
    try:
        snapshot = await graph.aget_state(_config(thread_id))
    except Exception:  # an unreadable checkpointer: the turn runs, unforkable
        logger.warning("agent-panel: cannot read the checkpoints of thread %r", thread_id, exc_info=True)
        return False, None
    return True, snapshot.config.get("configurable", {}).get("checkpoint_id")


async def with_checkpoints(
    frames: AsyncGenerator[dict, None], agent: Any, thread_id: str, fork_from: Any, by_message: bool
) -> AsyncGenerator[dict, None]:
    """``frames`` of a turn, forked at ``fork_from`` first if given: the first frame of a turn
    begun ``by_message`` carries the checkpoint it starts from, the terminal frame the one it
    ended at."""
    if fork_from is not None:
        await fork(agent, thread_id, fork_from)
    known, before = await latest_checkpoint(agent, thread_id) if by_message else (False, None)
    first = True
    async with aclosing(frames):
        async for frame in frames:
            if first and known:
                frame = {**frame, CHECKPOINT_KEY: before}
            first = False
            if frame.get("status") in TERMINAL_STATUSES:
                ended, at = await latest_checkpoint(agent, thread_id)
                if ended:
                    frame = {**frame, END_CHECKPOINT_KEY: at}
            yield frame
