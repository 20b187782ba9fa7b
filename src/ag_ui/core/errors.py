"""The SDK's error tree. Every error the SDK raises on purpose is an ``AGUIError``::

    AGUIError
    ├── AGUIValidationError (ValueError)     input does not match the protocol's types
    │   ├── MalformedJSONError               the text is not JSON at all
    │   └── UnknownEventTypeError            a well-formed event of a type this SDK does not know
    ├── EncodingError (TypeError, ValueError) an object or field that cannot be encoded
    ├── DecodeError                          a wire stream (SSE, protobuf frames) is broken
    │   ├── FrameTooLargeError               a frame/event is above the configured limit
    │   ├── TruncatedFrameError              the stream ended in the middle of a frame
    │   ├── MalformedFrameError              a protobuf frame holds no valid event
    │   ├── UnknownEventArmError             a protobuf frame holds only an event this SDK
    │   │                                    does not know (also an UnknownEventTypeError: skip it)
    │   └── VarintError (ValueError)         bytes hold no complete protobuf varint (ag_ui.proto)
    ├── ProtocolError                        an event breaks a sequence rule (verifier)
    │   ├── EventSequenceError               a §5 verification rule (``rule`` = "T1", "F5", ...)
    │   ├── UnterminatedRunError             the stream stopped inside a run (strict finish)
    │   ├── ChunkExpansionError              a *_CHUNK event cannot be expanded (§6.3)
    │   ├── SequenceViolationError           the server's guard refused an agent's event
    │   │                                    (``SequenceViolation`` is the old name)
    │   └── RunEndedError                    an agent emitted after its run's terminal event
    ├── PatchError                           a JSON Patch (RFC 6902) cannot be applied
    ├── RequestRejectedError                 the server refuses a request (carries status, code)
    ├── TransportError                       HTTP-level failures (client)
    │   ├── HTTPStatusError                  a non-2xx answer (carries status and parsed body)
    │   │   └── RedirectError                a redirect the client does not follow (carries
    │   │                                    ``location``): 301/302/303 to a POST, too many
    │   ├── ContentTypeError                 a 2xx answer that is not an event stream
    │   ├── IncompleteStreamError            the stream ended without RUN_FINISHED/RUN_ERROR
    │   │   └── ConnectionLostError          the connection broke mid-stream (a detached
    │   │                                    run's client reconnects first)
    │   └── IdleTimeoutError                 no event (nor keepalive) within the idle timeout
    ├── RunError                             the agent reported RUN_ERROR (carries ``code``)
    │   └── ProviderError                    (ag_ui.providers) a model provider failed (carries
    │                                        ``code``, ``provider``, ``status``)
    ├── ProviderConfigError (ValueError)     (ag_ui.providers) a model spec or provider setting
    │                                        that cannot work (unknown provider, no API key)
    ├── SubscriberError                      a client subscriber's callback raised (logged and
    │                                        kept in ``RunAgentResult.subscriber_errors``)
    ├── RunNotFoundError                     (run stores) unknown, expired or evicted run
    ├── HistoryTrimmedError                  (run stores) the events asked for were trimmed
    ├── RunAbandonedError                    (run stores) a running run's writer stopped beating
    ├── StoreFullError                       (run stores) every run slot holds a running run
    ├── StoreUnavailableError                (run and thread stores) the store's service
    │                                        (Redis, PostgreSQL) is down
    ├── ThreadNotFoundError (LookupError)    (thread stores) no such thread for this principal
    ├── InterruptError                       a run would ignore or wrongly answer open interrupts
    ├── ToolRoundsExceededError              (client) the agent kept calling client tools past
    │                                        ``max_tool_rounds`` follow-up runs
    ├── InspectorError                       (ag_ui.inspect) what the person asked of
    │                                        ``agui inspect`` cannot be done
    ├── ToolDefinitionError (TypeError)      (ag_ui.tools) a function that cannot become a tool
    └── ToolError                            (ag_ui.tools) a tool failed; its message is public
        └── ToolArgumentsError (ValueError)  the arguments do not fit the tool's parameters

The run-store errors are re-exported by ``ag_ui.store`` and ``ag_ui.server``; the server's
own errors (``RequestRejectedError``, ``RunEndedError``, ``SequenceViolationError``,
``RunError``) by ``ag_ui.server``. Messages say what happened and how to fix it; input errors
name the wire path (``messages[0] (role "user"): missing required field "id"``).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any, Optional

__all__ = [
    "AGUIError",
    "AGUIValidationError",
    "ChunkExpansionError",
    "ConnectionLostError",
    "ContentTypeError",
    "DecodeError",
    "EncodingError",
    "EventSequenceError",
    "FrameTooLargeError",
    "HTTPStatusError",
    "HistoryTrimmedError",
    "IdleTimeoutError",
    "IncompleteStreamError",
    "InspectorError",
    "InterruptError",
    "MalformedFrameError",
    "MalformedJSONError",
    "PatchError",
    "ProtocolError",
    "ProviderConfigError",
    "ProviderError",
    "RedirectError",
    "RequestRejectedError",
    "RunEndedError",
    "RunAbandonedError",
    "RunError",
    "RunNotFoundError",
    "SequenceViolation",
    "SequenceViolationError",
    "StoreFullError",
    "StoreUnavailableError",
    "SubscriberError",
    "ThreadNotFoundError",
    "ToolArgumentsError",
    "ToolDefinitionError",
    "ToolError",
    "ToolRoundsExceededError",
    "TransportError",
    "TruncatedFrameError",
    "UnknownEventArmError",
    "UnknownEventTypeError",
    "UnterminatedRunError",
    "VarintError",
]


class AGUIError(Exception):
    """Base of every error this SDK raises on purpose."""


class AGUIValidationError(AGUIError, ValueError):
    """Input that does not match the protocol's types.

    ``problems`` holds one readable line per problem, each starting with its wire path.
    """

    def __init__(self, what: str, problems: Sequence[str]) -> None:
        self.what = what
        self.problems: tuple[str, ...] = tuple(problems)
        listed = "\n".join(f"  - {problem}" for problem in self.problems)
        super().__init__(f"invalid {what}:\n{listed}" if listed else f"invalid {what}")


class MalformedJSONError(AGUIValidationError):
    """The input is not valid JSON."""

    def __init__(self, what: str, detail: str) -> None:
        super().__init__(what, [f"not valid JSON: {detail}"])


class UnknownEventTypeError(AGUIValidationError):
    """An event whose ``type`` this SDK does not know (e.g. from a newer protocol).

    Consumers skip such events (with a warning) instead of failing the stream.
    """

    def __init__(self, event_type: object, *, problem: Optional[str] = None) -> None:
        self.event_type = event_type
        super().__init__("event", [problem or f'unknown event type "{event_type}"'])


class EncodingError(AGUIError, TypeError, ValueError):
    """An object that cannot be encoded as an AG-UI event or frame."""


class DecodeError(AGUIError):
    """A wire stream (SSE or protobuf frames) is broken.

    ``frame_index`` is the zero-based index of the frame/event where it broke, when known.
    """

    def __init__(self, message: str, *, frame_index: Optional[int] = None) -> None:
        self.frame_index = frame_index
        where = f"frame {frame_index}: " if frame_index is not None else ""
        # Not super(): in ``UnknownEventArmError`` the next class of the MRO is
        # ``UnknownEventTypeError``, whose constructor takes an event type, not a message.
        AGUIError.__init__(self, f"{where}{message}")


class VarintError(DecodeError, ValueError):
    """The bytes hold no complete varint of at most ten bytes (``"truncated varint"``...).

    Raised by ``ag_ui.proto``'s varint reader; the protobuf decoder reports it as a
    ``MalformedFrameError`` naming the frame. Still a ``ValueError``, as it always was.
    """


class FrameTooLargeError(DecodeError):
    """A frame or event exceeds the decoder's size limit."""

    def __init__(self, size: int, limit: int, *, frame_index: Optional[int] = None) -> None:
        self.size = size
        self.limit = limit
        super().__init__(
            f"{size} bytes exceeds the limit of {limit} bytes (raise max_frame_size if expected)",
            frame_index=frame_index,
        )


