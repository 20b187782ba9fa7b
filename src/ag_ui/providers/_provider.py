"""What the agent loop needs from a model API: build a request, open a stream, translate it,
classify its failures. One subclass per API (``OpenAIChat``, ``OpenAIResponses``,
``AnthropicMessages``); write your own for another API the same way.
"""

from __future__ import annotations

import abc
import math
import os
from collections.abc import AsyncIterator, Callable
from typing import Any, Optional, Protocol
from urllib.parse import urlsplit

from ag_ui.core.errors import ProviderConfigError, ProviderError
from ag_ui.core.events import BaseEvent
from ag_ui.providers._failures import SDKErrors, classify
from ag_ui.providers._history import Conversation
from ag_ui.providers._turn import Turn

__all__ = [
    "ModelProvider",
    "ModelStream",
    "StreamAdapter",
    "api_key_from_env",
    "checked_base_url",
    "checked_timeout",
    "sdk_settings",
]


class StreamAdapter(Protocol):
    """Sans-IO translation of one provider stream into AG-UI events."""

    def feed(self, chunk: Any) -> list[BaseEvent]: ...

    def close(self) -> list[BaseEvent]: ...

    @property
    def turn(self) -> Turn: ...


class ModelStream(Protocol):
    """A provider SDK's async stream: iterate it, then ``close()`` it (SDK ``AsyncStream``)."""

    def __aiter__(self) -> AsyncIterator[Any]: ...

    async def close(self) -> None: ...


def sdk_settings(client: Any) -> tuple[int, Optional[float]]:
    """An SDK client's ``(max_retries, timeout in seconds)``: the retries this module makes for
    it, and their shared budget (an ``httpx.Timeout``'s read timeout, the longest silence)."""
    retries = getattr(client, "max_retries", 0)
    timeout = getattr(client, "timeout", None)
    if not isinstance(timeout, (int, float)):
        timeout = getattr(timeout, "read", None)
    budget = float(timeout) if isinstance(timeout, (int, float)) else None
    return (retries if isinstance(retries, int) else 0), budget


class ModelProvider(abc.ABC):
    """One model behind one API.

    ``provider`` labels ``TokenUsage.provider``; ``model`` is the model name sent; ``options``
    are extra request parameters (``temperature``, ``max_tokens``, ``tool_choice``...) merged
    into every request (the conversation's own fields win).
    """

    provider: str = ""
    api: str = ""
    """The spec prefix naming this API in ``PROVIDER:MODEL`` (``agui serve --model``)."""
    max_retries: int = 0
    """Tries after the first when opening the stream fails in a way worth retrying (a timeout,
    429, 5xx...; ``_retry.py``): the SDK providers take their client's ``max_retries``."""
    timeout: Optional[float] = None
    """Seconds every try of one model call shares to get an answer (``None``: no bound); the
    SDK providers take their client's timeout."""

    def __init__(
        self, model: str, *, provider_name: Optional[str], options: dict[str, Any]
    ) -> None:
        if not model:
            raise ProviderConfigError(f"{self.api}: the model name is empty")
        self.model = model
        if provider_name:
            self.provider = provider_name
        self.options = options

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.model!r})"

    @property
    def where(self) -> str:
        """The provider and the URL it is reached at, for log lines (``openai at https://...``)."""
        url = getattr(getattr(self, "client", None), "base_url", None)
        return f"{self.provider} at {url}" if url is not None else self.provider

    @abc.abstractmethod
    def build_request(self, conversation: Conversation) -> dict[str, Any]:
        """The keyword arguments of the SDK call for ``conversation`` (streaming on)."""

    @abc.abstractmethod
    async def open_stream(self, request: dict[str, Any]) -> ModelStream:
        """Send ``request`` once (no retries: the agent makes them, within ``timeout``);
        returns the SDK's stream (raises the SDK's errors)."""

    @abc.abstractmethod
    def adapter(
        self, *, message_id: str, new_id: Callable[[str], str], debug: bool = False
    ) -> StreamAdapter:
        """A fresh adapter for one turn whose assistant message is ``message_id``."""

    @abc.abstractmethod
    def sdk_errors(self) -> SDKErrors:
        """The SDK's exception classes (for ``classify``)."""

    def classify(
        self, exc: BaseException, *, debug: bool = False, streaming: bool = False
    ) -> Optional[ProviderError]:
        """The ``ProviderError`` for ``exc`` (an SDK failure), or ``None`` if it is not one."""
        return classify(
            exc, self.sdk_errors(), provider=self.provider, debug=debug, streaming=streaming
        )

    async def aclose(self) -> None:
        """Close the SDK client's connections (a client you passed in is yours to close)."""
        client = getattr(self, "client", None)
        if client is not None and getattr(self, "_owns_client", False):
            await client.close()

    def use_client(self, client: Any) -> None:
        """Take an SDK client: its retries and timeout become this provider's (made within one
        budget by the agent), and one try goes through a copy with the SDK's retries off."""
        self.client = client
        self.max_retries, self.timeout = sdk_settings(client)
        self._single_try = client.with_options(max_retries=0)

    def _merged(self, built: dict[str, Any]) -> dict[str, Any]:
        return {**self.options, **built, "model": self.model, "stream": True}


def checked_base_url(url: Optional[str], *, source: str = "the base URL") -> Optional[str]:
    """``url`` if it can be a model API's base URL (http or https, with a host), else
    ``ProviderConfigError`` naming it (``source``: where it came from, e.g. a variable)."""
    if url is None:
        return None
    fix = "an http:// or https:// URL with a host, e.g. http://127.0.0.1:11434/v1 for Ollama"
    if any(character.isspace() for character in url):
        raise ProviderConfigError(f"{source} {url!r} has a space in it; give {fix}")
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - reading it raises ValueError for a port that is not one
    except ValueError as exc:
        raise ProviderConfigError(f"{source} {url!r} is not a URL ({exc}); give {fix}") from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ProviderConfigError(f"{source} {url!r} is not {fix}")
    return url


def checked_timeout(timeout: Optional[float]) -> Optional[float]:
    """``timeout`` if it is a number of seconds more than 0 (or ``None``: the SDK's default)."""
    if timeout is not None and not (
        isinstance(timeout, (int, float)) and math.isfinite(timeout) and timeout > 0
    ):
        raise ProviderConfigError(
            f"timeout must be a finite number of seconds more than 0, got {timeout!r}"
        )
    return timeout


def api_key_from_env(
    api_key: Optional[str], variables: tuple[str, ...], *, base_url: Optional[str], who: str
) -> str:
    """The API key to use: given, else from the provider's environment variable(s).

    Without one, a server at a custom base URL (a local Ollama, vLLM...) gets a placeholder: such
    servers ignore the key. For the hosted API the absence is an error naming the variable.
    """
    if api_key:
        return api_key
    for variable in variables:
        value = os.environ.get(variable)
        if value:
            return value
    if base_url:
        return "not-needed"
    raise ProviderConfigError(
        f"no API key for {who}: set the {variables[0]} environment variable (for a local "
        "server, any value works)"
    )
