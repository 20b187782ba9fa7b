"""``StreamVerifier``: compatibility, enforcement, null checks, chunks, verification (sans-IO).

These are the stages every consumer of an event stream runs before it uses an event, in the
TypeScript client's order (PROTOCOL.md §6.1): legacy shapes are translated first, optional
nulls refused, chunks expanded before verification (which needs start/content/end), then each
event verified. The client, ``ag_ui.apply.EventPipeline`` (which adds the reducer), the
server's sequence guard and ``agui verify`` all use this one class with the stages they need.

Expansion and verification are two calls so that a consumer can use each expanded event
before the next one is verified, as the TypeScript operator chain does::

    for event in stream.expand(received):
        stream.check(event)
        use(event)  # subscribers, the reducer...
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Callable, Literal, Optional, cast

from ag_ui.core.decoding import AnyEvent
from ag_ui.core.events import Event
from ag_ui.core.types import Tool
from ag_ui.verify._chunks import ChunkExpander
from ag_ui.verify._compat import CompatibilityTranslator
from ag_ui.verify._enforce import enforce as _enforce
from ag_ui.verify._nulls import reject_optional_nulls
from ag_ui.verify._verifier import EventVerifier

__all__ = ["Stage", "StageObserver", "StreamVerifier"]


def _nothing(event: Event) -> None:
    """``check`` when nothing is verified and nobody observes."""


Stage = Literal["TRANSFORM", "VERIFY"]
StageObserver = Callable[[Stage, Event], None]
"""Told about each event made from a chunk (``"TRANSFORM"``) and each event verified
(``"VERIFY"``), e.g. to log them."""


class StreamVerifier:
    """Turns received events (1.0 or legacy, chunks included) into verified 1.0 events.

    ``compatibility`` translates pre-1.0 shapes (``CompatibilityTranslator``); ``null_checks``
    refuses explicit nulls on optional fields, before expansion and in the verifier (turn it
    off for events built in Python, which serialize ``None`` as absent anyway); ``verify``
    runs the sequence verifier (``EventVerifier``; off, the events are only expanded);
    ``strict_end`` makes ``finish()`` refuse a stream that stopped inside a run;
    ``tools`` (the run's declared tools) lets the verifier tell a call closed without the
    arguments its tool's schema requires (rule ``tool.args-missing``), as does a
    ``RUN_STARTED.input``. ``on_tool_arguments`` is told about tool-call arguments that are not
    JSON (default: a
    ``ToolArgumentsWarning``; see ``EventVerifier``); ``enforce`` (default: as
    ``compatibility``) strips unrecognised material with an ``UnrecognisedMaterialWarning``
    and refuses a JSON Patch path that is not a JSON Pointer (``ag_ui.verify._enforce``);
    ``strict_draft`` makes the draft specification's rules fatal (default: warnings).

    Errors are the stages' own: ``AGUIValidationError`` for a forbidden null,
    ``ChunkExpansionError``, ``EventSequenceError``, ``UnterminatedRunError``. After one, the
    stream should be abandoned.

    >>> from ag_ui.core import RunStartedEvent, TextMessageChunkEvent
    >>> stream = StreamVerifier()
    >>> [e.type.value for e in stream.feed(RunStartedEvent(thread_id="t", run_id="r"))]
    ['RUN_STARTED']
    >>> [e.type.value for e in stream.feed(TextMessageChunkEvent(message_id="m", delta="Hi"))]
    ['TEXT_MESSAGE_START', 'TEXT_MESSAGE_CONTENT']
    """

    def __init__(
        self,
        *,
        compatibility: bool = True,
        null_checks: bool = True,
        verify: bool = True,
        strict_end: bool = True,
        id_factory: Optional[Callable[[], str]] = None,
        observer: Optional[StageObserver] = None,
        on_tool_arguments: Optional[Callable[[str], None]] = None,
        enforce: Optional[bool] = None,
        strict_draft: bool = False,
        tools: Optional[Iterable[Tool]] = None,
    ) -> None:
        # A consumer of received events enforces; a producer's own guard (compatibility off)
        # passes its events on as they were built.
        self.enforce = compatibility if enforce is None else enforce
        self.compatibility = (
            CompatibilityTranslator(id_factory=id_factory) if compatibility else None
        )
        self.chunks = ChunkExpander()
        self.verifier = (
            EventVerifier(
                strict_end=strict_end,
                null_checks=null_checks,
                on_tool_arguments=on_tool_arguments,
                strict_draft=strict_draft,
                tools=tools,
            )
            if verify
            else None
        )
        self.null_checks = null_checks
        self._observer = observer
        self._translate = None if self.compatibility is None else self.compatibility.translate
        self._expand = self.chunks.feed
        self._verify = None if self.verifier is None else self.verifier.feed
        self._translated: Optional[Event] = None  # the last expansion's input (see check)
        if observer is None:
            # Nothing to tell apart: checking an event is verifying it (one call less per event).
            self.check = self._verify or _nothing  # type: ignore[method-assign]

    def expand(self, event: AnyEvent) -> list[Event]:
        """Translate, null-check and expand one received event; the events are not verified
        yet: ``check`` each, in order, before using it."""
        # Without compatibility the caller feeds 1.0 events (a producer's own), as documented.
        translated = cast(Event, event) if self._translate is None else self._translate(event)
        if self.enforce:
            translated = _enforce(translated, stacklevel=3)
        if self.null_checks:
            reject_optional_nulls(translated)
        self._translated = translated
        return self._expand(translated)

    def check(self, event: Event) -> None:
        """Verify one event ``expand`` returned (raises ``ProtocolError`` on a violation)."""
        observer = self._observer
        if observer is not None and event is not self._translated:
            observer("TRANSFORM", event)
        if self._verify is not None:
            self._verify(event)
            if observer is not None:
                observer("VERIFY", event)

    def feed(self, event: AnyEvent) -> list[Event]:
        """``expand`` one event and ``check`` each result; returns the verified events."""
        expanded = self.expand(event)
        for item in expanded:
            self.check(item)
        return expanded

    def finish(self) -> None:
        """End of the stream: drop unfinished chunk streams, then the verifier's end check."""
        self.chunks.finish()
        if self.verifier is not None:
            self.verifier.finish()
