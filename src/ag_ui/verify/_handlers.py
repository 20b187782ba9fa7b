"""Per-event-type rules of the verifier: text (T), tool calls (C, O2, O3), reasoning (G).

``EventVerifier`` (``_verifier.py``) owns run framing and holds the state these handlers read;
steps, activity and subagents are in ``_lifecycle_rules.py``. Each family of rules sits next to
its PROTOCOL.md §5 table.
"""

from __future__ import annotations

from typing import Any, Callable, NoReturn, Optional, Union

from ag_ui.core._wire import event_type_name
from ag_ui.core.errors import EventSequenceError
from ag_ui.core.events import (
    ActivityDeltaEvent,
    ActivitySnapshotEvent,
    ReasoningEncryptedValueEvent,
    ReasoningEndEvent,
    ReasoningMessageContentEvent,
    ReasoningMessageEndEvent,
    ReasoningMessageStartEvent,
    ReasoningStartEvent,
    StepFinishedEvent,
    StepStartedEvent,
    SubagentErrorEvent,
    SubagentFinishedEvent,
    SubagentStartedEvent,
    TextMessageContentEvent,
    TextMessageEndEvent,
    TextMessageStartEvent,
    ToolCallArgsEvent,
    ToolCallEndEvent,
    ToolCallResultEvent,
    ToolCallStartEvent,
)
from ag_ui.verify._lifecycle_rules import LifecycleRules
from ag_ui.verify._ownership import owner_label
from ag_ui.verify._tool_args import missing_arguments_problem, tool_arguments_problem

__all__ = ["Handlers"]

_Attributed = Union[
    TextMessageStartEvent, ToolCallStartEvent, ReasoningStartEvent, ReasoningMessageStartEvent
]


def _fail(rule: str, event_type: str, message: str, **ids: Any) -> NoReturn:
    raise EventSequenceError(message, rule=rule, event_type=event_type, ids=ids)


