"""One agent the server extension serves: its spec, the agent loaded once, its running turns."""
from __future__ import annotations

import asyncio
import logging
from typing import Optional, Sequence

from .graph import LoadedAgent, load_agent, resolve_spec


class AgentHost:
    """An agent served under its own routes, loaded lazily on first use.

    Each host keeps its own running turns, so a thread id on one agent is
    independent of the same id on another. Hosts share ``load_lock``: loading
    imports the graph's packages in a worker thread, and concurrent imports of the
    same packages from several threads can see half-initialised modules.
    """

    def __init__(
        self,
        name: str,
        spec: Optional[str],
        extractor_specs: Sequence[str],
        *,
        base_dir: Optional[str],
        load_lock: asyncio.Lock,
        log: logging.Logger,
    ):
        self.name = name
        self.spec = spec
        self.extractor_specs = list(extractor_specs)
        self.log = log
        self._base_dir = base_dir
        self._load_lock = load_lock
        self._loaded: Optional[LoadedAgent] = None
        # thread_id -> the task streaming that thread's turn (one turn per thread).
        self.turns: dict[str, asyncio.Task] = {}

    async def loaded_agent(self) -> LoadedAgent:
        """The agent, loaded on first use (off the event loop) and kept, failures too."""
        if self._loaded is None:  # once loaded, never wait behind another agent's load
            async with self._load_lock:
                if self._loaded is None:
                    self._loaded = await asyncio.to_thread(self._load)
                    if self._loaded.ready:
                        self.log.info("agent-panel: agent %r serving %s", self.name, self._loaded.spec)
                    else:
                        self.log.error("agent-panel: agent %r: %s", self.name, self._loaded.error)
        return self._loaded

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
