"""The compiled SSE/JSON fast paths of the flat events (``_json_speedups``, from ``_c/``).

``write_sse_text`` / ``write_sse_bytes`` / ``write_json`` give an event's wire JSON (framed as
one ``data:`` frame for the first two) and ``read`` builds an event from wire JSON, without
going through pydantic-core; each returns ``None`` for what it does not handle, and the caller
takes pydantic's path, which stays the reference (and gives the errors). Handled: the exact
classes of the ``Event`` union whose fields are strings (``Literal`` sets checked), the
timestamp, bools, open JSON (plain dicts, lists, str, int, float, bool, None) and, for writing,
JSON Patch operations; fields of other types only while they are ``None``. Tests compare both
paths byte for byte and event for event (tests/core/test_json_speedups.py).

Why: pydantic-core's ``to_json`` costs 0.7 µs of an SSE frame's 1.1 µs, and a discriminated
``validate_json`` 1.3 µs of a small event's decode; the compiled paths are 0.1-0.3 µs
(benchmarks/README.md, "Core").

A read event is built without re-running pydantic's validation, as ``model_construct`` leaves
a model: what pydantic would check (the types, the ``Literal`` sets, the timestamp's range,
required fields, duplicate keys) is checked in C, and anything else goes to pydantic.

The plans are built when this module is imported (about 3 ms): by ``ag_ui.encoder``, and by
``parse_event`` on its first call, so ``import ag_ui.core`` does not pay for them. Without a C
compiler at install time, or with ``AG_UI_PURE_PYTHON=1``, every function returns ``None``.
"""

from __future__ import annotations

import typing
from typing import TYPE_CHECKING, Any, Callable, Optional, Union

from pydantic import BaseModel

from ag_ui.core._compiled import load_compiled
from ag_ui.core._omission import omit_if_none
from ag_ui.core._wire import MAX_SAFE_INTEGER

if TYPE_CHECKING:
    from ag_ui.core.events import Event

__all__ = ["IMPLEMENTATION", "read", "write_json", "write_sse_bytes", "write_sse_text"]

# Field kinds, as _c/json_speedups.c numbers them (enum Kind).
_STR, _INT, _ANY, _DICT, _BOOL, _PATCH, _OTHER = 1, 2, 3, 4, 5, 6, 7
_NONE_TYPE = type(None)


def _none(_: object) -> None:
    return None


def _optional_inner(annotation: Any) -> tuple[Any, bool]:
    """(the annotation without ``None``, whether it admits ``None``)."""
    if annotation is Any:
        return Any, True
    if typing.get_origin(annotation) is typing.Union:
        args = [arg for arg in typing.get_args(annotation) if arg is not _NONE_TYPE]
        nullable = len(args) < len(typing.get_args(annotation))
        if len(args) == 1:
            return args[0], nullable
        return typing.Union[tuple(args)], nullable
    return annotation, False


def _kind(name: str, annotation: Any, metadata: list[Any]) -> tuple[int, Optional[frozenset[str]]]:
    from ag_ui.core.events import BaseEvent, PatchOperations

    # pydantic keeps Annotated's metadata apart: PatchOperations is List[Any] + its validator.
    if [annotation, *metadata] == list(typing.get_args(PatchOperations)):
        return _PATCH, None
    if name == "timestamp" and annotation == BaseEvent.model_fields["timestamp"].annotation:
        # Optional[Annotated[int, Field(ge=-MAX_SAFE_INTEGER, le=MAX_SAFE_INTEGER)]]: the range
        # is checked in C against the same bound.
        assert MAX_SAFE_INTEGER == 9007199254740991
        return _INT, None
    inner, _ = _optional_inner(annotation)
    if metadata:
        return _OTHER, None
    if inner is str:
        return _STR, None
    if inner is Any:
        return _ANY, None
    if inner is bool:
        return _BOOL, None
    if typing.get_origin(inner) is typing.Literal:
        values = typing.get_args(inner)
        if all(type(value) is str for value in values):
            return _STR, frozenset(values)
        return _OTHER, None
    if typing.get_origin(inner) is dict and typing.get_args(inner) == (str, Any):
        return _DICT, None
    if typing.get_origin(inner) is typing.Union and str in typing.get_args(inner):
        # ToolCallResultEvent.content: str or content parts; the fast paths take the str.
        return _STR, None
    return _OTHER, None


def _plan(cls: type[BaseModel]) -> Optional[tuple[Any, ...]]:
    """The ``register`` arguments of ``cls``, or None when the fast paths cannot carry it."""
    decorators = cls.__pydantic_decorators__
    if (
        decorators.field_validators
        or decorators.model_validators
        or decorators.field_serializers
        or decorators.model_serializers
        or decorators.validators
        or decorators.root_validators
        or cls.__pydantic_post_init__ is not None
        or cls.model_config.get("extra") != "allow"
        or cls.__private_attributes__
    ):
        return None
    fields = list(cls.model_fields.items())
    if not fields or fields[0][0] != "type":
        return None
    type_info = fields[0][1]
    member = type_info.default
    if typing.get_args(type_info.annotation) != (member,):
        return None
    planned = []
    decodable = True
    for name, info in fields[1:]:
        alias = info.serialization_alias or info.alias or name
        if (info.validation_alias not in (None, alias)) or info.exclude or info.default_factory:
            return None
        if info.exclude_if not in (None, omit_if_none):
            return None
        kind, allowed = _kind(name, info.annotation, info.metadata)
        _, nullable = _optional_inner(info.annotation)
        required = info.is_required()
        default = None if required else info.default
        if default is not None:
            return None  # only None defaults: a read event shares the default object
        if kind in (_PATCH, _OTHER):
            # Read only while absent; a required one always arrives, so pydantic reads those.
            decodable = decodable and not required
        planned.append(
            (
                name,
                b',"' + alias.encode() + b'":',
                alias.encode(),
                name.encode(),
                kind,
                info.exclude_if is omit_if_none,
                nullable,
                required,
                allowed,
                default,
            )
        )
    name = member.value
    prefix = b'{"type":"' + name.encode() + b'"'
    return cls, member, name.encode(), prefix, decodable, tuple(planned)


_speedups: Any = load_compiled("ag_ui.core._json_speedups")

IMPLEMENTATION = "python" if _speedups is None else "c"
"""Which paths run: ``"c"`` (the compiled ``_json_speedups``) or ``"python"`` (pydantic's only)."""

write_sse_text: Callable[[Any], Optional[str]] = _none
write_sse_bytes: Callable[[Any], Optional[bytes]] = _none
write_json: Callable[[Any], Optional[bytes]] = _none
read: Callable[[Union[str, bytes]], Optional[Event]] = _none


def ensure() -> None:
    """Register the plans (once) and bind the compiled functions to this module's names."""
    global write_sse_text, write_sse_bytes, write_json, read
    if _speedups is None or write_sse_text is not _none:
        return
    from ag_ui.core.events import Event

    slots = BaseModel.__dict__
    _speedups.configure(
        slots["__dict__"],
        slots["__pydantic_fields_set__"],
        slots["__pydantic_extra__"],
        slots["__pydantic_private__"],
    )
    for cls in typing.get_args(typing.get_args(Event)[0]):
        plan = _plan(cls)
        if plan is not None:
            _speedups.register(*plan)
    write_sse_text = _speedups.sse_text
    write_sse_bytes = _speedups.sse_bytes
    write_json = _speedups.json
    read = _speedups.read


ensure()
