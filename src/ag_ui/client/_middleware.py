"""Middleware: functions between the agent's event source and the client pipeline (§6.8).

A middleware sees the run input and the next layer, and returns the events it wants the layer
above to see. ``agent.use(a, b, c)`` runs a -> b -> c -> transport, events flow back c -> b -> a.

>>> async def log_types(input, next):
...     async for event in next.run(input):
...         print(event.type)
...         yield event
>>> # agent.use(log_types, FilterToolCallsMiddleware(disallowed_tool_calls=["rm"]))
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Iterable
from typing import Optional, Protocol, Union

from ag_ui.core._wire import event_type_name
from ag_ui.core.decoding import AnyEvent
from ag_ui.core.types import RunAgentInput

__all__ = [
    "FilterToolCallsMiddleware",
    "FunctionMiddleware",
    "Middleware",
    "MiddlewareFunction",
    "NextAgent",
    "chain",
]


class NextAgent(Protocol):
    """The layer below a middleware: anything with ``run(input) -> async iterator of events``."""

    def run(self, input: RunAgentInput) -> AsyncIterator[AnyEvent]: ...


MiddlewareFunction = Callable[[RunAgentInput, NextAgent], AsyncIterator[AnyEvent]]


class Middleware:
    """Subclass and override ``run``; the default passes everything through."""

    def run(self, input: RunAgentInput, next: NextAgent) -> AsyncIterator[AnyEvent]:
        return next.run(input)


class FunctionMiddleware(Middleware):
    """Wraps an async-generator function ``fn(input, next)`` as a middleware."""

    def __init__(self, function: MiddlewareFunction) -> None:
        self.function = function

    def run(self, input: RunAgentInput, next: NextAgent) -> AsyncIterator[AnyEvent]:
        return self.function(input, next)


class FilterToolCallsMiddleware(Middleware):
    """Drops tool calls by name: give exactly one of ``allowed_tool_calls`` or
    ``disallowed_tool_calls``.

    Removes TOOL_CALL_START (and TOOL_CALL_CHUNK openers) of filtered tools and every later
    ARGS/END/RESULT/CHUNK of their ids; the blocked set resets at each RUN_STARTED. It only
    filters what the client sees; the agent still ran the call.
    """

    def __init__(
        self,
        *,
        allowed_tool_calls: Optional[Iterable[str]] = None,
        disallowed_tool_calls: Optional[Iterable[str]] = None,
    ) -> None:
        if allowed_tool_calls is not None and disallowed_tool_calls is not None:
            raise ValueError("give allowed_tool_calls or disallowed_tool_calls, not both")
        if allowed_tool_calls is None and disallowed_tool_calls is None:
            raise ValueError("give allowed_tool_calls or disallowed_tool_calls")
        self.allowed = None if allowed_tool_calls is None else frozenset(allowed_tool_calls)
        self.disallowed = (
            None if disallowed_tool_calls is None else frozenset(disallowed_tool_calls)
        )

    def blocks(self, tool_name: str) -> bool:
        """True when calls to ``tool_name`` are filtered out."""
        if self.allowed is not None:
            return tool_name not in self.allowed
        return self.disallowed is not None and tool_name in self.disallowed

    async def run(self, input: RunAgentInput, next: NextAgent) -> AsyncIterator[AnyEvent]:
        blocked: set[str] = set()
        async for event in next.run(input):
            kind = event_type_name(event)
            if kind == "RUN_STARTED":
                blocked.clear()
            elif kind in ("TOOL_CALL_START", "TOOL_CALL_CHUNK"):
                name = getattr(event, "tool_call_name", None)
                call_id = getattr(event, "tool_call_id", None)
                if name is not None and self.blocks(name):
                    if call_id is not None:
                        blocked.add(call_id)
                    continue
                if call_id in blocked:
                    continue
            elif (
                kind in ("TOOL_CALL_ARGS", "TOOL_CALL_END", "TOOL_CALL_RESULT")
                and getattr(event, "tool_call_id", None) in blocked
            ):
                continue
            yield event


MiddlewareLike = Union[Middleware, MiddlewareFunction]


def _as_middleware(middleware: MiddlewareLike) -> Middleware:
    if isinstance(middleware, Middleware):
        return middleware
    if callable(middleware):
        return FunctionMiddleware(middleware)
    raise TypeError(f"not a middleware: {middleware!r}")


class _Opened:
    """Every stream one run of a chain opened, in the order they were opened (outermost
    first). A middleware that is an async generator does not close the stream it iterates
    when it is closed itself; left to the garbage collector, that stream is closed later in
    another task, or at interpreter exit while its own finally is still running ("aclose():
    asynchronous generator is already running")."""

    def __init__(self) -> None:
        self.streams: list[AsyncIterator[AnyEvent]] = []

    def add(self, stream: AsyncIterator[AnyEvent]) -> AsyncIterator[AnyEvent]:
        self.streams.append(stream)
        return stream

    async def close(self) -> None:
        """Close each stream (outermost first, innermost last, so that a layer never reads
        from a closed one); every one is closed even when closing another failed."""
        streams, self.streams = self.streams, []
        failure: Optional[BaseException] = None
        for stream in streams:
            aclose = getattr(stream, "aclose", None)
            if aclose is None:
                continue
            try:
                await aclose()
            except BaseException as exc:  # re-raised once all are closed
                failure = failure or exc
        if failure is not None:
            raise failure


class _Link:
    def __init__(self, middleware: Middleware, next: NextAgent, opened: _Opened) -> None:
        self.middleware = middleware
        self.next = next
        self.opened = opened

    def run(self, input: RunAgentInput) -> AsyncIterator[AnyEvent]:
        return self.opened.add(self.middleware.run(input, self.next))


class _Innermost:
    def __init__(self, agent: NextAgent, opened: _Opened) -> None:
        self.agent = agent
        self.opened = opened

    def run(self, input: RunAgentInput) -> AsyncIterator[AnyEvent]:
        return self.opened.add(self.agent.run(input))


class _Chain:
    """Middlewares around an agent; each ``run`` closes every stream it opened when it ends."""

    def __init__(self, middlewares: list[Middleware], innermost: NextAgent) -> None:
        self.middlewares = middlewares
        self.innermost = innermost

    def run(self, input: RunAgentInput) -> AsyncIterator[AnyEvent]:
        opened = _Opened()
        layer: NextAgent = _Innermost(self.innermost, opened)
        for middleware in reversed(self.middlewares):
            layer = _Link(middleware, layer, opened)
        return self._events(layer, input, opened)

    async def _events(
        self, outermost: NextAgent, input: RunAgentInput, opened: _Opened
    ) -> AsyncIterator[AnyEvent]:
        try:
            async for event in outermost.run(input):
                yield event
        finally:
            await opened.close()


def chain(middlewares: Iterable[MiddlewareLike], innermost: NextAgent) -> NextAgent:
    """Fold middlewares around ``innermost``; the first one is the outermost.

    When a run of the chain ends (finished, failed or abandoned), every stream it opened is
    closed, outermost first and ``innermost``'s last, in the task that ran it: a pass-through
    ``async for event in next.run(input): yield event`` needs no ``finally`` of its own.
    """
    layers = [_as_middleware(middleware) for middleware in middlewares]
    if not layers:
        return innermost
    return _Chain(layers, innermost)
