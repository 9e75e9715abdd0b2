"""Frames as valid JSON on both paths (docs/protocol.md §2.11): NaN and ±Infinity become null.

Python's ``json`` writes a non-finite float as ``NaN`` / ``Infinity``, which is not
JSON: the panel's decoder refuses such an SSE frame, while the comm's packer
quietly cleans it. :func:`finite` gives both the same frame.
"""
from __future__ import annotations

import json
import math
from typing import Any


def finite(value: Any) -> Any:
    """``value`` with each NaN / ±Infinity replaced by ``None``; copied only where one was found."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        copy = None
        for key, item in value.items():
            clean = finite(item)
            if clean is not item:
                copy = dict(value) if copy is None else copy
                copy[key] = clean
        return value if copy is None else copy
    if isinstance(value, (list, tuple)):
        items = [finite(item) for item in value]
        return value if all(a is b for a, b in zip(items, value, strict=True)) else items
    return value


def sse_event(frame: dict) -> str:
    """One server-sent event carrying ``frame`` (docs/protocol.md §6.4)."""
    return f"data: {json.dumps(finite(frame), allow_nan=False)}\n\n"
