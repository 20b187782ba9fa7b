"""All 31 protocol 1.0 events, their outcomes, and the ``Event`` discriminated union.

Field order is the wire key order: ``type``, ``timestamp``, ``rawEvent``, ``metadata``,
``subagentRunId`` (on attributable events), then the event's own fields.
"""

# No ``from __future__ import annotations`` in the model modules: pydantic would compile and
# evaluate every string annotation at import (7 ms of ``import ag_ui.core``).
from enum import Enum
from typing import Annotated, Any, Dict, List, Literal, Optional, Union

from pydantic import AfterValidator, Field, TypeAdapter

from ag_ui.core._base import AGUIModel, ConfiguredBaseModel, GeneratedBaseModel
from ag_ui.core._wire import MAX_SAFE_INTEGER
from ag_ui.core.outcomes import (
    RunFinishedCancelledOutcome,
    RunFinishedInterruptOutcome,
    RunFinishedOutcome,
    RunFinishedSuccessOutcome,
    SubagentFinishedOutcome,
    SubagentFinishedSuccessOutcome,
    SubagentFinishedSuspendedOutcome,
)
from ag_ui.core.token_usage import TokenUsage
from ag_ui.core.types import (
    ContentPart,
    JsonPatchOperation,
    Message,
    Metadata,
    RunAgentInput,
    State,
    SubagentRunId,
    TextMessageRole,
)

__all__ = [
    "ActivityDeltaEvent",
    "ActivitySnapshotEvent",
    "BaseEvent",
    "ConfiguredBaseModel",
    "CustomEvent",
    "Event",
    "EventType",
    "GeneratedBaseModel",
    "MessagesSnapshotEvent",
    "RawEvent",
    "ReasoningEncryptedValueEvent",
    "ReasoningEncryptedValueSubtype",
    "ReasoningEndEvent",
    "ReasoningMessageChunkEvent",
    "ReasoningMessageContentEvent",
    "ReasoningMessageEndEvent",
    "ReasoningMessageRole",
    "ReasoningMessageStartEvent",
    "ReasoningStartEvent",
    "RunErrorEvent",
    "RunFinishedCancelledOutcome",
    "RunFinishedEvent",
    "RunFinishedInterruptOutcome",
    "RunFinishedOutcome",
    "RunFinishedSuccessOutcome",
    "RunStartedEvent",
    "StateDeltaEvent",
    "StateSnapshotEvent",
    "StepFinishedEvent",
    "StepStartedEvent",
    "SubagentErrorEvent",
    "SubagentFinishedEvent",
    "SubagentFinishedOutcome",
    "SubagentFinishedSuccessOutcome",
    "SubagentFinishedSuspendedOutcome",
    "SubagentStartedEvent",
    "TextMessageChunkEvent",
    "TextMessageContentEvent",
    "TextMessageEndEvent",
    "TextMessageStartEvent",
    "TokenUsage",
    "ToolCallArgsEvent",
    "ToolCallChunkEvent",
    "ToolCallEndEvent",
    "ToolCallResultEvent",
    "ToolCallStartEvent",
]

ReasoningEncryptedValueSubtype = Literal["tool-call", "message"]
ReasoningMessageRole = Literal["reasoning"]