class TruncatedFrameError(DecodeError):
    """The stream ended inside a frame: ``received`` of ``expected`` bytes arrived.

    ``expected`` is None when not even the 4-byte length prefix was complete.
    """

    def __init__(
        self, received: int, expected: Optional[int], *, frame_index: Optional[int] = None
    ) -> None:
        self.received = received
        self.expected = expected
        if expected is None:
            detail = f"only {received} of the 4 length-prefix bytes"
        else:
            detail = f"{received} of {expected} bytes"
        super().__init__(
            f"the stream ended mid-frame ({detail} arrived); the recording or connection was cut",
            frame_index=frame_index,
        )


class MalformedFrameError(DecodeError):
    """A protobuf frame that holds no valid event.

    ``reason`` says what is wrong; ``field_path`` is the protobuf field path where it was found
    (e.g. ``text_message_content.delta``) when known; ``problems`` lists the event's validation
    problems when the bytes decoded but the event they describe is invalid.
    """

    def __init__(
        self,
        reason: str,
        *,
        field_path: Optional[str] = None,
        problems: Sequence[str] = (),
        frame_index: Optional[int] = None,
    ) -> None:
        self.reason = reason
        self.field_path = field_path
        self.problems: tuple[str, ...] = tuple(problems)
        where = f"{field_path}: " if field_path else ""
        listed = "".join(f"\n  - {problem}" for problem in self.problems)
        super().__init__(f"{where}{reason}{listed}", frame_index=frame_index)


