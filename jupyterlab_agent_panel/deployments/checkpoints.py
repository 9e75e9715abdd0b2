"""Where a deployment's turn starts and ends among its thread's checkpoints, and forks
(docs/protocol.md §5.10, §15.6).

The Agent Server keeps every checkpoint of a thread. A run started with
``checkpoint_id`` runs from that checkpoint: the agent knows what it knew
then, the run's checkpoints follow it and become the thread's newest, and the
later ones stay in the history as the branch left behind. A resume started
there answers the review that checkpoint waits on. Before the thread's first
turn is its first checkpoint (step -1, holding only the first run's input), so
a run from there remembers nothing. A run from a checkpoint the thread does
not have would start from nothing too, silently: the panel checks first.
"""
from __future__ import annotations

import logging
from contextlib import aclosing
from typing import Any, AsyncIterator, Optional

from ..memory.checkpoints import CHECKPOINT_KEY, THREAD_START

logger = logging.getLogger(__name__)

END_KEY = "end_checkpoint_id"
TERMINAL_STATUSES = ("complete", "error", "cancelled")
# The Agent Server may send only these (older ones ignore ``select`` and send the whole state).
CHECKPOINT_FIELDS = ["checkpoint", "created_at"]
NO_START = object()  # a turn not begun by a message (a resume, a join), or unknown: no checkpoint_id
AFTER_START = object()  # queued behind a run in flight: known once the run starts (run_started_at)


def checkpoint_of(state: Any) -> Optional[str]:
    """The id of the checkpoint a thread state was read from (None: the thread has none yet)."""
    checkpoint = state.get("checkpoint") if isinstance(state, dict) else None
    found = checkpoint.get("checkpoint_id") if isinstance(checkpoint, dict) else None
    return found if isinstance(found, str) and found else None


async def newest_checkpoint(client: Any, thread_id: str) -> Optional[str]:
    """The thread's newest checkpoint (None before its first run)."""
    return checkpoint_of(await client.threads.get_state(thread_id, select=CHECKPOINT_FIELDS))


async def fork_problem(client: Any, thread_id: str, checkpoint_id: str) -> Optional[tuple]:
    """Why ``thread_id`` cannot start a turn at ``checkpoint_id``: ``(reason, message)``, or None."""
    from langgraph_sdk.errors import NotFoundError, UnprocessableEntityError

    if checkpoint_id is THREAD_START:
        return None  # every thread has a start, even one the deployment does not have yet
    try:
        # POSTed, not in the URL: an id with a "/" must not name another route.
        state = await client.threads.get_state(
            thread_id, checkpoint={"checkpoint_id": checkpoint_id}, select=CHECKPOINT_FIELDS
        )
    except (NotFoundError, UnprocessableEntityError):  # no such thread
        state = None
    # An unknown checkpoint reads as an empty state that was never written.
    if not isinstance(state, dict) or state.get("created_at") is None:
        return "unknown_checkpoint", f"Thread {thread_id!r} has no checkpoint {checkpoint_id!r}"
    return None


async def thread_start(client: Any, thread_id: str) -> Optional[str]:
    """The checkpoint before the thread's first turn (None: it has no checkpoints).

    Any root checkpoint (step -1, no parent) holds only a run's input, not yet read:
    a run from it starts with an empty state and its own input alone.
    """
    roots = await client.threads.get_history(
        thread_id, limit=1, metadata={"step": -1, "source": "input"}, select=CHECKPOINT_FIELDS
    )
    return checkpoint_of(roots[0]) if roots else None


async def run_start(client: Any, thread_id: str, fork_from: Optional[str], resumed: bool, busy: bool) -> tuple:
    """``(run_from, before)``: the checkpoint to start the run at (None: the newest) and the one
    the first frame reports (None: from nothing; NO_START: none, AFTER_START: read later)."""
    if fork_from is THREAD_START:
        return await thread_start(client, thread_id), None
    if fork_from is not None:
        return fork_from, NO_START if resumed else fork_from
    if resumed:
        return None, NO_START
    # On a busy thread the deployment queues the run: it starts where the run in flight ends.
    return None, AFTER_START if busy else await newest_checkpoint(client, thread_id)


async def run_started_at(client: Any, thread_id: str, run: Any) -> Any:
    """The checkpoint a run started from: the parent of the checkpoint its input made (None: the
    thread's first), NO_START if that cannot be read. ``run.run_id``: its id, once it started."""
    run_id = run.run_id
    if not run_id:
        return NO_START
    try:
        made = await client.threads.get_history(
            thread_id, limit=1, metadata={"run_id": run_id, "source": "input"}, select=["parent_checkpoint"]
        )
    except Exception:  # the turn goes on; only where it started is unknown
        logger.warning("agent-panel: cannot read where run %r of thread %r started", run_id, thread_id, exc_info=True)
        return NO_START
    return checkpoint_of({"checkpoint": made[0].get("parent_checkpoint")}) if made else NO_START


async def end_checkpoint(agent: Any, thread_id: str) -> Optional[str]:
    """The thread's newest checkpoint once a turn ended, None if it cannot be read."""
    try:
        with agent.failures_noted():
            return await newest_checkpoint(agent.client, thread_id)
    except Exception:  # the turn ended all the same: its end is just unknown
        logger.warning("agent-panel: cannot read the newest checkpoint of thread %r", thread_id, exc_info=True)
        return None


async def with_checkpoints(
    frames: AsyncIterator[dict], agent: Any, thread_id: str, before: Any = NO_START
) -> AsyncIterator[dict]:
    """``frames`` with ``checkpoint_id`` (``before``, or what the coroutine function ``before``
    returns once the run started) on the first, unless NO_START, and ``end_checkpoint_id`` on the
    terminal one (read once the run has ended)."""
    first = True
    async with aclosing(frames):
        async for frame in frames:
            start = (await before()) if first and callable(before) else before
            if first and start is not NO_START:
                frame = {**frame, CHECKPOINT_KEY: start}
            first = False
            if frame.get("status") in TERMINAL_STATUSES:
                end = await end_checkpoint(agent, thread_id)
                frame = frame if end is None else {**frame, END_KEY: end}
            yield frame
