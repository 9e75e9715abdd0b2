"""One chunk-wire turn over the kernel comm (docs/protocol.md §7.4).

Every turn is a task on the helper's :class:`~.worker_loop.WorkerLoop`, never on
the shell thread: comm handlers only schedule work there and return at once, so
cells keep running and a ``cancel`` is always processed.
"""
from __future__ import annotations

import asyncio
import logging
from typing import Any, Callable, Optional

from ..turns.driver import Refusal, TurnDriver, TurnEnd, TurnRequest
from ..turns.frame_json import finite
from .output import TurnOutput, capture_into

logger = logging.getLogger(__name__)


class Turn:
    """One ``start_turn`` / ``resume`` over the comm: frames with ``seq``, then ``turn_end``.

    Every method runs on the loop thread; :class:`~.turns.driver.TurnDriver` decides
    what is sent. A refused resume (nothing pending, decisions that do not answer
    the review) gets ``rejected`` instead.
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
        """Start the task; runs on the loop thread, in a copy of the caller's context.

        Scheduled from the comm handler, where the kernel's "current request" is
        the ``start_turn`` message, the frames the task sends are children of that
        message (and ipykernel routes the panel's later comm messages back to the
        same subshell), never of whatever cell ran last.
        """
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
            self._reject(self._driver.refused)

    async def _forward(self, frame: dict) -> None:
        self._send_frame(frame)

    def _end(self, end: TurnEnd) -> None:
        # Release the thread first: the panel may answer turn_end at once (a resume).
        self._on_end(self)
        try:
            self._send_frame(end.frame)
            self._send({"type": "turn_end", "turn_id": self.turn_id, "outcome": end.outcome})
        except Exception:  # the comm is gone or broken; nothing else to tell
            logger.exception("agent_panel: could not send the end of turn %s", self.turn_id)

    def _reject(self, refusal: Refusal) -> None:
        """End the turn with ``rejected`` instead of frames (nothing ran)."""
        self._on_end(self)
        reply = {"type": "rejected", "turn_id": self.turn_id, "reason": refusal.reason, "detail": refusal.message}
        try:
            self._send(reply)
        except Exception:  # the comm is gone or broken; nothing else to tell
            logger.exception("agent_panel: could not reject turn %s", self.turn_id)

    def _send_frame(self, frame: dict) -> None:
        self._send({"type": "frame", "turn_id": self.turn_id, "seq": self._seq, "frame": finite(frame)})
        self._seq += 1
