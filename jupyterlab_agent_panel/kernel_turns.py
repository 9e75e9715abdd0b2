"""Run chunk-wire turns off the kernel's shell thread (docs/protocol.md §7.4).

One daemon thread owns an asyncio loop; every turn is a task on it. Comm
handlers only schedule work here (``call_soon_threadsafe``) and return at once,
so cells keep running and a ``cancel`` is always processed.
"""
from __future__ import annotations

import asyncio
import logging
import threading
from typing import Any, Callable, Optional

from .graph import NOTHING_PENDING
from .kernel_output import TurnOutput, capture_into
from .turn_driver import TurnDriver, TurnEnd, TurnRequest

logger = logging.getLogger(__name__)


class TurnLoop:
    """The worker thread and its event loop."""

    def __init__(self, thread_name: str = "agent-panel-turns"):
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._run, name=thread_name, daemon=True)
        self._thread.start()

    def start(self, turn: Turn) -> None:
        """Start ``turn`` as a task running in a copy of the caller's context.

        asyncio runs a callback in a copy of the context it was scheduled from, and
        a task copies it again. Called from the comm handler, where the kernel's
        "current request" is the ``start_turn`` message, the frames the task sends
        are children of that message (and ipykernel routes the panel's later comm
        messages back to the same subshell), never of whatever cell ran last.
        """
        self._loop.call_soon_threadsafe(turn.start)

    def call(self, callback: Callable[..., Any], *args: Any) -> None:
        """Run ``callback(*args)`` on the loop thread, after everything scheduled before."""
        self._loop.call_soon_threadsafe(callback, *args)

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


class Turn:
    """One ``start_turn`` / ``resume`` over the comm: frames with ``seq``, then ``turn_end``.

    Every method runs on the loop thread; :class:`~.turn_driver.TurnDriver` decides
    what is sent. A resume with nothing pending gets ``rejected`` instead.
    """

    def __init__(
        self,
        *,
        turn_id: str,
        request: TurnRequest,
        send: Callable[[dict], None],
        on_end: Callable[[Turn], None],
        output: TurnOutput,
        owner: Any = None,
    ):
        self.turn_id = turn_id
        self.thread_id = request.thread_id
        self.output = output
        self.owner = owner  # who started it (the server's comm connection)
        self._request = request
        self._send = send
        self._on_end = on_end
        self._seq = 0
        self._driver = TurnDriver(send=self._forward, end=self._end)
        self._task: Optional[asyncio.Task] = None

    def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self._run())

    def cancel(self) -> None:
        """End the turn as cancelled now, then cancel its task.

        Ending first keeps Stop prompt even if the graph's own cleanup is slow.
        """
        if self._driver.cancel() and self._task is not None:
            self._task.cancel()

    async def _run(self) -> None:
        capture_into(self.output)
        if not await self._driver.run(self._request):
            self._reject()

    async def _forward(self, frame: dict) -> None:
        self._send_frame(frame)

    def _end(self, end: TurnEnd) -> None:
        # Release the thread first: the panel may answer turn_end at once (a resume).
        self._on_end(self)
        try:
            self._send_frame(end.frame)
            self._send({"type": "turn_end", "turn_id": self.turn_id, "outcome": end.outcome})
        except Exception:  # noqa: BLE001 - the comm is gone or broken; nothing else to tell
            logger.exception("agent_panel: could not send the end of turn %s", self.turn_id)

    def _reject(self) -> None:
        """End the turn with ``rejected`` instead of frames (nothing ran)."""
        self._on_end(self)
        reply = {"type": "rejected", "turn_id": self.turn_id, "reason": "nothing_pending", "detail": NOTHING_PENDING}
        try:
            self._send(reply)
        except Exception:  # noqa: BLE001 - the comm is gone or broken; nothing else to tell
            logger.exception("agent_panel: could not reject turn %s", self.turn_id)

    def _send_frame(self, frame: dict) -> None:
        self._send({"type": "frame", "turn_id": self.turn_id, "seq": self._seq, "frame": frame})
        self._seq += 1
