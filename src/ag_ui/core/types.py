"""Messages, content parts, tools, run input, interrupts and JSON Patch operations.

Every class follows the seed API (``spec/seed-types.md``) and protocol 1.0 (PROTOCOL.md §2).
Field declaration order is the wire key order of the official SDKs.
"""

# No ``from __future__ import annotations`` in the model modules: pydantic would compile and
# evaluate every string annotation at import (7 ms of ``import ag_ui.core``).
from typing import Annotated, Any, Dict, List, Literal, Optional, Union

from pydantic import BeforeValidator, ConfigDict, Discriminator, Field, Tag

from ag_ui.core._base import AGUIModel, ConfiguredBaseModel, GeneratedBaseModel
from ag_ui.core.deprecated import BinaryInputContent

__all__ = [
    "AGUI_METADATA_KEY",
    "ActivityMessage",
    "AddOperation",
    "AssistantMessage",
    "Attributable",
    "AudioInputContent",
    "AudioInputPart",
    "AudioPart",
    "BaseMessage",
    "BinaryInputContent",
    "ConfiguredBaseModel",
    "ContentPart",
    "Context",
    "CopyOperation",
    "DataSource",
    "DeveloperMessage",
    "DocumentInputContent",
    "DocumentInputPart",
    "DocumentPart",
    "FileSource",
    "FunctionCall",
    "GeneratedBaseModel",
    "ImageInputContent",
    "ImageInputPart",
    "ImagePart",
    "InputContent",
    "InputContentDataSource",
    "InputContentPart",
    "InputContentSource",
    "InputContentUrlSource",
    "Interrupt",
    "JsonPatch",
    "JsonPatchOperation",
    "JsonPointer",
    "Message",
    "Metadata",
    "MoveOperation",
    "PartSource",
    "ReasoningMessage",
    "RemoveOperation",
    "ReplaceOperation",
    "ResumeEntry",
    "ResumeStatus",
    "Role",
    "RunAgentInput",
    "State",
    "SubagentRunId",
    "SystemMessage",
    "TestOperation",
    "UnknownOperation",
    "UnknownPart",
    "TextInputContent",
    "TextMessageRole",
    "TextPart",
    "Tool",
    "ToolCall",
    "ToolMessage",
    "UrlSource",
    "UserMessage",
    "VideoInputContent",
    "VideoInputPart",
    "VideoPart",
]

AGUI_METADATA_KEY = "ag-ui"
"""Metadata key reserved by convention for the protocol's own use."""

Metadata = Dict[str, Any]
"""Open-by-key object; absent or an object, never null. Nulls under a key are data."""

SubagentRunId = str
"""Opaque handle of one subagent invocation (not a reusable subagent name)."""

State = Any
"""Any JSON value: replaced by STATE_SNAPSHOT, patched by STATE_DELTA."""

Role = Literal["developer", "system", "assistant", "user", "tool", "activity", "reasoning"]
TextMessageRole = Literal["developer", "system", "assistant", "user"]
ResumeStatus = Literal["resolved", "cancelled"]


class Attributable(AGUIModel):
    """Mixin for anything a subagent can produce: absent ``subagent_run_id`` means the parent."""

    subagent_run_id: Optional[SubagentRunId] = None


# --- Content parts and their sources -------------------------------------------------------


class DataSource(AGUIModel):
    """Inline base64 content."""

    type: Literal["data"] = "data"
    value: str
    mime_type: str


class UrlSource(AGUIModel):
    """Content at a URL (not constrained to a URI format)."""

    type: Literal["url"] = "url"
    value: str
    mime_type: Optional[str] = None


class FileSource(AGUIModel):
    """A handle held by a provider (e.g. a provider file id). Never fetched or parsed."""

    type: Literal["file"] = "file"
    value: str
    provider: Optional[str] = None
    mime_type: Optional[str] = None


PartSource = Annotated[Union[DataSource, UrlSource, FileSource], Field(discriminator="type")]


