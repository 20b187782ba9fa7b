"""Turn pydantic validation errors into one readable line per problem, in wire terms.

Pydantic reports union branches and discriminator tags as path segments
(``('messages', 0, 'user', 'id')``); readers of a protocol error want the wire path instead:
``messages[0] (role "user"): missing required field "id"``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from pydantic import ValidationError
from pydantic.alias_generators import to_snake
from pydantic_core import ErrorDetails

__all__ = ["describe_errors", "readable_problems"]

_DISCRIMINATORS = ("type", "role", "op")
_UNION_BRANCH_TYPES: dict[str, type | tuple[type, ...]] = {
    "str": str,
    "list": list,
    "dict": dict,
    "int": int,
    "bool": bool,
    "float": (int, float),
}


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _branch_kind(segment: str) -> str | None:
    """The JSON kind a union-branch segment like ``list[...]`` stands for, if it is one."""
    head = segment.split("[", 1)[0]
    return head if head in _UNION_BRANCH_TYPES and (head == segment or "[" in segment) else None


def _walk(error: ErrorDetails, data: Any) -> tuple[str, str | None, bool]:
    """Render the error's location as a wire path.

    Returns (path of the parent, last key or None, whether the error came from a union branch
    that does not match the input's JSON kind and so is noise).
    """
    path = ""
    current: Any = data
    loc = list(error["loc"])
    last: str | None = None
    irrelevant = False
    tagged = False  # a dict's discriminator tag appears at most once in a location
    for index, segment in enumerate(loc):
        is_last = index == len(loc) - 1
        if isinstance(segment, int):
            path += f"[{segment}]"
            # Any sequence but text: a caller validating a long list in slices passes a view of
            # one slice at its place in the whole list.
            in_range = (
                isinstance(current, Sequence)
                and not isinstance(current, (str, bytes))
                and -len(current) <= segment < len(current)
            )
            current = current[segment] if in_range else None
            tagged = False
            continue
        if isinstance(current, dict):
            if segment in current or to_snake(segment) in current:
                if is_last:
                    last = segment
                    break
                path += f".{segment}" if path else segment
                current = current.get(segment, current.get(to_snake(segment)))
                tagged = False
                continue
            tag_key = next((key for key in _DISCRIMINATORS if current.get(key) == segment), None)
            if tag_key is not None and not tagged:
                tagged = True
                # At the root the caller already names the object ("invalid RUN_STARTED event").
                if path:
                    path += f' ({tag_key} "{segment}")'
                continue
        kind = _branch_kind(segment)
        if kind is not None:
            if not isinstance(current, _UNION_BRANCH_TYPES[kind]) or (
                kind == "int" and isinstance(current, bool)
            ):
                irrelevant = True
            continue
        if is_last:
            last = segment
            break
        path += f".{segment}" if path else segment
        current = None
    return path.strip(), last, irrelevant


def _describe(error: ErrorDetails, data: Any) -> tuple[str, bool]:
    parent, last, irrelevant = _walk(error, data)
    kind = error["type"]
    prefix = f"{parent}: " if parent else ""
    ctx = error.get("ctx") or {}
    if kind == "missing" and last is not None:
        return f'{prefix}missing required field "{last}"', irrelevant
    full = f"{parent}.{last}" if parent and last else (last or parent)
    full_prefix = f"{full}: " if full else ""
    if kind == "union_tag_invalid":
        key = str(ctx.get("discriminator", "type")).strip("'")
        expected = ctx.get("expected_tags", "")
        return f'{full_prefix}unknown {key} "{ctx.get("tag")}" (expected one of {expected})', False
    if kind == "union_tag_not_found":
        # A callable discriminator (the open outcome unions) is named "type()".
        key = str(ctx.get("discriminator", "type")).strip("'").removesuffix("()")
        if not isinstance(error["input"], dict):
            # Not an object at all (e.g. an outcome sent as an array): say so, in the words
            # the TypeScript schema uses, rather than "missing type".
            got = "array" if isinstance(error["input"], list) else type(error["input"]).__name__
            return f"{full_prefix}expected object, received {got}", False
        return f'{full_prefix}missing required field "{key}"', False
    if kind in ("model_type", "model_attributes_type", "dict_type"):
        return f"{full_prefix}expected a JSON object, got {_short(error['input'])}", irrelevant
    return f"{full_prefix}{error['msg']} (got {_short(error['input'])})", irrelevant


def readable_problems(exc: ValidationError, data: Any) -> list[str]:
    """One line per problem, without the noise of union branches that do not apply.

    When every branch of a union failed because the value has the wrong JSON kind (``content``
    is a number), one line says so for that path.
    """
    return describe_errors(exc.errors(include_url=False), data)


def describe_errors(errors: Iterable[ErrorDetails], data: Any) -> list[str]:
    """``readable_problems`` for pydantic's error details themselves (e.g. with their
    locations moved: a list validated in slices reports each slice's errors at its place)."""
    lines: list[str] = []
    wrong_kind_paths: dict[str, Any] = {}
    for error in errors:
        line, irrelevant = _describe(error, data)
        if irrelevant:
            parent, last, _ = _walk(error, data)
            path = f"{parent}.{last}" if parent and last else (last or parent)
            wrong_kind_paths.setdefault(path, error["input"])
        elif line not in lines:
            lines.append(line)
    for path, value in wrong_kind_paths.items():
        if not any(line.startswith(path) for line in lines if path):
            lines.append(f"{path}: has the wrong type (got {_short(value)})")
    return lines
