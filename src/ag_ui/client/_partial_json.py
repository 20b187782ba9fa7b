"""Best-effort parse of a JSON prefix (streamed tool-call arguments), for subscriber hints."""

from __future__ import annotations

import json
from typing import Any

__all__ = ["parse_partial_object"]


def _close(prefix: str) -> str:
    stack: list[str] = []
    in_string = escaped = False
    for char in prefix:
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "{[":
            stack.append("}" if char == "{" else "]")
        elif char in "}]" and stack:
            stack.pop()
    text = prefix
    if in_string:
        text += "\\" if escaped else ""
        text = text[:-1] if escaped else text
        text += '"'
    text = text.rstrip()
    while text and text[-1] in ",:":
        text = text[:-1].rstrip()
    return text + "".join(reversed(stack))


def parse_partial_object(prefix: str) -> dict[str, Any]:
    """``{"a": 1, "b": "x`` -> ``{"a": 1, "b": "x"}``; anything unparseable -> ``{}``.

    A half-written key (``{"a": 1, "b``) cannot be repaired this simply and gives ``{}``.
    """
    for candidate in (prefix, _close(prefix)):
        try:
            value = json.loads(candidate)
        except ValueError:
            continue
        return value if isinstance(value, dict) else {}
    return {}
