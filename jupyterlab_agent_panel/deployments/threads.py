"""A deployment's threads as the panel's conversations (docs/protocol.md §15.5). Pure: no I/O.

The panel's threads on a deployment carry metadata it sets when it creates them:
``client`` (``jupyterlab-agent-panel``), ``assistant``, ``owner`` (who asked) and
``title`` (the first line of the first message, renamed by the panel). A thread
read back is its turns, each the user's message and the chunk-wire frames of
what the agent wrote after it: the frames a live run of those messages streams
(:class:`RunFrames`), so the panel renders history with the code it renders
turns with.
"""
from __future__ import annotations

from datetime import datetime
from typing import Any, Optional

from ..context import user_text
from .frames import RunFrames, content_text

TITLE_CHARS = 80  # as the panel's list cuts a first message (titleOf)


def title_of(message: str) -> str:
    """The first line of ``message``, cut to ``TITLE_CHARS``, as the panel titles a conversation."""
    stripped = message.strip()
    line = stripped.split("\n", 1)[0].strip() if stripped else ""
    return line if len(line) <= TITLE_CHARS else line[: TITLE_CHARS - 1] + "…"


def thread_summary(thread: dict) -> dict:
    """An Agent Server thread as the conversation list reads it."""
    metadata = thread.get("metadata") if isinstance(thread.get("metadata"), dict) else {}
    title = metadata.get("title")
    return {
        "thread_id": thread["thread_id"],
        "title": title if isinstance(title, str) else "",
        "created_at": _epoch_ms(thread.get("created_at")),
        "updated_at": _epoch_ms(thread.get("updated_at")),
        "status": thread.get("status") or "idle",  # idle | busy | interrupted | error
    }


def history_turns(state: Any, *, extractors: list, max_result_len: int, pending: bool = True) -> list:
    """The thread's turns: ``[{"message", "frames"}]``, each ending with one terminal frame;
    the last one's interrupt, if a review waits (and ``pending``), before it."""
    turns: list = []
    frames: Optional[RunFrames] = None
    for message in _messages(state):
        if not isinstance(message, dict) or message.get("type") == "system":
            continue
        if message.get("type") == "human" or frames is None:
            if frames is not None:
                turns[-1]["frames"].append(frames.terminal())
            frames = RunFrames(extractors=extractors, max_result_len=max_result_len)
            text = user_text(content_text(message.get("content"))[0]) if message.get("type") == "human" else ""
            turns.append({"message": text, "frames": []})
            if message.get("type") == "human":
                continue
        turns[-1]["frames"].extend(frames.feed("messages", [message, {}]))
    if frames is not None:
        waiting = pending_interrupts(state) if pending else []
        if waiting:
            turns[-1]["frames"].extend(frames.feed("updates", {"__interrupt__": waiting}))
        turns[-1]["frames"].append(frames.terminal())
    return turns


def started_by(state: Any, before: Any) -> Optional[str]:
    """The message that started the run which took the thread from ``before`` to ``state``
    (its first new human message, context left out), or ``None`` (a resume adds none)."""
    known = {m.get("id") for m in _messages(before) if isinstance(m, dict)}
    for message in _messages(state):
        if isinstance(message, dict) and message.get("type") == "human" and message.get("id") not in known:
            return user_text(content_text(message.get("content"))[0])
    return None


def _messages(state: Any) -> list:
    values = state.get("values") if isinstance(state, dict) else None
    messages = values.get("messages") if isinstance(values, dict) else None
    return messages if isinstance(messages, list) else []


def pending_interrupts(state: Any) -> list:
    """The interrupts waiting on the thread's state (its tasks'), as ``{"value", "id"}``."""
    tasks = state.get("tasks") if isinstance(state, dict) else None
    found = []
    for task in tasks if isinstance(tasks, list) else ():
        interrupts = task.get("interrupts") if isinstance(task, dict) else None
        if isinstance(interrupts, list):
            found.extend(i for i in interrupts if isinstance(i, dict))
    return found


def _epoch_ms(value: Any) -> int:
    if not isinstance(value, str):
        return 0
    try:
        return int(datetime.fromisoformat(value).timestamp() * 1000)
    except ValueError:
        return 0
