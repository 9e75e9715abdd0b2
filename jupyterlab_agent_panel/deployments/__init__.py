"""LangGraph Agent Server deployments served like local agents (docs/protocol.md §15)."""