class EventType(str, Enum):
    """The wire discriminator of every event (31 members in protocol 1.0)."""

    TEXT_MESSAGE_START = "TEXT_MESSAGE_START"
    TEXT_MESSAGE_CONTENT = "TEXT_MESSAGE_CONTENT"
    TEXT_MESSAGE_END = "TEXT_MESSAGE_END"
    TEXT_MESSAGE_CHUNK = "TEXT_MESSAGE_CHUNK"
    TOOL_CALL_START = "TOOL_CALL_START"
    TOOL_CALL_ARGS = "TOOL_CALL_ARGS"
    TOOL_CALL_END = "TOOL_CALL_END"
    TOOL_CALL_CHUNK = "TOOL_CALL_CHUNK"
    TOOL_CALL_RESULT = "TOOL_CALL_RESULT"
    STATE_SNAPSHOT = "STATE_SNAPSHOT"
    STATE_DELTA = "STATE_DELTA"
    MESSAGES_SNAPSHOT = "MESSAGES_SNAPSHOT"
    ACTIVITY_SNAPSHOT = "ACTIVITY_SNAPSHOT"
    ACTIVITY_DELTA = "ACTIVITY_DELTA"
    RAW = "RAW"
    CUSTOM = "CUSTOM"
    RUN_STARTED = "RUN_STARTED"
    RUN_FINISHED = "RUN_FINISHED"
    RUN_ERROR = "RUN_ERROR"
    STEP_STARTED = "STEP_STARTED"
    STEP_FINISHED = "STEP_FINISHED"
    REASONING_START = "REASONING_START"
    REASONING_MESSAGE_START = "REASONING_MESSAGE_START"
    REASONING_MESSAGE_CONTENT = "REASONING_MESSAGE_CONTENT"
    REASONING_MESSAGE_END = "REASONING_MESSAGE_END"
    REASONING_MESSAGE_CHUNK = "REASONING_MESSAGE_CHUNK"
    REASONING_END = "REASONING_END"
    REASONING_ENCRYPTED_VALUE = "REASONING_ENCRYPTED_VALUE"
    SUBAGENT_STARTED = "SUBAGENT_STARTED"
    SUBAGENT_FINISHED = "SUBAGENT_FINISHED"
    SUBAGENT_ERROR = "SUBAGENT_ERROR"


_patch_operations = TypeAdapter(List[JsonPatchOperation])


class PatchOperation(Dict[str, Any]):
    """One JSON Patch operation, readable both ways callers of 0.x and 1.0.0 read it.

    It is the wire dict (``op["path"]``, what 0.x producers built and adk's code subscripts)
    whose keys are also attributes (``op.path``, ``op.op``, ``op.from_``), as on the typed
    operations of ``ag-ui-protocol`` 1.0.0. A missing key is an ``AttributeError``.
    """

    __slots__ = ()

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        try:
            return self["from" if name == "from_" else name]
        except KeyError:
            raise AttributeError(f"this {self.get('op')!r} operation has no {name!r}") from None


def _as_plain_operations(operations: List[Any]) -> List[Any]:
    """Validate an RFC 6902 patch, then keep its operations as ``PatchOperation`` wire dicts.

    Typed operations (``AddOperation`` ...) and dicts are both accepted on input; consumers read
    the result as ``op["path"]`` (0.x) or ``op.path`` (1.0.0).
    """
    return [
        PatchOperation(op.model_dump(by_alias=True))
        for op in _patch_operations.validate_python(operations)
    ]


PatchOperations = Annotated[List[Any], AfterValidator(_as_plain_operations)]


class BaseEvent(AGUIModel):
    """Fields every event carries.

    Every subclass in this module is a member of the ``Event`` union (code written against
    0.x reflects on ``BaseEvent.__subclasses__()`` and expects that), so the events a subagent
    may produce each declare ``subagent_run_id`` themselves rather than share a private base.
    """

    type: EventType
    timestamp: Optional[Annotated[int, Field(ge=-MAX_SAFE_INTEGER, le=MAX_SAFE_INTEGER)]] = None
    raw_event: Optional[Any] = None
    metadata: Optional[Metadata] = None


# --- Text messages ---------------------------------------------------------------------------


class TextMessageStartEvent(BaseEvent):
    """Opens a streamed text message. ``role`` reads ``"assistant"`` when absent or ``None``
    (what absent means), and is written only when it was given, as 1.0.0 writes it."""

    type: Literal[EventType.TEXT_MESSAGE_START] = EventType.TEXT_MESSAGE_START
    subagent_run_id: Optional[SubagentRunId] = None
    message_id: str
    role: Optional[TextMessageRole] = None
    name: Optional[str] = None


class TextMessageContentEvent(BaseEvent):
    """A piece of an open text message's content (``delta`` is appended as is)."""

    type: Literal[EventType.TEXT_MESSAGE_CONTENT] = EventType.TEXT_MESSAGE_CONTENT
    subagent_run_id: Optional[SubagentRunId] = None
    message_id: str
    delta: str


class TextMessageEndEvent(BaseEvent):
    """Closes the text message ``message_id``."""

    type: Literal[EventType.TEXT_MESSAGE_END] = EventType.TEXT_MESSAGE_END
    subagent_run_id: Optional[SubagentRunId] = None
    message_id: str


