"""Process-wide state of the server extension: the configured agent and running turns."""
from __future__ import annotations

import asyncio
from typing import Any, Optional

from traitlets import List, Unicode
from traitlets.config import LoggingConfigurable

from .graph import SPEC_ENV, LoadedAgent, load_agent, resolve_spec


class AgentPanel(LoggingConfigurable):
    """The graph the panel's HTTP routes serve, loaded once per server process.

    Configure it like any Jupyter server option::

        c.AgentPanel.agent_spec = "my_agent.py:graph"      # jupyter_server_config.py
        jupyter lab --AgentPanel.agent_spec=my_agent.py:graph
    """

    agent_spec = Unicode(
        "",
        config=True,
        help=(
            "The LangGraph graph to serve, as 'module:attr' or 'path/to/file.py:attr' "
            "(relative to the server's root directory). Empty: $" + SPEC_ENV + ", "
            "else the keyless demo 'langstage_core.demo.tools:graph'."
        ),
    )
    extractors = List(
        Unicode(),
        config=True,
        help=(
            "Tool extractors for the served graph, each 'module:attr' or 'file.py:attr'. "
            "The attribute is an extractor, or a class or function returning one or a "
            "list of them. Empty: none (the demo graph gets its own)."
        ),
    )

    def __init__(self, *, base_dir: Optional[str] = None, **kwargs: Any):
        super().__init__(**kwargs)
        self._base_dir = base_dir
        self._loaded: Optional[LoadedAgent] = None
        self._loading = asyncio.Lock()
        # thread_id -> the task streaming that thread's turn (one turn per thread).
        self.turns: dict[str, asyncio.Task] = {}

    async def loaded_agent(self) -> LoadedAgent:
        """The agent, loaded on first use (off the event loop) and kept, failures too."""
        async with self._loading:
            if self._loaded is None:
                self._loaded = await asyncio.to_thread(self._load)
                if self._loaded.ready:
                    self.log.info("agent-panel serving %s", self._loaded.spec)
                else:
                    self.log.error("agent-panel: %s", self._loaded.error)
            return self._loaded

    def _load(self) -> LoadedAgent:
        spec = self.agent_spec or None
        extractors = None
        if self.extractors:
            extractors = []
            for extractor_spec in self.extractors:
                try:
                    from langstage_core.host import load_agent_spec

                    found = load_agent_spec(extractor_spec, base_dir=self._base_dir)
                    found = found() if callable(found) else found
                except Exception as exc:  # noqa: BLE001 - reported through health, not raised
                    return LoadedAgent(
                        spec=resolve_spec(spec),
                        status="agent_not_loaded",
                        error=f"Could not load extractor {extractor_spec!r}: {type(exc).__name__}: {exc}",
                    )
                extractors.extend(found if isinstance(found, (list, tuple)) else [found])
        return load_agent(spec, extractors=extractors, base_dir=self._base_dir)
