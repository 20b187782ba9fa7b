"""The loopback guard: no web page can read or drive a server on the developer's machine.

A browser is a client on the loopback interface. Two ways let a page on another site use it
against a server that trusts that interface (docs/server.md, "Security"):

* **DNS rebinding**: the attacker's name first resolves to their server, then to 127.0.0.1;
  the page, still on the attacker's origin, now reads this server "same-origin". Only the
  ``Host`` header tells: it carries the attacker's name. So ``Host`` must be a loopback name
  (``localhost``, ``127.0.0.0/8``, ``[::1]``) or one the operator allowed.
* **Cross-site requests**: a page on ``https://evil.example`` fetches ``http://127.0.0.1:8000``.
  The browser sends ``Origin`` (every CORS-mode fetch, every POST) and ``Sec-Fetch-Site``
  (every request of a current browser). A CORS middleware that allows ``*`` would let that page
  read the answer, so the server refuses such a request itself, whatever wraps it: ``Origin``
  must be this server's own, a page on a loopback origin (``http://localhost:3000``, a front end
  on another port) when the server is reached by a loopback name, or an allowed origin; without
  ``Origin``, ``Sec-Fetch-Site: cross-site`` is refused.

``LocalGuard(allowed_hosts)`` holds what the operator allowed: names (``"agent.example.com"``,
``"*.example.com"``; with ``:port`` to match one port only), origins
(``"https://app.example.com"``: anything with ``://``), or ``"*"`` (no guard: an app behind its
own authentication that any page may call). The tap's check is stricter: ``same_origin_only``
refuses every cross-origin request, allowed origins and ``"*"`` included.
``AgentEndpoint(allowed_hosts=...)`` checks every request but health's with it first (probes
send the pod's address); so does the inspector's page server, with nothing allowed.

Requests made in process are not from a browser: the ``Host`` of ``ag_ui.testing``'s transport
(it marks its scopes with ``core._wire.IN_PROCESS_EXTENSION``) and of Starlette's ``TestClient``
(peer ``testclient``, which no socket has) is not checked; their ``Origin`` is.
"""

from __future__ import annotations

import functools
import ipaddress
from collections.abc import Iterable
from typing import Optional
from urllib.parse import urlsplit

from starlette.types import ASGIApp, Receive, Scope, Send

from ag_ui.core._wire import IN_PROCESS_EXTENSION
from ag_ui.core.errors import RequestRejectedError
from ag_ui.server._asgi import send_error

__all__ = ["LocalGuard", "is_loopback_host"]

_STARLETTE_TEST_CLIENT = "testclient"
_DEFAULT_PORTS = {"http": 80, "https": 443}
_FIX = (
    "allowed_hosts (AgentEndpoint(allowed_hosts=[...]) or create_app(agent, allowed_hosts=[...]); "
    "agui demo/serve --allow-host; docs/server.md, 'Security')"
)
_TAP_FIX = "the tap answers its own origin only, whatever allowed_hosts says (agui inspect)"


@functools.lru_cache(maxsize=256)  # a server is called by few names: parsed once each
def _split_host(value: str) -> tuple[str, Optional[int]]:
    """``host[:port]`` (IPv6 in brackets) -> (lower-case host without brackets, port)."""
    value = value.strip().lower()
    if value.startswith("["):
        end = value.find("]")
        host, rest = (value[1:end], value[end + 1 :]) if end > 0 else (value, "")
    else:
        host, _, rest = value.partition(":")
        rest = ":" + rest if rest else ""
    port: Optional[int] = None
    if rest.startswith(":") and rest[1:].isdigit():
        port = int(rest[1:])
    return host.rstrip("."), port


_USUAL_LOOPBACK = frozenset({"localhost", "127.0.0.1", "::1"})


def is_loopback_host(host: str) -> bool:
    """``localhost``, an address in ``127.0.0.0/8`` or ``::1`` (no port, no brackets)."""
    if host in _USUAL_LOOPBACK:
        return True  # every request of a local server: no address parsing
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


@functools.lru_cache(maxsize=256)  # a server sees few origins: parsed once each
def _origin(value: str) -> Optional[tuple[str, str, int]]:
    """(scheme, host, port) of a serialized origin; ``None`` for ``null`` or anything else."""
    try:
        parts = urlsplit(value.strip().lower())
        port = parts.port
    except ValueError:
        return None
    if parts.scheme not in _DEFAULT_PORTS or not parts.hostname or parts.path not in ("", "/"):
        return None
    return parts.scheme, parts.hostname.rstrip("."), port or _DEFAULT_PORTS[parts.scheme]


