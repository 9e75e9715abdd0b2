"""Drive one chunk-wire turn: forward its frames, end it with exactly one terminal frame.

Shared by the HTTP handler (SSE) and the kernel helper (comm); they only do the
I/O. The frames come from ``langstage_core.agui.iter_chunk_frames``. The first
terminal frame ends the turn and anything after it is dropped; a cancelled turn
ends with :data:`CANCELLED_FRAME`, one that raised with an ``error`` frame naming
the exception, and one whose stream stopped without a terminal frame with
:data:`NO_TERMINAL_FRAME`.
"""

from __future__ import annotations

import asyncio
from contextlib import aclosing
from dataclasses import dataclass
from typing import Any, AsyncGenerator, Awaitable, Callable, Optional

from .graph import LoadedAgent, has_pending_interrupt

TERMINAL_STATUSES = frozenset({"complete", "error", "cancelled"})
CANCELLED_FRAME = {"status": "cancelled", "message": "Execution cancelled by user"}
NO_TERMINAL_FRAME = {"status": "error", "error": "the graph's stream ended without a terminal frame"}


@dataclass(frozen=True)
class TurnRequest:
    """What one turn runs: ``message``, or ``resume`` for the thread's pending interrupt."""

    loaded: LoadedAgent
    message: str
    thread_id: str
    resume: Any = None
    max_result_len: int = 500

    async def may_run(self) -> bool:
        """False for a resume with no interrupt waiting: running it would answer nothing."""
        return self.resume is None or await has_pending_interrupt(self.loaded.agent, self.thread_id)

    def frames(self) -> AsyncGenerator[dict, None]:
        from langstage_core.agui import iter_chunk_frames  # present: the agent loaded

        return iter_chunk_frames(
            self.loaded.agent,
            self.message,
            self.thread_id,
            resume=self.resume,
            extractors=self.loaded.extractors,
            max_result_len=self.max_result_len,
        )


@dataclass(frozen=True)
class TurnEnd:
    """How a turn ended: its one terminal frame, its outcome and what raised, if anything."""

    frame: dict
    outcome: str  # complete | interrupted | error | cancelled
    failure: Optional[Exception] = None


class TurnDriver:
    """Runs one :class:`TurnRequest`: ``send`` per non-terminal frame, then ``end`` once."""

    def __init__(self, send: Callable[[dict], Awaitable[None]], end: Callable[[TurnEnd], None]):
        self._send = send
        self._end = end
        self._interrupted = False
        self.ended = False

    async def run(self, request: TurnRequest, started: Optional[Callable[[], Awaitable[None]]] = None) -> bool:
        """Run the turn to its end; False (and nothing sent) if ``request`` may not run.

        ``started`` is awaited once the turn may run, before its first frame.
        A cancellation ends the turn, then propagates.
        """
        try:
            if not await request.may_run():
                self.ended = True
                return False
            if started is not None:
                await started()
            async with aclosing(request.frames()) as frames:
                async for frame in frames:
                    if self.ended:  # cancelled while the graph ran
                        break
                    if frame.get("status") in TERMINAL_STATUSES:
                        self._finish(frame)
                        break
                    self._note(frame)
                    await self._send(frame)
        except asyncio.CancelledError:
            self.cancel()
            raise
        except Exception as exc:  # noqa: BLE001 - any failure becomes the turn's error frame
            self._finish({"status": "error", "error": f"{type(exc).__name__}: {exc}"}, exc)
        else:
            self._finish(NO_TERMINAL_FRAME)
        return True

    def cancel(self) -> bool:
        """End the turn as cancelled now; False if it had already ended."""
        if self.ended:
            return False
        self._finish(CANCELLED_FRAME)
        return True

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

    def _finish(self, terminal: dict, failure: Optional[Exception] = None) -> None:
        if self.ended:
            return
        self.ended = True
        self._note(terminal)
        self._end(TurnEnd(terminal, self._outcome(terminal), failure))
