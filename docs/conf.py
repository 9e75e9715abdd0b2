"""Sphinx configuration of the jupyterlab-agent-panel documentation.

The pages are Markdown, read by MyST: the user guide (users/), the
architecture and the protocol, and CONTRIBUTING.md from the repository's root.
Build them with `sphinx-build -W -b html docs docs/_build/html` (./scripts/test
does it with warnings as errors).
"""

import json
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

project = "jupyterlab-agent-panel"
author = "jupyterlab-agent-panel contributors"
copyright = "jupyterlab-agent-panel contributors"
release = json.loads((ROOT / "package.json").read_text(encoding="utf-8"))["version"]
version = release

extensions = ["myst_parser"]
source_suffix = {".md": "markdown"}
root_doc = "index"
exclude_patterns = ["_build", "images", "Thumbs.db", ".DS_Store"]

# MyST: `#slug` links to headings, as GitHub makes them, down to level 6;
# ::: fences for notes.
myst_enable_extensions = ["colon_fence"]
myst_heading_anchors = 6

try:
    import pydata_sphinx_theme  # noqa: F401
except ImportError:
    html_theme = "alabaster"
else:
    html_theme = "pydata_sphinx_theme"
    html_theme_options = {
        "github_url": "https://github.com/jupyterlab-agent-panel/jupyterlab-agent-panel",
        "navigation_with_keys": False,
    }
html_title = "jupyterlab-agent-panel"
