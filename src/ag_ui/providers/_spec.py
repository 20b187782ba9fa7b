"""``PROVIDER:MODEL`` specs (``openai:gpt-4o-mini``, ``openai-responses:o4-mini``,
``anthropic:claude-sonnet-4-5``) -> a ``ModelProvider``. The SDK of the provider named is
imported only then, so a missing extra is reported for the provider actually asked for.
"""

from __future__ import annotations

import importlib
from typing import Any, Optional

from ag_ui.core.errors import ProviderConfigError
from ag_ui.providers._provider import ModelProvider

__all__ = ["PROVIDERS", "provider_from_spec"]

PROVIDERS: dict[str, tuple[str, str]] = {
    "openai": ("ag_ui.providers._openai", "OpenAIChat"),
    "openai-responses": ("ag_ui.providers._openai", "OpenAIResponses"),
    "anthropic": ("ag_ui.providers._anthropic", "AnthropicMessages"),
}
"""Spec prefix -> (module, class). ``openai`` is Chat Completions (any compatible server)."""


def provider_from_spec(
    spec: str, *, base_url: Optional[str] = None, api_key: Optional[str] = None, **settings: Any
) -> ModelProvider:
    """The provider for ``spec`` (``PROVIDER:MODEL``); ``settings`` go to its constructor.

    Raises ``ProviderConfigError`` for a spec that names no known provider or no model, and
    ``ImportError`` (naming the extra) when the provider's SDK is not installed.
    """
    prefix, colon, model = spec.partition(":")
    known = ", ".join(f"{name}:MODEL" for name in PROVIDERS)
    if not colon or not model.strip():
        raise ProviderConfigError(f"model spec {spec!r} is not PROVIDER:MODEL (one of {known})")
    entry = PROVIDERS.get(prefix.strip().lower())
    if entry is None:
        raise ProviderConfigError(f"unknown provider {prefix!r} in {spec!r}; use one of {known}")
    module_name, class_name = entry
    provider_class = getattr(importlib.import_module(module_name), class_name)
    provider: ModelProvider = provider_class(
        model.strip(), base_url=base_url, api_key=api_key, **settings
    )
    return provider
