"""Output a client of an older protocol era understands (docs/server.md, "Older clients").

A client declares its version in ``RunAgentInput.protocolVersion``; 0.x clients declare none.
The policy, by the client's version (absent counts as before 1.0, the era such clients come
from, e.g. Microsoft Agent Framework's ``AGUIChatClient``):

* ``1.1`` or newer: every event as the agent produced it.
* ``1.0.x`` (``@ag-ui/client`` 1.0.0 declares ``"1.0.0"``): ``encryptedValueType`` (new in 1.1)
  is removed wherever it sits (REASONING_ENCRYPTED_VALUE, messages and their tool calls in
  MESSAGES_SNAPSHOT and RUN_STARTED.input), once per run with a ``PeerDowngradeWarning``; such
  a client would strip it itself, warning its user about "unrecognised material".
* before 1.0, or absent (the pre-subagent era, ``<= 0.0.57``, what the TypeScript client's
  ``BackwardCompatibility_0_0_57`` shim also targets): ``SUBAGENT_*`` lifecycle events are
  withheld; so are the events a subagent produced (text, tool calls, reasoning, activity, steps
  carrying ``subagentRunId``), which such a client would merge into the parent's reply; state,
  custom and raw events a subagent produced are kept without the attribution; the attribution
  is also removed from ``MESSAGES_SNAPSHOT`` messages (messages of a subagent withheld),
  ``RUN_STARTED.input`` messages and interrupts; a success outcome loses
  ``pendingToolCallIds`` (new in 1.0; such clients validate the outcome strictly and derive
  the pending calls from the stream).
* declared ``<= 0.0.39`` (before content parts): also, messages in ``MESSAGES_SNAPSHOT`` and
  ``RUN_STARTED.input`` carry their text parts' concatenation instead of a list.

Every era before 1.1 gets the ``encryptedValueType`` removal too.

Everything else (reasoning, interrupts and outcomes, activity) is sent as is: those clients
skip events they do not know. ``AgentEndpoint(downgrade_older_clients=False)`` opts out.
The pure reshaping is shared with the client's downgrades (``ag_ui.verify._downgrade``).
"""

from __future__ import annotations

import logging
import re
import warnings
from collections.abc import Awaitable, Callable
from typing import Any, Optional

from ag_ui.core._wire import event_type_name
from ag_ui.core.decoding import parse_any_event
from ag_ui.core.events import (
    BaseEvent,
    MessagesSnapshotEvent,
    ReasoningEncryptedValueEvent,
    RunFinishedEvent,
    RunStartedEvent,
    SubagentErrorEvent,
    SubagentFinishedEvent,
    SubagentStartedEvent,
)
from ag_ui.core.outcomes import RunFinishedSuccessOutcome
from ag_ui.core.types import RunAgentInput
from ag_ui.core.version import SPOKEN_PROTOCOL_VERSION
from ag_ui.verify._downgrade import (
    ATTRIBUTION,
    BEFORE_CONTENT_PARTS,
    BEFORE_SUBAGENTS,
    BEFORE_VALUE_TYPES,
    SUBAGENT_LIFECYCLE,
    PeerDowngradeWarning,
    flattened_message,
    unattributed,
    unattributed_event,
    untyped_event,
)
from ag_ui.verify._versions import compare_declared_protocol

__all__ = ["client_era", "downgrading_sink"]

logger = logging.getLogger("ag_ui.server")

Sink = Callable[[list[BaseEvent]], Awaitable[None]]

_VERSION = re.compile(r"([0-9]+)(?:\.([0-9]+))?(?:\.([0-9]+))?")
# Events a subagent produced that still make sense without it (state stays one document).
_KEPT_WITHOUT_ATTRIBUTION = frozenset({"STATE_SNAPSHOT", "STATE_DELTA", "CUSTOM", "RAW"})
# Events a downgrade may withhold or change even without an attribution of their own: the
# subagent lifecycle, and those whose attribution may sit one level down (messages, interrupts).
_MAY_CHANGE = (
    SubagentStartedEvent,
    SubagentFinishedEvent,
    SubagentErrorEvent,
    MessagesSnapshotEvent,
    RunStartedEvent,
    RunFinishedEvent,
)


_FIRST_1_0 = (1, 0, 0)
_EMITTED = "1.0"  # what every downgraded stream is: 1.0 material or less
# What may carry encryptedValueType, the one change a 1.0.x client needs.
_MAY_CARRY_VALUE_TYPE = (ReasoningEncryptedValueEvent, MessagesSnapshotEvent, RunStartedEvent)


def _unchanged_check(*, before_1_0: bool) -> Callable[[list[BaseEvent]], bool]:
    """Whether a batch goes to a client of that era unchanged, in one call.

    Before 1.0: no event of a kind a downgrade looks into (``_MAY_CHANGE``) and no attribution,
    declared or come as an extra field (the dump would carry it, so the slow path strips it).
    For 1.0.x: no event that may carry a value type. The class's half is decided once per
    class, so a text delta costs a dict lookup and two attribute reads; it was four calls and
    a generator step per event (8% of the server's instructions per event).
    """
    by_class: dict[type, bool] = {}

    def unchanged(events: list[BaseEvent]) -> bool:
        for event in events:
            cls = event.__class__
            plain = by_class.get(cls)
            if plain is None:
                plain = by_class[cls] = not issubclass(cls, _MAY_CARRY_VALUE_TYPE) and (
                    not before_1_0 or not issubclass(cls, _MAY_CHANGE)
                )
            if not plain:
                return False
            if before_1_0:
                if getattr(event, "subagent_run_id", None) is not None:
                    return False
                extra = event.__pydantic_extra__
                if extra is not None and ATTRIBUTION in extra:
                    return False
        return True

    return unchanged


