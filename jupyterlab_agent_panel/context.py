"""Append the panel's JupyterLab context to the user's message (docs/protocol.md §6.2).

The agent gets no separate context channel: like langstage-jupyter, the context
goes at the end of the human message as a trailing block, a blank line followed by
lines that open with ``Current directory: ``, ``Currently focused`` or ``User has
selected the following text``. langstage-core's demo agents recognise exactly that
block (``langstage_core.demo._context.user_text``) and drop it before echoing or
matching triggers, so keep these openings unchanged.

Shared by the server extension and the kernel helper, which must build the same text.
"""
from __future__ import annotations

import re
from pathlib import PurePosixPath
from typing import Any, Mapping, Optional

CONTEXT_FIELDS = ("current_directory", "focused_widget", "selected_text", "selection_metadata")
SELECTION_LIMIT = 2000
# Attached outputs, errors, variables, files and cells (docs/protocol.md §6.2): at most this many,
# each cut to ATTACHMENT_LIMIT characters as the panel already cut it.
ATTACHMENT_LIMIT = 4000
MAX_ATTACHMENTS = 20
# Images a model that reads them gets (docs/protocol.md §16.7): a message's or a tool result's,
# at most this many, each at most this large once decoded.
MAX_IMAGES = 4
MAX_IMAGE_BYTES = 1024 * 1024
IMAGE_TYPES = ("image/png", "image/jpeg", "image/gif", "image/webp")
# How each kind reads in the prompt, before its source ("cell 3 of a.ipynb").
ATTACHMENT_KINDS = {
    "error": "the error output of",
    "output": "the output of",
    "image": "an image output of",
    "variables": "variables in the kernel of",
    "file": "the file",
    "notebook": "the cell sources of the notebook",
    "cell": "the source of",
}

# `selection_metadata` values the panel sends, and how each reads in the prompt.
_SELECTION_PLACES = (
    (re.compile(r"cell_(.+)"), "from cell index {}"),
    (re.compile(r"lines_(.+)"), "from lines {}"),
    (re.compile(r"line_(.+)"), "from line {}"),
)


def message_with_context(message: str, context: Optional[Mapping[str, Any]]) -> str:
    """``message`` followed by the context block, or unchanged when there is no context.

    ``context`` holds the optional fields of ``CONTEXT_FIELDS``; empty values are
    skipped. The selection is cut to ``SELECTION_LIMIT`` characters.
    """
    context = context or {}
    lines = []
    directory = _text(context.get("current_directory"))
    if directory:
        lines.append(f"Current directory: {directory}")
    focused = _text(context.get("focused_widget"))
    if focused:
        kind = "Currently focused file" if _looks_like_file(focused) else "Currently focused"
        lines.append(f"{kind}: {focused}")
    selected = _text(context.get("selected_text"))
    if selected:
        lines.append(_selection_lines(selected, _text(context.get("selection_metadata"))))
    for attachment in context.get("attachments") or []:
        lines.append(_attachment_lines(attachment))
    if not lines:
        return message
    return message + "\n\n" + "\n".join(lines)


# How the context block's first line opens (message_with_context), after a blank line.
_BLOCK_OPENINGS = (
    "Current directory: ",
    "Currently focused",
    "User has selected the following text",
    "User has attached ",
)


def user_text(message: str) -> str:
    """``message`` without the context block :func:`message_with_context` appended: what the user typed."""
    starts = [message.find("\n\n" + opening) for opening in _BLOCK_OPENINGS]
    found = [start for start in starts if start >= 0]
    return message[: min(found)] if found else message


def attachments_problem(value: Any) -> Optional[str]:
    """Why ``value`` is not a valid ``attachments`` field, or None when it is (or is absent)."""
    if value is None:
        return None
    if not isinstance(value, list):
        return "attachments must be a list"
    if len(value) > MAX_ATTACHMENTS:
        return f"attachments holds {len(value)} entries, at most {MAX_ATTACHMENTS} are accepted"
    for i, item in enumerate(value):
        if not isinstance(item, dict):
            return f"attachments[{i}] must be an object"
        if item.get("kind") not in ATTACHMENT_KINDS:
            return f"attachments[{i}].kind must be one of {', '.join(ATTACHMENT_KINDS)}"
        for key in ("source", "text"):
            if not isinstance(item.get(key), str):
                return f"attachments[{i}].{key} must be a string"
        if "image" in item and (item["kind"] != "image" or image_problem(item["image"]) is not None):
            problem = image_problem(item["image"]) or "only an attachment of kind image carries one"
            return f"attachments[{i}].image: {problem}"
    return None


def image_problem(image: Any) -> Optional[str]:
    """Why ``image`` is not ``{"mime_type", "data"}`` of an image a model may get, or None."""
    if not isinstance(image, dict) or not isinstance(image.get("data"), str):
        return 'must be {"mime_type", "data"} with the bytes in base64'
    if image.get("mime_type") not in IMAGE_TYPES:
        return f"mime_type must be one of {', '.join(IMAGE_TYPES)}"
    if decoded_size(image["data"]) > MAX_IMAGE_BYTES:
        return f"the image is larger than {MAX_IMAGE_BYTES:,} bytes"
    return None


def decoded_size(data: str) -> int:
    """The bytes base64 ``data`` holds (4 characters for 3 bytes, ``=`` padding)."""
    return len(data.rstrip("=")) * 3 // 4


def attached_images(attachments: Any) -> tuple:
    """The images of valid ``attachments``, at most ``MAX_IMAGES``."""
    images = [item["image"] for item in attachments or () if isinstance(item, dict) and "image" in item]
    return tuple({"mime_type": image["mime_type"], "data": image["data"]} for image in images[:MAX_IMAGES])


def _attachment_lines(attachment: Mapping[str, str]) -> str:
    text = _capped(attachment["text"], ATTACHMENT_LIMIT)
    what = ATTACHMENT_KINDS[attachment["kind"]]
    return f"User has attached {what} {attachment['source'].strip()}:\n{fenced(text)}"


def _capped(text: str, limit: int) -> str:
    hidden = len(text) - limit
    return text if hidden <= 0 else text[:limit] + f"\n… (truncated, {hidden} more characters)"


def fenced(text: str) -> str:
    """``text`` as a Markdown code block, its fence longer than any backtick run inside it."""
    longest_run = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest_run + 1)
    return f"{fence}\n{text}\n{fence}"


def _text(value: Any) -> str:
    return value.strip() if isinstance(value, str) else ""


def _looks_like_file(focused: str) -> bool:
    # The panel sends a document path for editors and notebooks, a title otherwise.
    return "/" in focused or bool(PurePosixPath(focused).suffix)


def _selection_lines(selected: str, metadata: str) -> str:
    selected = _capped(selected, SELECTION_LIMIT)
    place = ""
    for pattern, template in _SELECTION_PLACES:
        match = pattern.fullmatch(metadata)
        if match:
            place = " " + template.format(match.group(1))
            break
    return f"User has selected the following text{place}:\n{fenced(selected)}"
