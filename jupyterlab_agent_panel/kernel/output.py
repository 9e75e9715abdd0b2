"""Keep what an agent prints during a turn out of the notebook's cells.

In ipykernel, ``sys.stdout`` / ``sys.stderr`` are ``OutStream`` objects that
publish to whichever request is current, so a ``print()`` inside a graph node
would land in some cell's output. While the helper is serving, both are wrapped
in a :class:`TurnAwareStream`: a write made inside a turn (the turn's asyncio
task, or a thread that copied its context, as LangGraph does for sync nodes)
goes to that turn's :class:`TurnOutput`; every other write passes through.
The context variable, not the thread, decides, so concurrent turns never mix.
Raw file-descriptor writes (C extensions, subprocesses) are not intercepted.
"""
from __future__ import annotations

import contextvars
import sys
import threading
from typing import Optional

_current_output: contextvars.ContextVar[Optional[TurnOutput]] = contextvars.ContextVar(
    "agent_panel_turn_output", default=None
)


class TurnOutput:
    """The text one turn wrote to stdout/stderr, capped at ``limit`` characters."""

    def __init__(self, limit: int = 65536):
        self._limit = limit
        self._lock = threading.Lock()  # sync graph nodes write from executor threads
        self._parts: list[str] = []
        self._kept = 0
        self._dropped = 0

    def write(self, text: str) -> None:
        with self._lock:
            room = self._limit - self._kept
            kept = text[:room] if room > 0 else ""
            if kept:
                self._parts.append(kept)
                self._kept += len(kept)
            self._dropped += len(text) - len(kept)

    def text(self) -> str:
        with self._lock:
            text = "".join(self._parts)
            dropped = self._dropped
        if dropped:
            text += f"\n[agent_panel: {dropped} more characters not kept]\n"
        return text


def capture_into(output: TurnOutput) -> None:
    """Route this context's (this task's) stdout/stderr writes into ``output``."""
    _current_output.set(output)


class TurnAwareStream:
    """Stands in for ``sys.stdout`` / ``sys.stderr``; everything but writes is delegated."""

    def __init__(self, target):
        self.target = target

    def write(self, text: str) -> int:
        output = _current_output.get()
        if output is None:
            return self.target.write(text)
        if not isinstance(text, str):
            raise TypeError(f"write() argument must be str, not {type(text).__name__}")
        output.write(text)
        return len(text)

    def writelines(self, lines) -> None:
        for line in lines:
            self.write(line)

    def flush(self) -> None:
        if _current_output.get() is None:
            self.target.flush()

    def __getattr__(self, name):
        if name == "target":  # not set yet (copy/unpickle): avoid endless recursion
            raise AttributeError(name)
        return getattr(self.target, name)


class OutputCapture:
    """Installs the two wrappers; :meth:`dispose` puts the original streams back."""

    _STREAMS = ("stdout", "stderr")

    def __init__(self):
        self._wrappers = {}
        for name in self._STREAMS:
            current = getattr(sys, name)
            if not isinstance(current, TurnAwareStream):
                wrapper = TurnAwareStream(current)
                setattr(sys, name, wrapper)
                self._wrappers[name] = wrapper

    def dispose(self) -> None:
        for name, wrapper in self._wrappers.items():
            # Someone may have replaced the stream since; only undo our own wrapper.
            if getattr(sys, name) is wrapper:
                setattr(sys, name, wrapper.target)
        self._wrappers = {}