class TextPart(AGUIModel):
    """A text fragment of a multimodal message."""

    type: Literal["text"] = "text"
    id: Optional[str] = None
    text: str
    metadata: Optional[Any] = None


class ImagePart(AGUIModel):
    """An image content part, from a ``DataSource`` (inline base64) or a ``UrlSource``."""

    type: Literal["image"] = "image"
    id: Optional[str] = None
    source: PartSource
    metadata: Optional[Any] = None


class AudioPart(AGUIModel):
    """An audio content part, from a ``DataSource`` (inline base64) or a ``UrlSource``."""

    type: Literal["audio"] = "audio"
    id: Optional[str] = None
    source: PartSource
    metadata: Optional[Any] = None


class VideoPart(AGUIModel):
    """A video content part, from a ``DataSource`` (inline base64) or a ``UrlSource``."""

    type: Literal["video"] = "video"
    id: Optional[str] = None
    source: PartSource
    metadata: Optional[Any] = None


class DocumentPart(AGUIModel):
    """A document content part (PDF, text...), from a ``DataSource`` or a ``UrlSource``."""

    type: Literal["document"] = "document"
    id: Optional[str] = None
    source: PartSource
    metadata: Optional[Any] = None


ContentPart = Annotated[
    Union[TextPart, ImagePart, AudioPart, VideoPart, DocumentPart],
    Field(discriminator="type"),
]


class UnknownPart(AGUIModel):
    """A user-message content part whose ``type`` this SDK does not know (from a newer
    protocol), kept as received: its other members are extras, so it is written back unchanged.
    A consumer (``HttpAgent``, ``agui verify``) removes it with a warning, as
    ``@ag-ui/client`` strips an unrecognised list element and keeps the rest of the message."""

    type: str


_USER_PART_TYPES = frozenset({"text", "image", "audio", "video", "document", "binary"})


def _user_part_member(value: Any) -> Optional[str]:
    kind = value.get("type") if isinstance(value, dict) else getattr(value, "type", None)
    if not isinstance(kind, str):
        return None
    return kind if kind in _USER_PART_TYPES else "unknown part"


_user_part_member.__name__ = "type"  # named in errors as "type()"; _readable reads "type"

# A user message also accepts the retired 0.x ``binary`` part so a legacy client's request
# parses, and keeps a part of a newer protocol (``UnknownPart``) instead of failing the message.
_UserContentPart = Annotated[
    Union[
        Annotated[TextPart, Tag("text")],
        Annotated[ImagePart, Tag("image")],
        Annotated[AudioPart, Tag("audio")],
        Annotated[VideoPart, Tag("video")],
        Annotated[DocumentPart, Tag("document")],
        Annotated[BinaryInputContent, Tag("binary")],
        Annotated[UnknownPart, Tag("unknown part")],
    ],
    Discriminator(_user_part_member),
]

# 0.x names of the same classes (PROTOCOL.md §2.11).
InputContent = ContentPart
InputContentPart = ContentPart
TextInputContent = TextPart
ImageInputContent = ImageInputPart = ImagePart
AudioInputContent = AudioInputPart = AudioPart
VideoInputContent = VideoInputPart = VideoPart
DocumentInputContent = DocumentInputPart = DocumentPart
InputContentSource = PartSource
InputContentDataSource = DataSource
InputContentUrlSource = UrlSource


# --- Messages ------------------------------------------------------------------------------


class FunctionCall(AGUIModel):
    """Function name and its arguments as JSON text (kept as written, even if invalid)."""

    name: str
    arguments: str


class ToolCall(AGUIModel):
    """A tool call made by an assistant message."""

    id: str
    type: Literal["function"] = "function"
    function: FunctionCall
    encrypted_value: Optional[str] = None
    # 1.1: the producer's name for the kind of artefact; opaque to consumers.
    encrypted_value_type: Optional[str] = None
    metadata: Optional[Metadata] = None


