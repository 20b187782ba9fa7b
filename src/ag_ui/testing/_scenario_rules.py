"""The scenario rules of the catalogue (``ag_ui.testing.rules``): each judges what ``agui
validate`` sees an agent do across runs."""

from __future__ import annotations

from ag_ui.testing._rule import Rule

__all__ = ["SCENARIO_RULES"]

SCENARIO_RULES: tuple[Rule, ...] = (
    # -- scenarios (agui validate) --------------------------------------------------------------
    Rule(
        "history.refused",
        "a follow-up turn carrying the conversation so far was refused",
        "Accept the messages your agent produced (assistant text, tool calls, tool results, "
        "reasoning) when the client sends them back as history.",
        family="scenario",
    ),
    Rule(
        "history.dropped",
        "a MESSAGES_SNAPSHOT lost or changed messages the client sent",
        "Include the client's messages, with their ids and content unchanged, in every "
        "MESSAGES_SNAPSHOT (it replaces the client's whole list).",
        family="scenario",
    ),
    Rule(
        "tool.round-trip",
        "the run answering a frontend tool call did not complete",
        "When the input carries a tool message answering your tool call, continue from it "
        "and finish the run; do not fail or call the same tool call id again.",
        family="scenario",
    ),
    Rule(
        "interrupt.resume",
        "resuming an interrupt did not complete",
        "Accept RunAgentInput.resume entries for the interrupts you returned (PROTOCOL.md "
        "§2.6) and finish the run without returning the same interrupts again.",
        family="scenario",
    ),
    Rule(
        "cancel.next-run",
        "the run after a cancelled one failed",
        "When the client disconnects, stop the agent and release the thread, so the next "
        "run on it works.",
        family="scenario",
    ),
    Rule(
        "proto.differs",
        "the protobuf stream differs from the SSE stream",
        "Encode the same events for both transports (PROTOCOL.md §4.4 field numbers).",
        family="scenario",
    ),
    Rule(
        "reconnect.refused",
        "a reconnect with Last-Event-ID was refused",
        "Serve GET <url>/connect with Last-Event-ID (docs/resume.md), or do not send SSE ids.",
        family="scenario",
    ),
    Rule(
        "reconnect.gap",
        "events were lost across a reconnect",
        "Resume exactly after the event named by Last-Event-ID.",
        family="scenario",
    ),
    Rule(
        "reconnect.duplicate",
        "events were repeated across a reconnect",
        "Resume after the event named by Last-Event-ID, not at or before it.",
        family="scenario",
    ),
    Rule(
        "concurrent.crossed",
        "concurrent runs interfered",
        "Keep per-run state per run (not in globals); each stream carries only its own "
        "threadId/runId and content.",
        family="scenario",
    ),
    Rule(
        "request.5xx",
        "a malformed request was answered with a server error",
        "Validate the request body and answer invalid input with 400 (or 415, 422) and a JSON "
        "error naming the problem.",
        family="scenario",
    ),
    Rule(
        "request.accepted",
        "a malformed request was answered with a stream",
        "Reject invalid input with a 4xx status before starting a run.",
        family="scenario",
    ),
    Rule(
        "capabilities.invalid",
        "the capabilities endpoint answered something that is not AgentCapabilities",
        "Serve AgentCapabilities JSON (PROTOCOL.md §2.8) at GET <url>/capabilities, or 404.",
        family="scenario",
    ),
    Rule(
        "capabilities.contradicted",
        "a declared capability contradicts what the runs did",
        "Declare what the agent does: fix the capability or the behaviour named.",
        family="scenario",
    ),
)
