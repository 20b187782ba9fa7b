"""The public surface is pinned, deprecated names warn, and core loads no optional dependency."""

from __future__ import annotations

import subprocess
import sys
import warnings

import pytest

import ag_ui.core
import ag_ui.encoder

CORE_ALL = [
    "AGUI_METADATA_KEY",
    "EVENT_ADAPTER",
    "PROTOCOL_VERSION",
    "AGUIError",
    "AGUIModel",
    "AGUIValidationError",
    "ActivityDeltaEvent",
    "ActivityMessage",
    "ActivitySnapshotEvent",
    "AddOperation",
    "AgentCapabilities",
    "AnyEvent",
    "AssistantMessage",
    "Attributable",
    "AudioInputContent",
    "AudioInputPart",
    "AudioPart",
    "BaseEvent",
    "BaseMessage",
    "BinaryInputContent",
    "ConfiguredBaseModel",
    "ContentPart",
    "ContentTypeError",
    "Context",
    "CopyOperation",
    "CustomEvent",
    "DataSource",
    "DecodeError",
    "DeveloperMessage",
    "DocumentInputContent",
    "DocumentInputPart",
    "DocumentPart",
    "EncodingError",
    "Event",
    "EventType",
    "ExecutionCapabilities",
    "FileSource",
    "FrameTooLargeError",
    "FunctionCall",
    "GeneratedBaseModel",
    "HTTPStatusError",
    "HumanInTheLoopCapabilities",
    "IdentityCapabilities",
    "IdleTimeoutError",
    "ImageInputContent",
    "ImageInputPart",
    "ImagePart",
    "IncompleteStreamError",
    "InputContent",
    "InputContentDataSource",
    "InputContentPart",
    "InputContentSource",
    "InputContentUrlSource",
    "Interrupt",
    "JsonPatch",
    "JsonPatchOperation",
    "JsonPointer",
    "MalformedJSONError",
    "Message",
    "MessagesSnapshotEvent",
    "Metadata",
    "MoveOperation",
    "MultiAgentCapabilities",
    "MultimodalCapabilities",
    "MultimodalInputCapabilities",
    "MultimodalOutputCapabilities",
    "OutputCapabilities",
    "PartSource",
    "ProtocolError",
    "RawEvent",
    "ReasoningCapabilities",
    "ReasoningEncryptedValueEvent",
    "ReasoningEncryptedValueSubtype",
    "ReasoningEndEvent",
    "ReasoningMessage",
    "ReasoningMessageChunkEvent",
    "ReasoningMessageContentEvent",
    "ReasoningMessageEndEvent",
    "ReasoningMessageRole",
    "ReasoningMessageStartEvent",
    "ReasoningStartEvent",
    "RemoveOperation",
    "ReplaceOperation",
    "ResumeEntry",
    "ResumeStatus",
    "Role",
    "RunAgentInput",
    "RunError",
    "RunErrorEvent",
    "RunFinishedCancelledOutcome",
    "RunFinishedEvent",
    "RunFinishedInterruptOutcome",
    "RunFinishedOutcome",
    "RunFinishedSuccessOutcome",
    "RunStartedEvent",
    "State",
    "StateCapabilities",
    "StateDeltaEvent",
    "StateSnapshotEvent",
    "StepFinishedEvent",
    "StepStartedEvent",
    "SubAgentInfo",
    "SubagentErrorEvent",
    "SubagentFinishedEvent",
    "SubagentFinishedOutcome",
    "SubagentFinishedSuccessOutcome",
    "SubagentFinishedSuspendedOutcome",
    "SubagentInfo",
    "SubagentRunId",
    "SubagentStartedEvent",
    "SystemMessage",
    "TestOperation",
    "TextInputContent",
    "TextMessageChunkEvent",
    "TextMessageContentEvent",
    "TextMessageEndEvent",
    "TextMessageRole",
    "TextMessageStartEvent",
    "TextPart",
    "TokenUsage",
    "Tool",
    "ToolCall",
    "ToolCallArgsEvent",
    "ToolCallChunkEvent",
    "ToolCallEndEvent",
    "ToolCallResultEvent",
    "ToolCallStartEvent",
    "ToolMessage",
    "ToolsCapabilities",
    "TransportCapabilities",
    "TransportError",
    "UnknownEventTypeError",
    "UnknownOperation",
    "UnknownPart",
    "UnknownOutcome",
    "UrlSource",
    "UserMessage",
    "VideoInputContent",
    "VideoInputPart",
    "VideoPart",
    "aggregate_token_usage",
    "parse_any_event",
    "parse_event",
    "parse_run_agent_input",
    "token_usage_from_langchain_metadata",
]


