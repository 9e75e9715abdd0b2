"""Process-wide state of the server extension: the configured agents and their hosts."""
from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any, Optional

from jupyter_core.paths import jupyter_data_dir
from traitlets import Bool, Dict, Float, Int, List, Unicode, default, validate
from traitlets.config import LoggingConfigurable

from ..agent_host import AgentHost
from ..builtin.catalog import ModelCatalog
from ..builtin.credentials import Credentials
from ..builtin.host import BuiltinAgentHost
from ..builtin.mcp import mcp_entry
from ..builtin.providers import ModelOptions, ModelRef
from ..deployments.deployment import DeploymentHost, deployment_entry
from ..graph import SPEC_ENV
from ..json_limits import DEFAULT_MAX_BODY_BYTES, MAX_NAME_CHARS
from ..memory.agent_memory import AgentMemory, memory_location
from ..store.conversation_store import ConversationStore

DEFAULT_AGENT = "default"
MODEL_ENV = "AGENT_PANEL_MODEL"
# Where the built-in agent's models keep their threads: not an agent name (no '+' in those).
MODELS_MEMORY = "default+models"
DEFAULT_MAX_CONVERSATION_BYTES = 256 * 1024 * 1024
AGENT_NAME = re.compile(r"[A-Za-z0-9_.-]+")
AGENT_ENTRY_KEYS = {"spec", "extractors"}
# Served unless AgentPanel.agents gives the name another graph: the keyless
# notebook tools demo, which the panel's default endpoints list.
BUILTIN_AGENTS = {"notebook-demo": {"spec": "jupyterlab_agent_panel.demo.notebook_agent:graph", "extractors": []}}