class TextMessageChunkEvent(BaseEvent):
    """Shorthand for start/content/end; continuation chunks omit what did not change."""

    type: Literal[EventType.TEXT_MESSAGE_CHUNK] = EventType.TEXT_MESSAGE_CHUNK
    subagent_run_id: Optional[SubagentRunId] = None
    message_id: Optional[str] = None
    role: Optional[TextMessageRole] = None
    delta: Optional[str] = None
    name: Optional[str] = None


# --- Tool calls ------------------------------------------------------------------------------


class ToolCallStartEvent(BaseEvent):
    """Opens a tool call; ``parent_message_id`` names the assistant message it belongs to."""

    type: Literal[EventType.TOOL_CALL_START] = EventType.TOOL_CALL_START
    subagent_run_id: Optional[SubagentRunId] = None
    tool_call_id: str
    tool_call_name: str
    parent_message_id: Optional[str] = None


class ToolCallArgsEvent(BaseEvent):
    """A piece of an open tool call's JSON arguments (the pieces concatenate)."""

    type: Literal[EventType.TOOL_CALL_ARGS] = EventType.TOOL_CALL_ARGS
    subagent_run_id: Optional[SubagentRunId] = None
    tool_call_id: str
    delta: str


class ToolCallEndEvent(BaseEvent):
    """Closes the tool call ``tool_call_id``: its arguments are complete."""

    type: Literal[EventType.TOOL_CALL_END] = EventType.TOOL_CALL_END
    subagent_run_id: Optional[SubagentRunId] = None
    tool_call_id: str


class ToolCallChunkEvent(BaseEvent):
    """Shorthand for tool-call start/args/end; continuation chunks omit what did not change."""

    type: Literal[EventType.TOOL_CALL_CHUNK] = EventType.TOOL_CALL_CHUNK
    subagent_run_id: Optional[SubagentRunId] = None
    tool_call_id: Optional[str] = None
    tool_call_name: Optional[str] = None
    parent_message_id: Optional[str] = None
    delta: Optional[str] = None


class ToolCallResultEvent(BaseEvent):
    """Mints a tool message (its own ``message_id``) answering ``tool_call_id``."""

    type: Literal[EventType.TOOL_CALL_RESULT] = EventType.TOOL_CALL_RESULT
    subagent_run_id: Optional[SubagentRunId] = None
    message_id: str
    tool_call_id: str
    content: Union[str, List[ContentPart]]
    role: Optional[Literal["tool"]] = None


# --- State and messages ----------------------------------------------------------------------


class StateSnapshotEvent(BaseEvent):
    """Replaces the state; ``snapshot`` may be any JSON value, ``null`` included."""

    type: Literal[EventType.STATE_SNAPSHOT] = EventType.STATE_SNAPSHOT
    subagent_run_id: Optional[SubagentRunId] = None
    snapshot: State


class StateDeltaEvent(BaseEvent):
    """An RFC 6902 patch against the current state; operations are kept as plain dicts."""

    type: Literal[EventType.STATE_DELTA] = EventType.STATE_DELTA
    subagent_run_id: Optional[SubagentRunId] = None
    delta: PatchOperations


class MessagesSnapshotEvent(BaseEvent):
    """The whole conversation; reconciled with the messages a client holds (PROTOCOL.md §6.4)."""

    type: Literal[EventType.MESSAGES_SNAPSHOT] = EventType.MESSAGES_SNAPSHOT
    messages: List[Message]


class ActivitySnapshotEvent(BaseEvent):
    """Sets an activity message's content; ``replace=False`` leaves existing content alone.
    ``replace`` reads ``True`` when absent or ``None`` and is written only when given."""

    type: Literal[EventType.ACTIVITY_SNAPSHOT] = EventType.ACTIVITY_SNAPSHOT
    subagent_run_id: Optional[SubagentRunId] = None
    message_id: str
    activity_type: str
    content: Dict[str, Any]
    replace: Optional[bool] = None


class ActivityDeltaEvent(BaseEvent):
    """An RFC 6902 patch against an activity message's ``content``."""

    type: Literal[EventType.ACTIVITY_DELTA] = EventType.ACTIVITY_DELTA
    subagent_run_id: Optional[SubagentRunId] = None
    message_id: str
    activity_type: str
    patch: PatchOperations


