"""Test graph whose import does not return until released: a stand-in for an import that hangs.

The import waits until the file named by ``$AGENT_PANEL_RELEASE_IMPORT`` exists
(at most 120 s, so a forgotten test cannot hang a thread for ever), then builds
the echo graph.
"""
import os
import time
from pathlib import Path

_release = Path(os.environ.get("AGENT_PANEL_RELEASE_IMPORT", "/nonexistent"))
_deadline = time.monotonic() + 120
while not _release.exists() and time.monotonic() < _deadline:
    time.sleep(0.05)

from echo_all import graph  # noqa: E402,F401 - the graph is served once the import returns
