"""The verifier's null checks on the subagent surface (PROTOCOL.md §5.2, rules N1-N7).

Pydantic reads a wire ``null`` on an optional field as ``None`` and records the field as set, so
``None`` together with membership in ``__pydantic_fields_set__`` is exactly "the producer wrote
null" (an absent field is not in the set). The TypeScript client rejects these nulls; so do we.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, NoReturn, Optional

from ag_ui.core._wire import event_type_name
from ag_ui.core.decoding import AnyEvent
from ag_ui.core.errors import AGUIValidationError, EventSequenceError

__all__ = ["check_message_nulls", "explicit_null", "null_error", "reject_optional_nulls"]


def explicit_null(model: object, field: str) -> bool:
    """True when ``field`` of the pydantic ``model`` was given explicitly as ``None``/``null``."""
    if getattr(model, field, None) is not None:
        return False
    fields_set = getattr(model, "__pydantic_fields_set__", None)
    return fields_set is not None and field in fields_set


def null_error(rule: str, event_type: str, wire_field: str, ids: dict[str, Any]) -> NoReturn:
    raise EventSequenceError(
        f"Cannot send '{event_type}' with '{wire_field}: null'. "
        "The field is optional — omit it entirely.",
        rule=rule,
        event_type=event_type,
        ids=ids,
    )


def check_message_nulls(event_type: str, messages: Optional[Iterable[Any]]) -> None:
    """N7: replayed history (MESSAGES_SNAPSHOT, RUN_STARTED.input) must not tag with null."""
    for message in messages or ():
        if explicit_null(message, "subagent_run_id"):
            message_id = getattr(message, "id", None)
            raise EventSequenceError(
                f"Cannot send a message (id '{message_id}') with 'subagentRunId: null'. "
                "The field is optional — omit it entirely.",
                rule="N7",
                event_type=event_type,
                ids={"message_id": message_id},
            )


# Fields whose explicit null the verifier reports itself, with a rule code (N1, N2).
_VERIFIER_NULLS = frozenset(
    {
        "subagent_run_id",
        "description",
        "parent_subagent_run_id",
        "parent_tool_call_id",
        "parent_message_id",
        "outcome",
        "code",
    }
)
_SUBAGENT_TYPES = frozenset({"SUBAGENT_STARTED", "SUBAGENT_FINISHED", "SUBAGENT_ERROR"})


def _checked_fields(cls: type) -> frozenset[str]:
    """The fields of ``cls`` whose explicit null this check reports (optional, not the
    verifier's own)."""
    model_fields = getattr(cls, "model_fields", {})
    subagent = _event_type_of(cls) in _SUBAGENT_TYPES
    checked = frozenset(
        name
        for name, info in model_fields.items()
        if not info.is_required()
        and name not in ("type", "subagent_run_id")  # the type is never null
        and not (subagent and name in _VERIFIER_NULLS)
    )
    _CHECKED[cls] = checked
    return checked


def _event_type_of(cls: type) -> Optional[str]:
    field = getattr(cls, "model_fields", {}).get("type")
    default = getattr(field, "default", None)
    return None if default is None else str(getattr(default, "value", default))


_CHECKED: dict[type, frozenset[str]] = {}


def reject_optional_nulls(event: AnyEvent) -> None:
    """Reject ``null`` on an optional top-level field, as the TypeScript client's schemas do.

    Run it after ``CompatibilityTranslator`` (which turns the grandfathered legacy nulls into
    absent fields). Nulls the verifier reports with its own rule (``subagentRunId``; the
    optional fields of SUBAGENT_*) are left to it. Raises ``AGUIValidationError``.
    """
    cls = event.__class__
    checked = _CHECKED.get(cls)
    if checked is None:
        checked = _checked_fields(cls)
    fields_set = getattr(event, "__pydantic_fields_set__", None)
    if not fields_set or fields_set.isdisjoint(checked):
        return  # the common case: no optional field was given at all
    for name in fields_set & checked:
        if getattr(event, name, 0) is not None:
            continue
        info = cls.model_fields[name]
        wire = info.alias or name
        raise AGUIValidationError(
            f"{event_type_name(event)} event",
            [f'"{wire}": null is not allowed on an optional field; omit the field instead'],
        )
