"""What the routes and the comm accept as JSON: size, depth, lengths (docs/protocol.md §6.3, §7.3).

One reader for every HTTP body (:func:`read_json_body`) and one check for an
already parsed value (:func:`json_problem`, which the kernel helper applies to
each comm message), so a hostile request gets a 400 / 413 or a ``rejected``
naming what was wrong, never a ``RecursionError`` or an answer that cannot be sent.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Optional

DEFAULT_MAX_BODY_BYTES = 4 * 1024 * 1024
MAX_DEPTH = 64
MAX_ID_CHARS = 256  # thread_id, turn_id
MAX_NAME_CHARS = 128  # agent names
# What a scalar or a container costs at least in JSON text, for the size estimate
# of a parsed comm message (strings count their length).
_ITEM_BYTES = 4


@dataclass(frozen=True)
class JsonProblem:
    """Why a JSON value is refused; ``too_large`` makes it a 413 / ``too_large``."""

    message: str
    too_large: bool = False


class JsonRejected(ValueError):
    """A body that :func:`read_json_body` refuses."""

    def __init__(self, problem: JsonProblem):
        super().__init__(problem.message)
        self.problem = problem


def read_json_body(raw: bytes, max_bytes: int, limit_name: str = "AgentPanel.max_body_bytes") -> dict:
    """The JSON object in ``raw``, or ``JsonRejected`` naming the problem (and ``limit_name``, the
    setting that sets ``max_bytes``, when it is too large)."""
    if len(raw) > max_bytes:
        raise JsonRejected(
            JsonProblem(
                f"Request body is {len(raw):,} bytes; the limit is {max_bytes:,} bytes ({limit_name})",
                too_large=True,
            )
        )
    if not raw.strip():
        raise JsonRejected(JsonProblem("Request body is empty; expected a JSON object"))
    try:
        body = json.loads(raw, parse_constant=_not_json)
    except RecursionError:  # the parser's own stack: far deeper than MAX_DEPTH
        raise JsonRejected(JsonProblem(_too_deep("Request body"))) from None
    except ValueError as exc:  # bad JSON or bad UTF-8
        raise JsonRejected(JsonProblem(f"Request body is not valid JSON: {exc}")) from exc
    problem = json_problem(body, what="Request body")
    if problem is not None:
        raise JsonRejected(problem)
    if not isinstance(body, dict):
        raise JsonRejected(JsonProblem(f"Request body must be a JSON object, not {type(body).__name__}"))
    return body


def json_problem(
    value: Any,
    *,
    what: str,
    max_bytes: Optional[int] = None,
    unicode_only: bool = False,
) -> Optional[JsonProblem]:
    """Why ``value`` (parsed JSON) is refused, or ``None``.

    Checks the nesting depth, and with ``max_bytes`` an estimate of its size as
    JSON text; with ``unicode_only``, that every string is valid Unicode (a lone
    surrogate cannot be sent back over a kernel's channels). Walks the value
    without recursion and stops at the first problem.
    """
    size = 0
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, str):
            size += len(item) + 2
            if unicode_only and not item.isascii():
                problem = _surrogate_problem(item, what)
                if problem is not None:
                    return problem
        elif isinstance(item, (dict, list)):
            if depth > MAX_DEPTH:
                return JsonProblem(_too_deep(what))
            size += _ITEM_BYTES
            if isinstance(item, dict):
                stack.extend((key, depth + 1) for key in item)
                stack.extend((child, depth + 1) for child in item.values())
            else:
                stack.extend((child, depth + 1) for child in item)
        else:
            size += _ITEM_BYTES
        if max_bytes is not None and size > max_bytes:
            return JsonProblem(f"{what} is larger than the limit of {max_bytes:,} bytes", too_large=True)
    return None


def length_problem(field: str, value: str, limit: int = MAX_ID_CHARS) -> Optional[str]:
    """Why ``value`` of ``field`` is too long, or ``None``."""
    if len(value) <= limit:
        return None
    return f"{field} is {len(value):,} characters long; at most {limit} are allowed"


def _not_json(constant: str) -> None:
    raise ValueError(f"{constant} is not a JSON value")


def _too_deep(what: str) -> str:
    return f"{what} is nested more than {MAX_DEPTH} levels deep"


def _surrogate_problem(text: str, what: str) -> Optional[JsonProblem]:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        code = ord(text[exc.start])
        return JsonProblem(f"{what} holds a lone surrogate (U+{code:04X}), which is not valid Unicode")
    return None
