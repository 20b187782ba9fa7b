"""The old name of a run's store key, ``run_id``, still accepted (deprecated) so that code
written against it keeps working: ``store.create(run_id=...)``, ``RunRecord(run_id=...)``,
``record.run_id``, ``error.run_id``.

The store always received the server's resume key there, never the client's ``runId``; the
parameter is now named ``key``. Each use of the old name warns once per call site
(``DeprecationWarning``).
"""

from __future__ import annotations

import functools
import inspect
import warnings
from collections.abc import Callable
from typing import Any

__all__ = ["KEYED_METHODS", "accept_old_key_keyword", "warn_renamed"]

KEYED_METHODS = (
    "create",
    "append",
    "append_many",
    "append_encoded",
    "finish",
    "get",
    "last_position",
    "read",
    "read_batches",
)
"""The ``RunStore`` methods whose first parameter is the run's key."""


_WRAPPERS: set[Callable[..., Any]] = set()
"""The wrappers made so far (a class body reusing a wrapped method does not wrap it twice)."""


def warn_renamed(old: str, new: str) -> None:
    warnings.warn(
        f"{old} is deprecated: the store's run key is named 'key' (it is the server's resume "
        f"key, not the client's runId); use {new}",
        DeprecationWarning,
        stacklevel=3,
    )


def accept_old_key_keyword(cls: type, names: tuple[str, ...]) -> None:
    """Let the methods ``names`` that ``cls`` itself defines with a ``key`` parameter also be
    called with ``run_id=`` (a method still naming it ``run_id`` takes it as it is)."""
    for name in names:
        method = cls.__dict__.get(name)
        if method is None or method in _WRAPPERS:
            continue
        if "key" in inspect.signature(method).parameters:
            setattr(cls, name, _taking_old_key_keyword(method))


def _taking_old_key_keyword(method: Callable[..., Any]) -> Callable[..., Any]:
    # A plain function around the method: it returns the coroutine (or async generator) the
    # method returns, so it serves both kinds; the calls the server makes are positional and
    # pay one dictionary check.
    @functools.wraps(method)
    def call(self: Any, *args: Any, **kwargs: Any) -> Any:
        if kwargs and "run_id" in kwargs:
            warn_renamed(f"{type(self).__name__}.{method.__name__}(run_id=...)", "key=...")
            kwargs["key"] = kwargs.pop("run_id")
        return method(self, *args, **kwargs)

    _WRAPPERS.add(call)
    return call
