"""Server configuration for the Galata UI tests (never use in production)."""
import os

from jupyterlab.galata import configure_jupyter_server

configure_jupyter_server(c)  # noqa: F821
c.ServerApp.ip = "127.0.0.1"  # noqa: F821
c.ServerApp.port = int(os.environ.get("AGENT_PANEL_UI_PORT", "8899"))  # noqa: F821
c.ServerApp.allow_root = True  # noqa: F821
