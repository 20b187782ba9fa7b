"""Lone UTF-16 surrogates: written as JSON escapes, replaced where UTF-8 is required.

A Python ``str`` may hold a lone surrogate code point (``"\\ud83d"``): ``json.loads`` gives one
for the escape ``JSON.stringify`` writes when a string is cut inside an emoji, and an agent that
relays a provider's JSON passes it on. UTF-8 has no form for it, so pydantic refuses to write
it. This module is the one rule for every writer:

- JSON (SSE, stores, recordings) writes it as the escape it came as (``\\ud83d``), so a
  reader gets the same string back (and a JavaScript reader joins two halves into the emoji);
- protobuf, whose strings must be UTF-8, writes U+FFFD, as the TypeScript encoder does;
- the reducer joins the two halves of an emoji cut across two deltas (``join_text``), as
  concatenating JavaScript strings does.

Reading, the escape is legal JSON that pydantic's parser refuses: ``validate_wire_json`` (the
one reader of wire JSON into models, used by ``parse_event`` and the stores) reads such text as
``json.loads`` does. ``NaN``/``Infinity``/``-Infinity``, which pydantic's parser takes and JSON
(RFC 8259) does not, are refused by every reader with the one hint ``NOT_JSON_CONSTANTS``
(``refuse_non_json_constants`` before pydantic, ``refuse_constant`` in ``json.loads``).

The fallbacks run only after the fast serializer or parser refused a value: no cost on the
common path.
"""

from __future__ import annotations

import re
from typing import Any, TypeVar, Union, cast

from pydantic import BaseModel, TypeAdapter, ValidationError
from pydantic_core import PydanticSerializationError, from_json

from ag_ui.core.errors import MalformedJSONError

__all__ = [
    "NOT_JSON_CONSTANTS",
    "escape_lone_surrogates",
    "escaped_json",
    "has_lone_surrogate",
    "is_json_invalid",
    "join_text",
    "refuse_constant",
    "refuse_non_json_constants",
    "replace_lone_surrogates",
    "validate_wire_json",
    "wire_json",
]

_SURROGATE = re.compile("[\ud800-\udfff]")
_T = TypeVar("_T")

NOT_JSON_CONSTANTS = "NaN, Infinity and -Infinity are not JSON; send null or a string instead"
"""The hint added when a body holds one of the constants JavaScript and Python print for floats
that JSON (RFC 8259) cannot represent."""


def has_lone_surrogate(text: str) -> bool:
    """True when ``text`` holds a surrogate code point (which has no UTF-8 form)."""
    return _SURROGATE.search(text) is not None


def _escape(match: re.Match[str]) -> str:
    return f"\\u{ord(match.group()):04x}"


def escape_lone_surrogates(json_text: str) -> str:
    """JSON text (``json.dumps(..., ensure_ascii=False)``) with each surrogate code point
    written as its escape, so that it can be encoded as UTF-8 (printed, written to a file)."""
    return _SURROGATE.sub(_escape, json_text)


def wire_json(model: BaseModel) -> bytes:
    """Compact wire JSON of ``model`` (camelCase, its serialization rules); a lone surrogate
    is written as its ``\\uXXXX`` escape instead of failing."""
    serializer = model.__pydantic_serializer__
    try:
        return serializer.to_json(model, by_alias=True)
    except PydanticSerializationError as exc:
        return escaped_json(model, exc)


def escaped_json(model: BaseModel, error: PydanticSerializationError) -> bytes:
    """The fallback of ``wire_json`` once the fast serializer raised ``error``: the same JSON
    values, with surrogates escaped; ``error`` again when they were not the problem."""
    import json  # only here: the common path never needs it

    try:
        value = model.__pydantic_serializer__.to_python(model, by_alias=True, mode="json")
        text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    except (PydanticSerializationError, ValueError, TypeError):
        raise error from None
    if not has_lone_surrogate(text):
        raise error
    # Outside strings JSON holds only ASCII, so every surrogate found is inside a string.
    return _SURROGATE.sub(_escape, text).encode()


class _NotJSONConstant(ValueError):
    """What ``refuse_constant`` raises, so that a reader can tell it from other bad text."""


def refuse_constant(name: str) -> Any:
    """``parse_constant`` for ``json.loads``/``json.JSONDecoder``: ``NaN``, ``Infinity`` and
    ``-Infinity`` are not JSON (RFC 8259), though Python's parser takes them by default."""
    raise _NotJSONConstant(f"{name} is not a JSON value ({NOT_JSON_CONSTANTS})")


