"""Parsing an event a consumer received: a message of an unknown role is dropped, with a warning.

``ag_ui.core``'s parsers refuse a message whose ``role`` the protocol does not describe (a
producer must not send one). A *consumer* follows 1.1's strip-with-warning rule instead, as
``@ag-ui/client`` does: in ``MESSAGES_SNAPSHOT.messages`` and ``RUN_STARTED.input.messages`` an
object whose role is missing, not a string, or not one this SDK knows is removed with an
``UnrecognisedMaterialWarning`` naming its path (``/messages/1``), and the rest of the event is
used. A message of a known role with wrong fields, or an item that is not an object, still
fails the stream (as it does in TypeScript).

Only a failed parse pays for the second look: the common event is parsed once.
"""

from __future__ import annotations

import copy
import json
import warnings
from typing import Any, Optional, get_args

from ag_ui.core.decoding import AnyEvent, JSONInput, parse_any_event
from ag_ui.core.errors import AGUIValidationError, MalformedJSONError, UnknownEventTypeError
from ag_ui.core.types import Role
from ag_ui.verify._enforce import UnrecognisedMaterialWarning

__all__ = ["KNOWN_ROLES", "parse_received_event", "without_unknown_roles"]

KNOWN_ROLES = frozenset(get_args(Role))

# Where an event carries a list of messages: (the event type, the keys down to the list).
_MESSAGE_LISTS: dict[str, tuple[str, ...]] = {
    "MESSAGES_SNAPSHOT": ("messages",),
    "RUN_STARTED": ("input", "messages"),
}


def parse_received_event(data: JSONInput, *, stacklevel: int = 2) -> AnyEvent:
    """``parse_any_event``, except that messages of unknown roles are dropped with a warning."""
    try:
        return parse_any_event(data)
    except (MalformedJSONError, UnknownEventTypeError):
        raise
    except AGUIValidationError:
        stripped = without_unknown_roles(data, stacklevel=stacklevel + 1)
        if stripped is None:
            raise
    return parse_any_event(stripped)  # what stays must be valid on its own


def without_unknown_roles(data: JSONInput, *, stacklevel: int = 2) -> Optional[dict[str, Any]]:
    """The event's wire form without its messages of unknown roles (warned about), or ``None``
    when it has none (the parse error is then about something else)."""
    try:
        if isinstance(data, (bytes, bytearray, memoryview, str)):
            event = json.loads(bytes(data) if isinstance(data, memoryview) else data)
        else:
            event = copy.deepcopy(dict(data))  # the caller's mapping stays as it was
    except ValueError:
        return None
    if not isinstance(event, dict):
        return None
    keys = _MESSAGE_LISTS.get(str(event.get("type")))
    if keys is None:
        return None
    *parents, last = keys
    holder: Any = event
    for key in parents:
        holder = holder.get(key) if isinstance(holder, dict) else None
    messages = holder.get(last) if isinstance(holder, dict) else None
    if not isinstance(messages, list):
        return None
    unknown = [
        index
        for index, message in enumerate(messages)
        if isinstance(message, dict) and not _known_role(message.get("role"))
    ]
    if not unknown:
        return None
    pointer = "/" + "/".join(keys)
    assert isinstance(holder, dict)
    dropped = set(unknown)
    holder[last] = [m for index, m in enumerate(messages) if index not in dropped]
    paths = ", ".join(f"{pointer}/{index}" for index in unknown)
    roles = ", ".join(sorted({repr(messages[index].get("role")) for index in unknown}))
    warnings.warn(
        f"Removed unrecognised material from {event['type']}: {paths} (messages of role "
        f"{roles}, which the protocol version this SDK speaks does not describe)",
        UnrecognisedMaterialWarning,
        stacklevel=stacklevel + 1,
    )
    return event


def _known_role(role: Any) -> bool:
    return isinstance(role, str) and role in KNOWN_ROLES
