"""One agent the server extension serves: its spec, its loader, its event loop, its running turns."""
from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from typing import Optional, Sequence

from .agent_loader import AgentLoader
from .graph import LoadedAgent, load_agent, resolve_spec
from .worker_loop import WorkerLoop


class AgentHost:
    """An agent served under its own routes, loaded lazily on first use.

    Each host has its own loader (a slow import delays only this agent) and its
    own event loop in a worker thread, where its graph runs
    (docs/protocol.md §6.8): a node that blocks holds up this agent's turns,
    never the Jupyter server or another agent. Each host keeps its own running turns, so a thread
    id on one agent is independent of the same id on another.
    """

    def __init__(
        self,
        name: str,
        spec: Optional[str],
        extractor_specs: Sequence[str],
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
        self._base_dir = base_dir
        self._loader = AgentLoader(
            name,
            self._load,
            spec=lambda: resolve_spec(self.spec),
            watched_file=self._graph_file,
            timeout=load_timeout,
            retry_after=load_retry,
            log=log,
        )
        self._worker: Optional[WorkerLoop] = None
        # thread_id -> the task streaming that thread's turn (one turn per thread).
        self.turns: dict[str, asyncio.Task] = {}
        # The threads of ``turns`` whose terminal frame is written: their graph's
        # stream is closing, so a turn that follows at once waits for them.
        self.ending: set[str] = set()

    async def loaded_agent(self) -> LoadedAgent:
        """The agent, loaded on first use in a thread of its own (:class:`~.agent_loader.AgentLoader`)."""
        return await self._loader.get()

    @property
    def worker(self) -> WorkerLoop:
        """The event loop this agent's turns run on, started with the first one."""
        if self._worker is None:
            self._worker = WorkerLoop(f"agent-panel-{self.name}")
        return self._worker

    def close(self) -> None:
        """Cancel the running turns and stop the agent's loop."""
        for turn in self.turns.values():
            turn.cancel()
        if self._worker is not None:
            self._worker.stop()
            self._worker = None

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

    def _load(self) -> LoadedAgent:
        extractors = None
        if self.extractor_specs:
            extractors = []
            for extractor_spec in self.extractor_specs:
                try:
                    from langstage_core.host import load_agent_spec

                    found = load_agent_spec(extractor_spec, base_dir=self._base_dir)
                    found = found() if callable(found) else found
                except Exception as exc:  # noqa: BLE001 - reported through health, not raised
                    return LoadedAgent(
                        spec=resolve_spec(self.spec),
                        status="agent_not_loaded",
                        error=f"Could not load extractor {extractor_spec!r}: {type(exc).__name__}: {exc}",
                    )
                extractors.extend(found if isinstance(found, (list, tuple)) else [found])
        return load_agent(self.spec, extractors=extractors, base_dir=self._base_dir)