# --- Special ---------------------------------------------------------------------------------


class RawEvent(BaseEvent):
    """An event of another system passed through as is (``event``: any JSON; ``source``: whose)."""

    type: Literal[EventType.RAW] = EventType.RAW
    subagent_run_id: Optional[SubagentRunId] = None
    event: Any
    source: Optional[str] = None


class CustomEvent(BaseEvent):
    """An application-defined event: ``name`` and any JSON ``value`` (``null`` included)."""

    type: Literal[EventType.CUSTOM] = EventType.CUSTOM
    subagent_run_id: Optional[SubagentRunId] = None
    name: str
    value: Any


# --- Run lifecycle ---------------------------------------------------------------------------


class RunStartedEvent(BaseEvent):
    """First event of a run. Producers set ``protocol_version=PROTOCOL_VERSION`` themselves."""

    type: Literal[EventType.RUN_STARTED] = EventType.RUN_STARTED
    thread_id: str
    run_id: str
    protocol_version: Optional[str] = None
    parent_run_id: Optional[str] = None
    input: Optional[RunAgentInput] = None


class RunFinishedEvent(BaseEvent):
    """Terminal event of a run; an absent ``outcome`` means success."""

    type: Literal[EventType.RUN_FINISHED] = EventType.RUN_FINISHED
    thread_id: str
    run_id: str
    result: Optional[Any] = None
    outcome: Optional[RunFinishedOutcome] = None
    usage: Optional[List[TokenUsage]] = None


class RunErrorEvent(BaseEvent):
    """Terminal event of a failed run."""

    type: Literal[EventType.RUN_ERROR] = EventType.RUN_ERROR
    message: str
    code: Optional[str] = None
    usage: Optional[List[TokenUsage]] = None


class StepStartedEvent(BaseEvent):
    """Opens the step ``step_name``."""

    type: Literal[EventType.STEP_STARTED] = EventType.STEP_STARTED
    subagent_run_id: Optional[SubagentRunId] = None
    step_name: str


class StepFinishedEvent(BaseEvent):
    """Closes the step ``step_name`` (same name, same owner as its start)."""

    type: Literal[EventType.STEP_FINISHED] = EventType.STEP_FINISHED
    subagent_run_id: Optional[SubagentRunId] = None
    step_name: str


# --- Reasoning -------------------------------------------------------------------------------


class ReasoningStartEvent(BaseEvent):
    """Opens a reasoning span, which may hold several reasoning messages."""

    type: Literal[EventType.REASONING_START] = EventType.REASONING_START
    subagent_run_id: Optional[SubagentRunId] = None
    message_id: str


class ReasoningMessageStartEvent(BaseEvent):
    """Opens a reasoning message inside a reasoning span (``role`` is ``"reasoning"``)."""

    type: Literal[EventType.REASONING_MESSAGE_START] = EventType.REASONING_MESSAGE_START
    subagent_run_id: Optional[SubagentRunId] = None
    message_id: str
    role: ReasoningMessageRole = "reasoning"


class ReasoningMessageContentEvent(BaseEvent):
    """A piece of an open reasoning message's text."""

    type: Literal[EventType.REASONING_MESSAGE_CONTENT] = EventType.REASONING_MESSAGE_CONTENT
    subagent_run_id: Optional[SubagentRunId] = None
    message_id: str
    delta: str


class ReasoningMessageEndEvent(BaseEvent):
    """Closes the reasoning message ``message_id``."""

    type: Literal[EventType.REASONING_MESSAGE_END] = EventType.REASONING_MESSAGE_END
    subagent_run_id: Optional[SubagentRunId] = None
    message_id: str


class ReasoningMessageChunkEvent(BaseEvent):
    """Shorthand for reasoning-message start/content/end, as TEXT_MESSAGE_CHUNK is for text."""

    type: Literal[EventType.REASONING_MESSAGE_CHUNK] = EventType.REASONING_MESSAGE_CHUNK
    subagent_run_id: Optional[SubagentRunId] = None
    message_id: Optional[str] = None
    delta: Optional[str] = None


