"""``<path>/threads``: the caller's stored conversations, as JSON (docs/threads.md).

* ``GET <path>/threads?limit=&cursor=``: ``{"threads": [summary, ...], "nextCursor": ...}``,
  newest first, ``limit`` (1 to 500, default 50) at a time;
* ``GET <path>/threads/<id>``: the summary with ``messages``, ``state``, ``runs`` and
  ``version``;
* ``PATCH <path>/threads/<id>`` with ``{"title": "..."}``: renames, answers the summary;
* ``DELETE <path>/threads/<id>``: 204.

A summary is ``{"threadId", "title", "createdAt", "updatedAt", "messageCount", "runCount"}``
(times in seconds since the epoch). Unknown, deleted and other principals' threads are the same
404 ``thread_not_found``; anonymous callers get 403 ``thread_history_not_public`` unless the
endpoint was built with ``public_thread_history=True`` (as for ``/connect?threadId=``). A store
that does not answer within ``DEFAULT_SAVE_TIMEOUT`` is a 503 ``thread_store_unavailable``.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable
from typing import Optional, TypeVar

import anyio
from starlette.requests import Request
from starlette.types import Receive, Scope, Send

from ag_ui.core._surrogates import refuse_constant
from ag_ui.core.errors import RequestRejectedError, StoreUnavailableError, ThreadNotFoundError
from ag_ui.server._access import AccessControl
from ag_ui.server._asgi import read_body, send_error, send_json
from ag_ui.server._failures import (
    invalid_thread_id,
    thread_history_not_public,
    thread_not_found,
    thread_store_unavailable,
)
from ag_ui.server._request import check_content_type, check_method
from ag_ui.server._routing import relative_path
from ag_ui.server._threads import DEFAULT_SAVE_TIMEOUT
from ag_ui.store import ThreadStore
from ag_ui.store._thread_base import (
    DEFAULT_PAGE_SIZE,
    MAX_PAGE_SIZE,
    TITLE_LENGTH,
    thread_id_problem,
)

__all__ = ["ThreadsEndpoint"]

_T = TypeVar("_T")
_MAX_RENAME_BODY = 16 * 1024
_MAX_TITLE = 4 * TITLE_LENGTH


class ThreadsEndpoint:
    """The ASGI endpoint for ``<path>/threads`` and ``<path>/threads/<id>`` (see module)."""

    def __init__(self, store: ThreadStore, access: AccessControl, *, public: bool) -> None:
        self._store = store
        self._access = access
        self._public = public

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        request = Request(scope, receive)
        try:
            owner = self._access.owner(await self._access.authorize(request))
            if owner is None and not self._public:
                raise thread_history_not_public()
            thread_id = _thread_id(scope)
            if thread_id is None:
                await self._list(request, send, owner)
            else:
                await self._one(request, receive, send, thread_id, owner)
        except RequestRejectedError as rejection:
            await send_error(send, rejection)

    async def _list(self, request: Request, send: Send, owner: Optional[str]) -> None:
        if request.method not in ("GET", "HEAD"):
            check_method(request.method, "GET")
        query = request.query_params
        limit = _limit(query.get("limit"))
        cursor = query.get("cursor") or None
        try:
            page = await self._ask(
                self._store.list_threads(owner=owner, limit=limit, cursor=cursor)
            )
        except ValueError as exc:
            raise RequestRejectedError(400, "invalid_cursor", str(exc)) from None
        body = {
            "threads": [summary.to_json() for summary in page.threads],
            "nextCursor": page.next_cursor,
        }
        await send_json(send, 200, json.dumps(body).encode())

    async def _one(
        self, request: Request, receive: Receive, send: Send, thread_id: str, owner: Optional[str]
    ) -> None:
        method = request.method
        problem = thread_id_problem(thread_id, "the thread id")
        if problem is not None:
            raise invalid_thread_id(problem)
        try:
            if method in ("GET", "HEAD"):
                thread = await self._ask(self._store.load(thread_id, owner=owner))
                await send_json(send, 200, json.dumps(thread.to_json()).encode())
            elif method == "PATCH":
                title = await _title(request, receive)
                summary = await self._ask(self._store.rename(thread_id, owner=owner, title=title))
                await send_json(send, 200, json.dumps(summary.to_json()).encode())
            elif method == "DELETE":
                await self._ask(self._store.delete(thread_id, owner=owner))
                await send({"type": "http.response.start", "status": 204, "headers": []})
                await send({"type": "http.response.body", "body": b""})
            else:
                raise RequestRejectedError(
                    405,
                    "method_not_allowed",
                    f"{method} is not supported here; send GET, PATCH or DELETE",
                    headers={"allow": "GET, PATCH, DELETE"},
                )
        except ThreadNotFoundError:
            raise thread_not_found() from None

    async def _ask(self, call: Awaitable[_T]) -> _T:
        """The store's answer within the bound; 503 when it does not come."""
        try:
            with anyio.fail_after(DEFAULT_SAVE_TIMEOUT):
                return await call
        except (StoreUnavailableError, TimeoutError):
            raise thread_store_unavailable() from None


def _thread_id(scope: Scope) -> Optional[str]:
    """The ``<id>`` of ``/threads/<id>``; ``None`` for the listing."""
    thread_id = scope.get("path_params", {}).get("thread_id")
    if thread_id is None:
        path = relative_path(scope).rstrip("/")
        if path.startswith("/threads/"):
            thread_id = path[len("/threads/") :]
    return thread_id or None


def _limit(text: Optional[str]) -> int:
    if text is None or text == "":
        return DEFAULT_PAGE_SIZE
    try:
        limit = int(text)
    except ValueError:
        limit = 0
    if not 1 <= limit <= MAX_PAGE_SIZE:
        raise RequestRejectedError(
            400,
            "invalid_limit",
            f"limit must be a whole number from 1 to {MAX_PAGE_SIZE}",
            details=[f"got {text[:50]!r}"],
        )
    return limit


async def _title(request: Request, receive: Receive) -> str:
    check_content_type(request.headers.get("content-type"))
    body = await read_body(receive, _MAX_RENAME_BODY, 30.0)
    if body is None:
        raise RequestRejectedError(400, "invalid_body", "the request body did not arrive")
    try:
        document = json.loads(body, parse_constant=refuse_constant)
    except ValueError:  # not JSON, NaN/Infinity included: answered as a missing title
        document = None
    title = document.get("title") if isinstance(document, dict) else None
    if not isinstance(title, str) or not title.strip() or len(title) > _MAX_TITLE:
        raise RequestRejectedError(
            400,
            "invalid_title",
            f'send {{"title": "..."}}: a non-empty string of at most {_MAX_TITLE} characters',
        )
    if "\x00" in title or (not title.isprintable() and _unencodable(title)):
        raise RequestRejectedError(
            400,
            "invalid_title",
            "the title holds a NUL character or a lone UTF-16 surrogate, which no thread store "
            "can keep",
        )
    return title.strip()


def _unencodable(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False
