"""Run chunk-wire turns off the kernel's shell thread (chunk-wire §8.4).

One daemon thread owns an asyncio loop; every turn is a task on it. Comm
handlers only schedule work here (``call_soon_threadsafe``) and return at once,
so cells keep running and a ``cancel`` is always processed.
"""
from __future__ import annotations

import asyncio
import logging
import threading
from typing import Any, AsyncGenerator, Awaitable, Callable, Optional

from .kernel_output import TurnOutput, capture_into

logger = logging.getLogger(__name__)

CANCELLED_FRAME = {"status": "cancelled", "message": "Execution cancelled by user"}
NO_TERMINAL_FRAME = {"status": "error", "error": "the graph's stream ended without a terminal frame"}
TERMINAL_STATUSES = frozenset({"complete", "error", "cancelled"})


class TurnLoop:
    """The worker thread and its event loop."""

    def __init__(self, thread_name: str = "agent-panel-turns"):
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._run, name=thread_name, daemon=True)
        self._thread.start()

    def start(self, turn: "Turn") -> None:
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
    """One ``start_turn`` / ``resume``: forwards frames with ``seq``, ends exactly once.

    Every method runs on the loop thread. The turn always ends with one terminal
    frame followed by ``turn_end``; the first terminal frame wins and anything the
    graph yields after it is dropped.
    """

    def __init__(
        self,
        *,
        turn_id: str,
        thread_id: str,
        frames: Callable[[], AsyncGenerator[dict, None]],
        send: Callable[[dict], None],
        on_end: Callable[["Turn"], None],
        output: TurnOutput,
        owner: Any = None,
        pending: Optional[Callable[[], Awaitable[bool]]] = None,
        nothing_pending: str = "",
    ):
        self.turn_id = turn_id
        self.thread_id = thread_id
        self.output = output
        self.owner = owner  # who started it (the server's comm connection)
        self._frames = frames
        self._send = send
        self._on_end = on_end
        # A resume runs only if this says an interrupt waits; else ``rejected``.
        self._pending = pending
        self._nothing_pending = nothing_pending
        self._seq = 0
        self._interrupted = False
        self._ended = False
        self._task: Optional[asyncio.Task] = None

    def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self._run())

    def cancel(self) -> None:
        """End the turn as cancelled now, then cancel its task.

        Ending first keeps Stop prompt even if the graph's own cleanup is slow.
        """
        if self._ended:
            return
        self._end(CANCELLED_FRAME)
        if self._task is not None:
            self._task.cancel()

    async def _run(self) -> None:
        capture_into(self.output)
        try:
            if self._pending is not None and not await self._pending():
                self._reject("nothing_pending", self._nothing_pending)
                return
            frames = self._frames()
            try:
                async for frame in frames:
                    self._forward(frame)
                    if self._ended:
                        break
            finally:
                await frames.aclose()
        except asyncio.CancelledError:
            self._end(CANCELLED_FRAME)
        except Exception as exc:  # noqa: BLE001 - any failure becomes the turn's error frame
            self._end({"status": "error", "error": f"{type(exc).__name__}: {exc}"})
        else:
            self._end(NO_TERMINAL_FRAME)

    def _forward(self, frame: dict) -> None:
        if self._ended:
            return
        if frame.get("status") in TERMINAL_STATUSES:
            self._end(frame)
            return
        self._note(frame)
        self._send_frame(frame)

    def _note(self, frame: dict) -> None:
        status = frame.get("status")
        if status == "interrupt" or (status == "complete" and frame.get("outcome") == "interrupted"):
            self._interrupted = True

    def _outcome(self, terminal: dict) -> str:
        # Only one terminal frame is ever sent, so it alone decides error and cancelled.
        status = terminal.get("status")
        if status in ("error", "cancelled"):
            return status
        return "interrupted" if self._interrupted else "complete"

    def _end(self, terminal: dict) -> None:
        if self._ended:
            return
        self._ended = True
        self._note(terminal)
        # Release the thread first: the panel may answer turn_end at once (a resume).
        self._on_end(self)
        try:
            self._send_frame(terminal)
            self._send({"type": "turn_end", "turn_id": self.turn_id, "outcome": self._outcome(terminal)})
        except Exception:  # noqa: BLE001 - the comm is gone or broken; nothing else to tell
            logger.exception("agent_panel: could not send the end of turn %s", self.turn_id)

    def _reject(self, reason: str, detail: str) -> None:
        """End the turn with ``rejected`` instead of frames (nothing ran)."""
        if self._ended:
            return
        self._ended = True
        self._on_end(self)
        try:
            self._send({"type": "rejected", "turn_id": self.turn_id, "reason": reason, "detail": detail})
        except Exception:  # noqa: BLE001 - the comm is gone or broken; nothing else to tell
            logger.exception("agent_panel: could not reject turn %s", self.turn_id)

    def _send_frame(self, frame: dict) -> None:
        self._send({"type": "frame", "turn_id": self.turn_id, "seq": self._seq, "frame": frame})
        self._seq += 1