def refuse_non_json_constants(text: Union[str, bytes, bytearray], what: str) -> None:
    """Raise ``MalformedJSONError`` (about ``what``) if ``text`` uses ``NaN``, ``Infinity`` or
    ``-Infinity`` as a value, which pydantic-core's parser accepts and JSON does not (the
    TypeScript client's ``JSON.parse`` refuses them too).

    Only text that contains those words at all (in a string, say) is parsed a second time, by
    the strict parser; the search itself costs about a millisecond for 10 MiB.
    """
    if isinstance(text, str):
        suspicious = "NaN" in text or "Infinity" in text
    else:
        suspicious = b"NaN" in text or b"Infinity" in text
    if not suspicious:
        return
    try:
        from_json(text, allow_inf_nan=False)
    except ValueError as exc:
        try:
            from_json(text)  # pydantic-core's default: the constants allowed
        except ValueError:
            # Not JSON for pydantic-core for another reason as well (a lone surrogate escape,
            # say): ``validate_wire_json``'s fallback reads it with ``refuse_constant``.
            return
        raise MalformedJSONError(what, f"{exc} ({NOT_JSON_CONSTANTS})") from None


def is_json_invalid(exc: ValidationError) -> bool:
    """True when pydantic refused the text itself (not JSON, or a lone surrogate escape), not
    the value it holds."""
    return any(e["type"] == "json_invalid" for e in exc.errors())


def validate_wire_json(
    adapter: TypeAdapter[_T], data: Union[str, bytes, bytearray], what: str = "JSON"
) -> _T:
    """``adapter``'s value of the wire JSON ``data``; pydantic's ``ValidationError`` when it is
    not one (``is_json_invalid`` tells text that is not JSON), ``MalformedJSONError`` about
    ``what`` when it uses ``NaN``, ``Infinity`` or ``-Infinity`` as a value.

    A lone surrogate escape, which pydantic's parser refuses, is read as ``json.loads`` reads
    it: a ``str`` holding that code point, the string ``wire_json`` wrote. Other text that
    ``json.loads`` refuses too keeps pydantic's error."""
    refuse_non_json_constants(data, what)
    validator = adapter.validator
    try:
        return cast(_T, validator.validate_json(data))
    except ValidationError as exc:
        python = _with_lone_surrogates(data, what) if is_json_invalid(exc) else None
        if python is None:
            raise
    # Not raised inside the handler: a validation error of the value must not chain the parse
    # error.
    return cast(_T, validator.validate_python(python))


def _with_lone_surrogates(data: Union[str, bytes, bytearray], what: str) -> Any:
    """The JSON value of ``data`` as ``json.loads`` reads it, or ``None`` when it is not JSON
    for another reason; ``MalformedJSONError`` for ``NaN``/``Infinity`` beside a lone surrogate
    escape (the strict pre-check could not tell, pydantic-core refusing the escape)."""
    import json  # only here: the common path never needs it

    try:
        return json.loads(data, parse_constant=refuse_constant)
    except _NotJSONConstant as exc:
        raise MalformedJSONError(what, str(exc)) from None
    except (ValueError, UnicodeDecodeError, RecursionError):
        return None


def replace_lone_surrogates(value: Any) -> Any:
    """A copy of ``value`` (JSON-like: dicts, lists, strings) with each surrogate code point
    replaced by U+FFFD."""
    if isinstance(value, str):
        return _SURROGATE.sub("\ufffd", value)
    if isinstance(value, dict):
        return {replace_lone_surrogates(k): replace_lone_surrogates(v) for k, v in value.items()}
    if isinstance(value, list):
        return [replace_lone_surrogates(v) for v in value]
    return value


def join_text(head: str, tail: str) -> str:
    """``head + tail``, with a high surrogate ending ``head`` and a low one starting ``tail``
    joined into the one code point they encode (a JavaScript string is UTF-16: there the two
    halves of a cut emoji simply meet again)."""
    if head and tail and "\udc00" <= tail[0] <= "\udfff" and "\ud800" <= head[-1] <= "\udbff":
        joined = 0x10000 + ((ord(head[-1]) - 0xD800) << 10) + (ord(tail[0]) - 0xDC00)
        return head[:-1] + chr(joined) + tail[1:]
    return head + tail
