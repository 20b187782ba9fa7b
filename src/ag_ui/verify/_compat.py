"""``CompatibilityTranslator``: pre-1.0 shapes become 1.0 events (PROTOCOL.md §6.2), sans-IO.

- ``THINKING_*`` events become ``REASONING_*`` (ids minted for spans and messages, which the
  old events did not carry; ``title`` has no 1.0 equivalent and is dropped with a warning).
- Grandfathered legacy nulls become absent fields: ``rawEvent`` anywhere, ``result`` on
  RUN_FINISHED/SUBAGENT_FINISHED, ``parentMessageId`` on TOOL_CALL_START/TOOL_CALL_CHUNK,
  ``RUN_FINISHED.outcome``; and, inside MESSAGES_SNAPSHOT / RUN_STARTED.input, media-part
  ``metadata``, ``forwardedProps``, ``tools[].parameters`` and ``resume[].payload``.
- Legacy ``binary`` content parts (in MESSAGES_SNAPSHOT and RUN_STARTED.input messages) become
  image/audio/video/document parts.

Each kind of conversion warns once per translator (``CompatibilityWarning``); set the
environment variable ``SUPPRESS_TRANSFORMATION_WARNINGS`` to silence them, as in TypeScript.
"""

from __future__ import annotations

import os
import uuid
import warnings
from typing import Any, Callable, Optional, get_args

from pydantic import BaseModel

from ag_ui.core._wire import not_an_event
from ag_ui.core.decoding import AnyEvent
from ag_ui.core.events import (
    Event,
    MessagesSnapshotEvent,
    ReasoningEndEvent,
    ReasoningMessageContentEvent,
    ReasoningMessageEndEvent,
    ReasoningMessageStartEvent,
    ReasoningStartEvent,
    RunFinishedEvent,
    RunStartedEvent,
    SubagentFinishedEvent,
    ToolCallChunkEvent,
    ToolCallStartEvent,
)
from ag_ui.core.legacy_events import (
    ThinkingEndEvent,
    ThinkingStartEvent,
    ThinkingTextMessageContentEvent,
    ThinkingTextMessageEndEvent,
    ThinkingTextMessageStartEvent,
)
from ag_ui.verify._legacy_content import upgrade_messages
from ag_ui.verify._nulls import explicit_null

__all__ = ["CompatibilityTranslator", "CompatibilityWarning"]


class CompatibilityWarning(DeprecationWarning):
    """A deprecated pre-1.0 shape was converted to its 1.0 form."""


_TOP_LEVEL_LEGACY_NULLS: dict[type, tuple[tuple[str, str], ...]] = {
    RunFinishedEvent: (("result", "result"), ("outcome", "outcome")),
    SubagentFinishedEvent: (("result", "result"),),
    ToolCallStartEvent: (("parent_message_id", "parentMessageId"),),
    ToolCallChunkEvent: (("parent_message_id", "parentMessageId"),),
}
# 1.0 event classes in which only a legacy ``rawEvent: null`` can need translating.
_PLAIN = frozenset(get_args(get_args(Event)[0])) - {
    *_TOP_LEVEL_LEGACY_NULLS,
    MessagesSnapshotEvent,
    RunStartedEvent,
}
_THINKING = (
    ThinkingStartEvent,
    ThinkingEndEvent,
    ThinkingTextMessageStartEvent,
    ThinkingTextMessageContentEvent,
    ThinkingTextMessageEndEvent,
)


def _suppressed() -> bool:
    return bool(os.environ.get("SUPPRESS_TRANSFORMATION_WARNINGS"))


def _base_kwargs(event: Any) -> dict[str, Any]:
    kwargs: dict[str, Any] = dict(event.model_extra or {})
    for name in ("timestamp", "raw_event", "metadata"):
        value = getattr(event, name, None)
        if value is not None:
            kwargs[name] = value
    return kwargs


