"""The built-in agent (docs/protocol.md §16): a notebook agent on the user's own model.

Served as the default agent when no graph of the user's is configured: the
keyless demo until a model is configured or picked, then a deep agent with
the notebook tools, planning, the server's files and the configured MCP
servers' tools, on any LangChain chat model (``provider:model``).
"""
