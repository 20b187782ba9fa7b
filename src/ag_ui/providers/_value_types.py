"""``encryptedValueType`` for clients that predate it (protocol 1.0 and older).

A 1.0 client never sees the type (the server strips it, or the client does), and sends the
value back alone. For most artefacts an untyped value still means one thing to its provider
(a Responses ``encrypted_content``, an Anthropic ``signature``), but Anthropic's redacted
thinking must go back as its own block type: for those clients the adapter's typed value is
sent in the form this SDK used before 1.1, the kind as an in-band prefix of the value, which
the request builder still reads.
"""

from __future__ import annotations

import re
from typing import Optional

from ag_ui.core.events import BaseEvent, ReasoningEncryptedValueEvent
from ag_ui.providers._anthropic_request import REDACTED_THINKING, REDACTED_THINKING_PREFIX

__all__ = ["for_client_before_1_1", "predates_value_types"]

_VERSION = re.compile(r"([0-9]+)\.([0-9]+)(?:\.[0-9]+)?")


def predates_value_types(declared: Optional[str]) -> bool:
    """Whether a client declaring ``declared`` (``RunAgentInput.protocolVersion``) is older
    than 1.1; absent means a 0.x client, and a declaration that is not a version counts as
    current, as the server's downgrade reads it."""
    if declared is None:
        return True
    match = _VERSION.fullmatch(declared)
    return match is not None and (int(match[1]), int(match[2])) < (1, 1)


def for_client_before_1_1(event: BaseEvent) -> BaseEvent:
    """``event`` as a pre-1.1 client must store it to send it back usable."""
    if (
        isinstance(event, ReasoningEncryptedValueEvent)
        and event.encrypted_value_type == REDACTED_THINKING
    ):
        # Built anew, not copied with the type set to None: an unset field is absent, a
        # None one would read as an explicit null to the verifier's null checks.
        wire = event.model_dump(by_alias=True, mode="json")
        del wire["encryptedValueType"]
        wire["encryptedValue"] = REDACTED_THINKING_PREFIX + event.encrypted_value
        return ReasoningEncryptedValueEvent.model_validate(wire)
    return event
