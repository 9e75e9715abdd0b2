"""Drive one chunk-wire turn: forward its frames, end it with exactly one terminal frame.

Shared by the HTTP handler (SSE) and the kernel helper (comm); they only do the
I/O. The frames come from ``langstage_core.agui.iter_chunk_frames``. The first
terminal frame ends the turn and anything after it is dropped; a cancelled turn
ends with :data:`CANCELLED_FRAME`, one that raised with an ``error`` frame naming
the exception, and one whose stream stopped without a terminal frame with
:data:`NO_TERMINAL_FRAME`. A resume that answers nothing pending, another review
than the pending one, or answers it wrongly, is refused before anything runs
(:class:`Refusal`). Interrupt frames carry their interrupt's id, so the client can
name what its resume answers. A turn begun by a message reports the checkpoint it
starts from, and may fork its thread at an earlier one (:mod:`.memory.checkpoints`). A
turn that ran has its thread's checkpoints pruned after it (:mod:`.memory.checkpoint_pruning`).

The turn runs on a worker loop (:mod:`.worker_loop`); ``cancel`` may come from
another thread, so which terminal frame wins is decided under a lock.
"""

from __future__ import annotations

import asyncio
import threading
from contextlib import aclosing
from dataclasses import dataclass
from typing import Any, AsyncGenerator, Awaitable, Callable, Mapping, Optional

from ..graph import NOTHING_PENDING, LoadedAgent, TurnAgent, pending_interrupts
from ..memory.checkpoint_pruning import prune_after_turn
from ..memory.checkpoints import TERMINAL_STATUSES, fork_problem, with_checkpoints
from .decisions import pending_problem, stale_problem
from .usage import TurnUsage, with_callbacks

CANCELLED_FRAME = {"status": "cancelled", "message": "Execution cancelled by user"}
# How langstage-core words a raised exception in its error frame; a model's failure already says it all.
MODEL_FAILURE_PREFIX = "ModelFailure: "
NO_TERMINAL_FRAME = {"status": "error", "error": "the graph's stream ended without a terminal frame"}


@dataclass(frozen=True)
class Refusal:
    """Why a turn did not run: ``nothing_pending``, ``stale_review`` or ``unknown_checkpoint`` (HTTP
    409), ``bad_request`` or ``cannot_fork`` (400)."""

    reason: str
    message: str


@dataclass(frozen=True)
class TurnRequest:
    """What one turn runs: ``message``, or ``resume`` for the thread's pending interrupt."""

    loaded: LoadedAgent
    message: str
    thread_id: str
    resume: Any = None
    max_result_len: int = 500
    join_run: Optional[str] = None  # the run in flight this request streams, rather than a new turn
    owner: str = ""  # who asked: a deployment's new thread is theirs (docs/protocol.md §15.5)
    model: Optional[str] = None  # the built-in agent's model for this turn (docs/protocol.md §16.3)
    images: tuple = ()  # attached images, {"mime_type", "data"}, for a model that reads them (docs/protocol.md §16.7)
    answers: Optional[list] = None  # the interrupt ids a resume says it answers (docs/protocol.md §5.9)
    fork_from: Any = None  # where the turn forks its thread first (docs/protocol.md §5.10)

    def turn_agent(self) -> TurnAgent:
        return self.loaded.turn_agent(self.model)

    async def refusal(self) -> Optional[Refusal]:
        """Why this turn may not run, or ``None``: only a resume can be refused.

        A resume needs an interrupt waiting (else running it would answer nothing),
        one that names what it answers must name exactly the interrupts waiting (else
        it answers an earlier review), and a ``{"decisions": [...]}`` resume must
        answer that interrupt's review. When the state cannot be read, the resume
        goes ahead as it always did.
        """
        if self.fork_from is not None:
            refused = await self._fork_refusal()
            if refused is not None or self.resume is None:
                return refused
            # The review is the one the branch paused on, where the thread goes back to.
            pending = await pending_interrupts(self.turn_agent().agent, self.thread_id, self.fork_from)
        elif self.resume is None:
            return None
        else:
            pending = await pending_interrupts(self.turn_agent().agent, self.thread_id)
        if pending is None:
            return None
        if not pending:
            return Refusal("nothing_pending", NOTHING_PENDING)
        stale = None if self.answers is None else stale_problem(self.answers, pending)
        if stale is not None:
            return Refusal("stale_review", stale)
        decisions = self.resume.get("decisions") if isinstance(self.resume, dict) else None
        if isinstance(decisions, list):
            problem = pending_problem(decisions, [getattr(i, "value", None) for i in pending])
            if problem is not None:
                return Refusal("bad_request", f"The decisions do not answer the pending review: {problem}")
        return None

    async def _fork_refusal(self) -> Optional[Refusal]:
        if self.loaded.stream is not None:  # a deployment reads its own checkpoints (deployments/checkpoints.py)
            problem = await self.loaded.agent.fork_problem(self.thread_id, self.fork_from)
        else:
            problem = await fork_problem(self.turn_agent().agent, self.thread_id, self.fork_from)
        return None if problem is None else Refusal(*problem)

    def frames(self) -> AsyncGenerator[dict, None]:
        if self.join_run is not None:
            return self.loaded.join(
                self.loaded.agent,
                self.thread_id,
                self.join_run,
                extractors=self.loaded.extractors,
                max_result_len=self.max_result_len,
            )
        options = {"resume": self.resume, "extractors": self.loaded.extractors, "max_result_len": self.max_result_len}
        if self.loaded.stream is not None:  # the agent is elsewhere and keeps whose its threads are
            return self.loaded.stream(
                self.loaded.agent, self.message, self.thread_id, owner=self.owner, fork_from=self.fork_from, **options
            )
        from langstage_core.agui import iter_chunk_frames  # present: the agent loaded

        chosen = self.turn_agent()
        usage = TurnUsage()
        options["extractors"] = chosen.extractors
        message = with_images(self.message, self.images) if chosen.takes_images and self.images else self.message
        frames = iter_chunk_frames(with_callbacks(chosen.agent, [usage]), message, self.thread_id, **options)
        frames = with_checkpoints(frames, chosen.agent, self.thread_id, self.fork_from, self.resume is None)
        frames = _with_interrupt_ids(frames, chosen.agent, self.thread_id)
        if chosen.tool_titles:
            frames = _with_tool_titles(frames, chosen.tool_titles)
        return _with_usage(frames, usage)