class ReasoningEndEvent(BaseEvent):
    """Closes the reasoning span opened by ``REASONING_START`` with the same ``message_id``."""

    type: Literal[EventType.REASONING_END] = EventType.REASONING_END
    subagent_run_id: Optional[SubagentRunId] = None
    message_id: str


class ReasoningEncryptedValueEvent(BaseEvent):
    """Attaches an opaque provider artefact to a message or a tool call."""

    type: Literal[EventType.REASONING_ENCRYPTED_VALUE] = EventType.REASONING_ENCRYPTED_VALUE
    subagent_run_id: Optional[SubagentRunId] = None
    subtype: ReasoningEncryptedValueSubtype
    entity_id: str
    encrypted_value: str
    # 1.1: the producer's name for the kind of artefact; opaque to consumers.
    encrypted_value_type: Optional[str] = None


# --- Subagents -------------------------------------------------------------------------------


class SubagentStartedEvent(BaseEvent):
    """Announces a subagent invocation; here ``subagent_run_id`` is its identity."""

    type: Literal[EventType.SUBAGENT_STARTED] = EventType.SUBAGENT_STARTED
    subagent_run_id: SubagentRunId
    name: str
    description: Optional[str] = None
    parent_subagent_run_id: Optional[SubagentRunId] = None
    parent_tool_call_id: Optional[str] = None
    parent_message_id: Optional[str] = None


class SubagentFinishedEvent(BaseEvent):
    """Ends a subagent invocation's segment of the run; an absent ``outcome`` means success."""

    type: Literal[EventType.SUBAGENT_FINISHED] = EventType.SUBAGENT_FINISHED
    subagent_run_id: SubagentRunId
    result: Optional[Any] = None
    outcome: Optional[SubagentFinishedOutcome] = None


class SubagentErrorEvent(BaseEvent):
    """The invocation failed; the run itself may continue."""

    type: Literal[EventType.SUBAGENT_ERROR] = EventType.SUBAGENT_ERROR
    subagent_run_id: SubagentRunId
    message: str
    code: Optional[str] = None


Event = Annotated[
    Union[
        TextMessageStartEvent,
        TextMessageContentEvent,
        TextMessageEndEvent,
        TextMessageChunkEvent,
        ToolCallStartEvent,
        ToolCallArgsEvent,
        ToolCallEndEvent,
        ToolCallChunkEvent,
        ToolCallResultEvent,
        StateSnapshotEvent,
        StateDeltaEvent,
        MessagesSnapshotEvent,
        ActivitySnapshotEvent,
        ActivityDeltaEvent,
        RawEvent,
        CustomEvent,
        RunStartedEvent,
        RunFinishedEvent,
        RunErrorEvent,
        StepStartedEvent,
        StepFinishedEvent,
        ReasoningStartEvent,
        ReasoningMessageStartEvent,
        ReasoningMessageContentEvent,
        ReasoningMessageEndEvent,
        ReasoningMessageChunkEvent,
        ReasoningEndEvent,
        ReasoningEncryptedValueEvent,
        SubagentStartedEvent,
        SubagentFinishedEvent,
        SubagentErrorEvent,
    ],
    Field(discriminator="type"),
]
"""Any protocol 1.0 event; parse with ``ag_ui.core.parse_event`` (or a ``TypeAdapter``)."""


class _ReadsAsDefault:
    """A field stored as given (``None`` when absent, so it is not serialized, as 1.0.0 writes
    nothing there) but read as the 0.x default that Python readers rely on.

    A data descriptor, so it comes before the instance ``__dict__`` pydantic stores fields in;
    serialization reads that ``__dict__`` directly and never sees the default.
    """

    __slots__ = ("default", "name")

    def __init__(self, name: str, default: object) -> None:
        self.name, self.default = name, default

    def __get__(self, instance: object, owner: object = None) -> Any:
        if instance is None:
            return self.default
        value = instance.__dict__.get(self.name)
        return self.default if value is None else value

    def __set__(self, instance: object, value: object) -> None:
        instance.__dict__[self.name] = value


# setattr: the class body declares the stored type (Optional), the descriptor the read value.
setattr(TextMessageStartEvent, "role", _ReadsAsDefault("role", "assistant"))  # noqa: B010
setattr(ActivitySnapshotEvent, "replace", _ReadsAsDefault("replace", True))  # noqa: B010
