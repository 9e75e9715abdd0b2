"""Choose the LangGraph graph to serve and build its agent once.

Shared by the server extension and the kernel helper. langstage-core is imported
lazily so the package loads without it (health then says how to install it).
"""
from __future__ import annotations

import logging
import os
import weakref
from dataclasses import dataclass, field
from typing import Any, AsyncIterator, Callable, Mapping, Optional

DEFAULT_SPEC = "langstage_core.demo.tools:graph"
# The built-in agent's keyless demo (docs/protocol.md §16): langstage-core's, and a turn for each part of the panel.
SHOWCASE_SPEC = "jupyterlab_agent_panel.demo.showcase:graph"
SPEC_ENV = "LANGSTAGE_AGENT_SPEC"
INSTALL_HINT = 'pip install "langstage-core[agui,stub]"'

logger = logging.getLogger(__name__)
# Why a resume was refused (HTTP 409 / comm ``rejected``, reason ``nothing_pending``).
NOTHING_PENDING = (
    "This review was already answered (in another tab or window, or by an earlier click): "
    "the agent is not waiting for a decision, so nothing was resumed."
)


@dataclass(frozen=True)
class TurnAgent:
    """The agent that runs one turn, its extractors, and whether images reach its model."""

    agent: Any
    extractors: list
    takes_images: bool = False
    # What a tool does in words, by name (an MCP tool's description): sent with its calls.
    tool_titles: Mapping[str, str] = field(default_factory=dict)


@dataclass
class LoadedAgent:
    """An agent ready for ``iter_chunk_frames``, or why there is none."""

    spec: str
    agent: Any = None
    extractors: list = field(default_factory=list)
    name: Optional[str] = None
    error: Optional[str] = None
    status: str = "healthy"
    # What streams a turn's frames: langstage-core's iter_chunk_frames unless the agent is elsewhere
    # (a deployment: deployment.deployment_frames), with the same arguments and ``owner``.
    stream: Optional[Callable[..., AsyncIterator[dict]]] = None
    # What streams a run still going on a thread, when the agent keeps runs beyond their client
    # (a deployment: deployment.joined_frames); ``None``: a turn ends with its client.
    join: Optional[Callable[..., AsyncIterator[dict]]] = None
    # The built-in agent's models (builtin.models.BuiltinModels): which agent runs a turn that
    # names a model, the models on offer, the health of the default one (docs/protocol.md §16).
    models: Any = None

    @property
    def ready(self) -> bool:
        return self.agent is not None

    def turn_agent(self, model: Optional[str] = None) -> TurnAgent:
        """The agent that runs a turn on ``model`` (``None``: the default one)."""
        if self.models is not None:
            return self.models.turn_agent(model)
        return TurnAgent(self.agent, self.extractors)

    def health(self) -> dict:
        """The ``GET health`` / comm ``hello`` fields (docs/protocol.md §6.1)."""
        body = {
            "status": self.status,
            "agent_loaded": self.ready,
            "ready": self.ready,
            "message": self.error or f"Agent ready: {self.name or self.spec}",
            "spec": self.spec,
        }
        if self.name:
            body["agent_name"] = self.name
        if self.models is not None and self.ready:
            self.models.add_health(body)
        return body


def resolve_spec(spec: Optional[str]) -> str:
    """An explicit spec, else ``$LANGSTAGE_AGENT_SPEC``, else the keyless demo."""
    return (spec or "").strip() or os.environ.get(SPEC_ENV, "").strip() or DEFAULT_SPEC


def load_agent(
    graph_or_spec: Any = None,
    *,
    extractors: Any = None,
    name: Optional[str] = None,
    base_dir: Optional[str] = None,
    checkpointer: Any = None,
) -> LoadedAgent:
    """Load a graph (object or ``module:attr`` / ``file.py:attr`` spec) and wrap it.

    A relative ``file.py`` spec resolves against ``base_dir`` (default: the
    current directory); the server passes its root directory.

    The agent is built once with ``build_agent`` so its checkpointer (thread
    memory, pending interrupts) survives between ``chat`` and ``resume``. A graph
    compiled without a checkpointer gets ``checkpointer`` (the server's durable
    memory), else ``build_agent``'s in-memory one. With no extractors given, a
    keyless demo graph gets its own demo extractors.
    """
    from_spec = graph_or_spec is None or isinstance(graph_or_spec, str)
    label = resolve_spec(graph_or_spec) if from_spec else _describe(graph_or_spec)
    try:
        from langstage_core.host import load_agent_spec
    except ImportError as exc:
        return LoadedAgent(
            spec=label,
            status="agent_not_loaded",
            error=f"langstage-core is not installed ({exc}); run: {INSTALL_HINT}",
        )
    try:
        graph = load_agent_spec(label, base_dir=base_dir) if from_spec else graph_or_spec
        name = name or _graph_name(graph)
        graph, config = _with_checkpointer(graph, checkpointer)
        agent = build_turn_agent(graph, name=name or label, config=config)
    except Exception as exc:  # any load failure is reported, not raised
        return LoadedAgent(
            spec=label,
            status="agent_not_loaded",
            error=f"Could not load agent {label!r}: {type(exc).__name__}: {exc}",
        )
    if extractors is None:
        extractors = _demo_extractors(label)
    return LoadedAgent(
        spec=label,
        agent=agent,
        extractors=_as_list(extractors),
        name=name,
    )


