"""``GET <path>/capabilities``: the agent's ``AgentCapabilities`` as JSON, from the
``capabilities`` option of ``AgentEndpoint`` (a value, or a function returning one, possibly
async)."""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable
from typing import Optional, Union

from starlette.requests import Request
from starlette.types import Receive, Scope, Send

from ag_ui.core.capabilities import AgentCapabilities
from ag_ui.core.errors import RequestRejectedError
from ag_ui.server._access import AccessControl
from ag_ui.server._asgi import send_error, send_json
from ag_ui.server._request import check_method

__all__ = ["CapabilitiesEndpoint", "CapabilitiesSource"]

CapabilitiesSource = Union[
    AgentCapabilities, Callable[[], Union[AgentCapabilities, Awaitable[AgentCapabilities]]]
]


async def _capabilities_of(source: CapabilitiesSource) -> AgentCapabilities:
    if isinstance(source, AgentCapabilities):
        return source
    produced = source()
    return await produced if inspect.isawaitable(produced) else produced


class CapabilitiesEndpoint:
    """``GET <path>/capabilities``: the agent's ``AgentCapabilities`` as JSON.

    A class (not a bound method) so Starlette treats it as a raw ASGI app. ``source`` is read
    at each request: the endpoint's ``capabilities`` as it is then.
    """

    def __init__(
        self, access: AccessControl, source: Callable[[], Optional[CapabilitiesSource]]
    ) -> None:
        self._access = access
        self._source = source

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        request = Request(scope)
        try:
            if request.method != "HEAD":
                check_method(request.method, "GET")
            await self._access.authorize(request)
            source = self._source()
            if source is None:
                raise RequestRejectedError(404, "not_found", "this agent declares no capabilities")
            capabilities = await _capabilities_of(source)
        except RequestRejectedError as rejection:
            await send_error(send, rejection)
            return
        body = capabilities.model_dump_json(by_alias=True).encode()
        await send_json(send, 200, body)
