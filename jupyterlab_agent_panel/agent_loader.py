"""Loading one served agent: in a thread of its own, with a deadline, retried after a failure.

Each agent has its own loader, so a slow or hanging import holds up only the
requests for that agent (docs/protocol.md §6.8). Requests that come while the
agent loads share the one attempt; once the attempt is older than the load
timeout they are answered at once with "still loading" instead of waiting.
A failed load is kept, and tried again when the graph's file changes or once
the retry back-off has passed. Everything but the load itself runs on the
server's event loop.
"""
from __future__ import annotations

import asyncio
import logging
import threading
import time
from pathlib import Path
from typing import Callable, Optional

from .graph import LoadedAgent


class AgentLoader:
    """Loads an agent on demand; :meth:`get` never waits longer than the load timeout."""

    def __init__(
        self,
        name: str,
        load: Callable[[], LoadedAgent],
        *,
        spec: Callable[[], str],
        watched_file: Callable[[], Optional[Path]],
        timeout: float,
        retry_after: float,
        log: logging.Logger,
    ):
        self._name = name
        self._log = log
        self._load = load
        self._spec = spec
        self._watched_file = watched_file
        self._timeout = timeout
        self._retry_after = retry_after
        self._result: Optional[LoadedAgent] = None
        self._attempt: Optional[asyncio.Future] = None
        self._attempt_began = 0.0
        self._failed_at = 0.0
        self._file_stamp: Optional[tuple] = None

    async def get(self) -> LoadedAgent:
        """The loaded agent, the last failure, or "still loading" once the deadline passed."""
        if self._attempt is None and self._needs_attempt():
            self._start_attempt()
        attempt = self._attempt
        if attempt is not None:
            left = self._attempt_began + self._timeout - time.monotonic()
            if left > 0:
                try:
                    await asyncio.wait_for(asyncio.shield(attempt), left)
                except asyncio.TimeoutError:
                    pass
            if not attempt.done():
                return self._still_loading()
        assert self._result is not None
        return self._result

    def _needs_attempt(self) -> bool:
        result = self._result
        if result is None:
            return True
        if result.ready:
            return False
        return self._file_stamp != self._stamp() or time.monotonic() - self._failed_at >= self._retry_after

    def _start_attempt(self) -> None:
        loop = asyncio.get_running_loop()
        attempt = loop.create_future()
        self._attempt = attempt
        self._attempt_began = time.monotonic()
        self._file_stamp = self._stamp()

        def load() -> None:
            try:
                result = self._load()
            except BaseException as exc:  # even SystemExit from a graph module is a failed load
                spec = self._spec()
                result = LoadedAgent(
                    spec=spec,
                    status="agent_not_loaded",
                    error=f"Could not load agent {spec!r}: {type(exc).__name__}: {exc}",
                )
            try:
                loop.call_soon_threadsafe(self._finish_attempt, attempt, result)
            except RuntimeError:  # the server stopped while the agent loaded
                pass

        # Not the default executor: an import that never returns must not hold one of its threads.
        threading.Thread(target=load, name=f"agent-panel-load-{self._name}", daemon=True).start()

    def _finish_attempt(self, attempt: asyncio.Future, result: LoadedAgent) -> None:
        self._result = result
        self._attempt = None
        if result.ready:
            self._log.info("agent-panel: agent %r serving %s", self._name, result.spec)
        else:
            self._failed_at = time.monotonic()
            self._log.error("agent-panel: agent %r: %s", self._name, result.error)
        attempt.set_result(result)

    def _still_loading(self) -> LoadedAgent:
        elapsed = time.monotonic() - self._attempt_began
        return LoadedAgent(
            spec=self._spec(),
            status="loading",
            error=(
                f"Agent {self._name!r} is still loading after {elapsed:.0f} s, longer than the load "
                f"timeout of {self._timeout:g} s (AgentPanel.load_timeout_seconds); it serves once "
                "the load finishes"
            ),
        )

    def _stamp(self) -> Optional[tuple]:
        """The graph file's modification time and size, ``None`` if there is none."""
        path = self._watched_file()
        if path is None:
            return None
        try:
            stat = path.stat()
        except OSError:
            return None
        return stat.st_mtime_ns, stat.st_size