class BaseMessage(AGUIModel):
    """Fields shared by the developer, system, assistant and user messages."""

    subagent_run_id: Optional[SubagentRunId] = None
    id: str
    role: str
    name: Optional[str] = None
    encrypted_value: Optional[str] = None
    # 1.1: the producer's name for the kind of artefact; opaque to consumers.
    encrypted_value_type: Optional[str] = None
    metadata: Optional[Metadata] = None


class DeveloperMessage(BaseMessage):
    """Instructions from the developer (``content`` is text)."""

    role: Literal["developer"] = "developer"
    content: str


class SystemMessage(BaseMessage):
    """A system prompt (``content`` is text)."""

    role: Literal["system"] = "system"
    content: str


class AssistantMessage(BaseMessage):
    """What the agent said: optional text ``content`` and the ``tool_calls`` it made."""

    role: Literal["assistant"] = "assistant"
    content: Optional[str] = None
    tool_calls: Optional[List[ToolCall]] = None


class UserMessage(BaseMessage):
    """What the user said: text, or a list of content parts (text, image, audio, video, file)."""

    role: Literal["user"] = "user"
    content: Union[str, List[_UserContentPart]]


class ToolMessage(AGUIModel):
    """A tool's answer to ``tool_call_id``; ``error`` rides alongside a partial ``content``."""

    subagent_run_id: Optional[SubagentRunId] = None
    id: str
    role: Literal["tool"] = "tool"
    content: Union[str, List[ContentPart]]
    tool_call_id: str
    error: Optional[str] = None
    encrypted_value: Optional[str] = None
    # 1.1: the producer's name for the kind of artefact; opaque to consumers.
    encrypted_value_type: Optional[str] = None
    metadata: Optional[Metadata] = None


class ActivityMessage(AGUIModel):
    """Structured progress shown between chat messages; never sent back to the agent."""

    subagent_run_id: Optional[SubagentRunId] = None
    id: str
    role: Literal["activity"] = "activity"
    activity_type: str
    content: Dict[str, Any]
    metadata: Optional[Metadata] = None


class ReasoningMessage(AGUIModel):
    """The agent's reasoning text (or an encrypted artefact of it)."""

    subagent_run_id: Optional[SubagentRunId] = None
    id: str
    role: Literal["reasoning"] = "reasoning"
    content: str
    encrypted_value: Optional[str] = None
    # 1.1: the producer's name for the kind of artefact; opaque to consumers.
    encrypted_value_type: Optional[str] = None
    metadata: Optional[Metadata] = None


Message = Annotated[
    Union[
        DeveloperMessage,
        SystemMessage,
        AssistantMessage,
        UserMessage,
        ToolMessage,
        ActivityMessage,
        ReasoningMessage,
    ],
    Field(discriminator="role"),
]


# --- Run input -----------------------------------------------------------------------------


class Context(AGUIModel):
    """A piece of context given to the agent."""

    description: str
    value: str


class Tool(AGUIModel):
    """A tool the client offers for a run; ``parameters`` is a JSON Schema (absent: no args)."""

    name: str
    description: str
    parameters: Optional[Any] = None
    metadata: Optional[Metadata] = None


class Interrupt(AGUIModel):
    """Why a run paused for outside input (ends a run via the ``interrupt`` outcome)."""

    subagent_run_id: Optional[SubagentRunId] = None
    id: str
    reason: str
    message: Optional[str] = None
    tool_call_id: Optional[str] = None
    response_schema: Optional[Dict[str, Any]] = None
    expires_at: Optional[str] = None
    metadata: Optional[Metadata] = None


class ResumeEntry(AGUIModel):
    """The answer to one interrupt of the previous run."""

    interrupt_id: str
    status: ResumeStatus
    payload: Optional[Any] = None
    metadata: Optional[Metadata] = None


def _none_as_empty(value: Any) -> Any:
    """``"tools": null`` and ``"context": null`` (which 1.0.0 accepts) read as empty lists."""
    return [] if value is None else value


