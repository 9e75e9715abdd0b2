"""The turns running, one per thread (docs/protocol.md §6.3, §7.3): the one owner of that registry.

A served agent's routes (:class:`~.agent_host.AgentHost`, whose turns are the
asyncio tasks streaming them) and the kernel helper (its
:class:`~.kernel.comm_turn.Turn` objects) each keep one :class:`TurnsInFlight`:
a turn holds its thread from :meth:`~TurnsInFlight.claim` to
:meth:`~TurnsInFlight.finish`, and no other turn starts on it meanwhile.
"""
from __future__ import annotations

from typing import Any, Callable, Iterator, Mapping, Optional, TypeVar

TurnT = TypeVar("TurnT")


def _cancel(turn: Any) -> None:
    turn.cancel()


class TurnsInFlight(Mapping[str, TurnT]):
    """The running turns by thread id, read as a mapping; changed only through its methods.

    Not thread-safe: its users serialise their calls (the server's routes run on
    its event loop; the kernel helper holds its lock).
    """

    def __init__(self, cancel: Callable[[TurnT], None] = _cancel):
        self._cancel = cancel  # how a turn is stopped (the kernel helper's: on its loop thread)
        self._turns: dict[str, TurnT] = {}
        # The threads whose turn wrote its terminal frame: their graph's stream is
        # closing, so a turn that follows at once may wait for them.
        self._ending: set[str] = set()

    def __getitem__(self, thread_id: str) -> TurnT:
        return self._turns[thread_id]

    def __iter__(self) -> Iterator[str]:
        return iter(self._turns)

    def __len__(self) -> int:
        return len(self._turns)

    def claim(self, thread_id: str, turn: TurnT) -> Optional[TurnT]:
        """Give the thread to ``turn``; when a turn runs on it already, that one, and the thread stays its."""
        running = self._turns.get(thread_id)
        if running is None:
            self._turns[thread_id] = turn
        return running

    def finish(self, thread_id: str, turn: TurnT) -> None:
        """Free the thread if ``turn`` still holds it (a turn that followed keeps it)."""
        if self._turns.get(thread_id) is turn:
            del self._turns[thread_id]
            self._ending.discard(thread_id)

    def ending(self, thread_id: str) -> None:
        """The thread's turn wrote its terminal frame; it holds the thread until :meth:`finish`."""
        if thread_id in self._turns:
            self._ending.add(thread_id)

    def is_ending(self, thread_id: str) -> bool:
        return thread_id in self._ending

    def stop(self, thread_id: str) -> Optional[TurnT]:
        """Cancel the thread's turn, which frees it when it ends; the turn, None when none runs."""
        turn = self._turns.get(thread_id)
        if turn is not None:
            self._cancel(turn)
        return turn

    def stop_all(self) -> None:
        """Cancel every turn."""
        for turn in list(self._turns.values()):
            self._cancel(turn)