class AgentPanel(LoggingConfigurable):
    """The agents the panel's HTTP routes serve, each loaded once per server process.

    Configure it like any Jupyter server option::

        c.AgentPanel.agent_spec = "my_agent.py:graph"      # jupyter_server_config.py
        c.AgentPanel.agents = {"research": "research.py:graph"}
        jupyter lab --AgentPanel.agent_spec=my_agent.py:graph
    """

    agent_spec = Unicode(
        "",
        config=True,
        help=(
            "The LangGraph graph to serve, as 'module:attr' or 'path/to/file.py:attr' "
            "(relative to the server's root directory). Empty: $" + SPEC_ENV + ", "
            "else the built-in agent (AgentPanel.model)."
        ),
    )
    model = Unicode(
        "",
        config=True,
        help=(
            "The built-in agent's model, as LangChain's init_chat_model names it: 'provider:model' "
            "(e.g. 'openai:gpt-4.1-mini', 'anthropic:claude-sonnet-4-5'). Empty: $" + MODEL_ENV + ", else "
            "none: the keyless demo answers until a conversation picks a model. Keys and endpoints come "
            "from the provider's environment variables (OPENAI_API_KEY, OPENAI_BASE_URL, ...), in the "
            "server's environment or a .env file in its root directory."
        ),
    )
    models = List(
        Unicode(),
        config=True,
        help="More models the built-in agent offers in the panel's model picker ('provider:model' each).",
    )
    vision_models = List(
        Unicode(),
        config=True,
        help=(
            "Models that read images although LangChain's model profiles do not say so (a local "
            "vision model): 'provider:model' patterns, '*' for any characters (e.g. 'openai:llava*')."
        ),
    )
    model_timeout_seconds = Float(
        120.0, config=True, help="How long the built-in agent waits for one answer of its model, in seconds."
    )
    model_max_retries = Int(
        2, config=True, help="How often the built-in agent's model client retries a failed call (429, 5xx)."
    )
    mcp_servers = Dict(
        config=True,
        help=(
            "MCP servers whose tools the built-in agent gets: a name to a connection as "
            "langchain-mcp-adapters' MultiServerMCPClient takes it ({'transport': 'stdio', 'command': ..., "
            "'args': [...]}, {'transport': 'streamable_http', 'url': ...}), plus 'review': true to review "
            "each call of that server's tools. A server that fails is named in the agent's health and left out."
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
    agents = Dict(
        config=True,
        help=(
            "More agents, each served at agent-panel/agents/<name>/ with the same routes "
            "as the default one. Maps a name (letters, digits, '_', '.', '-'; at most "
            f"{MAX_NAME_CHARS} characters) to a spec "
            "string, or to {'spec': <spec>, 'extractors': [<spec>, ...]}. Invalid entries "
            "are logged and left out. The built-in 'notebook-demo' (the keyless notebook "
            "tools demo) is served after these unless an entry takes its name."
        ),
    )

    deployments = Dict(
        config=True,
        help=(
            "LangGraph Agent Server deployments, each served at agent-panel/agents/<name>/ like the "
            "agents (names as for AgentPanel.agents). Maps a name to {'url': <the deployment's URL>, "
            "'assistant_id': <an assistant id or graph id>, 'api_key_env': <the environment variable "
            "holding its key>} (or 'api_key': the key itself; neither: no key), optionally "
            "'extractors'. The key stays on this server. Invalid entries are logged and left out."
        ),
    )
    max_body_bytes = Int(
        DEFAULT_MAX_BODY_BYTES,
        config=True,
        help="The largest request body the agent-panel routes read, in bytes; a larger one gets 413.",
    )
    conversations_db = Unicode(
        config=True,
        help=(
            "The SQLite file where the panel keeps each user's conversations, created (with its "
            "folder) on first use. Default: agent_panel/conversations.sqlite in the Jupyter data "
            "directory (`jupyter --data-dir`)."
        ),
    )
    checkpointer_url = Unicode(
        "",
        config=True,
        help=(
            "Where served agents keep their threads (the memory of each conversation and its pending "
            "review), for graphs compiled without a checkpointer of their own. Empty: one SQLite file "
            "per agent in agent_panel/memory/ in the Jupyter data directory. 'sqlite:///<folder>': one "
            "file per agent in that folder. 'postgresql://user@host/db': one schema per agent in that "
            'database (pip install "jupyterlab_agent_panel[postgres]"). \'memory\': in the server '
            "process only, forgotten when it stops."
        ),
    )
    prune_checkpoints = Bool(
        True,
        config=True,
        help=(
            "After each turn, keep only the checkpoints of the turn's thread that its branches need in a "
            "SQLite or Postgres memory (AgentPanel.checkpointer_url): the oldest, each turn's start and "
            "end, every review and the newest of every branch; the checkpoints of a turn's inner steps "
            "are deleted. False: keep every step's checkpoint."
        ),
    )
    max_conversation_bytes = Int(
        DEFAULT_MAX_CONVERSATION_BYTES,
        config=True,
        help=(
            "The largest body a conversation save (PUT agent-panel/conversations/<id>) may have, "
            "in bytes; a larger one gets 413. Large so that long answers can be kept."
        ),
    )
    load_timeout_seconds = Float(
        30.0,
        config=True,
        help=(
            "How long a request waits for an agent to load. A load that takes longer goes on "
            "in its own thread; meanwhile the agent answers 503 (health: 'loading')."
        ),
    )
    load_retry_seconds = Float(
        30.0,
        config=True,
        help=(
            "After a failed load, how long the failure is reported before the agent is loaded "
            "again. A change to the graph's .py file retries at once."
        ),
    )

    def __init__(self, *, base_dir: Optional[str] = None, **kwargs: Any):
        super().__init__(**kwargs)
        default_folder = os.path.join(jupyter_data_dir(), "agent_panel", "memory")
        try:
            location, problem = memory_location(self.checkpointer_url, default_folder), ""
        except ValueError as exc:
            location, problem = None, str(exc)
            self.log.error("agent-panel: %s", problem)

        def make_host(name: str, spec: Optional[str], extractor_specs: list) -> AgentHost:
            return AgentHost(
                name,
                spec,
                extractor_specs,
                AgentMemory(location, name, problem, self.prune_checkpoints),
                base_dir=base_dir,
                load_timeout=self.load_timeout_seconds,
                load_retry=self.load_retry_seconds,
                log=self.log,
            )

        if self.agent_spec:
            self.default = make_host(DEFAULT_AGENT, self.agent_spec or None, self.extractors)
        else:
            self.default = BuiltinAgentHost(
                DEFAULT_AGENT,
                self.extractors,
                AgentMemory(location, DEFAULT_AGENT, problem, self.prune_checkpoints),
                AgentMemory(location, MODELS_MEMORY, problem, self.prune_checkpoints),
                self._catalog(base_dir),
                self.mcp_servers,
                base_dir=base_dir,
                load_timeout=self.load_timeout_seconds,
                load_retry=self.load_retry_seconds,
                log=self.log,
            )
        # Read once: agents configured after the server started are not served.
        builtin = {name: e for name, e in BUILTIN_AGENTS.items() if name not in self.agents}
        agents = {**self.agents, **builtin}
        self.named = {name: make_host(name, e["spec"], e["extractors"]) for name, e in agents.items()}
        for name, entry in self.deployments.items():
            if name in self.named:
                self.log.error("AgentPanel.deployments: left out %r: an agent has that name", name)
                continue
            self.named[name] = DeploymentHost(
                name,
                entry["spec"],
                entry["extractors"],
                base_dir=base_dir,
                load_timeout=self.load_timeout_seconds,
                load_retry=self.load_retry_seconds,
                log=self.log,
            )
        self.conversations = ConversationStore(os.path.expanduser(self.conversations_db))

    def _catalog(self, base_dir: Optional[str]) -> ModelCatalog:
        """The built-in agent's models: the configured names that are model names (others are logged)."""
        credentials = Credentials(Path(base_dir) / ".env" if base_dir else None)
        options = ModelOptions(timeout=self.model_timeout_seconds, max_retries=self.model_max_retries)
        default = self._model_ref("AgentPanel.model", self.model or os.environ.get(MODEL_ENV, ""))
        more = [self._model_ref("AgentPanel.models", text) for text in self.models]
        return ModelCatalog(default, [ref for ref in more if ref], credentials, options, self.vision_models)

    def _model_ref(self, setting: str, text: str) -> Optional[ModelRef]:
        if not text.strip():
            return None
        try:
            return ModelRef.parse(text)
        except ValueError as exc:
            self.log.error("%s: left out: %s", setting, exc)
            return None

    def host(self, name: Optional[str] = None) -> Optional[AgentHost]:
        """The named agent's host (the default one for ``None``), or ``None`` if unknown."""
        return self.default if name is None else self.named.get(name)

    @property
    def hosts(self) -> list:
        """Every host, the default one first."""
        return [self.default, *self.named.values()]

    def close(self) -> None:
        """Cancel every running turn, stop the agents' event loops and close the conversations."""
        for host in self.hosts:
            host.close()
        self.conversations.close()

    @default("conversations_db")
    def _default_conversations_db(self) -> str:
        return os.path.join(jupyter_data_dir(), "agent_panel", "conversations.sqlite")

    @validate("deployments")
    def _valid_deployments(self, proposal) -> dict:
        """Each entry as ``{"spec": DeploymentSpec, "extractors"}``; invalid ones are logged and left out."""
        valid = {}
        for name, entry in proposal["value"].items():
            try:
                check_agent_name(name)
                valid[name] = deployment_entry(entry)
            except ValueError as exc:
                self.log.error("AgentPanel.deployments: left out %r: %s", name, exc)
        return valid

    @validate("mcp_servers")
    def _valid_mcp_servers(self, proposal) -> dict:
        """Each entry a connection; invalid ones are logged and left out."""
        valid = {}
        for name, entry in proposal["value"].items():
            try:
                valid[name] = mcp_entry(name, entry)
            except ValueError as exc:
                self.log.error("AgentPanel.mcp_servers: left out %r: %s", name, exc)
        return valid

    @validate("agents")
    def _valid_agents(self, proposal) -> dict:
        """Each entry as ``{"spec", "extractors"}``; invalid ones are logged and left out."""
        valid = {}
        for name, entry in proposal["value"].items():
            try:
                valid[name] = agent_entry(name, entry)
            except ValueError as exc:
                self.log.error("AgentPanel.agents: left out agent %r: %s", name, exc)
        return valid


def check_agent_name(name: Any) -> None:
    """ValueError when ``name`` cannot name an agent under agent-panel/agents/<name>/."""
    if not isinstance(name, str) or not AGENT_NAME.fullmatch(name):
        raise ValueError("a name may only contain letters, digits, '_', '.' and '-'")
    if len(name) > MAX_NAME_CHARS:
        raise ValueError(f"a name has at most {MAX_NAME_CHARS} characters")
    if name in (".", ".."):
        raise ValueError("'.' and '..' cannot be a URL path segment")
    if name == DEFAULT_AGENT:
        raise ValueError(
            f"the name {DEFAULT_AGENT!r} is reserved for the agent at agent-panel/ (AgentPanel.agent_spec)"
        )


def agent_entry(name: Any, entry: Any) -> dict:
    """``entry`` as ``{"spec": str, "extractors": [str, ...]}``; ValueError says what is wrong."""
    check_agent_name(name)
    if isinstance(entry, str):
        entry = {"spec": entry}
    if not isinstance(entry, dict):
        raise ValueError(
            "expected a spec string ('module:attr' or 'file.py:attr') or "
            f"{{'spec': ..., 'extractors': [...]}}, not {type(entry).__name__}"
        )
    unknown = sorted(map(str, entry.keys() - AGENT_ENTRY_KEYS))
    if unknown:
        raise ValueError(f"unknown keys {unknown}; expected 'spec' and optionally 'extractors'")
    spec = entry.get("spec")
    if not isinstance(spec, str) or not spec.strip():
        raise ValueError("'spec' must be a non-empty string ('module:attr' or 'file.py:attr')")
    extractors = entry.get("extractors", [])
    if not isinstance(extractors, list) or not all(isinstance(e, str) and e.strip() for e in extractors):
        raise ValueError("'extractors' must be a list of 'module:attr' / 'file.py:attr' strings")
    return {"spec": spec, "extractors": extractors}