def client_era(declared: Optional[str]) -> Optional[tuple[int, int, int]]:
    """The version a client's events must fit, or None when it speaks 1.1 or newer (no
    downgrade).

    Absent (0.x clients declare nothing) counts as just before subagents. A declaration this
    server cannot read counts as current: the client claims a version it does not spell.
    """
    if declared is None:
        return BEFORE_SUBAGENTS
    match = _VERSION.fullmatch(declared)
    if match is None:
        return None
    major, minor, patch = (int(part or 0) for part in match.groups())
    return (major, minor, patch) if (major, minor, patch) <= BEFORE_VALUE_TYPES else None


def _messages_for(messages: Any, era: tuple[int, int, int]) -> Any:
    if not isinstance(messages, list):
        return messages
    kept = [m for m in messages if not (isinstance(m, dict) and m.get(ATTRIBUTION))]
    kept = [unattributed(m)[0] for m in kept]
    if era <= BEFORE_CONTENT_PARTS:
        kept = [flattened_message(m, stacklevel=4) if isinstance(m, dict) else m for m in kept]
    return kept


def downgraded(event: BaseEvent, era: tuple[int, int, int]) -> Optional[BaseEvent]:
    """``event`` as a client of ``era`` should get it, or None when it is withheld."""
    kind = event_type_name(event)
    if era < _FIRST_1_0:
        before = _before_1_0(kind, event, era)
        if before is None:
            return None
        event, kind = before, event_type_name(before)
    result: BaseEvent = untyped_event(kind, event)[0]  # type: ignore[arg-type, assignment]
    declared = getattr(result, "protocol_version", None)
    if kind == "RUN_STARTED" and declared == SPOKEN_PROTOCOL_VERSION:
        # A producer that translates declares what it emits (1.1 "Versioning"): the 1.0
        # stream this client gets, which also spares @ag-ui/client 1.0.0 a "newer" warning.
        result = result.model_copy(update={"protocol_version": _EMITTED})
    return result


def _before_1_0(kind: str, event: BaseEvent, era: tuple[int, int, int]) -> Optional[BaseEvent]:
    if kind in SUBAGENT_LIFECYCLE:
        return None
    if (
        getattr(event, "subagent_run_id", None) is not None
        and kind not in _KEPT_WITHOUT_ATTRIBUTION
    ):
        return None
    if kind == "MESSAGES_SNAPSHOT" or (kind == "RUN_STARTED" and getattr(event, "input", None)):
        wire = event.model_dump(by_alias=True, mode="json")
        if kind == "MESSAGES_SNAPSHOT":
            wire["messages"] = _messages_for(wire.get("messages"), era)
        else:
            wire["input"] = {
                **wire["input"],
                "messages": _messages_for(wire["input"].get("messages"), era),
            }
        downgraded_event: BaseEvent = parse_any_event(wire)  # type: ignore[assignment]
        return downgraded_event
    if kind == "RUN_FINISHED":
        event = _without_pending_ids(event)
    result: BaseEvent = unattributed_event(kind, event)  # type: ignore[arg-type, assignment]
    return result


def _without_pending_ids(event: BaseEvent) -> BaseEvent:
    """A success outcome without ``pendingToolCallIds`` (new in 1.0): the TypeScript clients
    before 1.0 validate the outcome strictly and fail the run on the unknown key (CopilotKit
    1.74's, on ``@ag-ui/client`` 0.0.59, does), and they find the pending calls in the stream."""
    outcome = getattr(event, "outcome", None)
    if not isinstance(outcome, RunFinishedSuccessOutcome) or outcome.pending_tool_call_ids is None:
        return event
    return event.model_copy(update={"outcome": RunFinishedSuccessOutcome()})


def downgrading_sink(sink: Sink, run_input: RunAgentInput, *, enabled: bool = True) -> Sink:
    """``sink`` itself for a 1.1 client (or when disabled), else a sink that downgrades first."""
    era = client_era(run_input.protocol_version) if enabled else None
    if era is None:
        _note_newer_client(run_input.protocol_version)
        return sink
    client_era_of_run = era
    unchanged = _unchanged_check(before_1_0=era < _FIRST_1_0)
    warned: list[bool] = []

    async def downgrading(events: list[BaseEvent]) -> None:
        if unchanged(events):
            await sink(events)  # nearly every batch (each text delta): nothing to change
            return
        kept = [d for d in (downgraded(e, client_era_of_run) for e in events) if d is not None]
        if not warned and any(_carries_value_type(e) for e in events):
            warned.append(True)
            warnings.warn(
                "encryptedValueType is left out of this run's events: the client declared "
                f"protocol {run_input.protocol_version!r}, and the field is new in 1.1",
                PeerDowngradeWarning,
                stacklevel=2,
            )
        if kept:
            await sink(kept)

    return downgrading


_NOTED_NEWER: set[str] = set()


def _note_newer_client(declared: Optional[str]) -> None:
    """A client of a newer minor (``"1.2"``) is served as is, never refused (1.1 versioning:
    a producer serves newer minors of its line); the log says so once per version."""
    if declared is None or declared == SPOKEN_PROTOCOL_VERSION or declared in _NOTED_NEWER:
        return
    if compare_declared_protocol(declared) != "newer":
        return
    _NOTED_NEWER.add(declared)
    logger.info(
        "a client declared protocol %s, newer than this server's %s: served as %s (what it "
        "adds that this server does not know is ignored)",
        declared,
        SPOKEN_PROTOCOL_VERSION,
        SPOKEN_PROTOCOL_VERSION,
    )


def _carries_value_type(event: BaseEvent) -> bool:
    return untyped_event(event_type_name(event), event)[1]  # type: ignore[arg-type]