class RunAgentInput(AGUIModel):
    """The body of the ``POST`` that starts a run.

    ``tools`` and ``context`` default to empty lists and ``state``/``forwarded_props`` to
    ``None`` (left out of the wire form), as protocol 1.0 made them optional; the seed's types
    are unchanged, so ``for tool in run_input.tools`` always works.
    """

    thread_id: str
    run_id: str
    protocol_version: Optional[str] = None
    parent_run_id: Optional[str] = None
    state: State = None
    messages: List[Message]
    tools: Annotated[List[Tool], BeforeValidator(_none_as_empty)] = Field(default_factory=list)
    context: Annotated[List[Context], BeforeValidator(_none_as_empty)] = Field(default_factory=list)
    forwarded_props: Any = None
    resume: Optional[List[ResumeEntry]] = None


# --- JSON Patch (RFC 6902) ----------------------------------------------------------------

JsonPointer = str
"""RFC 6901 pointer; the empty string is the whole document. Not checked at construction, as in
1.0.0: the reducer refuses a malformed pointer when it applies the patch (with a warning, as the
TypeScript client does)."""


class _PatchOperation(AGUIModel):
    # ``from`` is a Python keyword: the attribute is ``from_`` and the wire name always ``from``.
    model_config = ConfigDict(**AGUIModel.model_config, serialize_by_alias=True)


class AddOperation(_PatchOperation):
    """JSON Patch ``add``: put ``value`` at ``path`` (inserting into arrays)."""

    op: Literal["add"] = "add"
    path: JsonPointer
    value: Any


class RemoveOperation(_PatchOperation):
    """JSON Patch ``remove``: delete what is at ``path``."""

    op: Literal["remove"] = "remove"
    path: JsonPointer


class ReplaceOperation(_PatchOperation):
    """JSON Patch ``replace``: swap what is at ``path`` (which must exist) for ``value``."""

    op: Literal["replace"] = "replace"
    path: JsonPointer
    value: Any


class MoveOperation(_PatchOperation):
    """JSON Patch ``move``: remove ``from_`` (wire ``from``) and add it at ``path``."""

    op: Literal["move"] = "move"
    from_: JsonPointer = Field(alias="from")
    path: JsonPointer


class CopyOperation(_PatchOperation):
    """JSON Patch ``copy``: add a copy of ``from_`` (wire ``from``) at ``path``."""

    op: Literal["copy"] = "copy"
    from_: JsonPointer = Field(alias="from")
    path: JsonPointer


class TestOperation(_PatchOperation):
    """JSON Patch ``test``: the patch fails unless ``path`` holds ``value``."""

    __test__ = False  # not a pytest test class

    op: Literal["test"] = "test"
    path: JsonPointer
    value: Any


class UnknownOperation(_PatchOperation):
    """A JSON Patch operation whose ``op`` RFC 6902 does not define (a newer protocol's?),
    kept as received (its other members are extras); the reducer skips it with a warning, as
    the TypeScript client drops it."""

    op: str


_KNOWN_OPS = frozenset({"add", "remove", "replace", "move", "copy", "test"})


def _operation_member(value: Any) -> Optional[str]:
    op = value.get("op") if isinstance(value, dict) else getattr(value, "op", None)
    if not isinstance(op, str):
        return None
    return op if op in _KNOWN_OPS else "unknown op"


_operation_member.__name__ = "op"  # named in errors as "op()"; _readable reads "op"

JsonPatchOperation = Annotated[
    Union[
        Annotated[AddOperation, Tag("add")],
        Annotated[RemoveOperation, Tag("remove")],
        Annotated[ReplaceOperation, Tag("replace")],
        Annotated[MoveOperation, Tag("move")],
        Annotated[CopyOperation, Tag("copy")],
        Annotated[TestOperation, Tag("test")],
        Annotated[UnknownOperation, Tag("unknown op")],
    ],
    Discriminator(_operation_member),
]
JsonPatch = List[JsonPatchOperation]
