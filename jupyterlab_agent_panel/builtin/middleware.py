"""The built-in agent's own middleware: provider failures in words, images only for models that read them."""
from __future__ import annotations

from typing import Any, Awaitable, Callable

from langchain.agents.middleware import AgentMiddleware, ModelRequest, ModelResponse
from langchain_core.messages import HumanMessage, ToolMessage

from .failures import ModelFailure, provider_failure

IMAGE_BLOCK_TYPES = ("image", "image_url")


class ModelFailures(AgentMiddleware):
    """Turns a provider's error into a :class:`~.builtin.failures.ModelFailure` that says what to do."""

    def __init__(self, describe: Callable[[BaseException], str]):
        super().__init__()
        self._describe = describe

    async def awrap_model_call(
        self, request: ModelRequest, handler: Callable[[ModelRequest], Awaitable[ModelResponse]]
    ) -> ModelResponse:
        try:
            return await handler(request)
        except Exception as exc:
            failure = provider_failure(exc)
            if failure is None:
                raise
            # Not chained: the provider's own message may quote key material.
            raise ModelFailure(self._describe(failure)) from None


class ImageContent(AgentMiddleware):
    """A vision model gets the images of notebook tool results (their ``artifact``) after the result's
    text; a text-only model gets no image at all, only the texts that describe them (docs/protocol.md §16.7).
    The thread keeps what it had, so a later turn on another model sees the images again."""

    def __init__(self, vision: bool):
        super().__init__()
        self._vision = vision

    async def awrap_model_call(
        self, request: ModelRequest, handler: Callable[[ModelRequest], Awaitable[ModelResponse]]
    ) -> ModelResponse:
        messages = [self._for_model(message) for message in request.messages]
        if any(new is not old for new, old in zip(messages, request.messages, strict=True)):
            request = request.override(messages=messages)
        return await handler(request)

    def _for_model(self, message: Any) -> Any:
        if isinstance(message, ToolMessage) and self._vision:
            images = tool_images(message)
            if images:
                text = message.content if isinstance(message.content, str) else message.text
                return message.model_copy(update={"content": [{"type": "text", "text": text}, *images]})
        if isinstance(message, HumanMessage) and not self._vision and isinstance(message.content, list):
            kept = [block for block in message.content if not _is_image(block)]
            if len(kept) != len(message.content):
                return message.model_copy(update={"content": kept})
        return message


def tool_images(message: ToolMessage) -> list[dict]:
    """A notebook tool's images (its artifact) as LangChain image content blocks."""
    artifact = message.artifact if isinstance(message.artifact, dict) else {}
    images = artifact.get("images")
    if not isinstance(images, list):
        return []
    return [
        {"type": "image", "base64": image["data"], "mime_type": image["mime_type"]}
        for image in images
        if isinstance(image, dict) and isinstance(image.get("data"), str) and isinstance(image.get("mime_type"), str)
    ]


def _is_image(block: Any) -> bool:
    return isinstance(block, dict) and block.get("type") in IMAGE_BLOCK_TYPES
