"""What the stream adapters share: the turn writer, ids, the provider label and the result; and
the dispatch on an event's ``type`` for the APIs whose stream events carry one."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any, Optional

from ag_ui.core._surrogates import refuse_constant
from ag_ui.core.events import BaseEvent
from ag_ui.core.token_usage import TokenUsage
from ag_ui.core.types import ToolCall
from ag_ui.providers._failures import failure
from ag_ui.providers._turn import StopReason, Turn, TurnWriter, counter_ids

__all__ = ["BaseAdapter", "TypedEventAdapter"]

_STOPS_WITH_THEIR_OWN_ERROR = frozenset({"max_tokens", "content_filter"})


class BaseAdapter:
    """One model turn's translation: ``feed(chunk)`` per chunk, ``close()`` at the end, then
    ``turn``. ``new_id`` mints ids the stream does not carry (default ``"<kind>-<n>"``; in an
    agent, ``ctx.new_id``); ``provider`` labels the usage; ``debug`` puts the provider's words in
    ``ProviderError`` messages."""

    default_provider = ""

    def __init__(
        self,
        *,
        message_id: str,
        new_id: Optional[Callable[[str], str]] = None,
        provider: Optional[str] = None,
        debug: bool = False,
    ) -> None:
        self._writer = TurnWriter(message_id)
        self._new_id = new_id or counter_ids()
        self.provider = provider or self.default_provider
        self._debug = debug
        self.model: Optional[str] = None
        self._turn: Optional[Turn] = None
        self._setup()

    def _setup(self) -> None:
        """Set up the subclass's own state (called by ``__init__``)."""

    @property
    def turn(self) -> Turn:
        """What the turn produced (after ``close()``)."""
        if self._turn is None:
            raise RuntimeError("the turn is known after close()")
        return self._turn

    def _finish(
        self, stop_reason: Optional[StopReason], usage: Optional[TokenUsage]
    ) -> list[BaseEvent]:
        """Close what is open and record the turn; returns the closing events.

        Raises ``ProviderError`` ``invalid_tool_arguments`` when a tool call's arguments are not
        JSON: nothing can run such a call, and a frontend tool's client would be handed it as
        a finished run. (A turn stopped by the output limit or the content filter is left to
        that stop reason's own error, which says why the arguments are cut.)
        """
        self._writer.close_all()
        self._turn = self._writer.turn(stop_reason, usage)
        if stop_reason not in _STOPS_WITH_THEIR_OWN_ERROR:
            for call in self._turn.tool_calls:
                self._check_arguments(call)
        return self._writer.take()

    def _check_arguments(self, call: ToolCall) -> None:
        arguments = call.function.arguments
        try:
            json.loads(arguments, parse_constant=refuse_constant)  # NaN is not JSON either
        except ValueError as exc:
            shown = arguments if len(arguments) <= 120 else arguments[:117] + "..."
            raise failure(
                "invalid_tool_arguments",
                self.provider,
                debug=self._debug,
                detail=f"the arguments of tool call {call.id!r} ({call.function.name}) are not "
                f"JSON ({exc}): {shown!r}",
            ) from None


class TypedEventAdapter(BaseAdapter):
    """An adapter for a stream of typed events: one handler per ``event.type`` (others are
    ignored), found with one dictionary lookup per event."""

    def _setup(self) -> None:
        self._dispatch = self.handlers()

    def handlers(self) -> dict[str, Callable[[Any], None]]:
        raise NotImplementedError

    def feed(self, event: Any) -> list[BaseEvent]:
        """The AG-UI events for one stream event."""
        handler = self._dispatch.get(event.type)
        if handler is not None:
            handler(event)
        return self._writer.take()
