"""What the conversation routes accept: ids, ``PUT`` updates, ``PATCH`` renames (docs/protocol.md §13.3).

Each check raises ``bad_request`` naming the field and what is wrong with it,
so no client mistake reaches SQLite.
"""
from __future__ import annotations

import re
from typing import Any, Optional

from ..json_limits import MAX_ID_CHARS, json_problem, length_problem
from ..store.conversation_store import LONE_SURROGATE, Update
from .panel_handler import bad_request

CONVERSATION_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")
STATUSES = ("idle", "running", "review")
REQUIRED = ("threadId", "endpointName", "status")
OPTIONAL = ("title", "model", "entries", "removedKeys", "transportMemory", "queue")
MAX_QUERY_CHARS = 1000
SHOWN_CHARS = 80
_JSON_TYPES = {dict: "an object", list: "an array", str: "a string", bool: "a boolean", type(None): "null"}


def json_type(value: Any) -> str:
    return _JSON_TYPES.get(type(value), "a number")


def shown(text: str) -> str:
    """``text`` quoted for an error message, cut when long (it comes from the client)."""
    return repr(text) if len(text) <= SHOWN_CHARS else f"{text[:SHOWN_CHARS]!r}… ({len(text):,} characters)"


def conversation_id_of(raw: str) -> str:
    if not CONVERSATION_ID.fullmatch(raw):
        raise bad_request(
            f"Conversation id {shown(raw)} is not valid: use 1 to 64 letters, digits, '_' or '-'"
        )
    return raw


def query_of(raw: str) -> str:
    problem = length_problem("q", raw, MAX_QUERY_CHARS)
    if problem is not None:
        raise bad_request(problem)
    return raw


def since_of(raw: Optional[str]) -> Optional[int]:
    """``since``, the revision a client already has (docs/protocol.md §13.1), or ``None``."""
    if raw is None:
        return None
    if not raw.isascii() or not raw.isdigit() or len(raw) > 15:
        raise bad_request(f"since must be a revision (a whole number of at most 15 digits), not {shown(raw)}")
    return int(raw)


def _text(name: str, value: Any, limit: int = MAX_ID_CHARS) -> str:
    """``value`` if it is a string of at most ``limit`` characters and valid Unicode."""
    if not isinstance(value, str):
        raise bad_request(f"{name} must be a string, not {json_type(value)}")
    problem = length_problem(name, value, limit) or _unicode_problem(name, value)
    if problem is not None:
        raise bad_request(problem)
    return value


def _unicode_problem(name: str, value: str) -> Optional[str]:
    problem = json_problem(value, what=name, unicode_only=True)
    return None if problem is None else problem.message


def title_of(body: dict) -> str:
    """The title; a lone surrogate (a title cut inside an emoji's pair) becomes U+FFFD."""
    value = body["title"]
    if not isinstance(value, str):
        raise bad_request(f"title must be a string, not {json_type(value)}")
    return LONE_SURROGATE.sub("\ufffd", value)


def _known_fields(body: dict, allowed: tuple, what: str) -> None:
    unknown = [name for name in body if name not in allowed]
    if unknown:
        raise bad_request(f"Unknown field {shown(unknown[0])} in {what}; the fields are {', '.join(allowed)}")


def _entries(value: Any) -> list:
    if not isinstance(value, list):
        raise bad_request(f"entries must be an array, not {json_type(value)}")
    entries = []
    for index, entry in enumerate(value):
        if not isinstance(entry, dict):
            raise bad_request(f"entries[{index}] must be an object, not {json_type(entry)}")
        if "key" not in entry:
            raise bad_request(f"entries[{index}] has no key")
        key = _text(f"entries[{index}].key", entry["key"])
        if not key:
            raise bad_request(f"entries[{index}].key must not be empty")
        entries.append((key, entry))
    return entries


def _removed_keys(value: Any) -> list:
    if not isinstance(value, list):
        raise bad_request(f"removedKeys must be an array, not {json_type(value)}")
    return [_text(f"removedKeys[{index}]", key) for index, key in enumerate(value)]


def update_of(body: dict) -> Update:
    """The ``PUT`` body as an :class:`Update`, or ``bad_request`` naming the first problem."""
    _known_fields(body, REQUIRED + OPTIONAL, "a conversation update")
    missing = [name for name in REQUIRED if name not in body]
    if missing:
        raise bad_request(f"{missing[0]} is required")
    columns = {"thread_id": _text("threadId", body["threadId"])}
    endpoint = body["endpointName"]
    if endpoint is not None and not isinstance(endpoint, str):
        raise bad_request(f"endpointName must be a string or null, not {json_type(endpoint)}")
    columns["endpoint_name"] = None if endpoint is None else _text("endpointName", endpoint)
    status = body["status"]
    if status not in STATUSES:
        raise bad_request(f"status must be one of {', '.join(map(repr, STATUSES))}, not {_value_shown(status)}")
    columns["status"] = status
    if "title" in body:
        columns["title"] = title_of(body)
    if "model" in body:
        columns["model"] = _model_of(body["model"])
    if "transportMemory" in body:
        memory = body["transportMemory"]
        if memory is not None and not isinstance(memory, dict):
            raise bad_request(f"transportMemory must be an object or null, not {json_type(memory)}")
        columns["transport_memory"] = memory
    if "queue" in body:
        if not isinstance(body["queue"], list):
            raise bad_request(f"queue must be an array, not {json_type(body['queue'])}")
        columns["queue"] = body["queue"]
    entries = _entries(body.get("entries", []))
    removed = _removed_keys(body.get("removedKeys", []))
    return Update(columns, entries, removed)


def _model_of(value: Any) -> Optional[str]:
    """The model the conversation chose, or ``None`` for its endpoint's default."""
    if value is not None and not isinstance(value, str):
        raise bad_request(f"model must be a string or null, not {json_type(value)}")
    if value == "":
        raise bad_request("model must not be empty (null is the endpoint's default model)")
    return None if value is None else _text("model", value)


def _value_shown(value: Any) -> str:
    return shown(value) if isinstance(value, str) else json_type(value)


def rename_of(body: dict) -> str:
    """The title of a ``PATCH`` body."""
    _known_fields(body, ("title",), "a rename")
    if "title" not in body:
        raise bad_request("title is required")
    return title_of(body)
