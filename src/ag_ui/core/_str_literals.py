"""A model serializer that writes ``Literal[EventType.X]`` fields through the plain ``str`` path.

pydantic-core serializes ``Literal[EventType.X]`` through a slow Python-level enum path (measured
1.1 µs of a 1.7 µs event). The output is the same string either way, because ``EventType`` is a
``str`` enum whose members are their values. Validation keeps the exact schema (enum members on
input); only the serializer is compiled from a copy where those literals are ``{"type": "str"}``.

The copy covers the model's own fields only. A nested complete model is compiled by
pydantic-core from its class's own serializer (already fast when it is an ``AGUIModel``), so
walking into it would be wasted work (it was 5 ms of the import). A model without such a
literal keeps the serializer pydantic built: no second compile.
"""

from __future__ import annotations

from enum import Enum
from typing import Any

from pydantic import BaseModel
from pydantic_core import SchemaSerializer

__all__ = ["compile_str_literal_serializer", "enum_literals_as_str"]

_UNCHANGED: Any = object()


def _is_str_enum_literal(schema: dict[str, Any]) -> bool:
    expected: list[Any] = schema.get("expected") or []
    return bool(expected) and all(isinstance(v, str) and isinstance(v, Enum) for v in expected)


def _rewrite(schema: Any, owner: type[BaseModel]) -> Any:
    # Returns _UNCHANGED when nothing below ``schema`` changed, so unchanged subtrees are shared
    # rather than copied. Only dicts and lists are visited: leaves cannot hold a literal schema.
    if isinstance(schema, dict):
        kind = schema.get("type")
        if kind == "literal":
            return {"type": "str"} if _is_str_enum_literal(schema) else _UNCHANGED
        if kind == "model" and schema.get("cls") is not owner:
            return _UNCHANGED  # another model: pydantic-core reuses that class's serializer
        copy: dict[str, Any] | None = None
        for key, value in schema.items():
            if not isinstance(value, (dict, list)):
                continue
            new = _rewrite(value, owner)
            if new is not _UNCHANGED:
                if copy is None:
                    copy = dict(schema)
                copy[key] = new
        return _UNCHANGED if copy is None else copy
    items: list[Any] | None = None
    for index, item in enumerate(schema):
        if not isinstance(item, (dict, list)):
            continue
        new = _rewrite(item, owner)
        if new is not _UNCHANGED:
            if items is None:
                items = list(schema)
            items[index] = new
    return _UNCHANGED if items is None else items


def enum_literals_as_str(schema: Any, owner: type[BaseModel]) -> Any | None:
    """Copy of ``owner``'s core schema with ``str``-enum literals as ``str``; ``None`` if none."""
    rewritten = _rewrite(schema, owner)
    return None if rewritten is _UNCHANGED else rewritten


def compile_str_literal_serializer(cls: type[BaseModel]) -> None:
    """Replace a complete model's serializer with the ``str``-literal one, if it has any."""
    fast_schema = enum_literals_as_str(cls.__pydantic_core_schema__, cls)
    if fast_schema is None:
        return
    # pydantic-core reuses a complete class's own serializer for its "model" schema; mark the
    # class incomplete while compiling so the new schema is really used.
    cls.__pydantic_complete__ = False
    try:
        serializer = SchemaSerializer(fast_schema)
    finally:
        cls.__pydantic_complete__ = True
    cls.__pydantic_serializer__ = serializer
