"""The server extension: the Jupyter server's ``agent-panel/`` routes (docs/protocol.md §6).

``handlers.py`` registers them and streams turns (``sse_turn.py``); the threads
(``thread_handler.py``), the conversations (``conversation_handlers.py``,
docs/protocol.md §13) and "Test connection" (``probe.py``) have their own
modules; ``panel.py`` is the process-wide configuration and its agents' hosts.
"""
