"""Access control for every endpoint of one agent: the ``authorize`` hook, and the principal
that owns a detached run.

The run endpoint, the capabilities endpoint and the connect endpoint all ask the same
``AccessControl``: ``await access.authorize(request)`` before reading anything else (the
verdict becomes ``ctx.auth``), then ``access.owner(verdict)`` when a run is stored or read back
(a reconnect by another principal is told the run does not exist).
"""

from __future__ import annotations

import inspect
import json
import logging
from collections.abc import Awaitable, Callable
from typing import Any, Optional, Union

from starlette.requests import Request

from ag_ui.core.errors import RequestRejectedError
from ag_ui.server.context import PRINCIPAL_SCOPE_KEY

__all__ = ["AccessControl", "Authorize", "Principal", "default_principal"]

logger = logging.getLogger("ag_ui.server")

Authorize = Callable[[Request], Union[Any, Awaitable[Any]]]
"""A hook run before the body is read. Raise ``RequestRejectedError(401 or 403, ...)`` to refuse,
return ``False`` for a plain 403, or return anything else (available as ``ctx.auth``; with a
store, ``principal`` turns it into the owner of the run, docs/resume.md)."""

Principal = Callable[[Any], Optional[str]]
"""Derives the owner of a run from what the ``authorize`` hook returned."""


def default_principal(verdict: Any) -> Optional[str]:
    """``None``/``True`` -> anonymous (``None``); a string -> itself; anything else -> its
    canonical JSON (so ``{"user": "alice"}`` from two requests is the same principal)."""
    if verdict is None or verdict is True:
        return None
    if isinstance(verdict, str):
        return verdict
    return json.dumps(verdict, sort_keys=True, separators=(",", ":"), default=str)


class AccessControl:
    """Who may use an agent's endpoints (``authorize``) and who owns a run (``principal``)."""

    def __init__(
        self, authorize: Optional[Authorize] = None, principal: Principal = default_principal
    ) -> None:
        self.hook = authorize
        self.principal = principal

    async def authorize(self, request: Request) -> Any:
        """The hook's verdict (``None`` without a hook); raises ``RequestRejectedError`` to
        refuse: the hook's own, 403 ``forbidden`` for ``False``, 500 when the hook crashed.

        The principal of an accepted request is left in its scope, for the agent to read as
        ``ctx.principal``."""
        verdict = await self._verdict(request)
        try:
            principal = self.principal(verdict)
        except Exception:
            logger.exception("principal hook failed")
            raise RequestRejectedError(
                500, "internal_error", "the authorization check failed; see the server log"
            ) from None
        request.scope[PRINCIPAL_SCOPE_KEY] = principal
        return verdict

    async def _verdict(self, request: Request) -> Any:
        if self.hook is None:
            return None
        try:
            verdict = self.hook(request)
            if inspect.isawaitable(verdict):
                verdict = await verdict
        except RequestRejectedError:
            raise
        except Exception:
            logger.exception("authorize hook failed")
            raise RequestRejectedError(
                500, "internal_error", "the authorization check failed; see the server log"
            ) from None
        if verdict is False:
            raise RequestRejectedError(403, "forbidden", "not allowed to run this agent")
        return verdict

    def owner(self, verdict: Any) -> Optional[str]:
        """The principal owning what a request with this verdict creates or reads."""
        return self.principal(verdict)
