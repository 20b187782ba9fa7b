"""Open JSON values <-> ``google.protobuf.Value`` / ``Struct`` (PROTOCOL.md §4.5).

Numbers travel as doubles, so an integral double within the JSON safe range decodes back to an
``int`` (``{"n": 5}`` stays ``5``, as in JavaScript). Encoding an integer outside ±(2^53-1)
raises instead of silently rounding it. NaN and infinities become ``null``, which is what the
SSE encoder writes for them, so both transports carry the same value.

With the compiled ``_speedups`` loaded, values of plain JSON types are written and read in one
C call each (``encode_value`` then one upb parse, ``decode_value`` of the serialized bytes)
instead of a Python->upb crossing per node, 20-40x faster for a state snapshot; anything else
(datetimes, models, integers outside the safe range, odd shapes) takes the walks below, which
are the reference and produce the errors. Struct entries are written in upb's deterministic
order either way, so both give the same bytes.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from pydantic_core import to_jsonable_python

from ag_ui.core._wire import MAX_SAFE_INTEGER
from ag_ui.core.errors import EncodingError
from ag_ui.proto._accelerator import speedups
from ag_ui.proto._value_bytes import Unreadable, read_struct, read_value

__all__ = [
    "MAX_SAFE_INTEGER",
    "WireProblem",
    "encoding_error",
    "fill_struct",
    "fill_value",
    "struct_to_dict",
    "value_to_python",
]

_UNREADABLE = object()  # what the compiled readers return for bytes they leave to the walk


class WireProblem(ValueError):
    """Decoded bytes that form no valid event: ``reason`` and the wire ``path`` where it was found.

    Path parts are prepended while the error unwinds, so building them costs nothing on success.
    """

    def __init__(self, reason: str, path: list[str] | None = None) -> None:
        self.reason = reason
        self.path: list[str] = path if path is not None else []
        super().__init__(reason)

    def at(self, part: str) -> WireProblem:
        self.path.insert(0, part)
        return self


class _EncodePathError(EncodingError):
    def __init__(self, reason: str, path: list[str]) -> None:
        self.reason = reason
        self.path = path
        super().__init__(reason)


def _raise_with_path(exc: _EncodePathError, key: str) -> None:
    exc.path.insert(0, key)
    raise exc


def fill_value(message: Any, obj: Any) -> None:
    """Set ``message`` (a ``google.protobuf.Value``) to the JSON value ``obj``."""
    if speedups is not None:
        data = speedups.encode_value(obj)
        if data is not None:
            message.MergeFromString(data)
            return
    _fill_value(message, obj)


def _fill_value(message: Any, obj: Any) -> None:
    if obj is None:
        message.null_value = 0
    elif obj is True or obj is False:
        message.bool_value = obj
    elif isinstance(obj, str):
        message.string_value = obj
    elif isinstance(obj, int):
        if not -MAX_SAFE_INTEGER <= obj <= MAX_SAFE_INTEGER:
            raise _EncodePathError(
                f"integer {obj} is outside ±(2^53-1): protobuf Values are doubles and would "
                "round it; send it as a string",
                [],
            )
        message.number_value = obj
    elif isinstance(obj, float):
        if math.isfinite(obj):
            message.number_value = obj
        else:
            message.null_value = 0
    elif isinstance(obj, Mapping):
        struct = message.struct_value
        struct.SetInParent()
        _fill_struct(struct, obj)
    elif isinstance(obj, (list, tuple)):
        values = message.list_value
        values.SetInParent()
        add = values.values.add
        for index, item in enumerate(obj):
            try:
                _fill_value(add(), item)
            except _EncodePathError as exc:
                _raise_with_path(exc, f"[{index}]")
    else:
        # Whatever pydantic's JSON serializer accepts (datetime, UUID, Enum, models...) is
        # encoded as the same JSON it would write over SSE.
        try:
            jsonable = to_jsonable_python(obj)
        except Exception as exc:
            reason = f"cannot encode {type(obj).__name__} as JSON: {exc}"
            raise _EncodePathError(reason, []) from None
        _fill_value(message, jsonable)


def fill_struct(struct: Any, obj: Mapping[Any, Any]) -> None:
    """Fill ``struct`` (a ``google.protobuf.Struct``) from a JSON object (an empty one sets
    nothing: callers that need the field present call ``SetInParent``)."""
    if speedups is not None:
        data = speedups.encode_struct(obj)
        if data is not None:
            if data:
                struct.MergeFromString(data)
            return
    _fill_struct(struct, obj)


def _fill_struct(struct: Any, obj: Mapping[Any, Any]) -> None:
    fields = struct.fields
    for key, item in obj.items():
        name = key if isinstance(key, str) else str(to_jsonable_python(key))
        try:
            _fill_value(fields[name], item)
        except _EncodePathError as exc:
            _raise_with_path(exc, f".{name}")


def encoding_error(exc: EncodingError, where: str) -> EncodingError:
    """Turn a path-carrying error from ``fill_value`` into one naming the wire field."""
    if isinstance(exc, _EncodePathError):
        return EncodingError(f"{where}{''.join(exc.path)}: {exc.reason}")
    return exc


def value_to_python(message: Any) -> Any:
    """The JSON value held by a ``google.protobuf.Value``."""
    kind = message.WhichOneof("kind")
    if kind == "struct_value" or kind == "list_value":
        # Containers: reading the re-serialized bytes beats a upb call per node (see
        # _value_bytes); the walk below stays the reference and the error path.
        data = message.SerializeToString()
        if speedups is not None:
            value = speedups.decode_value(data, _UNREADABLE)
            if value is not _UNREADABLE:
                return value
        try:
            return read_value(data)
        except Unreadable:
            pass
    return _walk_value(message, kind)


def _walk_value(message: Any, kind: Any) -> Any:
    if kind == "string_value":
        return message.string_value
    if kind == "number_value":
        number: float = message.number_value
        if number.is_integer() and -MAX_SAFE_INTEGER <= number <= MAX_SAFE_INTEGER:
            return int(number)
        return number
    if kind == "bool_value":
        return message.bool_value
    if kind == "struct_value":
        return _walk_struct(message.struct_value)
    if kind == "list_value":
        items = []
        for index, item in enumerate(message.list_value.values):
            try:
                items.append(_walk_value(item, item.WhichOneof("kind")))
            except WireProblem as exc:
                raise exc.at(f"[{index}]") from None
        return items
    if kind == "null_value":
        return None
    raise WireProblem("google.protobuf.Value has no kind set (an empty Value is not JSON)")


def struct_to_dict(struct: Any) -> dict[str, Any]:
    """The JSON object held by a ``google.protobuf.Struct``."""
    data = struct.SerializeToString()
    if speedups is not None:
        result: Any = speedups.decode_struct(data, _UNREADABLE)
        if result is not _UNREADABLE:
            decoded: dict[str, Any] = result
            return decoded
    try:
        return read_struct(data)
    except Unreadable:
        return _walk_struct(struct)


def _walk_struct(struct: Any) -> dict[str, Any]:
    result = {}
    for key, item in struct.fields.items():
        try:
            result[key] = _walk_value(item, item.WhichOneof("kind"))
        except WireProblem as exc:
            raise exc.at(f"[{key!r}]") from None
    return result
