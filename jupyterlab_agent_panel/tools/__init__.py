"""Tools for the graphs the panel serves: the notebook tools (docs/protocol.md §12)."""
