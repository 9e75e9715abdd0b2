"""Resume decisions checked against the review they answer (docs/protocol.md §5.8).

A resume must carry one decision per action request of the pending interrupts,
in order, each a verb that request allows, and an ``edit`` must carry an object
of arguments. Anything else is refused before the graph runs, so the review
stays pending and the right answer can still be given. The rows and their verbs
follow docs/protocol.md §5.3–5.4, the rules the panel's review card offers; the
verbs are compared with langstage-core's own ``normalize_decision``, so its
aliases (``accept`` for ``approve``) and verbs a graph advertises itself pass.

A resume may also name the interrupts it answers (``interrupt_ids``, as its
interrupt frames carried them): then they must be exactly the pending ones, so a
replayed or stale answer to an earlier review cannot resolve a later one
(docs/protocol.md §5.9).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Optional

from ..json_limits import length_problem


@dataclass(frozen=True)
class ReviewRow:
    """One action request of a pending interrupt: what to call it and the verbs it allows."""

    label: str
    allowed: list


def decision_shape_problem(decisions: list) -> Optional[str]:
    """Why an element of ``decisions`` is not a decision at all, or ``None``."""
    for index, decision in enumerate(decisions):
        if not isinstance(decision, dict) or not isinstance(decision.get("type"), str):
            return f"decisions[{index}] must be an object with a string 'type'"
    return None


def interrupt_ids_problem(value: Any) -> Optional[str]:
    """Why a resume's ``interrupt_ids`` is not a list of non-empty ids, or ``None``."""
    if not isinstance(value, list) or not all(isinstance(i, str) and i for i in value):
        return "interrupt_ids must be a list of non-empty strings"
    # Ids are echoed in a stale_review message: as short as a thread id.
    return next(filter(None, (length_problem(f"interrupt_ids[{n}]", i) for n, i in enumerate(value))), None)


def stale_problem(answered: list, pending: list) -> Optional[str]:
    """Why a resume naming the interrupts ``answered`` does not answer ``pending`` (LangGraph
    ``Interrupt`` objects), or ``None``. Pending interrupts without ids cannot be named: no check."""
    ids = [getattr(i, "id", None) for i in pending]
    if not all(isinstance(i, str) for i in ids) or sorted(answered) == sorted(ids):
        return None
    waiting = "; ".join(
        f"{id_} ({', '.join(row.label for row in review_rows(getattr(i, 'value', None)))})"
        for id_, i in zip(ids, pending, strict=True)
    )
    named = ", ".join(answered) or "none"
    return (
        f"This answers a review that is no longer pending (interrupt {named}): the agent now waits "
        f"on {waiting}. Nothing was resumed; the pending review can still be answered."
    )


def pending_problem(decisions: list, interrupt_values: list) -> Optional[str]:
    """Why ``decisions`` do not answer the interrupts waiting (their raw values), or ``None``."""
    from langstage_core.resume import normalize_decision  # present: the agent loaded

    rows = [row for value in interrupt_values for row in review_rows(value)]
    if len(decisions) != len(rows):
        wanted = "; ".join(row.label for row in rows)
        return f"the agent waits for {_count(len(rows))} ({wanted}), not {len(decisions)}"
    for index, (decision, row) in enumerate(zip(decisions, rows, strict=True)):
        verb = normalize_decision(decision["type"], row.allowed)
        if verb is None:
            allowed = ", ".join(map(str, row.allowed))
            return f"decisions[{index}]: {decision['type']!r} is not allowed for {row.label} (allowed: {allowed})"
        problem = _fields_problem(verb, decision)
        if problem is not None:
            return f"decisions[{index}]: {problem}"
    return None


def review_rows(value: Any) -> list:
    """The rows of one pending interrupt, as the panel shows them (docs/protocol.md §5.3–5.4)."""
    from langstage_core.agui import _normalize_interrupt  # the normalisation core's frames use

    requests, configs, allowed = _normalize_interrupt(value)
    if not requests:
        return [ReviewRow("the paused agent", list(allowed))]
    rows = []
    for index, request in enumerate(requests):
        name = _action_name(request)
        config = _review_config(configs, index, name)
        verbs = config.get("allowed_decisions") if config else None
        label = f"action {index + 1} ({name})" if name else f"action {index + 1}"
        rows.append(ReviewRow(label, list(verbs) if isinstance(verbs, list) and verbs else list(allowed)))
    return rows


def _action_name(request: Any) -> Optional[str]:
    if not isinstance(request, dict):
        return None
    source = request["action_request"] if isinstance(request.get("action_request"), dict) else request
    for name in (source.get("name"), source.get("action"), request.get("tool")):
        if isinstance(name, str) and name:
            return name
    return None


def _review_config(configs: Any, index: int, name: Optional[str]) -> Optional[dict]:
    if name is None or not isinstance(configs, list):
        return None
    if index < len(configs) and isinstance(configs[index], dict) and configs[index].get("action_name") == name:
        return configs[index]
    return next((c for c in configs if isinstance(c, dict) and c.get("action_name") == name), None)


def _fields_problem(verb: str, decision: dict) -> Optional[str]:
    if verb == "edit":
        edited = decision.get("edited_action")
        if not isinstance(edited, dict) or not isinstance(edited.get("args"), dict):
            return "an edit needs 'edited_action' with the new arguments as an object 'args'"
    if verb == "respond" and not isinstance(decision.get("message"), str):
        return "a respond decision needs a string 'message'"
    if "message" in decision and not isinstance(decision["message"], (str, type(None))):
        return "'message' must be a string"
    return None


def _count(rows: int) -> str:
    return "1 decision" if rows == 1 else f"{rows} decisions"
