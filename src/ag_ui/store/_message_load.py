"""A stored conversation's messages read back from their wire JSON, without collector passes.

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
import threading
from typing import Union

from pydantic import TypeAdapter

from ag_ui.core._gc_tracking import untrack_plain
from ag_ui.core.types import Message

__all__ = ["messages_from_json"]

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
        messages = _MESSAGES.validate_json(data)
        untrack_plain(messages)
    finally:
        with _pause:
            _depth -= 1
            if _depth == 0 and _resume:
                gc.enable()
    return messages
