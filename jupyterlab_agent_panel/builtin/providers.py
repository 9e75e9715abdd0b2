"""Chat models by ``provider:model`` name, through LangChain's ``init_chat_model`` (docs/protocol.md §16.2).

For the providers in :data:`PROVIDERS` the key and endpoint are read here
(:class:`~.builtin.credentials.Credentials`) and handed to the client, so a ``.env``
file works and a missing key is named before anything is sent. Any other
provider LangChain knows works too, reading its own variables from the
server's environment.
"""
from __future__ import annotations

import importlib.util
from dataclasses import dataclass
from typing import Any, Optional

from .credentials import Credentials


@dataclass(frozen=True)
class Provider:
    """What a provider's client needs: its package, its key and endpoint variables."""

    module: str  # the LangChain integration module
    key_env: Optional[str] = None  # None: no key (a local server)
    base_url_env: Optional[str] = None

    @property
    def package(self) -> str:
        return self.module.replace("_", "-")


PROVIDERS = {
    "openai": Provider("langchain_openai", "OPENAI_API_KEY", "OPENAI_BASE_URL"),
    "anthropic": Provider("langchain_anthropic", "ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL"),
    "google_genai": Provider("langchain_google_genai", "GOOGLE_API_KEY"),
    "mistralai": Provider("langchain_mistralai", "MISTRAL_API_KEY"),
    "groq": Provider("langchain_groq", "GROQ_API_KEY"),
    "deepseek": Provider("langchain_deepseek", "DEEPSEEK_API_KEY"),
    "xai": Provider("langchain_xai", "XAI_API_KEY"),
    "fireworks": Provider("langchain_fireworks", "FIREWORKS_API_KEY"),
    "together": Provider("langchain_together", "TOGETHER_API_KEY"),
    "openrouter": Provider("langchain_openrouter", "OPENROUTER_API_KEY"),
    "ollama": Provider("langchain_ollama", None, "OLLAMA_BASE_URL"),
}
# A server speaking OpenAI's API that may want no key (Ollama, vLLM, llama.cpp): the
# client insists on one, so it gets this.
NO_KEY = "not-needed"


@dataclass(frozen=True)
class ModelRef:
    """A model named ``provider:model``."""

    provider: str
    name: str

    @property
    def id(self) -> str:
        return f"{self.provider}:{self.name}"

    @classmethod
    def parse(cls, text: str) -> ModelRef:
        """ValueError naming what is wrong unless ``text`` is ``provider:model``."""
        provider, colon, name = text.strip().partition(":")
        if not colon or not provider or not name.strip():
            raise ValueError(
                f"{text!r} is not a model name: write it as LangChain's init_chat_model does, "
                "provider:model (e.g. openai:gpt-4.1-mini, anthropic:claude-sonnet-4-5)"
            )
        return cls(provider.strip(), name.strip())


@dataclass(frozen=True)
class ModelOptions:
    """How the clients call their provider (AgentPanel.model_timeout_seconds, model_max_retries)."""

    timeout: float = 120.0
    max_retries: int = 2


def unusable_reason(ref: ModelRef, credentials: Credentials) -> Optional[str]:
    """Why ``ref`` cannot be used (its package or key is missing), or None."""
    provider = PROVIDERS.get(ref.provider)
    module = provider.module if provider else None
    if module is not None and importlib.util.find_spec(module) is None:
        return f"the package {provider.package} is not installed: pip install {provider.package}"
    if provider is None or provider.key_env is None or credentials.get(provider.key_env):
        return None
    if ref.provider == "openai" and credentials.get("OPENAI_BASE_URL"):
        return None  # an OpenAI-compatible server, which may want no key
    return f"{provider.key_env} is not set ({credentials.where})"


def base_url(ref: ModelRef, credentials: Credentials) -> str:
    """The endpoint the provider's client calls, when one is configured."""
    provider = PROVIDERS.get(ref.provider)
    if provider is None or provider.base_url_env is None:
        return ""
    return credentials.get(provider.base_url_env)


def key_env(ref: ModelRef) -> Optional[str]:
    provider = PROVIDERS.get(ref.provider)
    return provider.key_env if provider else None


def chat_model(ref: ModelRef, credentials: Credentials, options: ModelOptions) -> Any:
    """The provider's LangChain chat model; raises what ``init_chat_model`` raises (no request is made)."""
    from langchain.chat_models import init_chat_model

    kwargs: dict[str, Any] = {"timeout": options.timeout, "max_retries": options.max_retries}
    provider = PROVIDERS.get(ref.provider)
    if provider is not None:
        if provider.key_env is not None:
            kwargs["api_key"] = credentials.get(provider.key_env) or NO_KEY
        url = base_url(ref, credentials)
        if url:
            kwargs["base_url"] = url
    if ref.provider == "openai":
        # Chat Completions, which every OpenAI-compatible server speaks, with token usage in the stream.
        kwargs.update(use_responses_api=False, stream_usage=True)
    return init_chat_model(ref.name, model_provider=ref.provider, **kwargs)


def accepts_images(model: Any) -> bool:
    """Whether LangChain's model profile says the model reads images; unknown: no."""
    profile = getattr(model, "profile", None) or {}
    return profile.get("image_inputs") is True
