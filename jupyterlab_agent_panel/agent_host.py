"""One agent the server extension serves: its spec, its loader, its event loop, its running turns."""
from __future__ import annotations

import asyncio
import logging
import threading
from pathlib import Path
from typing import Any, Coroutine, Optional, Sequence

from .agent_loader import AgentLoader
from .graph import LoadedAgent, load_agent, resolve_spec
from .memory.agent_memory import AgentMemory, MemoryUnavailable
from .turns.in_flight import TurnsInFlight
from .worker_loop import WorkerLoop

MEMORY_CLOSE_SECONDS = 5.0


class ExtractorUnavailable(Exception):
    """A configured extractor could not be loaded; the message names it and the cause."""


class AgentHost:
    """An agent served under its own routes, loaded lazily on first use.

    Each host has its own loader (a slow import delays only this agent) and its
    own event loop in a worker thread, where its graph runs
    (docs/protocol.md §6.8): a node that blocks holds up this agent's turns,
    never the Jupyter server or another agent. Each host keeps its own running turns and its own
    memory (:mod:`.memory.agent_memory`), so a thread id on one agent is independent of the same id on another.
    """

    def __init__(
        self,
        name: str,
        spec: Optional[str],
        extractor_specs: Sequence[str],
        memory: Optional[AgentMemory],
        *,
        base_dir: Optional[str],
        load_timeout: float,
        load_retry: float,
        log: logging.Logger,
    ):
        self.name = name
        self.spec = spec
        self.extractor_specs = list(extractor_specs)
        self.log = log
        self.memory = memory
        self._base_dir = base_dir
        self._loader = AgentLoader(
            name,
            self._load,
            spec=self.label,
            watched_file=self._graph_file,
            timeout=load_timeout,
            retry_after=load_retry,
            log=log,
        )
        self._worker: Optional[WorkerLoop] = None
        self._worker_lock = threading.Lock()  # the loader's thread and the server's loop both start it
        # thread_id -> the task streaming that thread's turn (one turn per thread).
        self.turns: TurnsInFlight[asyncio.Task] = TurnsInFlight()

    async def loaded_agent(self) -> LoadedAgent:
        """The agent, loaded on first use in a thread of its own (:class:`~.agent_loader.AgentLoader`)."""
        return await self._loader.get()

    async def health(self) -> dict:
        """The ``GET health`` answer (docs/protocol.md §6.1)."""
        return (await self.loaded_agent()).health()

    @property
    def worker(self) -> WorkerLoop:
        """The event loop this agent's turns run on, started with the first one."""
        with self._worker_lock:
            if self._worker is None:
                self._worker = WorkerLoop(f"agent-panel-{self.name}")
            return self._worker

    async def on_loop(self, coroutine: Coroutine[Any, Any, Any]) -> Any:
        """Await ``coroutine`` on the agent's loop, where its checkpointer lives."""
        return await asyncio.wrap_future(self.worker.submit(coroutine))

    def close(self) -> None:
        """Cancel the running turns, close the memory and stop the agent's loop."""
        self.turns.stop_all()
        if self._worker is not None:
            try:
                self._worker.submit(self._close_resources()).result(MEMORY_CLOSE_SECONDS)
            except Exception:  # stopping goes on; the database keeps what was written
                self.log.warning("agent-panel: agent %r: closing its resources failed", self.name, exc_info=True)
            self._worker.stop()
            self._worker = None

    async def model_offers(self) -> dict:
        """The ``GET models`` answer (docs/protocol.md §16.3): only the built-in agent offers models."""
        return {"choosable": False, "default": None, "models": [], "problems": []}

    def stop_requested(self, thread_id: str) -> None:
        """Stop asked for the thread's turn (before its task is cancelled); a host whose runs
        outlive their client stops the run itself then."""

    async def _close_resources(self) -> None:
        if self.memory is not None:
            await self.memory.close()

    def _graph_file(self) -> Optional[Path]:
        """The graph's ``.py`` file when the spec names one; its changes trigger a reload."""
        try:
            from langstage_core.host.loader import is_file_spec, parse_agent_spec

            module_path, _ = parse_agent_spec(resolve_spec(self.spec))
        except (ImportError, ValueError):
            return None
        if not is_file_spec(module_path):
            return None
        path = Path(module_path).expanduser()
        if self._base_dir is not None and not path.is_absolute():
            path = Path(self._base_dir) / path
        return path

    def label(self) -> str:
        """What the agent is, for health and messages: its graph's spec."""
        return resolve_spec(self.spec)

    def _load(self) -> LoadedAgent:
        """Runs in the loader's thread; the memory opens on the agent's loop."""
        assert self.memory is not None  # a deployment has none, and loads otherwise
        try:
            checkpointer = self.worker.submit(self.memory.open()).result()
            extractors = self._load_extractors()
        except (MemoryUnavailable, ExtractorUnavailable) as exc:
            return self._failed(str(exc))
        return load_agent(self.spec, extractors=extractors, base_dir=self._base_dir, checkpointer=checkpointer)

    def _failed(self, error: str) -> LoadedAgent:
        return LoadedAgent(spec=self.label(), status="agent_not_loaded", error=error)

    def _load_extractors(self) -> Optional[list]:
        """The configured extractors, ``None`` when none are (the demo graph then gets its own)."""
        if not self.extractor_specs:
            return None
        from langstage_core.host import load_agent_spec

        extractors = []
        for extractor_spec in self.extractor_specs:
            try:
                found = load_agent_spec(extractor_spec, base_dir=self._base_dir)
                found = found() if callable(found) else found
            except Exception as exc:  # reported through health, not raised
                raise ExtractorUnavailable(
                    f"Could not load extractor {extractor_spec!r}: {type(exc).__name__}: {exc}"
                ) from exc
            extractors.extend(found if isinstance(found, (list, tuple)) else [found])
        return extractors
