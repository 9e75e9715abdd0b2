"""Server configuration for the Galata UI tests (never use in production)."""
import os
import tempfile
from pathlib import Path

from jupyterlab.galata import configure_jupyter_server

GRAPHS = Path(__file__).resolve().parent / "graphs"


def graph_spec(file: str, attr: str = "graph") -> str:
    return f"{GRAPHS / file}:{attr}"


configure_jupyter_server(c)  # noqa: F821
c.ServerApp.ip = "127.0.0.1"  # noqa: F821
c.ServerApp.port = int(os.environ.get("AGENT_PANEL_UI_PORT", "8899"))  # noqa: F821
c.ServerApp.allow_root = True  # noqa: F821
# The default agent (agent-panel/) stays the keyless demo; the test graphs are
# served at agent-panel/agents/<name>/ (see graphs/*.py for what each does).
c.AgentPanel.agents = {  # noqa: F821
    "hitl": graph_spec("hitl.py"),
    "failing": graph_spec("failing.py"),
    "slow": graph_spec("slow.py"),
    "echo": graph_spec("echo.py"),
    "todos": {"spec": graph_spec("todos.py"), "extractors": [graph_spec("todos.py", "TodosExtractor")]},
    "markdown": graph_spec("markdown_answer.py"),
    "remembering": graph_spec("remembering.py"),
    "soak": graph_spec("soak.py"),
}
# The LangGraph Agent Server playwright.config.js starts (deployment.spec.ts).
AGENT_SERVER = f"http://127.0.0.1:{os.environ.get('AGENT_PANEL_AGENT_SERVER_PORT', '1')}"
c.AgentPanel.deployments = {  # noqa: F821
    f"team-{graph}": {"url": AGENT_SERVER, "assistant_id": graph}
    for graph in ("remembering", "hitl", "ticking", "failing")
}
# A deployment on a port of its own, which deployment.spec.ts starts and stops.
c.AgentPanel.deployments["team-comeback"] = {  # noqa: F821
    "url": f"http://127.0.0.1:{os.environ.get('AGENT_PANEL_COMEBACK_PORT', '1')}",
    "assistant_id": "remembering",
}
# The built-in agent's models (builtin-agent.spec.ts): the scripted OpenAI-compatible server
# playwright.config.js starts, as a user names a local server; no default model, so the
# default agent stays the keyless demo the other tests use.
os.environ["OPENAI_BASE_URL"] = f"http://127.0.0.1:{os.environ.get('AGENT_PANEL_OPENAI_PORT', '1')}/v1"
os.environ["OPENAI_API_KEY"] = "sk-galata-scripted-0000"
os.environ.pop("ANTHROPIC_API_KEY", None)
os.environ.pop("AGENT_PANEL_MODEL", None)
c.AgentPanel.models = ["openai:gpt-4.1-mini", "anthropic:claude-sonnet-4-5"]  # noqa: F821
# Each server run keeps its conversations and its agents' memory apart from
# any other run's (and from the user's own), in a fresh folder; servers given
# one $AGENT_PANEL_UI_STATE share it (server-restart.spec.ts).
STATE = Path(os.environ.get("AGENT_PANEL_UI_STATE") or tempfile.mkdtemp(prefix="agent-panel-ui-"))
c.AgentPanel.conversations_db = str(STATE / "conversations.sqlite")  # noqa: F821
c.AgentPanel.checkpointer_url = f"sqlite:///{STATE / 'memory'}"  # noqa: F821
