"""Test graph: langstage-core's keyless demo tools agent as a module attribute ``graph``.

``langstage_core.demo.tools`` builds its graph on first access, which
``langgraph dev`` (``tests/agent_server.py``) cannot load from a file; this
builds it once, here. Its extractors are ``langstage_core.demo.tools:demo_extractors``.
"""
from langstage_core.demo.tools import create_tool_demo_agent

graph = create_tool_demo_agent()
