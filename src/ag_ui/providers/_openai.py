"""OpenAI's two streaming APIs behind ``ModelProvider``: Chat Completions (``OpenAIChat``, also
every OpenAI-compatible server) and Responses (``OpenAIResponses``). Needs the ``openai`` extra.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any, Optional

try:
    import openai
except ImportError as exc:  # pragma: no cover - depends on the environment
    raise ImportError(
        "ag_ui.providers needs the OpenAI SDK for this model: install the openai extra "
        "(pip install 'ag-ui-sdk[openai]')"
    ) from exc

from ag_ui.providers._chat_request import chat_request
from ag_ui.providers._chat_stream import ChatCompletionsAdapter
from ag_ui.providers._failures import SDKErrors, transport_errors
from ag_ui.providers._history import Conversation
from ag_ui.providers._provider import (
    ModelProvider,
    ModelStream,
    StreamAdapter,
    api_key_from_env,
    checked_base_url,
    checked_timeout,
)
from ag_ui.providers._responses_request import responses_request
from ag_ui.providers._responses_stream import ResponsesAdapter

__all__ = ["OpenAIChat", "OpenAIResponses"]


_TRANSPORT, _TIMEOUTS = transport_errors()
_ERRORS = SDKErrors(
    api_error=openai.APIError,
    status_error=openai.APIStatusError,
    connection_error=openai.APIConnectionError,
    timeout_error=openai.APITimeoutError,
    transport_error=_TRANSPORT,
    transport_timeout=_TIMEOUTS,
)


def _client(
    client: Optional[openai.AsyncOpenAI],
    *,
    base_url: Optional[str],
    api_key: Optional[str],
    timeout: Optional[float],
    max_retries: Optional[int],
) -> openai.AsyncOpenAI:
    if client is not None:
        return client
    if base_url:
        checked_base_url(base_url)
    else:
        base_url = checked_base_url(
            os.environ.get("OPENAI_BASE_URL") or None, source="OPENAI_BASE_URL"
        )
    options: dict[str, Any] = {
        "api_key": api_key_from_env(api_key, ("OPENAI_API_KEY",), base_url=base_url, who="OpenAI")
    }
    if base_url:
        options["base_url"] = base_url
    if checked_timeout(timeout) is not None:
        options["timeout"] = timeout
    if max_retries is not None:
        options["max_retries"] = max_retries
    return openai.AsyncOpenAI(**options)


class _OpenAIProvider(ModelProvider):
    provider = "openai"

    def __init__(
        self,
        model: str,
        *,
        client: Optional[openai.AsyncOpenAI] = None,
        base_url: Optional[str] = None,
        api_key: Optional[str] = None,
        timeout: Optional[float] = None,
        max_retries: Optional[int] = None,
        provider_name: Optional[str] = None,
        **options: Any,
    ) -> None:
        super().__init__(model, provider_name=provider_name, options=options)
        self._owns_client = client is None
        self.use_client(
            _client(
                client, base_url=base_url, api_key=api_key, timeout=timeout, max_retries=max_retries
            )
        )

    def sdk_errors(self) -> SDKErrors:
        return _ERRORS


class OpenAIChat(_OpenAIProvider):
    """A model behind the Chat Completions API (OpenAI, or any compatible server at
    ``base_url``: Ollama, vLLM, llama.cpp's server, LM Studio...).

    ``client``: your own ``openai.AsyncOpenAI`` (else one is made from ``base_url``,
    ``api_key`` (default ``$OPENAI_API_KEY``), ``timeout``, ``max_retries``). ``include_usage``
    (default on) asks for the usage chunk. Other keyword arguments go into every request
    (``temperature=0``, ``max_completion_tokens=...``, ``parallel_tool_calls=False``...).
    """

    api = "openai"

    def __init__(self, model: str, *, include_usage: bool = True, **settings: Any) -> None:
        super().__init__(model, **settings)
        self.include_usage = include_usage

    def build_request(self, conversation: Conversation) -> dict[str, Any]:
        request = self._merged(chat_request(conversation))
        if self.include_usage:
            request["stream_options"] = {**request.get("stream_options", {}), "include_usage": True}
        return request

    async def open_stream(self, request: dict[str, Any]) -> ModelStream:
        stream: ModelStream = await self._single_try.chat.completions.create(**request)
        return stream

    def adapter(
        self, *, message_id: str, new_id: Callable[[str], str], debug: bool = False
    ) -> StreamAdapter:
        return ChatCompletionsAdapter(
            message_id=message_id, new_id=new_id, provider=self.provider, debug=debug
        )


class OpenAIResponses(_OpenAIProvider):
    """A model behind the Responses API, used statelessly (the client holds the conversation).

    By default ``store=False`` and ``include=["reasoning.encrypted_content"]``, so reasoning
    models return their reasoning encrypted and get it back next turn (AG-UI carries it as the
    reasoning message's encrypted value). Pass ``store=True`` or other ``include`` values to
    change that; ``reasoning={"effort": "low", "summary": "auto"}`` asks for summaries. Other
    arguments as for ``OpenAIChat``.
    """

    api = "openai-responses"

    def __init__(self, model: str, **settings: Any) -> None:
        settings.setdefault("store", False)
        settings.setdefault("include", ["reasoning.encrypted_content"])
        super().__init__(model, **settings)

    def build_request(self, conversation: Conversation) -> dict[str, Any]:
        return self._merged(responses_request(conversation))

    async def open_stream(self, request: dict[str, Any]) -> ModelStream:
        stream: ModelStream = await self._single_try.responses.create(**request)
        return stream

    def adapter(
        self, *, message_id: str, new_id: Callable[[str], str], debug: bool = False
    ) -> StreamAdapter:
        return ResponsesAdapter(
            message_id=message_id, new_id=new_id, provider=self.provider, debug=debug
        )
