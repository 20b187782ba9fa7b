"""Plain parsed models left out of CPython's cyclic garbage collector, until they stop being plain.

A full collection stops the whole process while it visits every object the collector tracks,
and each object it visits touches the ones it refers to. A 150,000-message request body is
150,000 models, each with its dict, its fields-set and its extras dict: about 70 ms per full pass
on the machine the benchmark ran on, and the passes fall while the request is alive, stalling
every other stream of the worker (``benchmarks/bench_big_body.py``).

What the collector looks for is reference cycles, and a model whose fields hold only strings,
numbers, booleans and ``None`` can be in none: nothing it refers to can refer back. CPython
itself untracks dicts and tuples for the same reason. So ``untrack_plain`` takes such models,
and the fields-set of every model (it only ever holds field names), out of the collector's
lists. The pass over a 150,000-message body then takes about 20 ms. A model with a list, a dict or
another model in it stays tracked (its plain parts are untracked).

A plain model stops being plain when something else is put in it. An attribute assignment
(``message.metadata = {...}``, also for an extra field) goes through ``AGUIModel.__setattr__``,
which tracks the model again (``track_again``). What bypasses it, writing into
``model.__dict__`` or into ``model.__pydantic_extra__`` directly, can make a cycle the collector
does not see: such a cycle is freed only when one of its references is removed.

CPython with its GIL only (``PyObject_GC_UnTrack``/``PyObject_GC_Track`` through ctypes, which
need the GIL, and ``gc.is_tracked`` to never track an object twice). Other interpreters and
free-threaded builds keep every object as it is.
"""

from __future__ import annotations

import gc
import sys
import sysconfig
import threading
from collections.abc import Callable, Iterable
from typing import Any, Optional

from pydantic import BaseModel

__all__ = ["PLAIN_TYPES", "track_again", "untrack_plain"]

PLAIN_TYPES = frozenset({str, int, float, bool, type(None)})
"""Values that refer to nothing (checked by exact type: a subclass could hold anything)."""

_GcCall = Callable[[Any], None]


def _bind() -> tuple[Optional[_GcCall], Optional[_GcCall]]:
    if sys.implementation.name != "cpython" or sysconfig.get_config_var("Py_GIL_DISABLED"):
        return None, None
    try:
        import ctypes

        untrack, track = ctypes.pythonapi.PyObject_GC_UnTrack, ctypes.pythonapi.PyObject_GC_Track
    except (ImportError, AttributeError):  # a CPython built without ctypes
        return None, None
    for function in (untrack, track):
        function.argtypes = [ctypes.py_object]
        function.restype = None
    return untrack, track


_untrack, _track = _bind()


def untrack_plain(models: Iterable[Any]) -> None:
    """Untrack the fields-set of each model in ``models`` and of the models nested in their
    fields (directly or in lists: tool calls, content parts), and each of those models whose
    fields and extras are all plain values."""
    untrack = _untrack
    if untrack is None:
        return
    for model in models:
        if isinstance(model, BaseModel):
            _untrack_model(model, untrack)


def _untrack_model(model: BaseModel, untrack: _GcCall) -> None:
    untrack(model.__pydantic_fields_set__)
    plain = True
    for field in model.__dict__.values():
        if type(field) not in PLAIN_TYPES:
            plain = False
            _untrack_nested(field, untrack)
    extra = model.__pydantic_extra__
    if extra and any(type(value) not in PLAIN_TYPES for value in extra.values()):
        plain = False
    if plain and model.__pydantic_private__ is None:
        untrack(model)


def _untrack_nested(value: Any, untrack: _GcCall) -> None:
    if isinstance(value, BaseModel):
        _untrack_model(value, untrack)
    elif type(value) is list:
        for item in value:
            if type(item) not in PLAIN_TYPES:
                _untrack_nested(item, untrack)


_tracking = threading.Lock()
"""Makes "is it tracked? then track it" one step: tracking an object twice aborts the process,
and two threads could otherwise both see the model untracked."""


def track_again(model: BaseModel) -> None:
    """Give ``model`` back to the collector if ``untrack_plain`` took it (something that is not
    a plain value was just put in it)."""
    if _track is None or gc.is_tracked(model):
        return  # the common case: no lock
    with _tracking:
        if not gc.is_tracked(model):
            _track(model)