class Handlers(LifecycleRules):
    open_text: dict[str, None]
    open_tool_calls: dict[str, list[str]]  # each open call's TOOL_CALL_ARGS deltas
    open_tool_names: dict[str, str]  # each open call's tool name
    tool_parameters: dict[str, Any]  # the run's declared tools' schemas, by name
    on_tool_arguments: Callable[[str], None]
    open_reasoning_spans: dict[str, None]
    open_reasoning_messages: dict[str, None]

    def handler_table(self) -> dict[type, Callable[[Any], None]]:
        return {
            TextMessageStartEvent: self._text_start,
            TextMessageContentEvent: self._text_continue,
            TextMessageEndEvent: self._text_continue,
            ToolCallStartEvent: self._tool_start,
            ToolCallArgsEvent: self._tool_continue,
            ToolCallEndEvent: self._tool_continue,
            ToolCallResultEvent: self._tool_result,
            StepStartedEvent: self._step_started,
            StepFinishedEvent: self._step_finished,
            ActivitySnapshotEvent: self._activity_snapshot,
            ActivityDeltaEvent: self._activity_delta,
            ReasoningStartEvent: self._reasoning_open,
            ReasoningMessageStartEvent: self._reasoning_open,
            ReasoningMessageContentEvent: self._reasoning_continue,
            ReasoningMessageEndEvent: self._reasoning_continue,
            ReasoningEndEvent: self._reasoning_continue,
            ReasoningEncryptedValueEvent: self._encrypted_value,
            SubagentStartedEvent: self._subagent_started,
            SubagentFinishedEvent: self._subagent_closed,
            SubagentErrorEvent: self._subagent_closed,
        }

    # -- text (T1-T3) ------------------------------------------------------------------------

    def _text_start(self, event: TextMessageStartEvent) -> None:
        message_id = event.message_id
        if message_id in self.open_text:
            _fail(
                "T1",
                "TEXT_MESSAGE_START",
                f"Cannot send 'TEXT_MESSAGE_START' event: A text message with ID "
                f"'{message_id}' is already in progress. Complete it with "
                "'TEXT_MESSAGE_END' first.",
                message_id=message_id,
            )
        self._open_owned(self.owners.message, message_id, event, "message")
        self.open_text[message_id] = None

    def _text_continue(self, event: Union[TextMessageContentEvent, TextMessageEndEvent]) -> None:
        message_id = event.message_id
        if message_id not in self.open_text:
            name = event_type_name(event)
            if name == "TEXT_MESSAGE_CONTENT":
                _fail(
                    "T2",
                    name,
                    "Cannot send 'TEXT_MESSAGE_CONTENT' event: No active text "
                    f"message found with ID '{message_id}'. Start a text message with "
                    "'TEXT_MESSAGE_START' first.",
                    message_id=message_id,
                )
            _fail(
                "T3",
                name,
                "Cannot send 'TEXT_MESSAGE_END' event: No active text message "
                f"found with ID '{message_id}'. A 'TEXT_MESSAGE_START' event must be sent "
                "first.",
                message_id=message_id,
            )
        tag = event.subagent_run_id
        if tag is not None:
            self.owners.check(
                self.owners.message, tag, message_id, "message", event_type_name(event)
            )
        if isinstance(event, TextMessageEndEvent):
            del self.open_text[message_id]

    def _open_owned(
        self, bucket: dict[str, Optional[str]], entity_id: str, event: _Attributed, kind: str
    ) -> None:
        # First writer wins: a reopen must agree with the recorded owner and never re-owns.
        tag = event.subagent_run_id
        if entity_id in bucket:
            self.owners.check(bucket, tag, entity_id, kind, event_type_name(event))
        else:
            bucket[entity_id] = tag

    # -- tool calls (C1-C3, O2, O3) --------------------------------------------------------

    def _tool_start(self, event: ToolCallStartEvent) -> None:
        call_id = event.tool_call_id
        if call_id in self.open_tool_calls:
            _fail(
                "C1",
                "TOOL_CALL_START",
                "Cannot send 'TOOL_CALL_START' event: A tool call "
                f"with ID '{call_id}' is already in progress. Complete it with "
                "'TOOL_CALL_END' first.",
                tool_call_id=call_id,
            )
        parent_id = event.parent_message_id
        tag = event.subagent_run_id
        inherited: Optional[str] = None  # the parent message's owner, when it is known
        parent_known = False
        if parent_id is not None and parent_id in self.owners.message:
            parent_owner = self.owners.message[parent_id]
            if tag is not None and tag != parent_owner:
                _fail(
                    "O2",
                    "TOOL_CALL_START",
                    f"Cannot send 'TOOL_CALL_START': "
                    f"subagentRunId '{tag}' does not match its parent message "
                    f"'{parent_id}' owner '{owner_label(parent_owner)}'. A tool call "
                    "belongs to the message that carries it.",
                    tool_call_id=call_id,
                    parent_message_id=parent_id,
                    subagent_run_id=tag,
                    owner=parent_owner,
                )
            inherited, parent_known = parent_owner, True
        bucket = self.owners.tool_call
        if call_id in bucket:
            self.owners.check(bucket, tag, call_id, "tool call", "TOOL_CALL_START")
            recorded = bucket[call_id]
            if tag is None and parent_known and inherited != recorded:
                _fail(
                    "O3",
                    "TOOL_CALL_START",
                    f"Cannot send 'TOOL_CALL_START': tool call "
                    f"'{call_id}' is owned by '{owner_label(recorded)}' but its parent "
                    f"message '{parent_id}' is owned by '{owner_label(inherited)}'. A tool "
                    "call belongs to the message that carries it.",
                    tool_call_id=call_id,
                    parent_message_id=parent_id,
                    owner=recorded,
                    parent_owner=inherited,
                )
        else:
            bucket[call_id] = tag if tag is not None or not parent_known else inherited
        self.open_tool_calls[call_id] = []
        self.open_tool_names[call_id] = event.tool_call_name

    def _tool_continue(self, event: Union[ToolCallArgsEvent, ToolCallEndEvent]) -> None:
        call_id = event.tool_call_id
        if call_id not in self.open_tool_calls:
            name = event_type_name(event)
            if name == "TOOL_CALL_ARGS":
                _fail(
                    "C2",
                    name,
                    "Cannot send 'TOOL_CALL_ARGS' event: No active tool call "
                    f"found with ID '{call_id}'. Start a tool call with 'TOOL_CALL_START' "
                    "first.",
                    tool_call_id=call_id,
                )
            _fail(
                "C3",
                name,
                "Cannot send 'TOOL_CALL_END' event: No active tool call found "
                f"with ID '{call_id}'. A 'TOOL_CALL_START' event must be sent first.",
                tool_call_id=call_id,
            )
        tag = event.subagent_run_id
        if tag is not None:
            self.owners.check(
                self.owners.tool_call, tag, call_id, "tool call", event_type_name(event)
            )
        if isinstance(event, ToolCallEndEvent):
            pieces = self.open_tool_calls.pop(call_id)
            name = self.open_tool_names.pop(call_id, "")
            arguments = "".join(pieces)
            problem = tool_arguments_problem(call_id, arguments, len(pieces))
            if problem is None and name in self.tool_parameters:
                problem = missing_arguments_problem(
                    call_id, name, arguments, self.tool_parameters[name]
                )
            if problem is not None:  # legal, as for the TypeScript client; said, not refused
                self.on_tool_arguments(problem)
        else:
            self.open_tool_calls[call_id].append(event.delta)

    def _tool_result(self, event: ToolCallResultEvent) -> None:
        # C4: a creation event; the minted tool message's owner is recorded (newest wins).
        message_id = event.message_id
        if isinstance(message_id, str):
            self.owners.message[message_id] = event.subagent_run_id

    # -- reasoning (G1-G4): spans and messages tracked separately, one shared owner map ----

    def _reasoning_open(
        self, event: Union[ReasoningStartEvent, ReasoningMessageStartEvent]
    ) -> None:
        message_id = event.message_id
        is_span = isinstance(event, ReasoningStartEvent)
        still_open = self.open_reasoning_spans if is_span else self.open_reasoning_messages
        if message_id in still_open:
            if is_span:
                _fail(
                    "G1",
                    "REASONING_START",
                    "Cannot send 'REASONING_START' event: A "
                    f"reasoning span with ID '{message_id}' is already in progress. Complete "
                    "it with 'REASONING_END' first.",
                    message_id=message_id,
                )
            _fail(
                "G2",
                "REASONING_MESSAGE_START",
                "Cannot send 'REASONING_MESSAGE_START' "
                f"event: A reasoning message with ID '{message_id}' is already in progress. "
                "Complete it with 'REASONING_MESSAGE_END' first.",
                message_id=message_id,
            )
        self._open_owned(self.owners.reasoning, message_id, event, "reasoning message")
        still_open[message_id] = None

    def _reasoning_continue(
        self,
        event: Union[ReasoningMessageContentEvent, ReasoningMessageEndEvent, ReasoningEndEvent],
    ) -> None:
        message_id = event.message_id
        is_span = isinstance(event, ReasoningEndEvent)
        still_open = self.open_reasoning_spans if is_span else self.open_reasoning_messages
        name = event_type_name(event)
        if message_id not in still_open:
            if is_span:
                _fail(
                    "G4",
                    name,
                    "Cannot send 'REASONING_END' event: No active reasoning span "
                    f"found with ID '{message_id}'. A 'REASONING_START' event must be sent "
                    "first.",
                    message_id=message_id,
                )
            _fail(
                "G3",
                name,
                f"Cannot send '{name}' event: No active reasoning message found "
                f"with ID '{message_id}'. Start a reasoning message with "
                "'REASONING_MESSAGE_START' first.",
                message_id=message_id,
            )
        tag = event.subagent_run_id
        if tag is not None:
            self.owners.check(self.owners.reasoning, tag, message_id, "reasoning message", name)
        if not isinstance(event, ReasoningMessageContentEvent):
            del still_open[message_id]

    def _encrypted_value(self, event: ReasoningEncryptedValueEvent) -> None:
        # G5: no open check, ownership only; the subtype picks the bucket.
        tag = event.subagent_run_id
        if tag is None:
            return
        entity_id, subtype = event.entity_id, event.subtype
        owners = self.owners
        if subtype == "tool-call":
            bucket, kind = owners.tool_call, "tool call"
        elif subtype == "message":
            bucket = owners.message if entity_id in owners.message else owners.reasoning
            kind = "message"
        else:
            bucket, kind = owners.reasoning, "reasoning message"
        owners.check(bucket, tag, entity_id, kind, "REASONING_ENCRYPTED_VALUE")
