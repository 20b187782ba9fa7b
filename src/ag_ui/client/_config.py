"""``HttpConfig``: how an ``HttpAgent`` reaches its agent, as one immutable value.

Each run reads the configuration once, when it starts, so changing an agent's settings (which
replaces its ``HttpConfig``) never changes a run under way.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Generic, Optional, Protocol, TypeVar, Union, overload

from ag_ui.client._debug import DebugConfig, DebugLog, DebugOption, resolve_debug
from ag_ui.client._reconnect import Reconnect, ReconnectPolicy
from ag_ui.client.versions import parse_version
from ag_ui.core.version import SPOKEN_PROTOCOL_VERSION
from ag_ui.encoder.sse_decoder import DEFAULT_MAX_EVENT_SIZE

__all__ = ["HttpConfig", "HttpSettings", "ReconnectCallback", "Setting"]

ReconnectCallback = Callable[[Reconnect], Union[Awaitable[None], None]]
"""Told (sync or async) about each reconnect attempt before it is made."""

_NOTHING = DebugConfig(events=False, lifecycle=False, verbose=False)


@dataclass(frozen=True)
class HttpConfig:
    """The HTTP side of an ``HttpAgent`` (see its docstring for each setting); immutable.

    ``dataclasses.replace(config, ...)`` gives a changed copy; ``headers`` is stored as a
    read-only copy. ``max_protocol_version`` is checked here (``ValueError`` for anything that
    is not one to three numbers), so a bad value is refused before anything changes.

    >>> import dataclasses
    >>> config = HttpConfig("http://127.0.0.1:8000/agent", proto=True)
    >>> dataclasses.replace(config, proto=False).proto, config.proto
    (False, True)
    """

    url: str
    headers: Mapping[str, str] = field(default_factory=dict)
    timeout: float = 30.0
    idle_timeout: Optional[float] = 300.0
    proto: bool = False
    max_event_size: int = DEFAULT_MAX_EVENT_SIZE
    strict: bool = True
    strict_draft: bool = False
    reconnect: ReconnectPolicy = field(default_factory=ReconnectPolicy)
    on_reconnect: Optional[ReconnectCallback] = None
    debug: DebugConfig = _NOTHING
    max_protocol_version: str = SPOKEN_PROTOCOL_VERSION
    peer_ceiling: tuple[int, int, int] = field(init=False, repr=False, compare=False)
    """``max_protocol_version`` as a comparable triple (``ag_ui.client.versions``)."""
    debug_log: Optional[DebugLog] = field(init=False, repr=False, compare=False)
    """The logger ``debug`` asks for, or ``None`` when nothing is logged."""

    def __post_init__(self) -> None:
        # Frozen: the derived fields are set once, here, through object.__setattr__.
        ceiling = parse_version(self.max_protocol_version)  # raises ValueError first
        object.__setattr__(self, "headers", MappingProxyType(dict(self.headers)))
        object.__setattr__(self, "peer_ceiling", ceiling)
        log = DebugLog(self.debug) if self.debug.enabled else None
        object.__setattr__(self, "debug_log", log)


class _HasConfig(Protocol):
    config: HttpConfig


_T = TypeVar("_T")


class Setting(Generic[_T]):
    """An attribute that is a field of its owner's ``config`` (an ``HttpConfig``): reading
    reads the config, assigning replaces the config with a changed copy (checked as at
    construction). ``HttpAgent.proto`` and the other settings are these."""

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    @overload
    def __get__(self, holder: None, owner: type) -> Setting[_T]: ...

    @overload
    def __get__(self, holder: _HasConfig, owner: Optional[type] = None) -> _T: ...

    def __get__(
        self, holder: Optional[_HasConfig], owner: Optional[type] = None
    ) -> Union[_T, Setting[_T]]:
        if holder is None:
            return self
        value: _T = getattr(holder.config, self.name)
        return value

    def __set__(self, holder: _HasConfig, value: _T) -> None:
        changes: dict[str, Any] = {self.name: value}
        holder.config = dataclasses.replace(holder.config, **changes)


class HttpSettings:
    """``HttpAgent``'s settings: each a field of its ``config``, read from it and replaced in
    it when assigned (a run under way keeps the config it started with)."""

    config: HttpConfig

    url: Setting[str] = Setting()
    timeout: Setting[float] = Setting()
    idle_timeout: Setting[Optional[float]] = Setting()
    proto: Setting[bool] = Setting()
    max_event_size: Setting[int] = Setting()
    strict: Setting[bool] = Setting()
    strict_draft: Setting[bool] = Setting()
    reconnect: Setting[ReconnectPolicy] = Setting()
    on_reconnect: Setting[Optional[ReconnectCallback]] = Setting()

    @property
    def headers(self) -> Mapping[str, str]:
        """Sent with every request (read-only; assign a new mapping to change them)."""
        return self.config.headers

    @headers.setter
    def headers(self, headers: Mapping[str, str]) -> None:
        self.config = dataclasses.replace(self.config, headers=dict(headers))

    @property
    def max_protocol_version(self) -> str:
        """The peer ceiling (``ag_ui.client.versions``); ``"1.1"`` unless pinned lower."""
        return self.config.max_protocol_version

    @max_protocol_version.setter
    def max_protocol_version(self, version: str) -> None:
        # HttpConfig checks it: a ValueError leaves the configuration as it was.
        self.config = dataclasses.replace(self.config, max_protocol_version=version)

    @property
    def debug(self) -> DebugConfig:
        """What the agent logs (``ag_ui.client.debug``); assign any ``debug=`` option."""
        return self.config.debug

    @debug.setter
    def debug(self, option: DebugOption) -> None:
        self.config = dataclasses.replace(self.config, debug=resolve_debug(option))

    @property
    def debug_log(self) -> Optional[DebugLog]:
        """The debug logger the configuration asks for (``None`` when nothing is logged)."""
        return self.config.debug_log
