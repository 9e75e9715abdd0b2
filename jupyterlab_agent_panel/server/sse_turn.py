"""One HTTP turn across two event loops (docs/protocol.md §6.7–6.8).

The graph runs on its agent's :class:`~.worker_loop.WorkerLoop`; the response is
written on the Jupyter server's (tornado's) loop. The worker encodes each frame
and hands it over with ``call_soon_threadsafe``, without waiting: tornado
writes what arrived and flushes it in batches. Up to ``WINDOW`` frames may wait
for the client; then the graph waits, so a slow client slows only its own
turn. (Waiting for every frame's flush would let the graph run ahead of
langstage-core's reading of it, which then sends a message streamed late as a
finished message too.) The terminal frame is written by a callback on
tornado's loop, whichever thread ended the turn: Stop and a lost client end
the turn from tornado at once, even while a node blocks the agent's loop.
"""
from __future__ import annotations

import asyncio
from typing import Callable, Optional

from tornado.iostream import StreamClosedError
from tornado.web import RequestHandler

from ..turns.driver import Refusal, TurnDriver, TurnEnd, TurnRequest
from ..turns.frame_json import sse_event
from ..worker_loop import WorkerLoop

WINDOW = 64  # frames handed to tornado but not yet flushed, before the graph waits
# The terminal frame if the real one cannot be encoded (it names the failure).
_UNENCODABLE_END = 'data: {"status": "error", "error": "the terminal frame could not be encoded"}\n\n'


class SseTurn:
    """Streams one :class:`TurnRequest` to ``handler``; created on tornado's loop."""

    def __init__(self, handler: RequestHandler, worker: WorkerLoop, on_end: Callable[[], None] = lambda: None):
        self._handler = handler
        self._worker = worker
        self._on_end = on_end  # called once the terminal frame is written
        self._loop = asyncio.get_running_loop()
        self._ended: asyncio.Future = self._loop.create_future()
        self._driver = TurnDriver(send=self._send, end=self._end)
        self._window = asyncio.Semaphore(WINDOW)  # used on the worker's loop only
        self._unflushed = 0  # tornado's side: frames written since the last flush
        self._flushing: Optional[asyncio.Task] = None
        self._write_failure: Optional[Exception] = None
        self.client_gone = False

    async def run(self, request: TurnRequest) -> Optional[Refusal]:
        """Stream the turn to its terminal frame; the refusal instead if nothing ran.

        Cancelling this coroutine (Stop, a lost client) ends the turn as
        cancelled and cancels the graph's task on the worker loop.
        """
        running = asyncio.wrap_future(self._worker.submit(self._driver.run(request, started=self._started)))
        try:
            await asyncio.wait({running, self._ended}, return_when=asyncio.FIRST_COMPLETED)
            if not self._ended.done() and not running.result():  # raises what the turn raised
                return self._driver.refused
            await self._ended
            # The graph's stream closes after its terminal frame; the response ends
            # only then, so the client's next turn never overlaps that cleanup.
            await running
        except asyncio.CancelledError:
            self._driver.cancel()  # no-op if the turn had ended: its end is on its way
            running.cancel()  # not awaited: a node that blocks the agent's loop must not hold Stop
            if self._driver.refused is None:  # a refused turn has no end to wait for
                await self._ended
            raise
        return None

    # -- called on the worker loop ------------------------------------------------

    async def _started(self) -> None:
        """Flush the headers before the first frame, so the client sees the turn start."""
        await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(self._flush_headers(), self._loop))

    async def _send(self, frame: dict) -> None:
        if self._write_failure is not None:
            raise self._write_failure
        text = sse_event(frame)
        await self._window.acquire()
        self._loop.call_soon_threadsafe(self._write, text)

    # -- called on any thread -----------------------------------------------------

    def _end(self, end: TurnEnd) -> None:
        try:
            text = sse_event(end.frame)
        except (TypeError, ValueError):
            text = _UNENCODABLE_END
        self._loop.call_soon_threadsafe(self._write_end, end, text)

    # -- on tornado's loop ----------------------------------------------------------

    async def _flush_headers(self) -> None:
        await self._handler.flush()

    def _write(self, text: str) -> None:
        if self._ended.done():  # the turn was ended (cancelled) while this frame travelled
            self._worker.call(self._window.release)
            return
        self._handler.write(text)
        self._unflushed += 1
        if self._flushing is None:
            self._flushing = asyncio.ensure_future(self._flush_written())

    async def _flush_written(self) -> None:
        """Flush what was written, batch after batch, and give the window back."""
        while self._unflushed:
            flushed, self._unflushed = self._unflushed, 0
            try:
                await self._handler.flush()
            except StreamClosedError as exc:
                self._write_failure = exc  # the next frame raises it: the turn ends, the client is gone
            finally:
                for _ in range(flushed):
                    self._worker.call(self._window.release)
        self._flushing = None

    def _write_end(self, end: TurnEnd, text: str) -> None:
        """Write the terminal frame (the handler's ``finish`` flushes it) unless the client left."""
        if self._ended.done():
            return
        if isinstance(end.failure, StreamClosedError):
            self.client_gone = True
        elif end.failure is not None:
            self._handler.log.error("agent-panel turn failed", exc_info=end.failure)
        if not self.client_gone:
            self._handler.write(text)
        self._ended.set_result(None)
        self._on_end()