class LocalGuard:
    """Which ``Host`` names and which web origins may reach a server (module docstring)."""

    def __init__(self, allowed_hosts: Iterable[str] = (), *, settable: bool = True) -> None:
        """``settable=False``: a server with no ``allowed_hosts`` to change (the inspector's
        page), whose refusals say so instead of naming the option."""
        self.settable = settable
        if isinstance(allowed_hosts, str):
            raise TypeError(
                f"allowed_hosts takes a list of names or origins, got the string "
                f"{allowed_hosts!r}: write [{allowed_hosts!r}]"
            )
        self.allowed_hosts: tuple[str, ...] = tuple(allowed_hosts)
        self.any = "*" in self.allowed_hosts
        self._names: list[tuple[str, Optional[int]]] = []
        self._origins: set[tuple[str, str, int]] = set()
        for entry in self.allowed_hosts:
            if entry == "*":
                continue
            if "://" in entry:
                origin = _origin(entry)
                if origin is None:
                    raise ValueError(
                        f"allowed_hosts: {entry!r} is not an origin (scheme://host[:port], "
                        "no path), e.g. 'https://app.example.com'"
                    )
                self._origins.add(origin)
            else:
                name = _split_host(entry)
                if not name[0] or "/" in entry:
                    raise ValueError(
                        f"allowed_hosts: {entry!r} is not a host name (e.g. 'agent.example.com', "
                        "'*.example.com', 'agent.example.com:8443')"
                    )
                self._names.append(name)

    # -- the checks ----------------------------------------------------------------------------

    def refusal(
        self, scope: Scope, *, same_origin_only: bool = False
    ) -> Optional[RequestRejectedError]:
        """Why this request is refused (a 403 naming ``allowed_hosts``), or ``None``."""
        headers = {name: value for name, value in scope.get("headers") or () if name in _READ}
        host_header = headers.get(b"host", b"").decode("latin-1")
        host = _split_host(host_header) if host_header else None
        if (
            host is not None
            and not self.any
            and not is_loopback_host(host[0])
            and not self._host_allowed(host)
            and not _in_process(scope)
        ):
            return RequestRejectedError(
                403,
                "host_not_allowed",
                f"Host {host_header!r} is not allowed: this server answers loopback names only "
                "(a defence against DNS rebinding); "
                + self._how("serve it under this name", host[0]),
                details=[f"host: {host_header}"],
            )
        origin = headers.get(b"origin")
        if origin is not None:
            return self._origin_refusal(origin.decode("latin-1"), host, same_origin_only)
        site = headers.get(b"sec-fetch-site", b"").decode("latin-1").lower()
        refused_sites = ("cross-site", "same-site") if same_origin_only else ("cross-site",)
        if site in refused_sites and (same_origin_only or not self.any):
            return RequestRejectedError(
                403,
                "cross_origin_request",
                f"a request from another site (Sec-Fetch-Site: {site}) is not allowed; "
                + (_TAP_FIX if same_origin_only else self._how("let such a page call it", None)),
                details=[f"sec-fetch-site: {site}"],
            )
        return None

    def _origin_refusal(
        self, text: str, host: Optional[tuple[str, Optional[int]]], same_origin_only: bool
    ) -> Optional[RequestRejectedError]:
        if self._origin_allowed(text, host, same_origin_only):
            return None
        if same_origin_only:
            fix = _TAP_FIX
        elif _origin(text) is None:
            fix = "a page without an origin of its own (sandboxed, file:) cannot be allowed"
        else:
            fix = self._how("let that page call this server", text)
        return RequestRejectedError(
            403,
            "cross_origin_request",
            f"Origin {text!r} is not allowed: a page of another site may not call this "
            f"server; {fix}",
            details=[f"origin: {text}"],
        )

    def _how(self, goal: str, entry: Optional[str]) -> str:
        """The fix a refusal names: the entry (``None``: the page's origin) to allow."""
        if not self.settable:
            return "this server answers its own page only, at the address it printed"
        what = "its origin" if entry is None else repr(entry)
        return f"to {goal}, add {what} to {_FIX}"

    def wrap(self, app: ASGIApp, *, same_origin_only: bool = False) -> ASGIApp:
        """``app`` behind this guard: a refused HTTP request gets the JSON 403, before ``app``
        sees anything of it."""
        return _Guarded(self, app, same_origin_only)

    # -- what is allowed -----------------------------------------------------------------------

    def _host_allowed(self, host: tuple[str, Optional[int]]) -> bool:
        name, port = host
        for allowed, allowed_port in self._names:
            if allowed_port is not None and allowed_port != port:
                continue
            if allowed == name or (allowed.startswith("*.") and name.endswith(allowed[1:])):
                return True
        return False

    def _origin_allowed(
        self, text: str, own: Optional[tuple[str, Optional[int]]], same_origin_only: bool
    ) -> bool:
        origin = _origin(text)
        if origin is None:
            return False  # "null" (sandboxed frames, data: URLs) or garbage: from no one we know
        if own is not None and _same_origin(origin, own):
            return True  # the server's own pages
        if same_origin_only:
            return False
        if self.any or origin in self._origins:
            return True
        # A front end served from this machine (another port) calling a server reached by a
        # loopback name: the developer's own pages, never an attacker's (rebinding sends a
        # foreign Host, refused above).
        return is_loopback_host(origin[1]) and own is not None and is_loopback_host(own[0])


_READ = (b"host", b"origin", b"sec-fetch-site")


def _in_process(scope: Scope) -> bool:
    if IN_PROCESS_EXTENSION in (scope.get("extensions") or {}):
        return True
    client = scope.get("client")
    return client is not None and client[0] == _STARLETTE_TEST_CLIENT


def _same_origin(origin: tuple[str, str, int], host: tuple[str, Optional[int]]) -> bool:
    """Whether a page of ``origin`` is this server as ``Host`` names it. The scheme is not
    compared (behind a TLS proxy the server sees http); a ``Host`` without a port is the
    default port of the page's scheme."""
    scheme, name, port = origin
    return name == host[0] and port == (host[1] or _DEFAULT_PORTS[scheme])


class _Guarded:
    """A class, not a function, so that Starlette's ``Route`` takes it as a raw ASGI app."""

    def __init__(self, guard: LocalGuard, app: ASGIApp, same_origin_only: bool) -> None:
        self.guard = guard
        self.app = app
        self.same_origin_only = same_origin_only

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            rejection = self.guard.refusal(scope, same_origin_only=self.same_origin_only)
            if rejection is not None:
                await send_error(send, rejection)
                return
        await self.app(scope, receive, send)
