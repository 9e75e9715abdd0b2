"""The panel's conversations, kept by the server in SQLite (docs/protocol.md §13)."""
