"""An asyncio event loop of its own in a daemon thread, where graphs run.

Shared by the server extension (one loop per served agent, so no graph runs on
the Jupyter server's loop: docs/protocol.md §6.8) and the kernel helper (one
loop for the served graph, so no graph runs on the shell thread:
docs/protocol.md §7.4). Other threads only hand work over (``call``,
``submit``) and return at once.
"""
from __future__ import annotations

import asyncio
import concurrent.futures
import threading
from typing import Any, Callable, Coroutine


class WorkerLoop:
    """The worker thread and its event loop."""

    def __init__(self, thread_name: str):
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._run, name=thread_name, daemon=True)
        self._thread.start()

    def call(self, callback: Callable[..., Any], *args: Any) -> None:
        """Run ``callback(*args)`` on the loop thread, after everything scheduled before.

        asyncio runs the callback in a copy of the caller's context (and a task it
        creates copies that again), so context variables of the caller, such as
        the kernel's current request, carry over.
        """
        self._loop.call_soon_threadsafe(callback, *args)

    def submit(self, coroutine: Coroutine[Any, Any, Any]) -> concurrent.futures.Future:
        """Run ``coroutine`` as a task on the loop; cancelling the future cancels the task."""
        return asyncio.run_coroutine_threadsafe(coroutine, self._loop)

    def stop(self, timeout: float = 5.0) -> None:
        """Stop the loop once the already scheduled callbacks ran; cancel what is left."""
        if self._thread.is_alive():
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join(timeout)

    def _run(self) -> None:
        asyncio.set_event_loop(self._loop)
        try:
            self._loop.run_forever()
        finally:
            leftover = asyncio.all_tasks(self._loop)
            for task in leftover:
                task.cancel()
            self._loop.run_until_complete(asyncio.gather(*leftover, return_exceptions=True))
            self._loop.run_until_complete(self._loop.shutdown_asyncgens())
            self._loop.close()