def with_images(message: str, images: tuple) -> list:
    """The user message as text and image parts (ag-ui-protocol's), for a model that reads images."""
    parts: list = [{"type": "text", "text": message}]
    for image in images:
        source = {"type": "data", "value": image["data"], "mime_type": image["mime_type"]}
        parts.append({"type": "image", "source": source})
    return parts


async def _with_interrupt_ids(
    frames: AsyncGenerator[dict, None], agent: Any, thread_id: str
) -> AsyncGenerator[dict, None]:
    """``frames`` with each interrupt frame given its interrupt's id (``interrupt_ids``), read
    from the checkpoint: core sends one frame per pending interrupt, in the checkpoint's
    order, and drops the id a resume names (docs/protocol.md §5.9)."""
    pending: Optional[list] = None
    seen = 0
    async with aclosing(frames):
        async for frame in frames:
            if frame.get("status") == "interrupt":
                if pending is None:  # the run has paused: the checkpoint holds all its interrupts
                    pending = await pending_interrupts(agent, thread_id) or []
                interrupt_id = getattr(pending[seen], "id", None) if seen < len(pending) else None
                seen += 1
                if isinstance(interrupt_id, str):
                    frame = {**frame, "interrupt_ids": [interrupt_id]}
            yield frame


async def _with_tool_titles(
    frames: AsyncGenerator[dict, None], titles: Mapping[str, str]
) -> AsyncGenerator[dict, None]:
    """``frames`` with each call of a tool in ``titles`` given its ``title`` (docs/protocol.md §16.5)."""
    async with aclosing(frames):
        async for frame in frames:
            calls = frame.get("tool_calls")
            if isinstance(calls, list) and any(isinstance(c, dict) and c.get("name") in titles for c in calls):
                calls = [{**c, "title": titles[c["name"]]} if c.get("name") in titles else c for c in calls]
                frame = {**frame, "tool_calls": calls}
            yield frame


async def _with_usage(frames: AsyncGenerator[dict, None], usage: TurnUsage) -> AsyncGenerator[dict, None]:
    """``frames`` with the turn's ``usage`` frame before its terminal frame (docs/protocol.md §16.4)."""
    async with aclosing(frames):
        async for frame in frames:
            if frame.get("status") in TERMINAL_STATUSES:
                used = usage.frame()
                if used is not None:
                    yield used
                error = frame.get("error")
                if isinstance(error, str) and error.startswith(MODEL_FAILURE_PREFIX):
                    frame = {**frame, "error": error[len(MODEL_FAILURE_PREFIX) :]}
            yield frame


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
        self._lock = threading.Lock()
        self.ended = False
        self.refused: Optional[Refusal] = None

    async def run(self, request: TurnRequest, started: Optional[Callable[[], Awaitable[None]]] = None) -> bool:
        """Run the turn to its end; False (nothing sent, :attr:`refused` says why) if refused.

        ``started`` is awaited once the turn may run, before its first frame.
        A cancellation ends the turn, then propagates.
        """
        try:
            refusal = await request.refusal()
            if refusal is not None:
                with self._lock:
                    if self.ended:  # a cancel came first and ended the turn
                        return True
                    self.ended = True
                    self.refused = refusal
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
        except Exception as exc:  # any failure becomes the turn's error frame
            self._finish({"status": "error", "error": f"{type(exc).__name__}: {exc}"}, exc)
        else:
            self._finish(NO_TERMINAL_FRAME)
        prune_after_turn(request)  # keeps what the thread's branches need (docs/protocol.md §14.4)
        return True

    def cancel(self) -> bool:
        """End the turn as cancelled now (from any thread); False if it had already ended."""
        return self._finish(CANCELLED_FRAME)

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

    def _finish(self, terminal: dict, failure: Optional[Exception] = None) -> bool:
        with self._lock:
            if self.ended:
                return False
            self.ended = True
        self._note(terminal)
        self._end(TurnEnd(terminal, self._outcome(terminal), failure))
        return True
