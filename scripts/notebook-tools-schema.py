"""Write src/contracts/notebook-tools.json: the notebook tools as the Python package declares them.

Run with the project venv:  .venv/bin/python scripts/notebook-tools-schema.py

The file holds each tool's name, description, whether it changes the notebook,
and the JSON Schema of its arguments, exactly as ``notebook_tools()`` offers
them to a LangChain model (docs/protocol.md §12). The browser imports it to
offer the same tools to AG-UI agents. ``test_notebook_tools.py`` fails when the
committed file differs from what the tools declare.
"""
from pathlib import Path

from jupyterlab_agent_panel.tools.notebook import DECLARATIONS_FILE, tool_declarations_text

ROOT = Path(__file__).resolve().parents[1]

if __name__ == "__main__":
    target = ROOT / DECLARATIONS_FILE
    target.write_text(tool_declarations_text(), encoding="utf-8")
    print(f"wrote {target.relative_to(ROOT)}")
