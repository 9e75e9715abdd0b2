"""JupyterLab side panel for LangGraph agents: server extension, kernel helper."""
try:
    from ._version import __version__
except ImportError:  # pragma: no cover - running from a source tree without a build
    import warnings

    warnings.warn("Importing 'jupyterlab_agent_panel' outside a proper installation.", stacklevel=2)
    __version__ = "dev"


def _jupyter_labextension_paths():
    return [{"src": "labextension", "dest": "jupyterlab-agent-panel"}]


def _jupyter_server_extension_points():
    return [{"module": "jupyterlab_agent_panel"}]


def _load_jupyter_server_extension(server_app):
    """Register the chunk-wire routes under ``<base_url>agent-panel/``."""
    from .server.handlers import setup_handlers

    setup_handlers(server_app)


def load_ipython_extension(ipython):
    """``%load_ext jupyterlab_agent_panel``: serve the default graph over a comm."""
    from .kernel.helper import load_ipython_extension as _load

    _load(ipython)


def unload_ipython_extension(ipython):
    """``%unload_ext jupyterlab_agent_panel``: stop serving and close the panel comms."""
    from .kernel.helper import unload_ipython_extension as _unload

    _unload(ipython)


def serve(graph_or_spec=None, *, extractors=None, name=None, max_result_len=500):
    """Serve a graph to the panel over the ``agent_panel`` comm of this kernel."""
    from .kernel.helper import serve as _serve

    return _serve(graph_or_spec, extractors=extractors, name=name, max_result_len=max_result_len)


def notebook_tools():
    """The eight notebook tools, for the tools of a LangGraph graph (docs/protocol.md §12)."""
    from .tools.notebook import notebook_tools as _notebook_tools

    return _notebook_tools()


def describe_variable(name: str) -> str:
    """What the kernel's variable ``name`` holds: type, shape or length, a DataFrame's dtypes
    and ``head()``, a short repr; capped in time and size, never changing the variable.

    A tool for a graph served in the kernel: ``create_agent(model, tools=[describe_variable])``
    (docs/protocol.md §7.6).
    """
    from .kernel.variables import describe_variable as _describe_variable

    return _describe_variable(name)