class UnknownEventArmError(DecodeError, UnknownEventTypeError):
    """A protobuf frame whose envelope carries only arms this SDK does not know.

    The frame most likely holds an event from a newer protocol version; consumers skip it, as
    they skip an unknown ``type`` on SSE (it is also an ``UnknownEventTypeError``, so one
    ``except`` clause serves both transports). ``field_numbers`` are the unknown arm numbers.
    """

    def __init__(self, field_numbers: Sequence[int], *, frame_index: Optional[int] = None) -> None:
        self.field_numbers: tuple[int, ...] = tuple(field_numbers)
        arms = ", ".join(str(number) for number in self.field_numbers)
        # Each parent sets its own fields; the decode error's message (set last) is the one shown.
        UnknownEventTypeError.__init__(self, None, problem=f"unknown protobuf event arm {arms}")
        DecodeError.__init__(
            self,
            f"the envelope carries only unknown event arm(s) {arms} "
            "(an event from a newer protocol version?); skip the frame",
            frame_index=frame_index,
        )


class ProtocolError(AGUIError):
    """An event that breaks a rule of the event sequence (PROTOCOL.md §5).

    ``rule`` names the rule, ``event_type`` the offending event, ``ids`` the ids involved.
    """

    def __init__(
        self,
        message: str,
        *,
        rule: str,
        event_type: Optional[str] = None,
        ids: Optional[dict[str, Any]] = None,
    ) -> None:
        self.rule = rule
        self.event_type = event_type
        self.ids: dict[str, Any] = dict(ids or {})
        super().__init__(message)


class EventSequenceError(ProtocolError):
    """An event that breaks one of the verifier's rules (PROTOCOL.md §5).

    ``rule`` is the rule's code from PROTOCOL.md (``"R2"``, ``"T1"``, ``"O1"``, ``"F5"`` ...).
    """


class UnterminatedRunError(ProtocolError):
    """The stream ended inside a run: no RUN_FINISHED or RUN_ERROR after RUN_STARTED.

    Raised by a strict ``finish()``; the TypeScript client reports such streams as success.
    """


class ChunkExpansionError(ProtocolError):
    """A ``*_CHUNK`` event cannot be expanded into start/content/end (PROTOCOL.md §6.3)."""


class PatchError(AGUIError):
    """A JSON Patch (RFC 6902) operation cannot be applied.

    ``operation_index`` is the zero-based index of the failing operation, ``operation`` the
    operation itself and ``path`` the pointer that failed. Patches are atomic: when one
    operation fails, none of the patch is applied. When raised by ``ag_ui.apply.apply_event``,
    ``event`` is the STATE_DELTA/ACTIVITY_DELTA and ``agent_state`` the state to continue with.
    """

    def __init__(
        self, message: str, *, operation_index: int, operation: Any, path: Optional[str] = None
    ) -> None:
        self.operation_index = operation_index
        self.operation = operation
        self.path = path
        # Set by ``ag_ui.apply.apply_event``: the event whose patch failed, and the AgentState
        # to continue with (the previous one; ACTIVITY_DELTA metadata is kept, as in TS).
        self.event: Any = None
        self.agent_state: Any = None
        super().__init__(f"operation {operation_index}: {message}")


