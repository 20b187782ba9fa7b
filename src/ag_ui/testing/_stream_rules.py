"""The stream rules of the catalogue (``ag_ui.testing.rules``): each judges one event stream.
The sequence rules keep the verifier's codes (PROTOCOL.md §5), then the draft rules, chunk
expansion, the wire and HTTP, and the content."""

from __future__ import annotations

from ag_ui.testing._rule import Rule

__all__ = ["STREAM_RULES"]

STREAM_RULES: tuple[Rule, ...] = (
    # -- run framing (PROTOCOL.md §5.1) -------------------------------------------------------
    Rule(
        "R1",
        "an event after RUN_ERROR",
        "RUN_ERROR ends the run: send nothing after it except a new RUN_STARTED.",
        ("AGUI004", "AGUI005"),
    ),
    Rule(
        "R2",
        "an event after RUN_FINISHED",
        "RUN_FINISHED ends the run: emit every event before it, or start a new run with "
        "RUN_STARTED.",
        ("AGUI004", "AGUI005"),
    ),
    Rule(
        "R3",
        "the stream does not start with RUN_STARTED",
        "Make RUN_STARTED (with the request's threadId and runId) the first event, before any "
        "text, tool call or state event.",
        ("AGUI001",),
    ),
    Rule(
        "R4",
        "RUN_STARTED while a run is active",
        "End the previous run with RUN_FINISHED or RUN_ERROR before the next RUN_STARTED.",
        ("AGUI002",),
    ),
    Rule(
        "END",
        "the stream ended inside a run",
        "End every run with RUN_FINISHED (or RUN_ERROR on failure), also when the agent fails "
        "or is cancelled; a stream that just stops looks like a crash or a dropped connection.",
        ("AGUI003", "AGUI508"),
    ),
    # -- nulls (§5.2) ---------------------------------------------------------------------------
    Rule(
        "N1",
        "subagentRunId is null",
        "Omit subagentRunId when the event is the parent agent's; never send it as null.",
    ),
    Rule(
        "N2",
        "an optional SUBAGENT_* field is null",
        "Omit optional SUBAGENT_* fields (description, parent ids, outcome, code) instead of "
        "sending null.",
    ),
    Rule(
        "N3",
        "a subagent outcome of unknown type",
        'Use {"type": "success"} or {"type": "suspended"} as a subagent outcome.',
    ),
    Rule("N4", "outcome.interruptIds is null", "Omit interruptIds instead of sending null."),
    Rule("N5", "a non-string interrupt id", "Make every entry of outcome.interruptIds a string."),
    Rule(
        "N6",
        "an interrupt with subagentRunId null",
        "Omit subagentRunId on interrupts raised by the parent agent.",
    ),
    Rule(
        "N7",
        "a message with subagentRunId null",
        "Omit subagentRunId on messages of the parent agent (in MESSAGES_SNAPSHOT and "
        "RUN_STARTED.input).",
    ),
    # -- text (§5.3) ----------------------------------------------------------------------------
    Rule(
        "T1",
        "TEXT_MESSAGE_START for a message already open",
        "Send TEXT_MESSAGE_END before starting the same messageId again, or use a new id.",
        ("AGUI106",),
    ),
    Rule(
        "T2",
        "TEXT_MESSAGE_CONTENT without TEXT_MESSAGE_START",
        "Send TEXT_MESSAGE_START for the messageId before its content (or stream "
        "TEXT_MESSAGE_CHUNK, which opens the message itself).",
        ("AGUI101",),
    ),
    Rule(
        "T3",
        "TEXT_MESSAGE_END without TEXT_MESSAGE_START",
        "End only messages you started, once each.",
        ("AGUI102",),
    ),
    # -- tool calls (§5.4) ----------------------------------------------------------------------
    Rule(
        "C1",
        "TOOL_CALL_START for a tool call already open",
        "Send TOOL_CALL_END before starting the same toolCallId again, or use a new id.",
        ("AGUI205",),
    ),
    Rule(
        "C2",
        "TOOL_CALL_ARGS without TOOL_CALL_START",
        "Send TOOL_CALL_START (with the tool's name) before streaming its arguments.",
        ("AGUI201",),
    ),
    Rule(
        "C3",
        "TOOL_CALL_END without TOOL_CALL_START",
        "End only tool calls you started, once each.",
        ("AGUI202",),
    ),
    # -- steps (§5.5) ---------------------------------------------------------------------------
    Rule(
        "S1",
        "STEP_STARTED for a step already active",
        "Finish a step before starting another with the same name (in the same agent).",
    ),
    Rule(
        "S2",
        "STEP_FINISHED by another owner",
        "Finish a step from the agent (parent or subagent) that started it: the same "
        "subagentRunId, or none for the parent.",
    ),
    Rule(
        "S3",
        "STEP_FINISHED for a step never started",
        "Send STEP_STARTED with the same stepName first.",
        ("AGUI006",),
    ),
    # -- reasoning (§5.6) -----------------------------------------------------------------------
    Rule(
        "G1",
        "REASONING_START for a span already open",
        "Send REASONING_END before reopening the span, or use a new id.",
    ),
    Rule(
        "G2",
        "REASONING_MESSAGE_START for a message already open",
        "Send REASONING_MESSAGE_END before reopening it, or use a new id.",
    ),
    Rule(
        "G3",
        "reasoning content or end without its start",
        "Send REASONING_MESSAGE_START for the messageId before its content and end.",
        ("AGUI401",),
    ),
    Rule(
        "G4",
        "REASONING_END without REASONING_START",
        "End only reasoning spans you started.",
    ),
    # -- subagents (§5.7) -----------------------------------------------------------------------
    Rule(
        "A1",
        "SUBAGENT_STARTED without subagentRunId or name",
        "Give SUBAGENT_STARTED a string subagentRunId and a name.",
    ),
    Rule(
        "A2",
        "SUBAGENT_STARTED for a subagent already active",
        "Finish the subagent (SUBAGENT_FINISHED or SUBAGENT_ERROR) before starting it again.",
        ("AGUI601",),
    ),
    Rule(
        "A3",
        "a subagent id reused in the same run",
        "Give each subagent invocation a fresh subagentRunId.",
        ("AGUI601",),
    ),
    Rule(
        "A4",
        "parentSubagentRunId names a subagent never started",
        "Start the parent subagent first, or leave parentSubagentRunId out.",
        ("AGUI605",),
    ),
    Rule(
        "A5",
        "SUBAGENT_FINISHED/ERROR without subagentRunId (or message)",
        "Give SUBAGENT_FINISHED and SUBAGENT_ERROR the subagentRunId (and SUBAGENT_ERROR a "
        "message).",
    ),
    Rule(
        "A6",
        "SUBAGENT_FINISHED/ERROR for a subagent not active",
        "Send SUBAGENT_STARTED first, and finish each subagent once.",
        ("AGUI602", "AGUI603"),
    ),
    # -- ownership (§5.8) -----------------------------------------------------------------------
    Rule(
        "O1",
        "an event's subagentRunId disagrees with its entity's owner",
        "Tag continuation events (content, args, end) with the same subagentRunId as the "
        "event that opened the entity, or leave the tag out.",
        ("AGUI606",),
    ),
    Rule(
        "O2",
        "a tool call tagged differently from its parent message",
        "Tag a tool call with its parent message's subagentRunId (or leave the tag out).",
        ("AGUI606",),
    ),
    Rule(
        "O3",
        "a reopened tool call under a differently owned parent",
        "Reopen a tool call only under a parent message of the same owner.",
        ("AGUI606",),
    ),
    # -- RUN_FINISHED preconditions (§5.9) ------------------------------------------------------
    Rule(
        "F1",
        "RUN_FINISHED with a step still active",
        "Send STEP_FINISHED for every step before RUN_FINISHED.",
        ("AGUI007",),
    ),
    Rule(
        "F2",
        "RUN_FINISHED with a text message still open",
        "Send TEXT_MESSAGE_END for every message before RUN_FINISHED.",
        ("AGUI103",),
    ),
    Rule(
        "F3",
        "RUN_FINISHED with a reasoning message still open",
        "Send REASONING_MESSAGE_END for every reasoning message before RUN_FINISHED.",
        ("AGUI402",),
    ),
    Rule(
        "F4",
        "RUN_FINISHED with a reasoning span still open",
        "Send REASONING_END for every span before RUN_FINISHED.",
        ("AGUI402",),
    ),
    Rule(
        "F5",
        "RUN_FINISHED with a tool call still open",
        "Send TOOL_CALL_END for every tool call before RUN_FINISHED.",
        ("AGUI203",),
    ),
    Rule(
        "F6",
        "RUN_FINISHED with a subagent still active",
        "Finish every subagent (SUBAGENT_FINISHED or SUBAGENT_ERROR) before RUN_FINISHED.",
        ("AGUI604",),
    ),
    # -- the draft specification (fatal only under strict_draft / --strict-draft) ---------------
    Rule(
        "D1",
        "RUN_FINISHED names another run or thread than its RUN_STARTED (draft rule)",
        "Close each run with the runId and threadId its RUN_STARTED carried.",
    ),
    Rule(
        "D2",
        "a second run in one stream is on another thread (draft rule)",
        "Keep every run of one response on the input's threadId.",
    ),
    Rule(
        "D3",
        "two interrupts in one outcome share an id (draft rule)",
        "Give each interrupt of a RUN_FINISHED outcome its own id.",
    ),
    # -- chunk expansion (§6.3) -----------------------------------------------------------------
    Rule("X0", "a chunk reached the reducer unexpanded", "Expand *_CHUNK events before applying."),
    Rule(
        "X1",
        "the first chunk lacks its id (or tool name)",
        "Give the first TEXT_MESSAGE_CHUNK a messageId, the first TOOL_CALL_CHUNK a toolCallId "
        "and toolCallName.",
    ),
    Rule(
        "X2",
        "a chunk contradicts the stream it continues",
        "Keep role, tool name, parent message and subagent the same on every chunk of a stream.",
    ),
    Rule(
        "X3",
        "an ambiguous id-less chunk",
        "Repeat the id on every chunk when several streams are open at once.",
    ),
    # -- wire and HTTP --------------------------------------------------------------------------
    Rule(
        "wire.frame",
        "a frame could not be decoded",
        "Send each event as one SSE frame 'data: <compact JSON>\\n\\n' (or a length-prefixed "
        "protobuf frame), complete and valid.",
        ("AGUI502", "AGUI501"),
    ),
    Rule(
        "wire.schema",
        "an event does not match its type's schema",
        "Send every field the event type requires, with the right JSON types and camelCase "
        "names (PROTOCOL.md §1.3).",
        ("AGUI504",),
    ),
    Rule(
        "wire.optional-null",
        "an optional field sent as null",
        "Leave optional fields out instead of sending null (the TypeScript client rejects them).",
        ("AGUI504",),
    ),
    Rule(
        "wire.unknown-event",
        "an event type this SDK does not know (skipped)",
        "Send only AG-UI 1.0 event types; put your own data in CUSTOM events.",
        ("AGUI503",),
        "warning",
    ),
    Rule(
        "wire.content-type",
        "a run was answered with something that is not an event stream",
        "Answer a run with Content-Type text/event-stream (or "
        "application/vnd.ag-ui.event+proto when the client asks for it).",
        ("AGUI505",),
    ),
    Rule(
        "wire.cut",
        "the connection broke before the run ended",
        "Keep the connection open until the terminal event is sent; check proxies and the "
        "server's timeouts.",
        ("AGUI508",),
    ),
    Rule(
        "wire.idle",
        "nothing arrived for the idle timeout",
        "Send events or SSE keepalive comments (': ping') at least every few seconds during "
        "long work.",
        ("AGUI506",),
    ),
    Rule(
        "wire.no-answer",
        "the server accepted the request but sent no response",
        "Answer every request promptly: send the response headers as soon as the request is "
        "accepted (a run's stream can start before the agent has anything to say).",
    ),
    Rule(
        "wire.endless",
        "the response did not end within the time bound",
        "End every run with RUN_FINISHED or RUN_ERROR and then close the response; keepalives "
        "keep a connection alive, they do not end it (raise the bound for runs that are "
        "legitimately longer).",
    ),
    Rule(
        "wire.too-large",
        "the response went past the size bound",
        "End each run's stream once the run is over; a run that legitimately sends more needs "
        "a larger bound.",
    ),
    Rule(
        "wire.utf8",
        "an SSE stream that is not UTF-8",
        "Encode the event stream as UTF-8, its only encoding (a client replaces other bytes "
        "with U+FFFD, silently changing the text).",
    ),
    Rule(
        "http.status",
        "a valid run request was answered with an HTTP error",
        "Accept any valid RunAgentInput (PROTOCOL.md §2.4) and report agent failures as "
        "RUN_ERROR inside a 200 stream.",
    ),
    Rule(
        "run.error",
        "the run ended with RUN_ERROR",
        "See the RUN_ERROR message and code, and the server log, for why the agent failed.",
    ),
    # -- content --------------------------------------------------------------------------------
    Rule(
        "tool.args-json",
        "tool call arguments are not valid JSON",
        "Stream the tool call's arguments so that the TOOL_CALL_ARGS deltas concatenate to "
        "one JSON document; do not drop or repeat a piece.",
        ("AGUI204",),
    ),
    Rule(
        "tool.args-missing",
        "a tool call ended without the arguments its tool requires",
        "Send every call's arguments in TOOL_CALL_ARGS, also when the model gave them whole in "
        "one chunk (the run's tools declare which arguments are required).",
        severity="warning",
    ),
    Rule(
        "state.patch",
        "a STATE_DELTA does not apply to the state",
        "Compute each STATE_DELTA against the state the client holds (the input state, then "
        "every snapshot and delta sent); send a STATE_SNAPSHOT when unsure.",
        ("AGUI302", "AGUI303"),
    ),
)