def build_turn_agent(graph: Any, *, name: str, config: Any) -> Any:
    """langstage-core's ``build_agent``, with the graph's schema keys worked out once.

    ag-ui-langgraph asks the graph for its input, output, config and context JSON schemas at the
    start of every run, and pydantic builds them anew each time: half of the agent loop's time
    under 50 concurrent turns (bench/server.md). A compiled graph's schemas depend on the graph
    alone (LangGraph ignores the config it is given for them), so the keys are kept per graph.
    Each turn runs on a clone, made with ``type(self)``, so the clones share them too.
    """
    from langstage_core.agui import build_agent

    agent = build_agent(graph, name=name, config=config)
    # A subclass of the class build_agent chose, set on what it built: its checks, copy and
    # config stay langstage-core's, and clones (``type(self)(...)``) get the subclass too.
    agent.__class__ = _schema_keys_once(type(agent))
    return agent


_SCHEMA_KEYS_ONCE: dict = {}


def _schema_keys_once(base: type) -> type:
    """``base`` whose ``get_schema_keys`` answers from a cache kept per graph (one class per base)."""
    cls = _SCHEMA_KEYS_ONCE.get(base)
    if cls is None:
        keys_by_graph: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()

        class SchemaKeysOnce(base):  # type: ignore[misc, valid-type]
            def get_schema_keys(self, config):
                try:
                    keys = keys_by_graph.get(self.graph)
                except TypeError:  # a graph that cannot be weakly referenced: asked every turn
                    return super().get_schema_keys(config)
                if keys is None:
                    keys = keys_by_graph[self.graph] = super().get_schema_keys(config)
                return {name: list(values) for name, values in keys.items()}

        SchemaKeysOnce.__qualname__ = f"SchemaKeysOnce[{base.__name__}]"
        cls = _SCHEMA_KEYS_ONCE[base] = SchemaKeysOnce
    return cls


async def has_pending_interrupt(agent: Any, thread_id: str) -> bool:
    """Whether ``thread_id`` waits on an interrupt in ``agent``'s checkpointer.

    A resume with nothing pending would run the graph anyway (an empty turn on
    a finished thread, or a fresh run on an unknown one), so the server and the
    kernel helper refuse it instead. When the state cannot be read (an agent
    without a LangGraph graph), the answer is True: the resume goes ahead as it
    always did.
    """
    pending = await pending_interrupts(agent, thread_id)
    return pending is None or len(pending) > 0


async def pending_interrupts(agent: Any, thread_id: str, checkpoint_id: Optional[str] = None) -> Optional[list]:
    """The LangGraph ``Interrupt`` objects ``thread_id`` waits on (at ``checkpoint_id``, else at
    its newest checkpoint), or ``None`` if unreadable."""
    graph = getattr(agent, "graph", None)
    if graph is None or not hasattr(graph, "aget_state"):
        return None
    configurable = {"thread_id": thread_id}
    if checkpoint_id:  # with its namespace, which a RemoteGraph's reading of the state needs
        configurable.update(checkpoint_id=checkpoint_id, checkpoint_ns="")
    try:
        state = await graph.aget_state({"configurable": configurable})
    except Exception:  # unreadable state: do not block the resume
        logger.warning("agent-panel: cannot read the state of thread %r", thread_id, exc_info=True)
        return None
    interrupts = getattr(state, "interrupts", None)
    if interrupts is None:  # LangGraph before StateSnapshot.interrupts
        interrupts = [i for task in getattr(state, "tasks", ()) for i in getattr(task, "interrupts", ())]
    return list(interrupts)


def _with_checkpointer(graph: Any, checkpointer: Any) -> tuple:
    """``graph`` with ``checkpointer`` unless it has one of its own, and the run config for it.

    A durable checkpointer is written before each next step ("sync" durability),
    so a server stopped mid-run keeps every step that finished. LangGraph reads
    the durability of a run started without the argument (the AG-UI adapter's)
    from this configurable key.
    """
    if checkpointer is None or getattr(graph, "checkpointer", None) is not None:
        return graph, None
    return graph.copy(update={"checkpointer": checkpointer}), durable_config()


def durable_config() -> dict:
    """The run config that writes every step to a durable checkpointer before the next one."""
    from langgraph._internal._constants import CONFIG_KEY_DURABILITY

    return {"configurable": {CONFIG_KEY_DURABILITY: "sync"}}


def _demo_extractors(spec: str) -> Optional[list]:
    """A keyless demo's own extractors (its tools' results as extractions), None for other graphs."""
    if spec == DEFAULT_SPEC:
        from langstage_core.demo.tools import demo_extractors
    elif spec == SHOWCASE_SPEC:
        from .demo.showcase import demo_extractors
    else:
        return None
    return demo_extractors()


def _as_list(extractors: Any) -> list:
    if extractors is None:
        return []
    if isinstance(extractors, (list, tuple)):
        return list(extractors)
    return [extractors]


def _graph_name(graph: Any) -> Optional[str]:
    # LangGraph names every compiled graph "LangGraph" unless told otherwise.
    name = getattr(graph, "name", None)
    return name if isinstance(name, str) and name and name != "LangGraph" else None


def _describe(graph: Any) -> str:
    return _graph_name(graph) or type(graph).__name__
