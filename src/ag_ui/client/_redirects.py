"""Which redirects a run's request follows, and with what headers: fetch's rules, made safe
for a run's ``POST``.

* ``307`` and ``308`` are followed with the same method and body (fetch does the same): this
  is how Starlette and FastAPI answer ``POST /agent`` when the agent is mounted at ``/agent``
  (``app.mount``) or routed at ``/agent/``.
* ``301``, ``302`` and ``303`` are followed by a ``GET`` (the connect endpoint). For a
  ``POST``, fetch would turn the run into a ``GET`` of the new address, which no agent
  answers: the client stops with a ``RedirectError`` naming the ``Location`` instead.
* At most ``MAX_REDIRECTS`` (fetch's limit, 20) in a row; a ``3xx`` without ``Location`` is
  an answer like any other (``HTTPStatusError``).
* A redirect to another origin (scheme, host or port) drops the credentials the caller gave
  for the first one, ``Authorization`` and ``Cookie``, for every later hop (fetch drops
  ``Authorization``; httpx does the same).

Pure: the caller sends the requests (``ag_ui.client._transport``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Optional

import httpx

from ag_ui.core.errors import RedirectError

__all__ = [
    "MAX_REDIRECTS",
    "REDIRECT_STATUSES",
    "redirect_target",
    "redirected_headers",
    "same_origin",
]

MAX_REDIRECTS = 20
"""Redirects followed in a row before ``RedirectError`` (fetch's limit)."""

REDIRECT_STATUSES = frozenset({301, 302, 303, 307, 308})

_METHOD_CHANGING = frozenset({301, 302, 303})
_CREDENTIALS = frozenset({"authorization", "cookie"})
_DEFAULT_PORTS = {"http": 80, "https": 443}


def redirect_target(
    method: str, url: httpx.URL, status: int, location: Optional[str], *, hops: int
) -> Optional[httpx.URL]:
    """Where a request (``method`` to ``url``) that got ``status`` goes next; ``None`` when
    the answer is not a redirect to follow. ``hops``: redirects already followed.

    Raises ``RedirectError`` for a redirect the client must not follow (see the module).
    """
    if status not in REDIRECT_STATUSES or not location:
        return None
    shown = str(url.copy_with(query=None))  # a connect's query names the run: keep it out
    try:
        target = url.join(location)
    except httpx.InvalidURL as exc:
        raise RedirectError(
            status, location, f"the Location is not a valid URL ({exc})", url=shown
        ) from None
    if target.scheme not in _DEFAULT_PORTS:
        raise RedirectError(
            status, location, "only http:// and https:// redirects are followed", url=shown
        )
    if status in _METHOD_CHANGING and method not in ("GET", "HEAD"):
        raise RedirectError(
            status,
            location,
            f"a {status} turns a {method} into a GET (as fetch does), which would not run the "
            f"agent, so the client stops here: point it at {target} (or have the server "
            "redirect with 307/308, which keep the method and body)",
            url=shown,
        )
    if hops >= MAX_REDIRECTS:
        raise RedirectError(
            status,
            location,
            f"more than {MAX_REDIRECTS} redirects in a row (a redirect loop?)",
            url=shown,
        )
    return target


def same_origin(first: httpx.URL, second: httpx.URL) -> bool:
    """Same scheme, host and port (a missing port is the scheme's default)."""

    def origin(url: httpx.URL) -> tuple[str, str, Optional[int]]:
        return url.scheme, url.host.lower(), url.port or _DEFAULT_PORTS.get(url.scheme)

    return origin(first) == origin(second)


def redirected_headers(
    headers: Mapping[str, str], source: httpx.URL, target: httpx.URL
) -> dict[str, str]:
    """The caller's ``headers`` for the hop from ``source`` to ``target``: unchanged within
    an origin, without ``Authorization`` and ``Cookie`` across origins."""
    if same_origin(source, target):
        return dict(headers)
    return {name: value for name, value in headers.items() if name.lower() not in _CREDENTIALS}
