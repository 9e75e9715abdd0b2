"""Keyless demo graphs: a scripted chat model in real LangGraph graphs, no API key needed."""