class SequenceViolationError(ProtocolError):
    """Raised into a served agent when the server's guard refuses one of its events.

    The event was not sent and the run is over (the server sent ``RUN_ERROR`` naming the rule).
    ``cause`` is the verifier's error, whose ``rule``, ``event_type`` and ``ids`` this copies.
    """

    def __init__(self, cause: ProtocolError) -> None:
        self.cause = cause
        super().__init__(
            f"event refused (rule {cause.rule}): {cause}",
            rule=cause.rule,
            event_type=cause.event_type,
            ids=cause.ids,
        )


SequenceViolation = SequenceViolationError
"""The former name of ``SequenceViolationError`` (kept importable)."""


class RunEndedError(ProtocolError):
    """Raised into a served agent that emits an event after its run's terminal event."""

    def __init__(self, event_type: str) -> None:
        super().__init__(
            f"cannot send {event_type}: this run has already ended (its terminal event was sent)",
            rule="run_ended",
            event_type=event_type,
        )


class RequestRejectedError(AGUIError):
    """A server refuses a request before any event streams (4xx answer).

    ``status`` is the HTTP status, ``code`` a stable machine-readable name (``"unauthorized"``),
    ``details`` readable lines (for a schema error, one per wrong field with its wire path). An
    authorization hook raises it with status 401 or 403.
    """

    def __init__(
        self,
        status: int,
        code: str,
        message: str,
        *,
        details: Sequence[str] = (),
        headers: Optional[dict[str, str]] = None,
    ) -> None:
        self.status = status
        self.code = code
        self.message = message
        self.details: tuple[str, ...] = tuple(details)
        self.headers: dict[str, str] = dict(headers or {})
        super().__init__(f"HTTP {status} {code}: {message}")


class TransportError(AGUIError):
    """The HTTP exchange failed."""


class HTTPStatusError(TransportError):
    """The agent answered with a non-2xx status. ``body`` is parsed JSON when possible;
    ``retry_after`` is the answer's ``Retry-After`` in seconds (``None`` when it had none, or
    one that is not a number of seconds)."""

    def __init__(
        self, status: int, body: Any, *, url: str = "", retry_after: Optional[float] = None
    ) -> None:
        self.status = status
        self.body = body
        self.url = url
        self.retry_after = retry_after
        # JSON as the agent sent it (a Python repr would show single quotes and True/None).
        shown = body if isinstance(body, str) else json.dumps(body, ensure_ascii=False, default=str)
        if len(shown) > 500:
            shown = shown[:500] + "..."
        super().__init__(f"HTTP {status} from {url or 'the agent'}: {shown}")


class RedirectError(HTTPStatusError):
    """A redirect the client does not follow, with why: a 301/302/303 answer to a run's
    ``POST`` (following it would turn the run into a ``GET``, as fetch does), more than 20
    redirects in a row, or a ``Location`` that is not an http(s) URL. ``location`` is the
    ``Location`` header as sent; ``status`` and ``url`` are the redirecting answer's."""

    def __init__(self, status: int, location: str, reason: str, *, url: str = "") -> None:
        self.status = status
        self.body = ""
        self.url = url
        self.retry_after = None
        self.location = location
        TransportError.__init__(
            self,
            f"HTTP {status} from {url or 'the agent'} redirects to {location!r}: {reason}",
        )


class ContentTypeError(TransportError):
    """A 2xx answer whose content type is not an event stream (e.g. an HTML page)."""

    def __init__(self, content_type: str, *, snippet: str = "") -> None:
        self.content_type = content_type
        self.snippet = snippet
        hint = f"; body starts with {snippet!r}" if snippet else ""
        super().__init__(
            f"expected text/event-stream or application/vnd.ag-ui.event+proto, "
            f"got {content_type or 'no content type'}{hint}"
        )


