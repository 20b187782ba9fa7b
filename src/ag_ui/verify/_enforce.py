"""Enforcement: what a consumer removes or refuses before it uses a received event (1.1).

``ag_ui.core`` models keep what they do not describe (extra properties, outcome and content
part members of a newer protocol) so that a value read and written again is unchanged, which
drop-in users of the models rely on. A *consumer* of a stream (``HttpAgent``, ``agui verify``,
``EventPipeline``) must not act on material it does not recognise, so this stage, as
``@ag-ui/client``'s enforcement does:

* strips each undescribed property and each unrecognised member of an open union (a
  ``RUN_FINISHED``/``SUBAGENT_FINISHED`` outcome, a user message's content part) with one
  ``UnrecognisedMaterialWarning`` per event naming the removed paths (JSON Pointers into the
  event's wire form, e.g. ``/futureProp``, ``/messages/0/content/1``);
* refuses a JSON Patch operation whose ``path`` (or ``from``) is not a JSON Pointer
  (``AGUIValidationError``), as the TypeScript schema does.

Objects the protocol leaves open (``metadata``, state, activity content, ``RAW``/``CUSTOM``
payloads, tool arguments, JSON Patch operations' other members) are JSON values rather than
models here, so nothing inside them is ever stripped.
"""

from __future__ import annotations

import json
import re
import warnings
from typing import Any, cast, get_args

from pydantic import BaseModel

from ag_ui.core._surrogates import wire_json
from ag_ui.core.decoding import parse_any_event
from ag_ui.core.errors import AGUIValidationError
from ag_ui.core.events import ActivityDeltaEvent, Event, StateDeltaEvent
from ag_ui.core.outcomes import UnknownOutcome
from ag_ui.core.types import UnknownPart

__all__ = ["UnrecognisedMaterialWarning", "enforce", "unrecognised_paths"]

_POINTER = re.compile(r"(/([^/~]|~[01])*)*")
"""RFC 6901, the pattern of the 1.1 schema: ``^(/([^/~]|~[01])*)*$``."""


_PATCH_EVENTS = (StateDeltaEvent, ActivityDeltaEvent)


class UnrecognisedMaterialWarning(UserWarning):
    """Material a received event carried that this SDK does not recognise was removed."""


_MODEL_FIELDS: dict[type, tuple[str, ...]] = {}
"""Per model class, the fields whose annotation can hold a model (the others are scalars or
open JSON): the only ones the per-event check has to look into."""


def _mentions_model(annotation: Any) -> bool:
    if isinstance(annotation, type):
        return issubclass(annotation, BaseModel)
    return any(_mentions_model(arg) for arg in get_args(annotation))


def _fields_to_walk(cls: type) -> tuple[str, ...]:
    try:
        return _MODEL_FIELDS[cls]
    except KeyError:
        fields = cls.__pydantic_fields__  # type: ignore[attr-defined]
        names = tuple(n for n, info in fields.items() if _mentions_model(info.annotation))
        _MODEL_FIELDS[cls] = names
        return names


_FLAT: dict[type, bool] = {}
"""Per event class: nothing but its own extra properties can need enforcing (no field that
can hold a model, not a JSON Patch event), so one look at ``__pydantic_extra__`` decides."""


def _is_flat(cls: type) -> bool:
    flat = _FLAT[cls] = not issubclass(cls, _PATCH_EVENTS) and not _fields_to_walk(cls)
    return flat


def _holds_unrecognised(model: BaseModel) -> bool:
    """The check run on every event (no paths built): does anything need stripping?"""
    if model.__pydantic_extra__ or isinstance(model, (UnknownOutcome, UnknownPart)):
        return True
    for name in _fields_to_walk(type(model)):
        value = getattr(model, name, None)
        if isinstance(value, BaseModel):
            if _holds_unrecognised(value):
                return True
        elif isinstance(value, (list, tuple)):
            for item in value:
                if isinstance(item, BaseModel) and _holds_unrecognised(item):
                    return True
    return False


