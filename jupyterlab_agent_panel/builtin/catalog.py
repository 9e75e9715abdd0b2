"""The models the built-in agent offers, and whether each can be used (docs/protocol.md §16.2, §16.3).

The configured ones (``AgentPanel.model`` or ``$AGENT_PANEL_MODEL``, then
``AgentPanel.models``), and, when ``OPENAI_BASE_URL`` names an
OpenAI-compatible server, every model it lists: local models appear without
configuration. The list is asked for with a short timeout and remembered for
a while; a server that does not answer is a problem line, never an error.
"""
from __future__ import annotations

import fnmatch
import logging
import threading
import time
from typing import Any, Optional, Sequence

import httpx

from .credentials import Credentials
from .providers import ModelOptions, ModelRef, accepts_images, chat_model, unusable_reason

LIST_TIMEOUT_SECONDS = 3.0
LIST_TTL_SECONDS = 60.0
LISTED_PROVIDER = "openai"

logger = logging.getLogger(__name__)


class UnknownModel(Exception):
    """A model that is not on offer; the message names it and those that are (HTTP 400)."""


class ModelUnavailable(Exception):
    """A model on offer that cannot be used; the message says why (HTTP 503)."""


class ModelCatalog:
    """The offered models, their clients (built once per model and ``.env`` version) and their vision."""

    def __init__(
        self,
        default: Optional[ModelRef],
        more: Sequence[ModelRef],
        credentials: Credentials,
        options: ModelOptions,
        vision_patterns: Sequence[str] = (),
    ):
        self.default = default
        self.configured = list(dict.fromkeys([*([default] if default else []), *more]))
        self.credentials = credentials
        self.options = options
        self._vision_patterns = list(vision_patterns)
        self._listed: list[ModelRef] = []
        self._listed_at = float("-inf")
        self._list_problem = ""
        self._models: dict[str, Any] = {}
        self._models_version: Optional[tuple] = None
        self._lock = threading.Lock()  # clients are built on the agent's loop and read on the server's

    async def offers(self) -> dict:
        """The ``GET models`` answer (docs/protocol.md §16.3)."""
        await self._refresh_listed()
        entries = [self._entry(ref, "configured") for ref in self.configured]
        entries += [self._entry(ref, "server") for ref in self._listed if ref not in self.configured]
        return {
            "choosable": True,
            "default": self.default.id if self.default else None,
            "models": entries,
            "problems": [self._list_problem] if self._list_problem else [],
        }

    async def resolve(self, model_id: str) -> ModelRef:
        """The model named ``model_id`` if it is on offer and usable; raises UnknownModel or ModelUnavailable."""
        try:
            ref = ModelRef.parse(model_id)
        except ValueError as exc:
            raise UnknownModel(str(exc)) from None
        if ref not in self.configured:
            await self._refresh_listed(force=ref not in self._listed)
        if ref not in self.configured and ref not in self._listed:
            offered = ", ".join(dict.fromkeys(r.id for r in [*self.configured, *self._listed])) or "none"
            raise UnknownModel(f"The model {model_id!r} is not on offer here; the models on offer are: {offered}")
        self.check(ref)
        return ref

    def check(self, ref: ModelRef) -> None:
        """ModelUnavailable unless ``ref``'s package and key are there and its client can be built."""
        reason = unusable_reason(ref, self.credentials)
        if reason is None:
            try:
                self.model(ref)
            except Exception as exc:  # whatever the client refuses is the reason
                reason = self.credentials.redact(f"its client could not be made: {type(exc).__name__}: {exc}")
        if reason is not None:
            raise ModelUnavailable(f"The model {ref.id} cannot be used: {reason}")

    def model(self, ref: ModelRef) -> Any:
        """The provider's chat model for ``ref`` (built once; again after ``.env`` changed)."""
        version = self.credentials.version()
        with self._lock:
            if version != self._models_version:
                self._models, self._models_version = {}, version
            model = self._models.get(ref.id)
            if model is None:
                model = self._models[ref.id] = chat_model(ref, self.credentials, self.options)
            return model

    def vision(self, ref: ModelRef) -> bool:
        """Whether images reach ``ref``: a configured pattern says so, else LangChain's profile of it."""
        if any(fnmatch.fnmatchcase(ref.id, pattern) for pattern in self._vision_patterns):
            return True
        try:
            return accepts_images(self.model(ref))
        except Exception:  # an unusable model reads nothing
            return False

    def _entry(self, ref: ModelRef, source: str) -> dict:
        entry = {"id": ref.id, "provider": ref.provider, "name": ref.name, "usable": True}
        try:
            self.check(ref)
        except ModelUnavailable as exc:
            entry.update(usable=False, reason=str(exc).split(": ", 1)[1])
        entry.update(vision=bool(entry["usable"]) and self.vision(ref), source=source)
        return entry

    async def _refresh_listed(self, force: bool = False) -> None:
        base = self.credentials.get("OPENAI_BASE_URL").rstrip("/")
        if not base:
            self._listed, self._list_problem = [], ""
            return
        if not force and time.monotonic() - self._listed_at < LIST_TTL_SECONDS:
            return
        self._listed_at = time.monotonic()
        key = self.credentials.get("OPENAI_API_KEY")
        headers = {"Authorization": f"Bearer {key}"} if key else {}
        try:
            async with httpx.AsyncClient(timeout=LIST_TIMEOUT_SECONDS) as client:
                answer = await client.get(f"{base}/models", headers=headers)
            answer.raise_for_status()
            ids = [item["id"] for item in answer.json()["data"] if isinstance(item.get("id"), str)]
        except Exception as exc:  # refused, timed out, not a model list...
            problem = f"The OpenAI-compatible server at {base} did not list its models: {type(exc).__name__}: {exc}"
            self._list_problem = self.credentials.redact(problem)
            logger.warning("agent-panel: %s", self._list_problem)
            return
        self._listed = [ModelRef(LISTED_PROVIDER, model_id) for model_id in ids]
        self._list_problem = ""