class IncompleteStreamError(TransportError):
    """The stream ended before RUN_FINISHED or RUN_ERROR."""

    def __init__(self, message: str, *, events_received: int = 0) -> None:
        self.events_received = events_received
        super().__init__(message)


class ConnectionLostError(IncompleteStreamError):
    """The connection broke after the event stream had started (the agent or a proxy died).

    The client reconnects to a detached run first (docs/resume.md); a run that still lost
    events ends with an ``IncompleteStreamError`` saying what was received, unless a terminal
    event had already arrived (then nothing was lost and the run stands).
    """


class IdleTimeoutError(TransportError):
    """Nothing arrived (no event, no keepalive) within the idle timeout."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        super().__init__(f"no event or keepalive for {seconds:g} s; the agent looks stalled")


class RunError(AGUIError):
    """The agent ended the run with RUN_ERROR."""

    def __init__(self, message: str, *, code: Optional[str] = None) -> None:
        self.code = code
        self.message = message
        super().__init__(f"[{code}] {message}" if code else message)


class SubscriberError(AGUIError):
    """A client subscriber's callback raised; the run went on without it (as in TypeScript).

    ``callback`` is the callback's name (``"on_text_message_content_event"``), ``subscriber``
    the object it belongs to; ``__cause__`` is what it raised. The client logs each one at
    ERROR level on the ``ag_ui.client`` logger and lists them in
    ``RunAgentResult.subscriber_errors``; raise one to fail on it.
    """

    def __init__(self, callback: str, subscriber: object, error: BaseException) -> None:
        self.callback = callback
        self.subscriber = subscriber
        self.error = error
        super().__init__(
            f"subscriber {type(subscriber).__name__}.{callback} raised "
            f"{type(error).__name__}: {error}"
        )
        self.__cause__ = error


class InterruptError(AGUIError):
    """Open interrupts are not answered properly (client side, before any request is sent).

    ``interrupt_ids`` are the interrupts concerned; ``reason`` is ``"unaddressed"`` (the resume
    leaves them open), ``"expired"`` (only ``cancelled`` may answer them), ``"missing"`` (no
    response given) or ``"unknown"`` (a response names no open interrupt).
    """

    def __init__(self, message: str, *, interrupt_ids: Sequence[str], reason: str) -> None:
        self.interrupt_ids: tuple[str, ...] = tuple(interrupt_ids)
        self.reason = reason
        super().__init__(message)


class ToolRoundsExceededError(AGUIError):
    """The agent still called client tools after ``max_tool_rounds`` follow-up runs.

    ``HttpAgent.run_agent`` answers the calls of registered client tools and runs again; a run
    that ends with such calls once the rounds are used up stops the loop here, with those calls
    left unanswered in the conversation. ``rounds`` is the bound, ``pending_tool_calls`` the
    calls (``ToolCall``) and ``result`` the last run's ``RunAgentResult``: answer the calls with
    ``agent.add_tool_result(...)`` and run again, or raise ``max_tool_rounds``.
    """

    def __init__(self, rounds: int, pending_tool_calls: Sequence[Any], result: Any) -> None:
        self.rounds = rounds
        self.pending_tool_calls = list(pending_tool_calls)
        self.result = result
        names = ", ".join(f"{call.function.name} ({call.id})" for call in self.pending_tool_calls)
        super().__init__(
            f"the agent still calls client tools after {rounds} follow-up run(s) "
            f"(max_tool_rounds={rounds}): {names} left unanswered; raise max_tool_rounds if "
            "the agent needs more rounds, or answer them with add_tool_result() and run again"
        )


class ProviderError(RunError):
    """A model provider (OpenAI, Anthropic, a compatible server) failed; raised by
    ``ag_ui.providers`` so the run ends with ``RUN_ERROR`` carrying ``code``.

    ``code`` is stable (``rate_limited``, ``context_length_exceeded``, ``provider_timeout``...,
    listed in docs/providers.md); ``message`` is safe to show a user (no provider text unless the
    endpoint runs with ``debug``). ``provider`` names the API, ``status`` is the HTTP status when
    there was one, ``retry_after`` the seconds the provider asked to wait (if it said);
    ``detail`` what went wrong in the provider's or this server's words, for the server log (the
    message carries it only in debug).
    """

    def __init__(
        self,
        message: str,
        *,
        code: str,
        provider: str,
        status: Optional[int] = None,
        retry_after: Optional[float] = None,
        detail: Optional[str] = None,
    ) -> None:
        super().__init__(message, code=code)
        self.code: str = code
        self.provider = provider
        self.status = status
        self.retry_after = retry_after
        self.detail = detail


class ProviderConfigError(AGUIError, ValueError):
    """A model provider cannot be set up as asked: an unknown ``PROVIDER:MODEL`` spec, a missing
    API key, an SDK that is not installed... The message names the fix."""


class ToolDefinitionError(AGUIError, TypeError):
    """A function cannot be described as a tool (e.g. ``*args``, a parameter type with no JSON
    Schema, an invalid name); the message names the parameter and the fix."""


class ToolError(AGUIError):
    """A tool failed. Raise it from a tool function to tell the model (and the user) what went
    wrong: its message is sent as the tool's result, while any other exception is reported
    without its text (which may hold secrets) unless errors are exposed."""


class ToolArgumentsError(ToolError, ValueError):
    """The arguments of a tool call do not fit the tool's parameters.

    ``problems`` holds one line per problem, each starting with the argument's path.
    """

    def __init__(self, tool_name: str, problems: Sequence[str]) -> None:
        self.tool_name = tool_name
        self.problems: tuple[str, ...] = tuple(problems)
        listed = "; ".join(self.problems)
        super().__init__(f"invalid arguments for tool {tool_name!r}: {listed}")


# -- run stores (``ag_ui.store``; re-exported there and by ``ag_ui.server``) ----------------------


class _KeyedStoreError(AGUIError):
    """A store error about one run, named by its ``key`` (the server's resume key)."""

    key: str

    @property
    def run_id(self) -> str:
        """Deprecated: the run's key, ``key`` (it was never the client's ``runId``)."""
        import warnings

        warnings.warn(
            f"{type(self).__name__}.run_id is deprecated: use .key (the run's resume key)",
            DeprecationWarning,
            stacklevel=2,
        )
        return self.key


class RunNotFoundError(_KeyedStoreError):
    """No such run: never created, expired, or evicted (the server answers 404)."""

    def __init__(self, key: str) -> None:
        self.key = key
        super().__init__(f"run {key!r} not found (unknown, expired or evicted)")


class HistoryTrimmedError(_KeyedStoreError):
    """The events after the requested position were trimmed (the per-run event bound, or the
    in-memory store's byte budget)."""

    def __init__(self, key: str, position: int, oldest: int) -> None:
        self.key = key
        self.position = position
        self.oldest = oldest
        super().__init__(
            f"run {key!r}: events after position {position} are no longer stored "
            f"(oldest kept is {oldest}); raise the store's max_events_per_run (or an "
            "InMemoryRunStore's max_bytes) to keep more"
        )


class RunAbandonedError(_KeyedStoreError):
    """A running run's writer stopped refreshing its heartbeat (its worker died, or shut down
    without recording the run's end): the run will make no more progress."""

    def __init__(self, key: str) -> None:
        self.key = key
        super().__init__(
            f"run {key!r} is abandoned: the worker writing it stopped (its heartbeat is stale) "
            "and its end was never recorded"
        )


class InspectorError(AGUIError):
    """Something the person asked of ``agui inspect`` cannot be done (a file that is not a
    recording, an unknown session...); the inspector's page shows the message."""


class StoreFullError(AGUIError):
    """Every slot holds a running run; nothing can be evicted (the server answers 503)."""


class StoreUnavailableError(AGUIError):
    """The backing service (e.g. Redis) cannot be reached."""


class ThreadNotFoundError(AGUIError, LookupError):
    """(thread stores) No thread of that id for this principal: never stored, deleted, or
    another principal's (the server answers 404 and never says which)."""

    def __init__(self, thread_id: str) -> None:
        self.thread_id = thread_id
        super().__init__(f"thread {thread_id!r} not found")