def unrecognised_paths(model: BaseModel, path: str = "") -> list[str]:
    """Wire paths (JSON Pointers) of what ``model`` holds that the protocol does not describe."""
    found = [f"{path}/{_escape(key)}" for key in (model.model_extra or {})]
    fields = type(model).__pydantic_fields__
    for name in model.__pydantic_fields_set__:
        info = fields.get(name)
        if info is None:
            continue
        where = f"{path}/{_escape(info.alias or name)}"
        found.extend(_value_paths(getattr(model, name), where))
    return found


def _value_paths(value: Any, where: str) -> list[str]:
    if isinstance(value, (UnknownOutcome, UnknownPart)):
        return [where]
    if isinstance(value, BaseModel):
        return unrecognised_paths(value, where)
    if isinstance(value, (list, tuple)):
        found: list[str] = []
        for index, item in enumerate(value):
            if isinstance(item, BaseModel):
                found.extend(_value_paths(item, f"{where}/{index}"))
        return found
    return []


def _escape(key: str) -> str:
    return key.replace("~", "~0").replace("/", "~1")


def _remove(document: Any, paths: list[str]) -> None:
    """Remove each path from the wire JSON; list elements last index first, so that the
    earlier indexes a path names still point where they did."""
    for pointer in sorted(paths, key=_sort_key, reverse=True):
        *parents, last = [
            part.replace("~1", "/").replace("~0", "~") for part in pointer.split("/")[1:]
        ]
        target = document
        for part in parents:
            target = target[int(part)] if isinstance(target, list) else target[part]
        if isinstance(target, list):
            del target[int(last)]
        else:
            target.pop(last, None)


def _sort_key(pointer: str) -> tuple[tuple[int, Any], ...]:
    return tuple((0, int(part)) if part.isdigit() else (1, part) for part in pointer.split("/")[1:])


def _check_pointers(event: Event) -> None:
    if not isinstance(event, _PATCH_EVENTS):
        return
    if isinstance(event, StateDeltaEvent):
        field, operations = "delta", event.delta
    elif isinstance(event, ActivityDeltaEvent):
        field, operations = "patch", event.patch
    else:
        return
    problems = []
    for index, operation in enumerate(operations):
        for member in ("path", "from"):
            pointer = operation.get(member) if isinstance(operation, dict) else None
            if isinstance(pointer, str) and not _POINTER.fullmatch(pointer):
                problems.append(
                    f"{field}[{index}].{member}: {pointer!r} is not a JSON Pointer (RFC 6901: "
                    "empty, or each token starts with '/' and '~' is written '~0' or '~1')"
                )
    if problems:
        raise AGUIValidationError(f"{event.type.value} event", problems)


def enforce(event: Event, *, stacklevel: int = 2) -> Event:
    """``event`` without unrecognised material (warned about), or ``event`` itself when it
    has none (the common case costs one walk). Raises ``AGUIValidationError`` for a JSON
    Patch path that is not a JSON Pointer."""
    # The common case, decided in one dictionary look-up (this runs once per received event):
    # a text delta and its like carry nothing that could hide unrecognised material.
    flat = _FLAT.get(event.__class__)
    if flat is None:
        flat = _is_flat(event.__class__)
    if flat and not event.__pydantic_extra__:
        return event
    _check_pointers(event)
    if not _holds_unrecognised(event):
        return event
    paths = unrecognised_paths(event)
    document = json.loads(wire_json(event))
    _remove(document, paths)
    warnings.warn(
        f"Removed unrecognised material from {event.type.value}: {', '.join(paths)} "
        "(not described by the protocol version this SDK speaks)",
        UnrecognisedMaterialWarning,
        stacklevel=stacklevel + 1,
    )
    # The event was a 1.0 event and removing members keeps it one (never a legacy shape).
    return cast(Event, parse_any_event(document))
