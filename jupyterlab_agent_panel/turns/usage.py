"""A turn's token usage (docs/protocol.md §16.4): what its model calls reported, summed.

A LangChain callback on the turn's run sees every model call that ends,
subagents' included, and adds up the ``usage_metadata`` each reported. The
turn's ``usage`` frame goes out before its terminal frame.
"""
from __future__ import annotations

import threading
from typing import Any, Optional

from langchain_core.callbacks import BaseCallbackHandler


class TurnUsage(BaseCallbackHandler):
    """Sums the input and output tokens of every model call of one turn."""

    run_inline = True  # called on the graph's loop, not in an executor

    def __init__(self) -> None:
        super().__init__()
        self._lock = threading.Lock()
        self.input_tokens = 0
        self.output_tokens = 0
        self.reported = False

    def on_llm_end(self, response: Any, **kwargs: Any) -> None:
        for generations in response.generations:
            for generation in generations:
                usage = getattr(getattr(generation, "message", None), "usage_metadata", None)
                if usage:
                    with self._lock:
                        self.input_tokens += int(usage.get("input_tokens") or 0)
                        self.output_tokens += int(usage.get("output_tokens") or 0)
                        self.reported = True

    def frame(self) -> Optional[dict]:
        """The ``usage`` frame, or None when no model call reported usage."""
        if not self.reported:
            return None
        return {"status": "usage", "input_tokens": self.input_tokens, "output_tokens": self.output_tokens}


def with_callbacks(agent: Any, callbacks: list) -> Any:
    """A per-turn copy of an ag-ui-langgraph agent whose runs report to ``callbacks``; other agents unchanged."""
    clone = getattr(agent, "clone", None)
    if clone is None or not isinstance(getattr(agent, "config", None), dict):
        return agent
    turn_agent = clone()
    config = dict(turn_agent.config or {})
    config["callbacks"] = [*(config.get("callbacks") or []), *callbacks]
    turn_agent.config = config
    return turn_agent