class CompatibilityTranslator:
    """Turns pre-1.0 events into protocol 1.0 events; 1.0 events pass through unchanged.

    ``id_factory`` mints the ids THINKING_* events lack (default: UUID4 strings).

    >>> from ag_ui.core.legacy_events import ThinkingTextMessageContentEvent
    >>> translator = CompatibilityTranslator(id_factory=lambda: "r1")
    >>> import warnings
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     [event] = translator.feed(ThinkingTextMessageContentEvent(delta="hm"))
    >>> event.type.value, event.message_id, event.delta
    ('REASONING_MESSAGE_CONTENT', 'r1', 'hm')
    """

    def __init__(self, *, id_factory: Optional[Callable[[], str]] = None) -> None:
        self._new_id = id_factory or (lambda: str(uuid.uuid4()))
        self._reasoning_id: Optional[str] = None
        self._message_id: Optional[str] = None
        self._warned: set[str] = set()

    def warn(self, what: str, replacement: str) -> None:
        """Warn once per kind of conversion."""
        key = f"{what}->{replacement}"
        if key in self._warned or _suppressed():
            return
        self._warned.add(key)
        warnings.warn(
            f"[ag-ui][compat] Converting deprecated {what} to {replacement}.",
            CompatibilityWarning,
            stacklevel=3,
        )

    def feed(self, event: AnyEvent) -> list[Event]:
        """Translate one event (1.0 or legacy) into the 1.0 events to pass on."""
        return [self.translate(event)]

    def translate(self, event: AnyEvent) -> Event:
        """Translate one event; every conversion maps one event to exactly one event."""
        # The common case, decided here (this runs once per event): a 1.0 event in which only
        # a legacy ``rawEvent: null`` could need translating, and which has none.
        if event.__class__ in _PLAIN and (
            event.raw_event is not None or "raw_event" not in event.__pydantic_fields_set__
        ):
            return event  # type: ignore[return-value]  # a member of _PLAIN is an Event
        translated: Event = self._translate(event)
        return translated

    def _translate(self, event: Any) -> Any:
        cls = event.__class__
        if cls in _PLAIN:
            if event.raw_event is not None or "raw_event" not in event.__pydantic_fields_set__:
                return event  # the common case: nothing legacy can be in it
        elif not isinstance(event, BaseModel) or not hasattr(event, "type"):
            not_an_event(event)
        fields_set = event.__pydantic_fields_set__
        if isinstance(event, _THINKING):
            return self._thinking(event)
        cleared: list[str] = []
        if "raw_event" in fields_set and event.raw_event is None:
            cleared.append("raw_event")
            self.warn(f"{event.type.value}.rawEvent: null", "an absent field")
        for attribute, wire in _TOP_LEVEL_LEGACY_NULLS.get(cls, ()):
            if attribute in fields_set and getattr(event, attribute) is None:
                cleared.append(attribute)
                self.warn(f"{event.type.value}.{wire}: null", "an absent field")
        if cleared:
            event = event.model_copy()
            event.__pydantic_fields_set__.difference_update(cleared)
        if cls is MessagesSnapshotEvent:
            messages = upgrade_messages(event.messages, self.warn)
            if messages is not None:
                event = event.model_copy(update={"messages": messages})
        elif cls is RunStartedEvent and event.input is not None:
            event = self._run_input(event)
        return event

    def _run_input(self, event: Any) -> Any:
        run_input = event.input
        if explicit_null(run_input, "forwarded_props"):
            self.warn("RunAgentInput.forwardedProps: null", "an absent field")
        if any(explicit_null(tool, "parameters") for tool in run_input.tools):
            self.warn("Tool.parameters: null", "an absent field")
        if any(explicit_null(entry, "payload") for entry in run_input.resume or ()):
            self.warn("ResumeEntry.payload: null", "an absent field")
        messages = upgrade_messages(run_input.messages, self.warn)
        if messages is None:
            return event
        new_input = run_input.model_copy(update={"messages": messages})
        return event.model_copy(update={"input": new_input})

    def _continuation_id(self, source: str, established: Optional[str]) -> str:
        if established is not None:
            return established
        minted = self._new_id()
        if not _suppressed():
            warnings.warn(
                f"[ag-ui][compat] Minting a messageId ('{minted}') for {source}: no THINKING "
                "opener preceded it; verification will reject the translated event.",
                CompatibilityWarning,
                stacklevel=4,
            )
        return minted

    def _thinking(self, event: Any) -> Any:
        kwargs = _base_kwargs(event)
        if isinstance(event, ThinkingStartEvent):
            self.warn("THINKING_START", "REASONING_START")
            if event.title is not None and not _suppressed():
                warnings.warn(
                    f"[ag-ui][compat] Dropping THINKING_START.title {event.title!r}: "
                    "REASONING_START has no title field.",
                    CompatibilityWarning,
                    stacklevel=3,
                )
            self._reasoning_id = self._new_id()
            return ReasoningStartEvent(**kwargs, message_id=self._reasoning_id)
        if isinstance(event, ThinkingTextMessageStartEvent):
            self.warn("THINKING_TEXT_MESSAGE_START", "REASONING_MESSAGE_START")
            self._message_id = self._new_id()
            return ReasoningMessageStartEvent(**kwargs, message_id=self._message_id)
        if isinstance(event, ThinkingTextMessageContentEvent):
            self.warn("THINKING_TEXT_MESSAGE_CONTENT", "REASONING_MESSAGE_CONTENT")
            message_id = self._continuation_id("THINKING_TEXT_MESSAGE_CONTENT", self._message_id)
            return ReasoningMessageContentEvent(**kwargs, message_id=message_id, delta=event.delta)
        if isinstance(event, ThinkingTextMessageEndEvent):
            message_id = self._continuation_id("THINKING_TEXT_MESSAGE_END", self._message_id)
            self._message_id = None
            self.warn("THINKING_TEXT_MESSAGE_END", "REASONING_MESSAGE_END")
            return ReasoningMessageEndEvent(**kwargs, message_id=message_id)
        span_id = self._continuation_id("THINKING_END", self._reasoning_id)
        self._reasoning_id = None
        self.warn("THINKING_END", "REASONING_END")
        return ReasoningEndEvent(**kwargs, message_id=span_id)
