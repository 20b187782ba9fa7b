"""A stored conversation's messages and state as JSON text, and read back without collector passes.

Writing (``messages_to_json``, ``state_to_json``): the wire JSON every store keeps. A string may
hold a lone UTF-16 surrogate (half an emoji cut by a provider, relayed by an agent); UTF-8 has
no form for it, so it is written as its ``\\uXXXX`` escape (``core/_surrogates``), which reads
back as the same string. A state that is not JSON is a ``ValueError`` naming the thread; a float
JSON has no form for (``nan``, ``inf``) is written as ``null``, as the encoder sends it to the
client (and ``JSON.stringify`` writes it), so the saved state is the one the client has.

Reading (``messages_from_json``): ``core/_surrogates.validate_wire_json``, so an escaped lone
surrogate reads back as the string that was saved and ``NaN``/``Infinity`` are refused;
``state_from_json`` reads the ``NaN`` an earlier release wrote into a state as ``null``.

Validating 10,000 messages allocates hundreds of thousands of objects, far more than a quarter
of a typical heap, so CPython's cyclic collector runs several young passes and, nearly every
time, one full pass in the middle of it (50-70 ms of a 90 ms load, benchmarks/README.md "Thread
stores"). What is allocated there is the new messages and pydantic's temporaries, and none of
it can be garbage in a cycle yet. So the collector is paused for the validation, and the plain
loaded models are then left out of it (``untrack_plain``, as the server does for a request's
messages): the passes neither fall inside the load nor come due because of it.

The pause is process-wide (``gc.disable``), counted so that overlapping loads in several threads
restore the collector only when the last one ends, and only if it was on before.
"""

from __future__ import annotations

import gc
import json
import math
import threading
from collections.abc import Sequence
from typing import Any, Union

from pydantic import TypeAdapter
from pydantic_core import PydanticSerializationError

from ag_ui.core._gc_tracking import untrack_plain
from ag_ui.core._surrogates import (
    escape_lone_surrogates,
    has_lone_surrogate,
    validate_wire_json,
)
from ag_ui.core.types import Message

__all__ = ["messages_from_json", "messages_to_json", "state_from_json", "state_to_json"]

_MESSAGES: TypeAdapter[list[Message]] = TypeAdapter(list[Message])
_pause = threading.Lock()
_depth = 0
_resume = False


def messages_from_json(data: Union[str, bytes]) -> list[Message]:
    """The messages of a JSON array of wire messages (``ValidationError`` if it is not one)."""
    global _depth, _resume
    with _pause:
        if _depth == 0:
            _resume = gc.isenabled()
            gc.disable()
        _depth += 1
    try:
        messages = validate_wire_json(_MESSAGES, data, "stored messages")
        untrack_plain(messages)
    finally:
        with _pause:
            _depth -= 1
            if _depth == 0 and _resume:
                gc.enable()
    return messages


def messages_to_json(messages: Sequence[Message]) -> bytes:
    """The wire JSON array of ``messages`` (camelCase, no nulls), UTF-8; a lone surrogate is
    written as its escape."""
    try:
        return _MESSAGES.dump_json(list(messages), by_alias=True, exclude_none=True)
    except PydanticSerializationError as error:
        # Only a string pydantic cannot write as UTF-8 lands here: the slow path, once.
        value = _MESSAGES.dump_python(list(messages), mode="json", by_alias=True, exclude_none=True)
        text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
        if not has_lone_surrogate(text):
            raise error from None
        return escape_lone_surrogates(text).encode()


def state_to_json(thread_id: str, state: Any) -> str:
    """The compact JSON text of a thread's state; ``ValueError`` naming the thread when the state
    is not JSON (a set, an object). A lone surrogate is written as its escape."""
    try:
        try:
            text = json.dumps(state, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
        except ValueError:
            # nan/inf somewhere (or a cycle, refused again below): written as the wire has it.
            text = json.dumps(
                _finite(state), ensure_ascii=False, separators=(",", ":"), allow_nan=False
            )
    except (TypeError, ValueError, RecursionError) as exc:
        raise ValueError(f"thread {thread_id!r}: the state is not JSON ({exc})") from exc
    return escape_lone_surrogates(text) if has_lone_surrogate(text) else text


def _finite(value: Any) -> Any:
    """A copy of the JSON-like ``value`` with each float JSON cannot write (nan, inf) as None."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(v) for v in value]
    return value


def _null_constant(name: str) -> None:
    return None


def state_from_json(text: Union[str, bytes]) -> Any:
    """A stored state. ``NaN``/``Infinity``, which releases before 2026-12 wrote for nan/inf,
    read as ``None``: the ``null`` the client was sent for them, so such a thread still loads."""
    return json.loads(text, parse_constant=_null_constant)