def test_core_all_is_pinned_and_importable() -> None:
    assert ag_ui.core.__all__ == CORE_ALL
    for name in CORE_ALL:
        assert hasattr(ag_ui.core, name)


def test_encoder_all() -> None:
    assert ag_ui.encoder.__all__ == [
        "AGUI_MEDIA_TYPE",
        "DEFAULT_MAX_EVENT_SIZE",
        "SSE_MEDIA_TYPE",
        "EventEncoder",
        "SSEDecoder",
        "SSEMessage",
        "event_to_json",
        "negotiate_media_type",
        "parse_accept",
        "sse_comment",
        "sse_frame",
    ]


def test_compatibility_module_paths_import() -> None:
    from ag_ui.core.capabilities import AgentCapabilities
    from ag_ui.core.events import ConfiguredBaseModel, EventType
    from ag_ui.core.types import RunAgentInput
    from ag_ui.encoder.encoder import AGUI_MEDIA_TYPE, EventEncoder

    assert AGUI_MEDIA_TYPE == "application/vnd.ag-ui.event+proto"
    assert all((AgentCapabilities, ConfiguredBaseModel, EventType, RunAgentInput, EventEncoder))


def test_importing_core_loads_no_optional_dependency() -> None:
    code = (
        "import sys, ag_ui.core, ag_ui.encoder; "
        "bad = [m for m in ('httpx', 'starlette', 'google.protobuf', 'redis', 'uvicorn', "
        "'fastapi', 'orjson') if m in sys.modules]; print(','.join(bad))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


def test_binary_input_content_is_deprecated_and_needs_a_source() -> None:
    from ag_ui.core import BinaryInputContent

    with pytest.warns(DeprecationWarning, match="BinaryInputContent"):
        part = BinaryInputContent(mime_type="image/png", url="https://x/y.png")
    assert part.model_dump(by_alias=True) == {
        "type": "binary",
        "mimeType": "image/png",
        "url": "https://x/y.png",
    }
    with (
        pytest.warns(DeprecationWarning, match="BinaryInputContent"),
        pytest.raises(ValueError, match="id, url or data"),
    ):
        BinaryInputContent(mime_type="image/png")


def test_legacy_binary_part_still_parses_in_a_user_message() -> None:
    from ag_ui.core import BinaryInputContent, UserMessage

    with pytest.warns(DeprecationWarning, match="BinaryInputContent"):
        message = UserMessage.model_validate(
            {
                "id": "1",
                "role": "user",
                "content": [{"type": "binary", "mimeType": "a/b", "data": "x"}],
            }
        )
    assert isinstance(message.content, list)
    assert isinstance(message.content[0], BinaryInputContent)


def test_removed_thinking_events_import_with_a_warning() -> None:
    with pytest.warns(DeprecationWarning, match="REASONING"):
        from ag_ui.core import ThinkingStartEvent  # noqa: F401
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        from ag_ui.core import ReasoningStartEvent  # noqa: F401
    with pytest.raises(AttributeError):
        ag_ui.core.NoSuchThing  # noqa: B018


def test_deprecated_aliases_are_the_same_classes() -> None:
    core = ag_ui.core
    assert core.ImageInputContent is core.ImageInputPart is core.ImagePart
    assert core.SubAgentInfo is core.SubagentInfo
    assert core.ConfiguredBaseModel is core.GeneratedBaseModel is core.AGUIModel
    assert core.InputContentSource is core.PartSource


def test_capabilities_read_the_old_sub_agents_key_and_write_the_new_one() -> None:
    from ag_ui.core import MultiAgentCapabilities

    for key in ("subagents", "subAgents", "sub_agents"):
        caps = MultiAgentCapabilities.model_validate({key: [{"name": "researcher"}]})
        assert caps.model_dump(by_alias=True) == {"subagents": [{"name": "researcher"}]}


def test_every_public_class_of_core_has_its_own_docstring() -> None:
    # ``__dict__`` rather than ``__doc__``: a docstring inherited from a base class (or pydantic's
    # default) says nothing about this class.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        public = {name: getattr(ag_ui.core, name) for name in ag_ui.core.__all__}
    classes = {name: value for name, value in public.items() if isinstance(value, type)}
    assert len(classes) > 100
    undocumented = sorted(
        name for name, cls in classes.items() if not (cls.__dict__.get("__doc__") or "").strip()
    )
    assert undocumented == []
