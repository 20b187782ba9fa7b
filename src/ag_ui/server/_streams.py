"""Context managers for streamed pieces of a run: text messages, tool calls, reasoning, steps.

Each opens its stream on entry and closes it on exit, also when the body raises an ordinary
exception (so an agent that catches the error keeps a valid sequence). On cancellation nothing is
sent: the client is gone.
"""

from __future__ import annotations

from collections.abc import AsyncIterable, Awaitable, Callable, Iterable
from types import TracebackType
from typing import Optional, TypeVar, Union

from ag_ui.core.errors import RunEndedError, SequenceViolationError
from ag_ui.core.events import (
    BaseEvent,
    ReasoningEndEvent,
    ReasoningMessageContentEvent,
    ReasoningMessageEndEvent,
    ReasoningMessageStartEvent,
    ReasoningStartEvent,
    StepFinishedEvent,
    StepStartedEvent,
    TextMessageContentEvent,
    TextMessageEndEvent,
    TextMessageStartEvent,
    ToolCallArgsEvent,
    ToolCallEndEvent,
    ToolCallStartEvent,
)
from ag_ui.core.types import TextMessageRole

__all__ = [
    "Emit",
    "Fragments",
    "ReasoningMessageStream",
    "ReasoningSpan",
    "Step",
    "TextMessageStream",
    "ToolCallStream",
    "iterate_fragments",
]

Emit = Callable[[BaseEvent], Awaitable[None]]
Fragments = Union[str, Iterable[str], AsyncIterable[str]]
"""Text given whole (one delta), or as pieces (one delta each), possibly produced over time."""


async def iterate_fragments(fragments: Fragments) -> AsyncIterable[str]:
    """Yield the pieces of ``fragments``: a string is one piece."""
    if isinstance(fragments, str):
        yield fragments
    elif isinstance(fragments, AsyncIterable):
        async for piece in fragments:
            yield piece
    else:
        for piece in fragments:
            yield piece


_Self = TypeVar("_Self", bound="_Scoped")


def _should_close(exc: Optional[BaseException]) -> bool:
    # Close on success and on ordinary errors; not on cancellation (nobody is listening) nor when
    # the run is already over (the guard closed everything and sent the terminal event).
    if exc is None:
        return True
    return isinstance(exc, Exception) and not isinstance(
        exc, (SequenceViolationError, RunEndedError)
    )


class _Scoped:
    """Base for ``async with`` helpers: ``_open`` on entry, ``_close`` on a clean-enough exit."""

    async def _open(self) -> None:
        raise NotImplementedError

    async def _close(self) -> None:
        raise NotImplementedError

    async def __aenter__(self: _Self) -> _Self:
        await self._open()
        return self

    async def __aexit__(
        self,
        exc_type: Optional[type[BaseException]],
        exc: Optional[BaseException],
        traceback: Optional[TracebackType],
    ) -> None:
        if _should_close(exc):
            await self._close()


class TextMessageStream(_Scoped):
    """One streamed text message: ``TEXT_MESSAGE_START``, a ``CONTENT`` per ``send``, ``END``.

    >>> async def agent(run_input, ctx):  # doctest: +SKIP
    ...     async with ctx.text_message() as message:
    ...         await message.send("Hello, ")
    ...         await message.send("world")
    """

    def __init__(
        self,
        emit: Emit,
        message_id: str,
        *,
        role: TextMessageRole = "assistant",
        name: Optional[str] = None,
        subagent_run_id: Optional[str] = None,
    ) -> None:
        self._emit = emit
        self.message_id = message_id
        self._role = role
        self._name = name
        self._tag = subagent_run_id

    async def _open(self) -> None:
        await self._emit(
            TextMessageStartEvent(
                message_id=self.message_id,
                role=self._role,
                name=self._name,
                subagent_run_id=self._tag,
            )
        )

    async def send(self, delta: str) -> None:
        """Append ``delta`` to the message."""
        await self._emit(
            TextMessageContentEvent(
                message_id=self.message_id, delta=delta, subagent_run_id=self._tag
            )
        )

    async def send_all(self, fragments: Fragments) -> None:
        """Append every piece of ``fragments`` in order."""
        async for piece in iterate_fragments(fragments):
            await self.send(piece)

    async def _close(self) -> None:
        await self._emit(TextMessageEndEvent(message_id=self.message_id, subagent_run_id=self._tag))


