"""The built-in agent as the default agent of the server (docs/protocol.md §16)."""
from __future__ import annotations

import logging
from typing import Mapping, Optional, Sequence

from ..agent_host import AgentHost, ExtractorUnavailable
from ..graph import DEFAULT_SPEC, SHOWCASE_SPEC, LoadedAgent, load_agent, resolve_spec
from ..memory.agent_memory import AgentMemory, MemoryUnavailable
from ..tools.notebook import NOTEBOOK_TOOL_NAMES, notebook_tools
from .agent import AGENT_NAME, DEEPAGENTS_TOOLS, build_notebook_agent
from .catalog import ModelCatalog
from .mcp import McpSessions
from .models import BuiltinModels


class BuiltinAgentHost(AgentHost):
    """The keyless demo until a model is configured or picked, then the notebook agent on it."""

    def __init__(
        self,
        name: str,
        extractor_specs: Sequence[str],
        memory: AgentMemory,
        model_memory: AgentMemory,
        catalog: ModelCatalog,
        mcp_servers: Mapping[str, dict],
        *,
        base_dir: Optional[str],
        load_timeout: float,
        load_retry: float,
        log: logging.Logger,
    ):
        self.catalog = catalog
        self.model_memory = model_memory
        self._mcp_servers = dict(mcp_servers)
        self._mcp_sessions = McpSessions()
        super().__init__(
            name,
            None,
            extractor_specs,
            memory,
            base_dir=base_dir,
            load_timeout=load_timeout,
            load_retry=load_retry,
            log=log,
        )

    @staticmethod
    def graph_named() -> bool:
        """$LANGSTAGE_AGENT_SPEC names a graph: it is served instead, as ``AgentPanel.agent_spec`` would be."""
        return resolve_spec(None) != DEFAULT_SPEC

    def label(self) -> str:
        if self.graph_named():
            return super().label()
        default = self.catalog.default
        return f"the built-in {AGENT_NAME.lower()} on {default.id}" if default else SHOWCASE_SPEC

    async def model_offers(self) -> dict:
        return await super().model_offers() if self.graph_named() else await self.catalog.offers()

    async def _close_resources(self) -> None:
        await self._mcp_sessions.close()
        await super()._close_resources()
        await self.model_memory.close()

    def _load(self) -> LoadedAgent:
        """Runs in the loader's thread: the demo and its memory, the MCP tools; the models' agents
        (and their memory) when a turn first needs them."""
        if self.graph_named():
            return super()._load()
        try:
            demo_checkpointer = self.worker.submit(self.memory.open()).result()
            extractors = self._load_extractors()
        except (MemoryUnavailable, ExtractorUnavailable) as exc:
            return self._failed(str(exc))
        demo = load_agent(SHOWCASE_SPEC, extractors=extractors, base_dir=self._base_dir, checkpointer=demo_checkpointer)
        if not demo.ready:
            return demo
        try:
            from langstage_core.demo import create_default_agent  # noqa: F401 - imported now, not in a first turn
            from langstage_core.extractors import TodoExtractor
        except ImportError as exc:
            return self._failed(f"The built-in agent needs deepagents ({exc}): pip install deepagents")
        from ..demo.showcase import PROMPTS
        taken = set(NOTEBOOK_TOOL_NAMES | DEEPAGENTS_TOOLS)
        self.worker.submit(self._mcp_sessions.close()).result()  # a load after a failed one starts afresh
        self._mcp_sessions = McpSessions()
        mcp = self.worker.submit(self._mcp_sessions.open(self._mcp_servers, taken)).result()
        models = BuiltinModels(
            self.catalog,
            demo,
            demo_prompts=PROMPTS,
            build=build_notebook_agent,
            extractors=[TodoExtractor(), *(extractors or [])],
            mcp=mcp,
            tools=[*notebook_tools(), *mcp.tools],
            memory=self.model_memory,
            root_dir=self._base_dir or ".",
        )
        return LoadedAgent(
            spec=self.label(),
            agent=demo.agent,
            extractors=demo.extractors,
            name=AGENT_NAME if self.catalog.default else demo.name,
            models=models,
        )
