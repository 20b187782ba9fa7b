"""LangGraph ``Interrupt`` -> AG-UI ``Interrupt`` (PROTOCOL.md 2.6).

``interrupt(value)`` in a node: the AG-UI interrupt's ``id`` is LangGraph's interrupt id (the
one ``Command(resume={id: ...})`` answers). A ``value`` that is a mapping may give the protocol's
fields itself (``reason``, ``message``, ``toolCallId``/``tool_call_id``,
``responseSchema``/``response_schema``, ``expiresAt``/``expires_at``, ``metadata``); a string is
the ``message``. The reason defaults to ``"langgraph:interrupt"``, and the whole value is kept
in ``metadata["value"]``, so a client sees what the node asked with.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, Optional

from ag_ui.core.types import Interrupt

__all__ = ["DEFAULT_REASON", "to_agui_interrupt"]

DEFAULT_REASON = "langgraph:interrupt"


def _field(value: Mapping[str, Any], *names: str) -> Any:
    for name in names:
        if value.get(name) is not None:
            return value[name]
    return None


def _str(value: Any) -> Optional[str]:
    return value if isinstance(value, str) else None


def _plain(value: Any) -> Any:
    try:
        return json.loads(json.dumps(value, default=str))
    except (TypeError, ValueError):
        return str(value)


def to_agui_interrupt(interrupt: Any, *, subagent_run_id: Optional[str] = None) -> Interrupt:
    """The protocol's form of a LangGraph interrupt (``.id``, ``.value``); ``subagent_run_id``
    names the subagent (subgraph) that raised it."""
    value = _plain(getattr(interrupt, "value", None))
    metadata: dict[str, Any] = {"value": value}
    fields: dict[str, Any] = {}
    if isinstance(value, Mapping):
        fields = {
            "reason": _str(value.get("reason")),
            "message": _str(value.get("message")),
            "tool_call_id": _str(_field(value, "toolCallId", "tool_call_id")),
            "response_schema": _field(value, "responseSchema", "response_schema"),
            "expires_at": _str(_field(value, "expiresAt", "expires_at")),
        }
        if not isinstance(fields["response_schema"], Mapping):
            fields["response_schema"] = None
        if isinstance(value.get("metadata"), Mapping):
            metadata = {**value["metadata"], **metadata}
    elif isinstance(value, str):
        fields = {"message": value}
    return Interrupt(
        subagent_run_id=subagent_run_id,
        id=str(interrupt.id),
        reason=fields.pop("reason", None) or DEFAULT_REASON,
        metadata=metadata,
        **{k: v for k, v in fields.items() if v is not None},
    )