class ToolCallStream(_Scoped):
    """One tool call: ``TOOL_CALL_START``, an ``ARGS`` per ``send``, ``END`` on exit.

    The result is a separate message (``ctx.tool_result``), possibly in a later run.
    """

    def __init__(
        self,
        emit: Emit,
        tool_call_id: str,
        name: str,
        *,
        parent_message_id: Optional[str] = None,
        subagent_run_id: Optional[str] = None,
    ) -> None:
        self._emit = emit
        self.tool_call_id = tool_call_id
        self.name = name
        self._parent_message_id = parent_message_id
        self._tag = subagent_run_id

    async def _open(self) -> None:
        await self._emit(
            ToolCallStartEvent(
                tool_call_id=self.tool_call_id,
                tool_call_name=self.name,
                parent_message_id=self._parent_message_id,
                subagent_run_id=self._tag,
            )
        )

    async def send(self, delta: str) -> None:
        """Append ``delta`` to the argument text (conventionally JSON)."""
        await self._emit(
            ToolCallArgsEvent(
                tool_call_id=self.tool_call_id, delta=delta, subagent_run_id=self._tag
            )
        )

    async def send_all(self, fragments: Fragments) -> None:
        """Append every piece of ``fragments`` in order."""
        async for piece in iterate_fragments(fragments):
            await self.send(piece)

    async def _close(self) -> None:
        await self._emit(
            ToolCallEndEvent(tool_call_id=self.tool_call_id, subagent_run_id=self._tag)
        )


class ReasoningMessageStream(_Scoped):
    """One reasoning message inside a span: ``REASONING_MESSAGE_START/CONTENT.../END``."""

    def __init__(self, emit: Emit, message_id: str, *, subagent_run_id: Optional[str]) -> None:
        self._emit = emit
        self.message_id = message_id
        self._tag = subagent_run_id

    async def _open(self) -> None:
        await self._emit(
            ReasoningMessageStartEvent(message_id=self.message_id, subagent_run_id=self._tag)
        )

    async def send(self, delta: str) -> None:
        """Append ``delta`` to the reasoning text."""
        await self._emit(
            ReasoningMessageContentEvent(
                message_id=self.message_id, delta=delta, subagent_run_id=self._tag
            )
        )

    async def _close(self) -> None:
        await self._emit(
            ReasoningMessageEndEvent(message_id=self.message_id, subagent_run_id=self._tag)
        )


class ReasoningSpan(_Scoped):
    """A reasoning span (``REASONING_START`` ... ``REASONING_END``) holding reasoning messages.

    >>> async def agent(run_input, ctx):  # doctest: +SKIP
    ...     async with ctx.reasoning() as span:
    ...         await span.think("The user wants the weather; call the tool.")
    """

    def __init__(
        self,
        emit: Emit,
        span_id: str,
        new_id: Callable[[str], str],
        *,
        subagent_run_id: Optional[str],
    ) -> None:
        self._emit = emit
        self.message_id = span_id
        self._new_id = new_id
        self._tag = subagent_run_id

    async def _open(self) -> None:
        await self._emit(ReasoningStartEvent(message_id=self.message_id, subagent_run_id=self._tag))

    def message(self, *, message_id: Optional[str] = None) -> ReasoningMessageStream:
        """A reasoning message to stream into with ``send`` (use with ``async with``)."""
        return ReasoningMessageStream(
            self._emit, message_id or self._new_id("reasoning"), subagent_run_id=self._tag
        )

    async def think(self, fragments: Fragments, *, message_id: Optional[str] = None) -> str:
        """One whole reasoning message from ``fragments``; returns its id."""
        async with self.message(message_id=message_id) as stream:
            async for piece in iterate_fragments(fragments):
                await stream.send(piece)
        return stream.message_id

    async def _close(self) -> None:
        await self._emit(ReasoningEndEvent(message_id=self.message_id, subagent_run_id=self._tag))


class Step(_Scoped):
    """A named step: ``STEP_STARTED`` on entry, ``STEP_FINISHED`` on exit."""

    def __init__(self, emit: Emit, name: str, *, subagent_run_id: Optional[str]) -> None:
        self._emit = emit
        self.name = name
        self._tag = subagent_run_id

    async def _open(self) -> None:
        await self._emit(StepStartedEvent(step_name=self.name, subagent_run_id=self._tag))

    async def _close(self) -> None:
        await self._emit(StepFinishedEvent(step_name=self.name, subagent_run_id=self._tag))
