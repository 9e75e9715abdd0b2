"""A provider's failure as a sentence for the user (docs/protocol.md §16.4).

Provider SDKs (openai, anthropic, and the httpx they use) raise errors with a
status code and a body; the turn's error frame names the model, quotes the
provider's reason with any key material removed, and says what to do.
Recognised by their attributes (``status_code``, ``body``) and class names,
so no provider package is imported here.
"""
from __future__ import annotations

from typing import Any, Callable, Optional

CONTEXT_WORDS = ("context_length_exceeded", "maximum context length", "prompt is too long", "too many tokens")
REASON_CHARS = 300


class ModelFailure(Exception):
    """A model call failed; the message is what the user reads."""


def provider_failure(exc: BaseException) -> Optional[BaseException]:
    """The provider's or the network's error in ``exc``'s chain, or None when the failure is elsewhere."""
    seen = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        if hasattr(exc, "status_code") or _is_network(exc):
            return exc
        exc = exc.__cause__ or exc.__context__
    return None


def describe(
    failure: BaseException,
    model_id: str,
    *,
    key_env: Optional[str],
    where: str,
    timeout: float,
    retries: int,
    endpoint: str,
    redact: Callable[[str], str],
) -> str:
    """What went wrong with ``model_id`` and what to do, without key material."""
    status = getattr(failure, "status_code", None)
    reason = redact(_reason(failure))
    if _has_context_words(failure, reason):
        return (
            f"The conversation is longer than {model_id} can read ({reason}). "
            "Start a new conversation, or pick a model with a longer context."
        )
    if status in (401, 403):
        fix = f"Check {key_env} {where}." if key_env else "Check the key the provider expects."
        return f"{model_id} refused the key ({status}): {reason}. {fix}"
    if status == 404:
        return (
            f"{model_id}: the provider has no such model (404: {reason}). "
            "Pick another model, or check its name in AgentPanel.model / AgentPanel.models."
        )
    if status == 429:
        return (
            f"{model_id} is rate limited (429, still after {retries} retries): {reason}. "
            "Wait a moment and send again, or pick another model."
        )
    if "Timeout" in type(failure).__name__:
        return (
            f"{model_id} did not answer within {timeout:g} s (AgentPanel.model_timeout_seconds). "
            "Send again, or raise the timeout."
        )
    if status is None:
        place = endpoint or f"{model_id}'s provider"
        return (
            f"The connection to {place} failed or broke ({type(failure).__name__}: {reason}). "
            "Check that it runs and is reachable, and send again."
        )
    if status >= 500:
        return f"{model_id}'s server failed ({status}): {reason}. Send again later."
    return f"{model_id} refused the request ({status}): {reason}"


def _reason(failure: BaseException) -> str:
    body: Any = getattr(failure, "body", None)
    if isinstance(body, dict) and isinstance(body.get("error"), dict):
        body = body["error"]
    message = body.get("message") if isinstance(body, dict) else None
    text = message if isinstance(message, str) and message else str(failure) or type(failure).__name__
    text = " ".join(text.split())
    return text if len(text) <= REASON_CHARS else text[:REASON_CHARS] + "…"


def _has_context_words(failure: BaseException, reason: str) -> bool:
    code = str(getattr(failure, "code", "") or "")
    return any(word in code or word in reason.lower() for word in CONTEXT_WORDS)


def _is_network(exc: BaseException) -> bool:
    names = {cls.__name__ for cls in type(exc).__mro__}
    return bool(names & {"APIConnectionError", "TransportError", "ConnectError", "TimeoutException"})
