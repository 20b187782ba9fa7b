"""The HTTP client an ``HttpAgent`` sends with: a caller's (``http_client=``, never closed by
the agent), or its own for the length of an ``async with`` block (connection reuse), else one
per run; and the one request that is no run, ``GET <url>/capabilities``."""

from __future__ import annotations

from typing import TYPE_CHECKING, Optional, TypeVar

from ag_ui.client._config import HttpConfig
from ag_ui.core.capabilities import AgentCapabilities

if TYPE_CHECKING:
    import httpx

__all__ = ["AgentHttpClient"]

_Self = TypeVar("_Self", bound="AgentHttpClient")


class AgentHttpClient:
    """``HttpAgent``'s HTTP client and capabilities request."""

    config: HttpConfig
    http_client: Optional[httpx.AsyncClient]
    _owns_client: bool

    # -- resources -----------------------------------------------------------------------

    async def __aenter__(self: _Self) -> _Self:
        """Keep one HTTP client (and its connections) for every run inside the block."""
        if self.http_client is None:
            from ag_ui.client._transport import new_http_client  # httpx: on use (see there)

            self.http_client = new_http_client(self.config.timeout)
            self._owns_client = True
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        """Close the HTTP client the agent opened in ``async with`` (never a caller's)."""
        if self._owns_client and self.http_client is not None:
            client, self.http_client, self._owns_client = self.http_client, None, False
            await client.aclose()

    # -- discovery -----------------------------------------------------------------------

    async def get_capabilities(self) -> Optional[AgentCapabilities]:
        """GET ``<url>/capabilities``; ``None`` when the agent declares nothing (404)."""
        from ag_ui.client._transport import fetch_capabilities  # httpx: on use

        config = self.config
        return await fetch_capabilities(
            self.http_client, config.url, headers=config.headers, timeout=config.timeout
        )
