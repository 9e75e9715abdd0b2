"""Which agent runs each turn of the built-in agent (docs/protocol.md §16.3).

A turn that names no model runs on the default one; with no default, on the
keyless demo. The notebook agent is built once per model (again after the
``.env`` file changed), on the agent's loop, and every model's agent keeps its
threads in one checkpointer, opened then; the demo keeps its own, since its
graph's state is another.
"""
from __future__ import annotations

import threading
from typing import Any, Callable, Optional, Sequence

from ..graph import LoadedAgent, TurnAgent
from ..memory.agent_memory import AgentMemory, CheckpointerThreads
from .catalog import ModelCatalog, ModelUnavailable
from .failures import describe
from .mcp import McpTools
from .providers import ModelRef, base_url, key_env


class BuiltinModels:
    """The built-in agent's models: the agent of each turn, the health, the threads."""

    def __init__(
        self,
        catalog: ModelCatalog,
        demo: LoadedAgent,
        *,
        demo_prompts: Sequence[str],
        build: Callable[..., Any],
        extractors: list,
        mcp: McpTools,
        tools: list,
        memory: AgentMemory,
        root_dir: str,
    ):
        self.catalog = catalog
        self._demo = demo
        self._demo_prompts = list(demo_prompts)
        self._build = build
        self._extractors = extractors
        self._mcp = mcp
        self._tools = tools
        self._memory = memory  # opened when a model's agent is first built
        self._root_dir = root_dir
        self._agents: dict[tuple, Any] = {}
        self._lock = threading.Lock()
        self.threads = CheckpointerThreads(demo.agent.graph.checkpointer, memory.open_now)

    async def check(self, model: Optional[str]) -> None:
        """UnknownModel or ModelUnavailable unless a turn on ``model`` (None: the default) can run."""
        if model is not None:
            await self.catalog.resolve(model)
        elif self.catalog.default is not None:
            self.catalog.check(self.catalog.default)

    def turn_agent(self, model: Optional[str]) -> TurnAgent:
        ref = ModelRef.parse(model) if model is not None else self.catalog.default
        if ref is None:
            return TurnAgent(self._demo.agent, self._demo.extractors)
        key = (ref.id, self.catalog.credentials.version())
        with self._lock:
            agent = self._agents.get(key)
            if agent is None:
                agent = self._agents[key] = self._build_for(ref)
        return TurnAgent(
            agent, self._extractors, takes_images=self.catalog.vision(ref), tool_titles=self._mcp.titles
        )

    def add_health(self, body: dict) -> None:
        """The built-in agent's fields of ``health`` (docs/protocol.md §16.3)."""
        default = self.catalog.default
        body.update(model_choice=True, model=default.id if default else None)
        if default is None:
            body["message"] = "Keyless demo agent ready: no model is configured (AgentPanel.model)"
            # What the demo answers best, offered in an empty conversation (docs/protocol.md §6.1).
            body["prompts"] = self._demo_prompts
        else:
            try:
                self.catalog.check(default)
                body["message"] = f"Notebook agent ready on {default.id}"
            except ModelUnavailable as exc:
                body.update(ready=False, status="model_unavailable", message=str(exc))
        notice = self._mcp.notice()
        if notice:
            body["message"] += f". {notice}"

    def _build_for(self, ref: ModelRef) -> Any:
        catalog = self.catalog
        credentials = catalog.credentials

        def describe_failure(failure: BaseException) -> str:
            return describe(
                failure,
                ref.id,
                key_env=key_env(ref),
                where=credentials.where,
                timeout=catalog.options.timeout,
                retries=catalog.options.max_retries,
                endpoint=base_url(ref, credentials),
                redact=credentials.redact,
            )

        return self._build(
            catalog.model(ref),
            vision=catalog.vision(ref),
            tools=self._tools,
            reviews=self._mcp.reviewed,
            checkpointer=self._memory.open_now(),
            root_dir=self._root_dir,
            describe_failure=describe_failure,
        )
