"""Model providers behind AG-UI: stream adapters, request builders and an agent loop.

``ModelAgent`` serves a model (OpenAI Chat Completions or any compatible server, OpenAI
Responses, Anthropic Messages) with backend tools, frontend tools and shared state::

    from ag_ui.providers import ModelAgent
    from ag_ui.server import create_app

    app = create_app(ModelAgent("openai:gpt-4o-mini", system="Be brief."))

The pieces work on their own too: the adapters (``ChatCompletionsAdapter``,
``ResponsesAdapter``, ``AnthropicAdapter``) turn an SDK stream into AG-UI events inside any
agent, and the request builders (``chat_request``, ``responses_request``, ``anthropic_request``)
turn AG-UI messages and tools into an SDK request. Needs the server extra, plus the ``openai``
or ``anthropic`` extra for the provider used (``pip install 'ag-ui-sdk[openai]'``); importing
a provider whose SDK is missing raises ``ImportError`` naming the extra. docs/providers.md
maps every piece of each API to its AG-UI event.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

try:
    import anyio  # noqa: F401
except ImportError as exc:  # pragma: no cover - depends on the environment
    raise ImportError(
        "ag_ui.providers needs the server extra, which a provider's extra includes: "
        "pip install 'ag-ui-sdk[openai]' (or 'ag-ui-sdk[anthropic]')"
    ) from exc

import ag_ui._require_sdk  # noqa: F401  (first: are the files shared with ag-ui-protocol ours?)
from ag_ui.core.errors import ProviderConfigError, ProviderError
from ag_ui.providers._agent import (
    DEFAULT_MAX_ROUNDS,
    MAX_ROUNDS_CODE,
    TOOL_NAME_CONFLICT_CODE,
    ModelAgent,
)
from ag_ui.providers._anthropic_request import anthropic_request
from ag_ui.providers._anthropic_stream import AnthropicAdapter
from ag_ui.providers._chat_request import chat_request
from ag_ui.providers._chat_stream import ChatCompletionsAdapter
from ag_ui.providers._failures import CODES as PROVIDER_ERROR_CODES
from ag_ui.providers._history import Conversation, prepare_messages, system_text
from ag_ui.providers._parts import UNSUPPORTED_CONTENT_CODE
from ag_ui.providers._provider import ModelProvider, ModelStream, StreamAdapter
from ag_ui.providers._responses_request import responses_request
from ag_ui.providers._responses_stream import ResponsesAdapter
from ag_ui.providers._spec import PROVIDERS, provider_from_spec
from ag_ui.providers._state_tool import STATE_TOOL_NAME, merge_patch
from ag_ui.providers._turn import Turn, TurnWriter

if TYPE_CHECKING:
    from ag_ui.providers._anthropic import AnthropicMessages
    from ag_ui.providers._openai import OpenAIChat, OpenAIResponses

__all__ = [
    "AnthropicAdapter",
    "AnthropicMessages",
    "ChatCompletionsAdapter",
    "Conversation",
    "DEFAULT_MAX_ROUNDS",
    "MAX_ROUNDS_CODE",
    "ModelAgent",
    "ModelProvider",
    "ModelStream",
    "OpenAIChat",
    "OpenAIResponses",
    "PROVIDERS",
    "PROVIDER_ERROR_CODES",
    "ProviderConfigError",
    "ProviderError",
    "ResponsesAdapter",
    "STATE_TOOL_NAME",
    "StreamAdapter",
    "TOOL_NAME_CONFLICT_CODE",
    "Turn",
    "TurnWriter",
    "UNSUPPORTED_CONTENT_CODE",
    "anthropic_request",
    "chat_request",
    "merge_patch",
    "prepare_messages",
    "provider_from_spec",
    "responses_request",
    "system_text",
]

# The provider classes import their SDK, so they load on first use: a user of one provider
# does not need the other's extra, and a missing one is named when it is asked for.
_LAZY = {
    "OpenAIChat": "ag_ui.providers._openai",
    "OpenAIResponses": "ag_ui.providers._openai",
    "AnthropicMessages": "ag_ui.providers._anthropic",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'ag_ui.providers' has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)
