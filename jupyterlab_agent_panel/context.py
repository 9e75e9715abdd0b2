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
    if not lines:
        return message
    return message + "\n\n" + "\n".join(lines)


def _text(value: Any) -> str:
    return value.strip() if isinstance(value, str) else ""


def _looks_like_file(focused: str) -> bool:
    # The panel sends a document path for editors and notebooks, a title otherwise.
    return "/" in focused or bool(PurePosixPath(focused).suffix)


def _selection_lines(selected: str, metadata: str) -> str:
    hidden = len(selected) - SELECTION_LIMIT
    if hidden > 0:
        selected = selected[:SELECTION_LIMIT] + f"\n… (truncated, {hidden} more characters)"
    place = ""
    for pattern, template in _SELECTION_PLACES:
        match = pattern.fullmatch(metadata)
        if match:
            place = " " + template.format(match.group(1))
            break
    # A fence longer than any backtick run inside keeps selected Markdown intact.
    longest_run = max((len(run) for run in re.findall(r"`+", selected)), default=0)
    fence = "`" * max(3, longest_run + 1)
    return f"User has selected the following text{place}:\n{fence}\n{selected}\n{fence}"
